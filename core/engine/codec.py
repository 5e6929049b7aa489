"""JSON codec of the whole state, compact because it is stored on every move (the format
is docs/CONTRACTS.md §1 "Stored state").

Schema 2 carries what its deal needs: the catalogue's version and the round's table, and
numbers cards by that catalogue's order, so a changed cards.json never changes a stored
game.  Schema 1 (before) stored neither: its table is the deal of its seed from the
catalogue every schema-1 game was dealt from, kept for them.  The public log is kept in
the state in its stored form (`log.Log`): encoding copies it and decoding keeps it
encoded until somebody reads it, so a move in the service does not pay for the whole
game's log twice.
"""

from __future__ import annotations

from typing import Any

from .board import Board
from .catalogue import Catalogue, resolve
from .config import OPTION_NAMES, GameConfig
from .deal import dealt_table, stored_table
from .log import Log, renumber
from .reasons import StateError
from .state import GameState, RoundState

SCHEMA = 2
# The catalogue every schema-1 state was dealt from (cards.json until schema 2).
SCHEMA1_CATALOGUE = "697b065de483"


def state_to_json(state: GameState) -> dict[str, object]:
    rs = state.rs
    b = rs.board
    cat = state.catalogue
    cells: list[int] = []
    if cat.identity:
        for k, o in b.cells.items():
            cells += (k, o)
        goals = list(b.goals)
        discard = list(rs.discard)
        log = state.log.to_json()
    else:
        num = cat.number
        for k, o in b.cells.items():
            cells += (k, 2 * num(o >> 1) + (o & 1))
        goals = [num(g) for g in b.goals]
        discard = [num(c) for c in rs.discard]
        log = renumber(state.log.to_json(), num)
    cfg = state.config
    return {
        "schema": SCHEMA,
        "catalogue": cat.version,
        "config": {"edition": cfg.edition, "players": cfg.players, **cfg.options()},
        "seed": state.seed,
        "seq": state.seq,
        "phase": state.phase,
        "gold": list(state.gold),
        "nuggets": state.nuggets,
        "ready": sorted(state.ready),
        "results": list(state.results),
        "log": log,
        "round": {
            "n": rs.number,
            "table": rs.table.code,
            "drawn": rs.drawn,
            "hands": [list(h) for h in rs.hands],
            "roles": list(rs.roles),
            "pool": list(rs.role_pool),
            "cells": cells,
            "goals": goals,
            "revealed": [int(r) for r in b.revealed],
            "discard": discard,
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


def state_from_json(d: dict[str, object]) -> GameState:
    """The state `state_to_json` wrote (schema 2) or an earlier release did (schema 1).

    Raises StateError (a ValueError) for anything else, CatalogueError (a StateError)
    when its catalogue or one of its cards is not one this engine can play."""
    if not isinstance(d, dict):
        raise StateError("a state is a JSON object")
    schema = d.get("schema")
    if schema == SCHEMA:
        cat = resolve(d.get("catalogue"))
    elif schema == 1:
        cat = resolve(SCHEMA1_CATALOGUE)
    else:
        raise StateError(f"unsupported state schema {schema!r}")
    try:
        return _decode(d, cat, schema)
    except StateError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as e:
        raise StateError(f"malformed state: {type(e).__name__} {e}") from e


def _decode(d: dict[str, Any], cat: Catalogue, schema: int) -> GameState:
    c = d["config"]
    cfg = GameConfig(
        edition=c["edition"], players=c["players"], **{k: c[k] for k in OPTION_NAMES if k in c}
    )
    cfg.validate()
    seed = d["seed"]
    r = d["round"]
    number = r["n"]
    if schema == 1:
        table = dealt_table(cat, seed, number, cfg.edition)
    else:
        code = r["table"]
        if not isinstance(code, str):
            raise StateError("round.table is a string")
        table = stored_table(cat, seed, number, code)
    cl = r["cells"]
    goals = r["goals"]
    discard = r["discard"]
    log = d["log"]
    if cat.identity:
        if not cat.orients.issuperset(cl[1::2]):
            raise StateError(f"round.cells: a card is not in catalogue {cat.version}")
        if not cat.numbers.issuperset(discard):
            raise StateError(f"round.discard: a card is not in catalogue {cat.version}")
        cells = {cl[i]: cl[i + 1] for i in range(0, len(cl), 2)}
    else:
        eng = cat.engine_index
        cells = {cl[i]: 2 * eng(cl[i + 1] >> 1) + (cl[i + 1] & 1) for i in range(0, len(cl), 2)}
        goals = [eng(g) for g in goals]
        discard = [eng(g) for g in discard]
        log = renumber(log, eng)
    if sorted(goals) != sorted(cat.goals):
        raise StateError(f"round.goals {goals!r} are not the catalogue's three goals")
    front = r["front"]
    for f in front:
        for cid in f:
            if not cat.has(cid):
                raise StateError(f"round.front: {cid!r} is not a card of catalogue {cat.version}")
    hands = tuple(tuple(h) for h in r["hands"])
    positions = table.positions
    for h in hands:
        if not positions.issuperset(h):
            raise StateError("round.hands: a position that is not in the table")
    board = Board(cells, tuple(goals), tuple(bool(x) for x in r["revealed"]), cfg.bounded_board)
    rs = RoundState(
        number=number,
        table=table,
        drawn=r["drawn"],
        hands=hands,
        roles=tuple(r["roles"]),
        role_pool=tuple(r["pool"]),
        board=board,
        discard=tuple(discard),
        in_front=tuple(tuple(f) for f in front),
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
        seed=seed,
        seq=d["seq"],
        phase=d["phase"],
        gold=tuple(d["gold"]),
        nuggets=d["nuggets"],
        rs=rs,
        log=Log.from_json(log),
        results=tuple(d["results"]),
        ready=frozenset(d["ready"]),
        catalogue=cat,
    )
