"""Compact encoding of the committed-move log (bytes per live game, issue 4 target).

A log entry is ``{"seat", "move", "v"}`` or ``{"timeout": true, "v"}`` in memory; in the
store it is a JSON array: ``[v]`` for a timeout, ``[v, seat, type, *fields]`` for a move
whose fields are exactly those API.md lists for its type (in that order), and
``[v, seat, {move}]`` for anything else, so no move is ever lost to the codec.
"""

from __future__ import annotations

import json
from typing import Any

FIELDS: dict[str, tuple[str, ...]] = {
    "place_path": ("card", "x", "y", "rotated"),
    "break_tool": ("card", "target_seat"),
    "repair_tool": ("card", "target_seat", "tool"),
    "rockfall": ("card", "x", "y"),
    "map": ("card", "goal"),
    "theft": ("card",),
    "hands_off": ("card", "target_seat"),
    "swap_hand": ("card", "target_seat"),
    "inspect": ("card", "target_seat"),
    "swap_hats": ("card", "target_seat"),
    "trap": ("card", "target_seat"),
    "free": ("card", "target_seat"),
    "discard": ("cards",),
    "discard_to_remove": ("cards", "remove"),
    "steal": ("target_seat",),
    "next_round": (),
}


def encode(entry: dict[str, Any]) -> str:
    version = entry["v"]
    if entry.get("timeout"):
        row: list[Any] = [version]
    else:
        move = entry["move"]
        fields = FIELDS.get(move.get("type"))
        if fields is not None and set(move) == {"type", *fields}:
            row = [version, entry["seat"], move["type"], *(move[f] for f in fields)]
        else:
            row = [version, entry["seat"], move]
    return json.dumps(row, separators=(",", ":"))


def decode(raw: str) -> dict[str, Any]:
    row = json.loads(raw)
    if isinstance(row, dict):  # tolerate the plain form
        return row
    if len(row) == 1:
        return {"timeout": True, "v": row[0]}
    version, seat, kind, *values = row
    if isinstance(kind, dict):
        return {"seat": seat, "move": kind, "v": version}
    move = {"type": kind, **dict(zip(FIELDS[kind], values, strict=True))}
    return {"seat": seat, "move": move, "v": version}
