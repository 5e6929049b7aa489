"""JSON codec of the whole state (schema 1), compact because it is stored on every move.

The card table of a round is not stored: it is derived again from the seed.
"""

from __future__ import annotations

from typing import Any

from .board import Board
from .cards import CARD_INDEX, CARD_LIST
from .config import OPTION_NAMES, GameConfig
from .state import GameState, RoundState, round_table

SCHEMA = 1

# Log entries are stored positionally: [seq, seat, code number, *fields]; an entry whose keys
# differ from its code's schema (e.g. a timeout flag) is stored as a plain dict.
LOG_FIELDS: dict[str, tuple[str, ...]] = {
    "path_placed": ("card", "x", "y", "rotated"),
    "goal_revealed": ("goal", "x", "y", "card", "rotated", "kind"),
    "tool_broken": ("card", "target_seat", "tool"),
    "tool_repaired": ("card", "target_seat", "tool"),
    "rockfall": ("card", "x", "y", "removed"),
    "map_used": ("card", "goal"),
    "passed": ("count",),
    "discarded_to_remove": ("count", "remove"),
    "theft_laid": ("card",),
    "hands_off": ("card", "target_seat"),
    "freed": ("card", "target_seat"),
    "trapped": ("card", "target_seat"),
    "hands_swapped": ("card", "target_seat"),
    "inspected": ("card", "target_seat"),
    "hats_swapped": ("card", "target_seat"),
    "stole": ("target_seat",),
    "ready": (),
}
CODES = tuple(LOG_FIELDS)
CODE_NO = {c: i for i, c in enumerate(CODES)}
CARD_FIELDS = ("card", "removed")
BOOL_FIELDS = ("rotated",)


def _enc_log(log: tuple[dict[str, Any], ...]) -> list[Any]:
    """Positional entries carry their seq as the step from the previous entry's seq."""
    out: list[Any] = []
    prev = 0
    for e in log:
        x = _enc_entry(e)
        if isinstance(x, list):
            x[0] -= prev
        prev = e["seq"]
        out.append(x)
    return out


def _dec_log(items: list[Any]) -> tuple[dict[str, Any], ...]:
    out: list[dict[str, Any]] = []
    prev = 0
    for x in items:
        if isinstance(x, list):
            x = [x[0] + prev, *x[1:]]
        e = _dec_entry(x)
        prev = e["seq"]
        out.append(e)
    return tuple(out)


def _enc_entry(e: dict[str, Any]) -> Any:
    code = e.get("code")
    fields = LOG_FIELDS.get(code) if isinstance(code, str) else None
    if fields is None or len(e) != 3 + len(fields) or any(f not in e for f in fields):
        return e
    assert isinstance(code, str)
    out: list[Any] = [e["seq"], e["seat"], CODE_NO[code]]
    for f in fields:
        v = e[f]
        if f in CARD_FIELDS:
            v = CARD_INDEX[v]
        elif f in BOOL_FIELDS:
            v = int(v)
        out.append(v)
    return out


def _dec_entry(x: Any) -> dict[str, Any]:
    if isinstance(x, dict):
        return x
    code = CODES[x[2]]
    e: dict[str, Any] = {"seq": x[0], "seat": x[1], "code": code}
    for f, v in zip(LOG_FIELDS[code], x[3:], strict=True):
        if f in CARD_FIELDS:
            v = CARD_LIST[v].id
        elif f in BOOL_FIELDS:
            v = bool(v)
        e[f] = v
    return e


def state_to_json(state: GameState) -> dict[str, Any]:
    rs = state.rs
    b = rs.board
    cells: list[int] = []
    for k, o in b.cells.items():
        cells += (k, o)
    cfg = state.config
    return {
        "schema": SCHEMA,
        "config": {"edition": cfg.edition, "players": cfg.players, **cfg.options()},
        "seed": state.seed,
        "seq": state.seq,
        "phase": state.phase,
        "gold": list(state.gold),
        "nuggets": state.nuggets,
        "ready": sorted(state.ready),
        "results": list(state.results),
        "log": _enc_log(state.log),
        "round": {
            "n": rs.number,
            "drawn": rs.drawn,
            "hands": [list(h) for h in rs.hands],
            "roles": list(rs.roles),
            "pool": list(rs.role_pool),
            "cells": cells,
            "goals": list(b.goals),
            "revealed": [int(r) for r in b.revealed],
            "discard": list(rs.discard),
            "front": [list(f) for f in rs.in_front],
            "kg": [list(k) for k in rs.known_goals],
            "kr": [[[s, r, int(st)] for s, r, st in k] for k in rs.known_roles],
            "cur": rs.current,
            "start": rs.start_seat,
            "last": rs.last_mover,
            "theft": list(rs.theft_laid),
            "thieves": list(rs.thieves),
            "reached": rs.reached_by,
            "result": rs.result,
        },
    }


def state_from_json(d: dict[str, Any]) -> GameState:
    if d.get("schema") != SCHEMA:
        raise ValueError(f"unsupported state schema {d.get('schema')!r}")
    c = d["config"]
    cfg = GameConfig(
        edition=c["edition"], players=c["players"], **{k: c[k] for k in OPTION_NAMES if k in c}
    )
    r = d["round"]
    cl = r["cells"]
    cells = {cl[i]: cl[i + 1] for i in range(0, len(cl), 2)}
    board = Board(
        cells, tuple(r["goals"]), tuple(bool(x) for x in r["revealed"]), cfg.bounded_board
    )
    rs = RoundState(
        number=r["n"],
        table=round_table(d["seed"], r["n"], cfg.edition),
        drawn=r["drawn"],
        hands=tuple(tuple(h) for h in r["hands"]),
        roles=tuple(r["roles"]),
        role_pool=tuple(r["pool"]),
        board=board,
        discard=tuple(r["discard"]),
        in_front=tuple(tuple(f) for f in r["front"]),
        known_goals=tuple(tuple(k) for k in r["kg"]),
        known_roles=tuple(tuple((s, role, bool(st)) for s, role, st in k) for k in r["kr"]),
        current=r["cur"],
        start_seat=r["start"],
        last_mover=r["last"],
        theft_laid=tuple(r["theft"]),
        thieves=tuple(r["thieves"]),
        reached_by=r["reached"],
        result=r["result"],
    )
    return GameState(
        config=cfg,
        seed=d["seed"],
        seq=d["seq"],
        phase=d["phase"],
        gold=tuple(d["gold"]),
        nuggets=d["nuggets"],
        rs=rs,
        log=_dec_log(d["log"]),
        results=tuple(d["results"]),
        ready=frozenset(d["ready"]),
    )
