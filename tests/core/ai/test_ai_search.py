"""The `hard` search: worlds agree with the seat's view, decisions replay, the pool entry."""

from __future__ import annotations

import random
from typing import Any

import pytest

from core.ai import AI_LOG_LIMIT, ai_view, choose_move, decide
from core.ai.agent import HARD_BUDGET
from core.ai.beliefs import compute
from core.ai.knowledge import goal_probs
from core.ai.search import worlds_for
from core.ai.worlds import WorldSampler
from tests.core.ai.conftest import engine, midgame

SAME = ("board", "deck_size", "discard_size", "round", "seq", "current_seat")


def _world_view(view: dict[str, Any], seed: int) -> dict[str, Any]:
    bel = compute(view)
    sampler = WorldSampler(view, bel, bel.goals or goal_probs(view))
    world = sampler.sample(random.Random(seed))
    me = view["you"]["seat"]
    return engine.view_for(world, me)


@pytest.mark.parametrize("which", ["classic_views", "expansion_views"])
def test_worlds_agree_with_what_the_seat_sees(which: str, request: pytest.FixtureRequest) -> None:
    views = [v for v in request.getfixturevalue(which) if v["status"] == "playing"]
    assert views
    for i, view in enumerate(views[:30]):
        w = _world_view(view, i)
        for k in SAME:
            assert w[k] == view[k], k
        assert [c["card"] for c in w["you"]["hand"]] == [c["card"] for c in view["you"]["hand"]]
        assert w["you"]["role"] == view["you"]["role"]
        assert w["you"]["known_goals"] == view["you"]["known_goals"]
        for a, b in zip(w["seats"], view["seats"], strict=True):
            assert (a["hand_size"], a["in_front"]) == (b["hand_size"], b["in_front"])
        known = {g["goal"]: g["kind"] for g in view["goals"] if g["kind"]}
        assert {g["goal"]: g["kind"] for g in w["goals"] if g["goal"] in known} == known


def test_decisions_replay_and_both_entries_agree() -> None:
    state = midgame("classic", 6, 31, 14)
    assert state is not None
    seat = engine.actor(state)
    a = decide(state, seat, "hard", 7)
    assert a == decide(state, seat, "hard", 7)
    full = engine.view_for(state, seat, log_limit=AI_LOG_LIMIT)
    assert a == choose_move(full, level="hard", seed=7)
    assert a in engine.view_for(state, seat)["legal_moves"]
    assert ai_view(state, seat)["log"][0]["code"] == "round_started"
    with pytest.raises(ValueError):
        decide(state, None, "hard", 7)
    with pytest.raises(ValueError):
        decide(engine.view_for(state, seat), (seat + 1) % 6, "hard", 7)


def test_a_saboteur_2_round_plays_out_at_hard() -> None:
    cfg = engine.GameConfig.from_options("expansion", 5, {"rounds": 1})
    state = engine.new_game(cfg, 44)
    steps = 0
    while engine.phase(state) in ("playing", "stealing") and steps < 400:
        seat = engine.actor(state)
        move = decide(state, seat, "hard", steps)
        state, _ = engine.apply_move(state, seat, move)
        steps += 1
    assert engine.phase(state) in ("round_over", "finished")


@pytest.mark.parametrize("players", [3, 5, 8, 10])
def test_a_saboteur_2_decision_samples_as_many_worlds_at_any_table_size(players: int) -> None:
    """Rollouts stop short of the seat's next turn at small tables; that must not buy
    them more worlds than at 8 or 10 players (what kept a 5-player decision over the
    p95 target)."""
    cfg = engine.GameConfig.from_options("expansion", players, {"rounds": 1})
    state = engine.new_game(cfg, 45)
    rows: list[list[dict[int, float]]] = []
    steps = 0
    while not rows and engine.phase(state) == "playing" and steps < 60:
        seat = engine.actor(state)
        move = choose_move(ai_view(state, seat), level="hard", seed=steps, verdicts=rows)
        state, _ = engine.apply_move(state, seat, move)
        steps += 1
    assert rows, "no decision was searched"
    candidates = len(rows[0][0])
    assert len(rows[0]) == worlds_for(HARD_BUDGET["expansion"], candidates)
    assert len(rows[0]) == 40 // (5 * candidates)


def test_a_verdict_counts_the_seats_own_side_at_the_budgets_weight() -> None:
    """`Budget.team`: at 1 a verdict is everything the next seats' turns change; at 0
    only the other side's turns count, so a candidate followed by teammates alone has
    no verdict (the progress a teammate lays after a pass is not the pass's merit)."""
    from core.ai.agent import ROLLOUT, rollout_move
    from core.ai.search import Budget, _rollout, value, verdict

    def decide(view: dict[str, Any], seed: int) -> dict[str, Any]:
        return rollout_move(view, seed, {})

    assert ROLLOUT.search is None
    kinds = {"other side only": 0, "own side only": 0}
    for seed in range(40, 90):
        state = midgame("classic", 6, seed, 10)
        if state is None:
            continue
        me = engine.actor(state)
        roles = state.rs.roles
        mine = [roles[(me + k) % 6] == roles[me] for k in (1, 2)]  # the next two seats
        move = choose_move(ai_view(state, me), level="normal", seed=seed)
        after, _ = engine.apply_move(state, me, move)
        full = Budget(candidates=4, steps=96, depth=2)
        none = Budget(candidates=4, steps=96, depth=2, team=0.0)
        whole = verdict(after, me, 2, decide, random.Random(seed), full)
        end = _rollout(after, 2, decide, random.Random(seed))
        assert whole == value(end, me) - value(after, me)
        own = verdict(after, me, 2, decide, random.Random(seed), none)
        if all(mine):
            assert own == 0.0
            kinds["own side only"] += 1
        elif not any(mine):
            assert own == whole
            kinds["other side only"] += 1
    assert kinds["own side only"] and kinds["other side only"]


