"""Move format (API.md "Moves") and the list of legal moves of a seat.

Legal moves are generated from the cached frontier of the board (per edge mask, the cells
that accept it), never by trying moves.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from .board import GOAL_KEYS
from .cards import CARD_LIST, MASK, SYMMETRIC, TOOLS
from .reasons import MoveFormatError
from .state import GameState, RoundState

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
    "steal": (),
    "next_round": (),
}
# effect of an action card -> the move type that plays it
EFFECT_MOVE = {
    "break": "break_tool",
    "repair": "repair_tool",
    "rockfall": "rockfall",
    "map": "map",
    "theft": "theft",
    "hands_off": "hands_off",
    "swap_hand": "swap_hand",
    "inspection": "inspect",
    "swap_hats": "swap_hats",
    "trapped": "trap",
    "free": "free",
}
BREAKS = ("BREAK_PICKAXE", "BREAK_LANTERN", "BREAK_CART")


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


# what each move field must hold: 0 a string, 1 an integer (not a bool), 2 a bool,
# 3 a list of strings
_FIELD_KIND = {"card": 0, "remove": 0, "tool": 0, "x": 1, "y": 1, "target_seat": 1, "goal": 1}
_FIELD_KIND |= {"rotated": 2, "cards": 3}
_SPEC = {t: tuple((f, _FIELD_KIND[f]) for f in fs) for t, fs in FIELDS.items()}


def parse_move(move: Any) -> dict[str, Any]:
    """Check a move's shape (not its legality); raise MoveFormatError when malformed."""
    if not isinstance(move, dict):
        raise MoveFormatError("a move is a JSON object")
    t = move.get("type")
    spec = _SPEC.get(t) if isinstance(t, str) else None
    if spec is None:
        raise MoveFormatError(f"unknown move type: {t!r}")
    out: dict[str, Any] = {"type": t}
    for name, kind in spec:
        if name not in move:
            raise MoveFormatError(f"{t}: missing field {name!r}")
        v = move[name]
        if kind == 0:
            ok = isinstance(v, str)
        elif kind == 1:
            ok = isinstance(v, int) and type(v) is not bool
        elif kind == 2:
            ok = type(v) is bool
        else:
            ok = isinstance(v, list) and all(isinstance(c, str) for c in v)
        if not ok:
            raise MoveFormatError(f"{t}: field {name!r} has the wrong type")
        out[name] = v
    if t == "steal":
        v = move.get("target_seat")
        if v is not None and not _is_int(v):
            raise MoveFormatError("steal: target_seat must be an integer or null")
        out["target_seat"] = v
    return out


def broken(in_front: tuple[str, ...]) -> bool:
    return any(c in BREAKS for c in in_front)


def can_place_path(rs: RoundState, seat: int) -> bool:
    front = rs.in_front[seat]
    return not front or (not broken(front) and "TRAPPED" not in front)


def legal_moves(state: GameState, seat: int | None) -> list[dict[str, Any]]:
    if seat is None or not 0 <= seat < state.n:
        return []
    rs = state.rs
    if state.phase == "round_over":
        return [] if seat in state.ready else [{"type": "next_round"}]
    if rs.current != seat:
        return []
    if state.phase == "stealing":
        return steal_moves(state, seat)
    if state.phase != "playing":
        return []
    return _playing_moves(state, rs, seat)


def steal_moves(state: GameState, seat: int) -> list[dict[str, Any]]:
    targets = [s for s in range(state.n) if s != seat and state.gold[s] > 0]
    if not targets:
        return [{"type": "steal", "target_seat": None}]
    return [{"type": "steal", "target_seat": s} for s in targets]


def _path_bits(idx: int) -> tuple[tuple[int, bool], ...]:
    c = CARD_LIST[idx]
    if c.category != "path":
        return ()
    shift = 16 if c.ladder else 0
    rots = (0,) if SYMMETRIC[idx] else (0, 1)
    return tuple((1 << (MASK[2 * idx + r] + shift), bool(r)) for r in rots)


