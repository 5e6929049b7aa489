"""The round's end, stealing, "next round" and the next deal (RULES §4, §6), with the
declarations of the two moves made outside play: steal and next_round (registry.py)."""

from __future__ import annotations

from .codes import EventCode, FieldKind, MoveType, Phase
from .reasons import IllegalMove, Reason
from .registry import EventSpec, MoveSpec, Play, declare
from .scoring import round_end
from .setup import start_round
from .shapes import EventDict, MoveDict, RoundResultDict
from .state import GameState, RoundState, evolve

# event codes as module constants (a class attribute costs a lookup per move)
EV_GAME_FINISHED = EventCode.GAME_FINISHED
EV_READY = EventCode.READY
EV_ROUND_ENDED = EventCode.ROUND_ENDED
EV_ROUND_STARTED = EventCode.ROUND_STARTED
EV_STOLE = EventCode.STOLE


Events = list[EventDict]


def end_round(
    state: GameState, rs: RoundState, gold_hit: bool, events: Events, seq: int
) -> tuple[GameState, Events]:
    out = round_end(state, rs, gold_hit)
    res = out["result"]
    thieves: tuple[int, ...] = out["thieves"]
    events.append(
        {
            "seq": seq,
            "seat": None,
            "code": EV_ROUND_ENDED,
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
        state = evolve(state, phase=Phase.STEALING)
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
                "code": EV_GAME_FINISHED,
                "gold": list(state.gold),
                "winners": [s for s, g in enumerate(state.gold) if g == top],
            }
        )
        results = (*state.results, state.rs.result or {})
        state = evolve(state, phase=Phase.FINISHED, results=results)
    else:
        state = evolve(state, phase=Phase.ROUND_OVER, ready=frozenset())
    return evolve(state, log=state.log.extend(events)), events


# ------------------------------------------------------------------ steal


def steal(state: GameState, seat: int, m: MoveDict, timeout: bool) -> tuple[GameState, Events]:
    target: int | None = m["target_seat"]
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
    ev: EventDict = {"seq": seq, "seat": seat, "code": EV_STOLE, "target_seat": target}
    if timeout:
        ev["timeout"] = True
    events: Events = [ev]
    rs = state.rs
    res: RoundResultDict = rs.result.copy() if rs.result else {}
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


def _steal_moves(state: GameState, seat: int) -> list[MoveDict]:
    targets = [s for s in range(state.n) if s != seat and state.gold[s] > 0]
    if not targets:
        return [{"type": "steal", "target_seat": None}]
    return [{"type": "steal", "target_seat": s} for s in targets]


declare(
    MoveSpec(
        type=MoveType.STEAL,
        number=14,
        phase=Phase.STEALING,
        play=Play.PHASE,
        fields=(("target_seat", FieldKind.SEAT_OR_NONE),),
        events=(EventSpec(EventCode.STOLE, ("target_seat",), 15),),
        handler=steal,
        legal=_steal_moves,
    )
)


# ------------------------------------------------------------------ next_round


def _ready(state: GameState, seat: int, m: MoveDict, timeout: bool) -> tuple[GameState, Events]:
    if seat in state.ready:
        raise IllegalMove(Reason.ALREADY_READY)
    seq = state.seq + 1
    events: Events = [{"seq": seq, "seat": seat, "code": EV_READY}]
    ready = state.ready | {seat}
    state = evolve(state, seq=seq, ready=ready)
    if len(ready) < state.n:
        return evolve(state, log=state.log.extend(events)), events
    return next_round(state, events)


def next_round(state: GameState, events: Events) -> tuple[GameState, Events]:
    rs = state.rs
    n = state.n
    start = (rs.last_mover + 1) % n if rs.last_mover is not None else rs.start_seat
    number = rs.number + 1
    new_rs = start_round(state.config, state.catalogue, state.seed, number, start)
    events.append(
        {
            "seq": state.seq,
            "seat": None,
            "code": EV_ROUND_STARTED,
            "round": number,
            "start_seat": start,
        }
    )
    state = evolve(
        state,
        rs=new_rs,
        phase=Phase.PLAYING,
        ready=frozenset(),
        results=(*state.results, rs.result or {}),
    )
    return evolve(state, log=state.log.extend(events)), events


def _ready_moves(state: GameState, seat: int) -> list[MoveDict]:
    return [] if seat in state.ready else [{"type": "next_round"}]


declare(
    MoveSpec(
        type=MoveType.NEXT_ROUND,
        number=15,
        phase=Phase.ROUND_OVER,
        play=Play.PHASE,
        fields=(),
        events=(EventSpec(EventCode.READY, (), 16),),
        handler=_ready,
        legal=_ready_moves,
    )
)