def test_allies_are_two_sides_in_classic_and_by_role_in_saboteur_2() -> None:
    """Whose turns `Budget.team` weighs as a seat's own: classic's two sides; in Saboteur
    2 a team with its own colour and the boss, the boss with both teams, saboteurs with
    saboteurs, geologists with geologists, the profiteer with nobody else."""
    from core.ai.search import allied

    assert allied("digger", "digger") and allied("saboteur", "saboteur")
    assert not allied("digger", "saboteur") and not allied("saboteur", "digger")
    assert allied("blue", "blue") and allied("blue", "boss") and not allied("blue", "green")
    assert allied("green", "boss") and not allied("green", "blue")
    assert allied("boss", "blue") and allied("boss", "green")
    assert allied("saboteur", "saboteur") and not allied("saboteur", "profiteer")
    assert allied("geologist", "geologist") and not allied("geologist", "blue")
    assert allied("profiteer", "profiteer")
    for other in ("blue", "green", "boss", "saboteur", "geologist"):
        assert not allied("profiteer", other)
        assert not allied(other, "profiteer")


def test_a_verdict_counts_as_far_as_the_worlds_agree() -> None:
    """`hard`'s classic verdicts are shrunk by their spread over the worlds: eight worlds
    that agree keep nearly their whole mean, one world's outlier with the same mean
    keeps half of it; unshrunk (Saboteur 2's budget) the plain mean."""
    from core.ai.search import shrunk

    agree = [5.0, 4.0, 6.0, 5.0, 5.0, 4.0, 6.0, 5.0]
    outlier = [40.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    assert shrunk(agree) == pytest.approx(5.0, rel=0.02)
    assert shrunk(outlier) == pytest.approx(2.5)  # m = 5, se^2 = 25: 5 * 25 / 50
    assert shrunk(outlier, shrink=False) == 5.0
    assert shrunk([-5.0, -4.0, -6.0]) < -4.0  # the sign is kept
    assert shrunk([0.0, 0.0]) == 0.0


@pytest.mark.parametrize("which", ["classic_views", "expansion_views"])
def test_a_memo_answers_what_a_fresh_search_answers(
    which: str, request: pytest.FixtureRequest
) -> None:
    """Boards of one decision share a memo of distances (`Board.memo`): every maze a
    placement makes reads the same distances through it as searched afresh, for every
    door colour, and a caller changing what it got changes nothing for the next."""
    from core.ai.board_model import Board, Memo, _search

    asked = 0
    for view in request.getfixturevalue(which)[:12]:
        memo: Memo = {}
        board = Board.from_view(view, memo)
        plain = Board.from_view(view)
        for blocked in (None, "blue", "green"):
            assert board.goal_distances(blocked) == _search(plain, blocked)
        for m in view["legal_moves"]:
            if m["type"] != "place_path":
                continue
            card = next(c["card"] for c in view["you"]["hand"] if c["id"] == m["card"])
            args = (m["x"], m["y"], card, bool(m.get("rotated")))
            for blocked in (None, "blue", "green"):
                fresh = _search(plain.with_card(*args), blocked)
                got = board.with_card(*args).goal_distances(blocked)
                assert got == fresh
                got.clear()
                known = len(memo)
                again = board.with_card(*args).goal_distances(blocked)
                assert len(memo) == known  # answered from the memo
                assert again == fresh
                asked += 1
    assert asked > 50


def test_hard_decides_the_same_with_and_without_the_memo(monkeypatch: pytest.MonkeyPatch) -> None:
    """The memo only saves searches (docs/benchmarks/ai.md): the same views and seeds, in
    both editions, give the same moves when every distance is searched afresh."""
    from core.ai import board_model

    views = []
    for edition, seed, moves in (
        ("classic", 31, 14),
        ("classic", 32, 20),
        ("classic", 33, 8),
        ("expansion", 34, 12),
        ("expansion", 35, 24),
    ):
        state = midgame(edition, 6, seed, moves)
        assert state is not None
        views.append(ai_view(state, engine.actor(state)))
    rows: list[list[dict[int, float]]] = []
    with_memo = [choose_move(v, level="hard", seed=i, verdicts=rows) for i, v in enumerate(views)]
    assert rows  # at least one decision searched
    monkeypatch.setattr(
        board_model.Board,
        "goal_distances",
        lambda self, blocked_door=None: board_model._search(self, blocked_door),
    )
    assert [choose_move(v, level="hard", seed=i) for i, v in enumerate(views)] == with_memo
