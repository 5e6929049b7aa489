"""Game flow: turns, round end, stealing, next round, timeouts, replay (RULES §4, §6, §7)."""

from __future__ import annotations

from typing import Any

from .actions import finish, play
from .catalogue import CURRENT, Catalogue
from .config import GameConfig
from .deal import rng_for
from .log import LOG_FIELDS, Log
from .moves import legal_moves, parse_move
from .reasons import IllegalMove, Reason
from .scoring import round_end
from .setup import first_start_seat, nugget_pile, start_round
from .state import GameState, RoundState, evolve

Events = list[dict[str, Any]]
SCALAR_CODES = frozenset(LOG_FIELDS)


def new_game(config: GameConfig, seed: int, catalogue: Catalogue = CURRENT) -> GameState:
    """A new game with round 1 dealt (phase "playing") from `catalogue` (the current one
    unless a replay names the catalogue its game was dealt from)."""
    config.validate()
    start = first_start_seat(config, seed)
    rs = start_round(config, catalogue, seed, 1, start)
    ev = {"seq": 0, "seat": None, "code": "round_started", "round": 1, "start_seat": start}
    return GameState(
        config=config,
        seed=seed,
        seq=0,
        phase="playing",
        gold=(0,) * config.players,
        nuggets=nugget_pile(config, catalogue, seed),
        rs=rs,
        log=Log.of((ev,)),
        catalogue=catalogue,
    )


def phase(state: GameState) -> str:
    return state.phase


def actor(state: GameState) -> int | None:
    return state.rs.current if state.phase in ("playing", "stealing") else None


def waiting_on(state: GameState) -> frozenset[int]:
    if state.phase in ("playing", "stealing"):
        cur = state.rs.current
        return frozenset() if cur is None else frozenset({cur})
    if state.phase == "round_over":
        return frozenset(range(state.n)) - state.ready
    return frozenset()


def scores(state: GameState) -> list[int]:
    return list(state.gold)


def public_log(state: GameState, since_seq: int = -1) -> list[dict[str, Any]]:
    """Every public entry with a seq above `since_seq` (the default includes seq 0, the
    first round's start)."""
    return [e for e in state.log.copies(0, clone) if e["seq"] > since_seq]


def clone(e: dict[str, Any]) -> dict[str, Any]:
    """A copy of a log entry that shares no list with the state (callers may mutate it).
    The entries of a move (the codes with a positional form) hold scalars only."""
    if e.get("code") in SCALAR_CODES:
        return e.copy()
    return {
        k: ([list(x) if isinstance(x, list) else x for x in v] if isinstance(v, list) else v)
        for k, v in e.items()
    }


def apply_move(state: GameState, seat: int, move: dict[str, Any]) -> tuple[GameState, Events]:
    """Apply one seat's move; raise IllegalMove or MoveFormatError; never mutate `state`."""
    m = parse_move(move)
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state.n:
        raise IllegalMove(Reason.BAD_SEAT, f"no seat {seat!r}")
    new, events = _apply(state, seat, m, timeout=False)
    return new, [clone(e) for e in events]


def _apply(
    state: GameState, seat: int, m: dict[str, Any], *, timeout: bool
) -> tuple[GameState, Events]:
    kind = m["type"]
    ph = state.phase
    if ph == "finished":
        raise IllegalMove(Reason.GAME_OVER)
    if ph == "round_over":
        if kind != "next_round":
            raise IllegalMove(Reason.WRONG_PHASE, "the round is over")
        if seat in state.ready:
            raise IllegalMove(Reason.ALREADY_READY)
        return _ready(state, seat)
    if kind == "next_round":
        raise IllegalMove(Reason.WRONG_PHASE, "the round is not over")
    if ph == "stealing":
        if kind != "steal":
            raise IllegalMove(Reason.WRONG_PHASE, "thieves are stealing")
        if seat != state.rs.current:
            raise IllegalMove(Reason.NOT_YOUR_TURN)
        return _steal(state, seat, m["target_seat"], timeout)
    if kind == "steal":
        raise IllegalMove(Reason.WRONG_PHASE, "nobody steals before the round ends")
    if seat != state.rs.current:
        raise IllegalMove(Reason.NOT_YOUR_TURN)
    turn = play(state, seat, m, timeout)
    rs = finish(turn)
    events = turn.events
    seq = turn.seq
    if turn.gold_hit:
        return _end_round(state, evolve(rs, reached_by=seat), True, events, seq)
    if rs.current is None:
        return _end_round(state, rs, False, events, seq)
    return evolve(state, seq=seq, rs=rs, log=state.log.extend(events)), events


