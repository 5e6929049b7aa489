"""Hypothesis random play over editions, options and player counts (issue 3).

After every step of a random game: the invariants of `core.sim.check_state` (card
conservation, exactly one gold goal, hand sizes, roles, nugget value, phase/actor
consistency, codec round trip now and then). At sampled positions: every legal move
applies, and mutated or out-of-turn moves are refused with a reason of the closed list
(IllegalMove) or as malformed (MoveFormatError) — and a move is accepted exactly when it
is (equivalent to) a listed one.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.engine import (
    GameConfig,
    GameState,
    IllegalMove,
    MoveFormatError,
    Reason,
    apply_move,
    apply_timeout,
    legal_moves,
)
from core.engine.cards import CARD_LIST, SYMMETRIC
from core.sim import check_state, walk

CLASSIC_FLAGS = ("gold_per_digger", "old_mine", "competitive", "max_saboteurs", "selfish_dwarf")


@st.composite
def configs(draw: st.DrawFn) -> GameConfig:
    """Valid configurations only (the invalid ones are refused by from_options, tested
    by the engine's own config tests)."""
    edition = draw(st.sampled_from(["classic", "expansion"]))
    opts: dict[str, Any] = {
        "rounds": draw(st.sampled_from([1, 1, 2, 3])),
        "bounded_board": draw(st.booleans()),
    }
    if edition == "expansion":
        players = draw(st.integers(2, 12))
    elif draw(st.integers(0, 4)) == 0:
        players = draw(st.integers(5, 9))
        opts |= {"tournament": True, "old_mine": draw(st.booleans())}
        opts["competitive"] = draw(st.booleans())
    else:
        players = draw(st.integers(3, 10))
        for f in CLASSIC_FLAGS:
            opts[f] = draw(st.booleans())
    return GameConfig.from_options(edition, players, opts)


def canonical(state: GameState, seat: int, move: dict[str, Any]) -> str:
    """A move's identity up to the equivalences the engine accepts (symmetric cards turned,
    discard order)."""
    m = dict(move)
    if m.get("type") == "place_path" and isinstance(m.get("card"), str):
        pos = state.rs.table.pos_of.get(m["card"])
        if pos is not None and SYMMETRIC[state.rs.table.cards[pos]]:
            m["rotated"] = False
    if isinstance(m.get("cards"), list):
        m["cards"] = sorted(m["cards"])
    return repr(sorted(m.items(), key=lambda kv: kv[0]))


def mutations(state: GameState, seat: int, move: dict[str, Any], rng: random.Random) -> list[Any]:
    """Moves near a legal one: other cells, targets, cards (catalogue ids, other seats'
    instance ids), other kinds, malformed shapes."""
    rs = state.rs
    n = state.n
    others = [rs.table.iids[p] for s in range(n) if s != seat for p in rs.hands[s]]
    unseen = [rs.table.iids[p] for p in range(rs.drawn, len(rs.table.cards))]
    out: list[Any] = []
    m = dict(move)
    for fld in ("x", "y"):
        if fld in m:
            out.append({**m, fld: m[fld] + rng.choice([-2, -1, 1, 2])})
            out.append({**m, fld: rng.choice([-200, 130, 9, -3])})
    if "rotated" in m:
        out.append({**m, "rotated": not m["rotated"]})
    if "target_seat" in m:
        out += [{**m, "target_seat": t} for t in (-1, n, seat, rng.randrange(n))]
    if "goal" in m:
        out += [{**m, "goal": g} for g in (-1, 3, rng.randrange(3))]
    if "tool" in m:
        out += [{**m, "tool": t} for t in ("hammer", "pickaxe", "lantern", "cart")]
    if "card" in m:
        if others:
            out.append({**m, "card": rng.choice(others)})
        if unseen:
            out.append({**m, "card": rng.choice(unseen)})
        out.append({**m, "card": CARD_LIST[rng.randrange(len(CARD_LIST))].id})
        out.append({**m, "card": ""})
        for t in ("place_path", "break_tool", "map", "rockfall", "theft", "trap", "inspect"):
            if t != m["type"]:
                out.append({**m, "type": t, "x": 1, "y": 0, "rotated": False, "goal": 0,
                            "target_seat": (seat + 1) % n})  # fmt: skip
    if "cards" in m:
        cs = list(m["cards"])
        out.append({**m, "cards": cs + cs[:1]})
        out.append({**m, "cards": []})
        out.append({**m, "cards": cs[:1] + others[:1]})
        out.append({**m, "cards": cs + [c for c in others[:3]]})
    if "remove" in m:
        out += [{**m, "remove": r} for r in ("BREAK_PICKAXE", "TRAPPED", "THEFT", "S1_CROSS")]
    out.append({"type": "next_round"})
    out.append({"type": "steal", "target_seat": (seat + 1) % n})
    out.append({"type": "take_seat_back"})
    # malformed
    out.append([m])
    out.append({**m, "type": "fly"})
    for fld in m:
        if fld != "type":
            short = dict(m)
            del short[fld]
            out.append(short)
            out.append({**m, fld: "1" if not isinstance(m[fld], str) else 1})
    return out


def check_refusals(state: GameState, seat: int, rng: random.Random) -> int:
    """Every candidate is accepted iff it is equivalent to a listed move; refusals carry a
    Reason of the closed list. Returns how many candidates were tried."""
    listed = legal_moves(state, seat)
    legal = {canonical(state, seat, m) for m in listed}
    cells = dict(state.rs.board.cells)
    tried = 0
    for base in rng.sample(listed, min(4, len(listed))):
        for cand in mutations(state, seat, base, rng):
            tried += 1
            try:
                apply_move(state, seat, cand)
            except IllegalMove as exc:
                assert isinstance(exc.reason, Reason), exc
                assert exc.reason in set(Reason)
                assert canonical(state, seat, cand) not in legal, (cand, exc.reason)
            except MoveFormatError:
                pass
            else:
                assert isinstance(cand, dict) and canonical(state, seat, cand) in legal, cand
    # the same legal move out of turn, by every other seat, and by seats that do not exist
    move = rng.choice(listed)
    for other in range(state.n):
        if other != seat and state.phase in ("playing", "stealing"):
            tried += 1
            try:
                apply_move(state, other, move)
            except IllegalMove as exc:
                assert exc.reason in (Reason.NOT_YOUR_TURN, Reason.CARD_NOT_IN_HAND), exc.reason
            else:
                raise AssertionError(f"seat {other} played out of turn: {move}")
    for bad in (-1, state.n, True):
        tried += 1
        try:
            apply_move(state, bad, move)
        except IllegalMove as exc:
            assert exc.reason == Reason.BAD_SEAT
        else:
            raise AssertionError(f"seat {bad!r} accepted")
    assert state.rs.board.cells == cells  # refusals never touch the input
    return tried


def check_all_apply(state: GameState, seat: int) -> None:
    """Every listed move applies; the list is as API.md says: no duplicates, symmetric
    cards once (upright), discard lists sorted."""
    listed = legal_moves(state, seat)
    assert len({repr(sorted(m.items())) for m in listed}) == len(listed)
    table = state.rs.table
    for m in listed:
        if m["type"] == "place_path" and SYMMETRIC[table.cards[table.pos_of[m["card"]]]]:
            assert m["rotated"] is False, m
        if "cards" in m:
            assert m["cards"] == sorted(m["cards"]), m
    for m in listed:
        new, events = apply_move(state, seat, m)
        assert new.seq == state.seq + 1 and events and all(e["seq"] == new.seq for e in events)


@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)
@given(
    config=configs(),
    seed=st.integers(0, 2**31),
    east_bias=st.sampled_from([0.0, 0.5, 0.9]),
    timeouts=st.sampled_from([0.0, 0.05]),
)
def test_random_games_keep_invariants(
    config: GameConfig, seed: int, east_bias: float, timeouts: float
) -> None:
    rng = random.Random(seed)
    tried = 0
    game = walk(config, seed, east_bias=east_bias, timeouts=timeouts)
    for steps, (before, entry, after) in enumerate(game, 1):
        problems = check_state(after, codec=steps % 17 == 0)
        assert not problems, (entry, problems)
        if "seat" in entry and (tried == 0 or rng.random() < 0.08):
            check_all_apply(before, entry["seat"])
            tried += check_refusals(before, entry["seat"], rng)
    assert after.phase == "finished"
    assert tried > 0
    assert len(after.results) == config.rounds
    assert check_state(after) == []
    # nothing is legal after the end
    try:
        apply_timeout(after)
    except IllegalMove as exc:
        assert exc.reason == Reason.WRONG_PHASE
    else:
        raise AssertionError("a timeout was applied after the game ended")
    for s in range(config.players):
        assert legal_moves(after, s) == []
        try:
            apply_move(after, s, {"type": "next_round"})
        except IllegalMove as exc:
            assert exc.reason == Reason.GAME_OVER
        else:
            raise AssertionError("a move was accepted after the game ended")


@settings(max_examples=15, deadline=None, derandomize=True)
@given(config=configs(), seed=st.integers(0, 2**31))
def test_round_over_only_accepts_next_round_once(config: GameConfig, seed: int) -> None:
    for before, _entry, _after in walk(config, seed, east_bias=0.7):
        if before.phase != "round_over":
            continue
        for s in range(config.players):
            if s in before.ready:
                try:
                    apply_move(before, s, {"type": "next_round"})
                except IllegalMove as exc:
                    assert exc.reason == Reason.ALREADY_READY
                else:
                    raise AssertionError("ready twice")
            for bad in ({"type": "discard", "cards": ["aaaaa"]}, {"type": "steal"}):
                try:
                    apply_move(before, s, bad)
                except IllegalMove as exc:
                    assert exc.reason == Reason.WRONG_PHASE
                else:
                    raise AssertionError(f"{bad} accepted in round_over")
