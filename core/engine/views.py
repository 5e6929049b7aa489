"""Per-seat views (RULES §8), built by allow-list: only fields a viewer may know are copied."""

from __future__ import annotations

from collections.abc import Mapping
from typing import cast

from .board import GOAL_CELLS, unkey
from .cards import CARD_LIST, GOLD
from .codes import Phase
from .game import actor, clone, copy_lists, public_log
from .moves import legal_moves
from .shapes import (
    CellDict,
    FinalDict,
    GoalDict,
    RoundResultDict,
    SeatDict,
    ViewDict,
    YouDict,
)
from .state import GameState

PUBLIC_RESULT = (
    "round",
    "winners",
    "winning_seats",
    "roles",
    "gold_goal",
    "gold_reached",
    "reached_by",
    "route",
    "steals",
    "crystals",
    "blue_open",
    "green_open",
)


def _kind(state: GameState, g: int) -> str:
    return "gold" if state.rs.board.goals[g] == GOLD else "stone"


def view_for(state: GameState, seat: int | None, *, log_limit: int = 50) -> ViewDict:
    cfg = state.config
    rs = state.rs
    n = cfg.players
    if seat is not None and (isinstance(seat, bool) or not 0 <= seat < n):
        seat = None
    ended = state.phase in (Phase.STEALING, Phase.ROUND_OVER, Phase.FINISHED)
    finished = state.phase == Phase.FINISHED
    board = rs.board
    known = set(rs.known_goals[seat]) if seat is not None else set()
    you: YouDict
    if seat is None:
        you = {
            "seat": None,
            "role": None,
            "hand": [],
            "gold": None,
            "known_goals": [],
            "known_roles": [],
        }
    else:
        table = rs.table
        you = {
            "seat": seat,
            "role": rs.roles[seat],
            "hand": [
                {"id": table.iids[p], "card": CARD_LIST[table.cards[p]].id} for p in rs.hands[seat]
            ],
            "gold": state.gold[seat],
            "known_goals": [{"goal": g, "kind": _kind(state, g)} for g in sorted(known)],
            "known_roles": [
                {"seat": s, "role": r, "stale": st} for s, r, st in rs.known_roles[seat]
            ],
        }
    seats: list[SeatDict] = [
        {
            "seat": s,
            "hand_size": len(rs.hands[s]),
            "in_front": list(rs.in_front[s]),
            "has_gold": (state.gold[s] > 0) if cfg.expansion else None,
            "role": rs.roles[s] if ended else None,
            "gold": state.gold[s] if finished else None,
            "ready": s in state.ready,
        }
        for s in range(n)
    ]
    cells: list[CellDict] = []
    for k in sorted(board.cells):
        o = board.cells[k]
        x, y = unkey(k)
        cells.append({"x": x, "y": y, "card": CARD_LIST[o >> 1].id, "rotated": bool(o & 1)})
    goals: list[GoalDict] = []
    for g, (x, y) in enumerate(GOAL_CELLS):
        shown = board.revealed[g] or ended or g in known
        goals.append(
            {
                "goal": g,
                "x": x,
                "y": y,
                "revealed": board.revealed[g],
                "kind": _kind(state, g) if shown else None,
            }
        )
    result: RoundResultDict | None = None
    if ended and rs.result is not None:
        res = rs.result
        public: Mapping[str, object] = res
        picked = copy_lists({k: public[k] for k in PUBLIC_RESULT if k in public})
        result = cast(RoundResultDict, picked)  # some of the result's own keys
        result["your_winnings"] = res["winnings"][seat] if seat is not None else None
        if "nuggets" in res:
            result["your_nuggets"] = list(res["nuggets"][seat]) if seat is not None else None
        if finished:
            result["winnings"] = list(res["winnings"])
    final: FinalDict | None = None
    if finished:
        top = max(state.gold)
        final = {
            "gold": list(state.gold),
            "winners": [s for s, g in enumerate(state.gold) if g == top],
        }
    log = state.log.copies(-log_limit, clone) if log_limit > 0 else []
    return {
        "status": state.phase,
        "edition": cfg.edition,
        "options": cfg.options(),
        "round": rs.number,
        "rounds": cfg.rounds,
        "seq": state.seq,
        "you": you,
        "seats": seats,
        "board": cells,
        "goals": goals,
        "deck_size": rs.deck_size(),
        "discard_size": len(rs.discard),
        "current_seat": actor(state),
        "log": log,
        "round_result": result,
        "final": final,
        "legal_moves": legal_moves(state, seat) if seat is not None else [],
    }


__all__ = ["public_log", "view_for"]
