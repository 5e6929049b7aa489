"""Game flow: new game, applying a move with its declared handler, timeouts, replay
(RULES §4, §7); the round's end and the next deal are flow.py's."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from .cards import CARD_LIST
from .catalogue import CURRENT, Catalogue
from .codes import EventCode, MoveType, Phase
from .config import GameConfig
from .deal import rng_for
from .flow import end_round, next_round, steal
from .log import Log
from .moves import Move, legal_moves, parse_move
from .moveset import LOG_FIELDS, PHASE_MOVES, PLAYED_WITH, TO_DISCARD
from .reasons import IllegalMove, Reason
from .registry import MOVES, Play
from .setup import first_start_seat, nugget_pile, start_round
from .shapes import EventDict
from .state import GameState, evolve
from .turn import Turn, finish, take_cards

Events = list[EventDict]
SCALAR_CODES = frozenset(LOG_FIELDS)
PLAYING, STEALING, ROUND_OVER, FINISHED = Phase
_HANDLERS = {t: s.handler for t, s in MOVES.items()}
_PLAY = {t: s.play for t, s in MOVES.items()}
_BY_HAND, _OUTSIDE_PLAY = Play.HAND, Play.PHASE
_WRONG_PHASE: dict[str, str] = {STEALING: "thieves are stealing", ROUND_OVER: "the round is over"}
_NOT_NOW = {
    MoveType.STEAL: "nobody steals before the round ends",
    MoveType.NEXT_ROUND: "the round is not over",
}


def new_game(config: GameConfig, seed: int, catalogue: Catalogue = CURRENT) -> GameState:
    """A new game with round 1 dealt (phase "playing") from `catalogue` (the current one
    unless a replay names the catalogue its game was dealt from)."""
    config.validate()
    start = first_start_seat(config, seed)
    rs = start_round(config, catalogue, seed, 1, start)
    ev: EventDict = {
        "seq": 0,
        "seat": None,
        "code": EventCode.ROUND_STARTED,
        "round": 1,
        "start_seat": start,
    }
    return GameState(
        config=config,
        seed=seed,
        seq=0,
        phase=PLAYING,
        gold=(0,) * config.players,
        nuggets=nugget_pile(config, catalogue, seed),
        rs=rs,
        log=Log.of((ev,)),
        catalogue=catalogue,
    )


def phase(state: GameState) -> str:
    return state.phase


def actor(state: GameState) -> int | None:
    return state.rs.current if state.phase in (PLAYING, STEALING) else None


def waiting_on(state: GameState) -> frozenset[int]:
    if state.phase in (PLAYING, STEALING):
        cur = state.rs.current
        return frozenset() if cur is None else frozenset({cur})
    if state.phase == ROUND_OVER:
        return frozenset(range(state.n)) - state.ready
    return frozenset()


def scores(state: GameState) -> list[int]:
    return list(state.gold)


def public_log(state: GameState, since_seq: int = -1) -> list[EventDict]:
    """Every public entry with a seq above `since_seq` (the default includes seq 0, the
    first round's start)."""
    return [e for e in state.log.copies(0, clone) if e["seq"] > since_seq]


def copy_lists(d: Mapping[str, object]) -> dict[str, object]:
    """A copy of `d` that shares no list with it (nor any list inside one of its lists)."""
    return {
        k: ([list(x) if isinstance(x, list) else x for x in v] if isinstance(v, list) else v)
        for k, v in d.items()
    }


def clone(e: EventDict) -> EventDict:
    """A copy of a log entry that shares no list with the state (callers may mutate it).
    The entries of a move (the codes with a positional form) hold scalars only."""
    if e.get("code") in SCALAR_CODES:
        return e.copy()
    return cast(EventDict, copy_lists(e))  # the same keys


def apply_move(state: GameState, seat: int, move: Mapping[str, object]) -> tuple[GameState, Events]:
    """Apply one seat's move; raise IllegalMove or MoveFormatError; never mutate `state`.
    `move` is a JSON move, or a Move `parse_move` made (then taken as it is)."""
    m = parse_move(move)
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state.n:
        raise IllegalMove(Reason.BAD_SEAT, f"no seat {seat!r}")
    new, events = _apply(state, seat, m, timeout=False)
    return new, [clone(e) for e in events]


def _apply(state: GameState, seat: int, m: Move, *, timeout: bool) -> tuple[GameState, Events]:
    kind = m["type"]
    ph = state.phase
    if ph == FINISHED:
        raise IllegalMove(Reason.GAME_OVER)
    if ph != PLAYING:  # stealing or round over: the one move of that phase
        spec = PHASE_MOVES[ph]
        if kind != spec.type:
            raise IllegalMove(Reason.WRONG_PHASE, _WRONG_PHASE[ph])
        if ph != ROUND_OVER and seat != state.rs.current:
            raise IllegalMove(Reason.NOT_YOUR_TURN)
        done: tuple[GameState, Events] = spec.handler(state, seat, m, timeout)
        return done
    if _PLAY[kind] is _OUTSIDE_PLAY:
        raise IllegalMove(Reason.WRONG_PHASE, _NOT_NOW[kind])
    if seat != state.rs.current:
        raise IllegalMove(Reason.NOT_YOUR_TURN)
    turn = _play(state, seat, m, timeout)
    rs = finish(turn)
    events = turn.events
    seq = turn.seq
    if turn.gold_hit:
        return end_round(state, evolve(rs, reached_by=seat), True, events, seq)
    if rs.current is None:
        return end_round(state, rs, False, events, seq)
    return evolve(state, seq=seq, rs=rs, log=state.log.extend(events)), events


def _play(state: GameState, seat: int, m: Move, timeout: bool) -> Turn:
    """Check and perform a playing-phase move with its declared handler; the caller
    finishes the turn."""
    t = Turn(state, seat, timeout)
    kind = m["type"]
    if _PLAY[kind] is _BY_HAND:
        _HANDLERS[kind](t, m)
        return t
    rs = state.rs
    pos = take_cards(rs, seat, [m["card"]])[0]
    idx = rs.table.cards[pos]
    expected = PLAYED_WITH[idx]
    if kind != expected:
        raise IllegalMove(Reason.WRONG_CARD_TYPE, f"{CARD_LIST[idx].id} is played with {expected}")
    hand = list(t.hands[seat])
    hand.remove(pos)
    t.hands[seat] = tuple(hand)
    _HANDLERS[kind](t, m, idx)
    if kind in TO_DISCARD:
        t.to_discard(idx)
    return t


def apply_timeout(state: GameState) -> tuple[GameState, Events]:
    """RULES §7: what happens when the current phase's deadline passes."""
    new, events = _timeout(state)
    return new, [clone(e) for e in events]


def _timeout(state: GameState) -> tuple[GameState, Events]:
    ph = state.phase
    rs = state.rs
    if ph == PLAYING:
        seat = rs.current
        assert seat is not None
        hand = rs.hands[seat]
        pos = rng_for(state.seed, "timeout", state.seq).choice(hand)
        move = Move(type=MoveType.DISCARD, cards=[rs.table.iids[pos]])
        return _apply(state, seat, move, timeout=True)
    if ph == STEALING:
        seat = rs.current
        assert seat is not None
        n = state.n
        best: int | None = None
        for i in range(1, n):
            s = (seat + i) % n
            if state.gold[s] > 0 and (best is None or state.gold[s] > state.gold[best]):
                best = s
        return steal(state, seat, {"type": MoveType.STEAL, "target_seat": best}, True)
    if ph == ROUND_OVER:
        state = evolve(state, seq=state.seq + 1)
        return next_round(state, [])
    raise IllegalMove(Reason.WRONG_PHASE, "the game is finished")


def replay(
    config: GameConfig, seed: int, moves: list[dict[str, Any]], catalogue: Catalogue = CURRENT
) -> GameState:
    """Replay a game's moves ({"seat", "move"} or {"timeout": true}) from its seed (and
    the catalogue it was dealt from)."""
    state = new_game(config, seed, catalogue)
    for entry in moves:
        if entry.get("timeout"):
            state, _ = apply_timeout(state)
        else:
            state, _ = apply_move(state, entry["seat"], entry["move"])
    return state


__all__ = ["legal_moves"]