# Per catalogue index, precomputed once: the frontier bits (and `rotated`) of a path card,
# the move type of an action card, the in-front ids a repair card can remove.
PATH_BITS = tuple(_path_bits(i) for i in range(len(CARD_LIST)))
KIND = tuple(c.kind if c.category == "action" else c.category for c in CARD_LIST)
REPAIRS = tuple(tuple((t, f"BREAK_{t.upper()}") for t in c.tools) for c in CARD_LIST)


def _playing_moves(state: GameState, rs: RoundState, seat: int) -> list[dict[str, Any]]:
    """Every legal move of the actor; one dict literal per move, no per-move lookups (this
    is the hottest function of a simulated game)."""
    n = state.n
    cards = rs.table.cards
    all_iids = rs.table.iids
    hand = rs.hands[seat]
    out: list[dict[str, Any]] = []
    fronts = rs.in_front
    paths_ok = not fronts[seat] or can_place_path(rs, seat)
    board = rs.board
    for pos in hand:
        idx = cards[pos]
        iid = all_iids[pos]
        bits = PATH_BITS[idx]
        if bits:
            if paths_ok:
                for bit, rotated in bits:
                    out += [
                        {"type": "place_path", "card": iid, "x": x, "y": y, "rotated": rotated}
                        for x, y in board.spots(bit)
                    ]
            continue
        kind = KIND[idx]
        if kind == "break":
            cid = CARD_LIST[idx].id
            out += [
                {"type": "break_tool", "card": iid, "target_seat": s}
                for s in range(n)
                if s != seat and cid not in fronts[s]
            ]
        elif kind == "repair":
            for s in range(n):
                front = fronts[s]
                if front:
                    for tool, bid in REPAIRS[idx]:
                        if bid in front:
                            out.append(
                                {"type": "repair_tool", "card": iid, "target_seat": s, "tool": tool}
                            )
        elif kind == "rockfall":
            out += [
                {"type": "rockfall", "card": iid, "x": x, "y": y} for x, y in board.rockfall_spots()
            ]
        elif kind == "map":
            out += [
                {"type": "map", "card": iid, "goal": g} for g in range(3) if not board.revealed[g]
            ]
        elif kind == "theft":
            if "THEFT" not in fronts[seat]:
                out.append({"type": "theft", "card": iid})
        elif kind == "hands_off":
            out += [
                {"type": "hands_off", "card": iid, "target_seat": s}
                for s in range(n)
                if "THEFT" in fronts[s]
            ]
        elif kind in ("swap_hand", "inspection"):
            mt = EFFECT_MOVE[kind]
            out += [{"type": mt, "card": iid, "target_seat": s} for s in range(n) if s != seat]
        elif kind == "swap_hats":
            if rs.role_pool:
                out += [{"type": "swap_hats", "card": iid, "target_seat": s} for s in range(n)]
        elif kind == "trapped":
            out += [
                {"type": "trap", "card": iid, "target_seat": s}
                for s in range(n)
                if s != seat and "TRAPPED" not in fronts[s]
            ]
        elif kind == "free":
            out += [
                {"type": "free", "card": iid, "target_seat": s}
                for s in range(n)
                if "TRAPPED" in fronts[s]
            ]
    iids = sorted([all_iids[p] for p in hand])
    if state.config.edition != "expansion":
        out += [{"type": "discard", "cards": [i]} for i in iids]
        return out
    for k in (1, 2, 3):
        out += [{"type": "discard", "cards": list(cs)} for cs in combinations(iids, k)]
    kinds = sorted(set(fronts[seat]))
    if kinds and len(iids) >= 2:
        for cs in combinations(iids, 2):
            for kd in kinds:
                out.append({"type": "discard_to_remove", "cards": list(cs), "remove": kd})
    return out


def action_move_type(idx: int) -> str | None:
    c = CARD_LIST[idx]
    return EFFECT_MOVE.get(c.kind) if c.category == "action" else None


assert len(GOAL_KEYS) == 3 and TOOLS
