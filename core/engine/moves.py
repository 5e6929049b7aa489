"""Move format (API.md "Moves"): the one check of a move's shape, and the list of legal
moves of a seat (each move type's generator, registry.py).

Legal moves are generated from the cached frontier of the board (per edge mask, the cells
that accept it), never by trying moves.
"""

from __future__ import annotations

from typing import Any

from .codes import FieldKind, Phase
from .moveset import HAND_MOVES, LEGAL_BY_CARD, PHASE_MOVES, SPECS
from .reasons import MoveFormatError
from .shapes import MoveDict
from .state import GameState

PLAYING = Phase.PLAYING


class Move(dict[str, Any]):
    """A move as `parse_move` made it: exactly its type's fields, each of the right kind.
    `apply_move` takes it as it is (a plain dict is parsed first)."""

    __slots__ = ()


# what each field kind must hold, as an expression of `v`, and how it is worded
_CHECK = {
    FieldKind.TEXT: "isinstance(v, str)",
    FieldKind.INT: "isinstance(v, int) and type(v) is not bool",
    FieldKind.BOOL: "type(v) is bool",
    FieldKind.TEXTS: "isinstance(v, list) and all(isinstance(c, str) for c in v)",
}


def _compile(type_: str, fields: tuple[tuple[str, FieldKind], ...]) -> Any:
    """The parser of one move type as straight-line code (no loop over the fields, no test
    of their kinds): every move a player or a computer makes goes through it."""
    lines = ["def parse(move):", "    out = Move()", f"    out['type'] = {type_!r}"]
    for name, kind in fields:
        if kind is FieldKind.SEAT_OR_NONE:
            lines += [
                f"    v = move.get({name!r})",
                "    if v is not None and (not isinstance(v, int) or type(v) is bool):",
                f"        raise MoveFormatError('{type_}: {name} must be an integer or null')",
            ]
        else:
            lines += [
                f"    if {name!r} not in move:",
                f'        raise MoveFormatError("{type_}: missing field {name!r}")',
                f"    v = move[{name!r}]",
                f"    if not ({_CHECK[kind]}):",
                f'        raise MoveFormatError("{type_}: field {name!r} has the wrong type")',
            ]
        lines.append(f"    out[{name!r}] = v")
    lines.append("    return out")
    namespace: dict[str, object] = {"Move": Move, "MoveFormatError": MoveFormatError}
    exec("\n".join(lines), namespace)
    return namespace["parse"]


_PARSERS = {s.type: _compile(str(s.type), s.fields) for s in SPECS}


def parse_move(move: object) -> Move:
    """The move as the engine reads it (unknown fields dropped), or MoveFormatError when it
    is not a move at all (not an object, unknown type, a field missing or of the wrong
    kind).  Its legality is `apply_move`'s business."""
    if type(move) is Move:
        return move
    if not isinstance(move, dict):
        raise MoveFormatError("a move is a JSON object")
    t = move.get("type")
    parse = _PARSERS.get(t) if isinstance(t, str) else None
    if parse is None:
        raise MoveFormatError(f"unknown move type: {t!r}")
    parsed: Move = parse(move)
    return parsed


def legal_moves(state: GameState, seat: int | None) -> list[MoveDict]:
    if seat is None or not 0 <= seat < state.n:
        return []
    ph = state.phase
    if ph == PLAYING:
        if state.rs.current != seat:
            return []
        return _playing_moves(state, seat)
    spec = PHASE_MOVES.get(ph)
    if spec is None or (ph != Phase.ROUND_OVER and state.rs.current != seat):
        return []
    moves: list[MoveDict] = spec.legal(state, seat)
    return moves


def _playing_moves(state: GameState, seat: int) -> list[MoveDict]:
    """Every legal move of the actor: each card's own moves in hand order, then the hand's
    (discards).  This is the hottest function of a simulated game."""
    rs = state.rs
    cards = rs.table.cards
    iids = rs.table.iids
    hand = rs.hands[seat]
    out: list[MoveDict] = []
    legal = LEGAL_BY_CARD
    for pos in hand:
        idx = cards[pos]
        gen = legal[idx]
        if gen is not None:
            gen(state, rs, seat, iids[pos], idx, out)
    held = sorted([iids[p] for p in hand])
    for gen in _HAND_LEGAL:
        gen(state, rs, seat, held, out)
    return out


_HAND_LEGAL = tuple(s.legal for s in HAND_MOVES)
