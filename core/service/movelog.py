"""Compact encoding of the committed-move log (it is kept for every live game).

A log entry is ``{"seat", "move", "v"}`` or ``{"timeout": true, "v"}`` in memory; in the
store it is a JSON array: ``[v]`` for a timeout, ``[v, seat, code, *fields]`` for a move
whose fields are exactly those API.md lists for its type (in that order; ``code`` is the
type's number in ``TYPES``, booleans are 0/1), and ``[v, seat, {move}]`` for anything else,
so no move is ever lost to the codec. About 20 B per move: the log is most of a long
game's Redis bytes (docs/benchmarks/store.md).

Entries written before the numeric codes (``[v, seat, "type", *fields]``, booleans as
JSON booleans) still decode: archived logs are kept for months.
"""

from __future__ import annotations

import json
from typing import Any

from core import engine

# Each engine move type's fields, in API.md's order, and its stored number: its position in
# TYPES, the number its declaration gives it (append only: core/engine/registry.py;
# tests/core/engine/test_engine_registry.py pins them).
FIELDS: dict[str, tuple[str, ...]] = {s.type: s.field_names for s in engine.MOVE_SPECS}
TYPES: tuple[str, ...] = tuple(FIELDS)
TYPE_NO = {t: i for i, t in enumerate(TYPES)}
BOOL_FIELDS = frozenset(
    name for s in engine.MOVE_SPECS for name, kind in s.fields if kind is engine.FieldKind.BOOL
)


def encode(entry: dict[str, Any]) -> str:
    version = entry["v"]
    if entry.get("timeout"):
        row: list[object] = [version]
    else:
        move = entry["move"]
        kind = move.get("type")
        fields = FIELDS.get(kind) if isinstance(kind, str) else None
        if fields is not None and set(move) == {"type", *fields} and _plain(move, fields):
            values = [int(move[f]) if f in BOOL_FIELDS else move[f] for f in fields]
            row = [version, entry["seat"], TYPE_NO[move["type"]], *values]
        else:
            row = [version, entry["seat"], move]
    return json.dumps(row, separators=(",", ":"))


def _plain(move: dict[str, object], fields: tuple[str, ...]) -> bool:
    """Boolean fields hold booleans (so 0/1 decodes back to the very same move)."""
    return all(isinstance(move[f], bool) for f in fields if f in BOOL_FIELDS)


def decode(raw: str) -> dict[str, object]:
    row = json.loads(raw)
    if isinstance(row, dict):  # tolerate the plain form
        return row
    if len(row) == 1:
        return {"timeout": True, "v": row[0]}
    version, seat, kind, *values = row
    if isinstance(kind, dict):
        return {"seat": seat, "move": kind, "v": version}
    if isinstance(kind, int):
        kind = TYPES[kind]
        fields = FIELDS[kind]
        values = [bool(v) if f in BOOL_FIELDS else v for f, v in zip(fields, values, strict=True)]
    move = {"type": kind, **dict(zip(FIELDS[kind], values, strict=True))}
    return {"seat": seat, "move": move, "v": version}
