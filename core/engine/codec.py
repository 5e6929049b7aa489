"""JSON codec of the whole state (schema 1), compact because it is stored on every move.

The card table of a round is not stored: it is derived again from the seed.  The public
log is kept in the state in its stored form too (`log.Log`): encoding copies it and
decoding keeps it encoded until somebody reads it, so a move in the service does not pay
for the whole game's log twice.  The log's JSON is the same as before `Log` existed.
"""

from __future__ import annotations

from typing import Any

from .board import Board
from .config import OPTION_NAMES, GameConfig
from .log import Log
from .state import GameState, RoundState, round_table

SCHEMA = 1


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
        "log": state.log.to_json(),
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
        log=Log.from_json(d["log"]),
        results=tuple(d["results"]),
        ready=frozenset(d["ready"]),
    )