def _end_round(
    state: GameState, rs: RoundState, gold_hit: bool, events: Events, seq: int
) -> tuple[GameState, Events]:
    out = round_end(state, rs, gold_hit)
    res = out["result"]
    thieves: tuple[int, ...] = out["thieves"]
    events.append(
        {
            "seq": seq,
            "seat": None,
            "code": "round_ended",
            "round": rs.number,
            "winners": res["winners"],
            "winning_seats": list(res["winning_seats"]),
            "roles": list(res["roles"]),
            "gold_goal": res["gold_goal"],
            "reached_by": res["reached_by"],
            "route": [list(c) for c in res["route"]],
        }
    )
    rs = evolve(rs, result=res, thieves=thieves, current=thieves[0] if thieves else None)
    state = evolve(state, seq=seq, rs=rs, gold=out["gold"], nuggets=out["nuggets"])
    if thieves:
        state = evolve(state, phase="stealing")
        return evolve(state, log=state.log.extend(events)), events
    return _after_round(state, events)


def _after_round(state: GameState, events: Events) -> tuple[GameState, Events]:
    """The round (and its stealing) is done: wait for "next round", or finish the game."""
    if state.rs.number >= state.config.rounds:
        top = max(state.gold)
        events.append(
            {
                "seq": state.seq,
                "seat": None,
                "code": "game_finished",
                "gold": list(state.gold),
                "winners": [s for s, g in enumerate(state.gold) if g == top],
            }
        )
        state = evolve(state, phase="finished", results=(*state.results, state.rs.result or {}))
    else:
        state = evolve(state, phase="round_over", ready=frozenset())
    return evolve(state, log=state.log.extend(events)), events


def _steal(
    state: GameState, seat: int, target: int | None, timeout: bool
) -> tuple[GameState, Events]:
    gold = list(state.gold)
    candidates = [s for s in range(state.n) if s != seat and gold[s] > 0]
    if target is None:
        if candidates:
            raise IllegalMove(Reason.BAD_TARGET, "choose a player who has gold")
    elif target not in candidates:
        raise IllegalMove(Reason.BAD_TARGET, "that player has no gold to steal")
    else:
        gold[target] -= 1
        gold[seat] += 1
    seq = state.seq + 1
    ev: dict[str, Any] = {"seq": seq, "seat": seat, "code": "stole", "target_seat": target}
    if timeout:
        ev["timeout"] = True
    events: Events = [ev]
    rs = state.rs
    res = dict(rs.result or {})
    res["steals"] = [*res.get("steals", []), [seat, target]]
    if target is not None:
        win = list(res["winnings"])
        win[seat] += 1
        res["winnings"] = win
    rest = rs.thieves[1:]
    rs = evolve(rs, result=res, thieves=rest, current=rest[0] if rest else None)
    state = evolve(state, seq=seq, rs=rs, gold=tuple(gold))
    if rest:
        return evolve(state, log=state.log.extend(events)), events
    return _after_round(state, events)


def _ready(state: GameState, seat: int) -> tuple[GameState, Events]:
    seq = state.seq + 1
    events: Events = [{"seq": seq, "seat": seat, "code": "ready"}]
    ready = state.ready | {seat}
    state = evolve(state, seq=seq, ready=ready)
    if len(ready) < state.n:
        return evolve(state, log=state.log.extend(events)), events
    return _next_round(state, events)


def _next_round(state: GameState, events: Events) -> tuple[GameState, Events]:
    rs = state.rs
    n = state.n
    start = (rs.last_mover + 1) % n if rs.last_mover is not None else rs.start_seat
    number = rs.number + 1
    new_rs = start_round(state.config, state.catalogue, state.seed, number, start)
    events.append(
        {
            "seq": state.seq,
            "seat": None,
            "code": "round_started",
            "round": number,
            "start_seat": start,
        }
    )
    state = evolve(
        state,
        rs=new_rs,
        phase="playing",
        ready=frozenset(),
        results=(*state.results, rs.result or {}),
    )
    return evolve(state, log=state.log.extend(events)), events


def apply_timeout(state: GameState) -> tuple[GameState, Events]:
    """RULES §7: what happens when the current phase's deadline passes."""
    new, events = _timeout(state)
    return new, [clone(e) for e in events]


def _timeout(state: GameState) -> tuple[GameState, Events]:
    ph = state.phase
    rs = state.rs
    if ph == "playing":
        seat = rs.current
        assert seat is not None
        hand = rs.hands[seat]
        pos = rng_for(state.seed, "timeout", state.seq).choice(hand)
        move = {"type": "discard", "cards": [rs.table.iids[pos]]}
        return _apply(state, seat, move, timeout=True)
    if ph == "stealing":
        seat = rs.current
        assert seat is not None
        n = state.n
        best: int | None = None
        for i in range(1, n):
            s = (seat + i) % n
            if state.gold[s] > 0 and (best is None or state.gold[s] > state.gold[best]):
                best = s
        return _steal(state, seat, best, True)
    if ph == "round_over":
        state = evolve(state, seq=state.seq + 1)
        return _next_round(state, [])
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
