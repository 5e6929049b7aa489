"""Every decision is a legal move; decisions are reproducible; bad calls fail clearly."""

from __future__ import annotations

import random
from typing import Any

import pytest

from core.ai import LEVELS, beliefs, choose_move
from tests.core.ai.conftest import engine, sample_views


def _play(
    edition: str, players: int, seed: int, options: dict[str, Any], levels: tuple[str, ...]
) -> int:
    """Whole games where computer players fill every seat; returns decisions checked."""
    cfg = engine.GameConfig.from_options(edition, players, options)
    state = engine.new_game(cfg, seed)
    rng = random.Random(seed)
    n = 0
    while engine.phase(state) != "finished":
        if engine.phase(state) == "round_over":
            for seat in sorted(engine.waiting_on(state)):
                view = engine.view_for(state, seat)
                move = choose_move(view, level=rng.choice(levels), seed=n)
                assert move in view["legal_moves"]
                state, _ = engine.apply_move(state, seat, move)
                if engine.phase(state) != "round_over":
                    break
            continue
        seat = engine.actor(state)
        view = engine.view_for(state, seat)
        move = choose_move(view, level=rng.choice(levels), seed=n)
        assert move in view["legal_moves"], move
        state, _ = engine.apply_move(state, seat, move)  # never raises IllegalMove
        n += 1
    return n


@pytest.mark.parametrize(
    ("edition", "players", "options"),
    [
        ("classic", 3, {"rounds": 2}),
        ("classic", 7, {"rounds": 1, "selfish_dwarf": True}),
        ("classic", 10, {"rounds": 1, "bounded_board": True}),
        ("expansion", 2, {"rounds": 1}),
        ("expansion", 6, {"rounds": 2}),
        ("expansion", 12, {"rounds": 1}),
    ],
)
def test_every_decision_is_legal_in_whole_games(
    edition: str, players: int, options: dict[str, Any]
) -> None:
    assert _play(edition, players, 31 + players, options, ("easy", "normal", "hard")) > 10


def test_legal_over_many_random_positions(
    classic_views: list[dict[str, Any]], expansion_views: list[dict[str, Any]]
) -> None:
    for i, view in enumerate(classic_views + expansion_views):
        for level in LEVELS:
            assert choose_move(view, level=level, seed=i) in view["legal_moves"]


def test_same_view_level_and_seed_give_the_same_move() -> None:
    views = sample_views("expansion", 5, 1, 4242, every=5)
    views += sample_views("classic", 5, 1, 4243, every=5)
    for i, view in enumerate(views):
        for level in LEVELS:
            a = choose_move(view, level=level, seed=i)
            b = choose_move(dict(view), level=level, seed=i)
            assert a == b
        assert beliefs(view) == beliefs(view)


def test_no_legal_move_and_unknown_level_are_errors(classic_views: list[dict[str, Any]]) -> None:
    view = dict(classic_views[0])
    with pytest.raises(ValueError, match="unknown level"):
        choose_move(view, level="grandmaster", seed=1)
    view["legal_moves"] = []
    with pytest.raises(ValueError, match="no legal move"):
        choose_move(view, seed=1)


def test_beliefs_cover_every_seat(classic_views: list[dict[str, Any]]) -> None:
    for view in classic_views[:10]:
        b = beliefs(view)
        assert set(b) == {s["seat"] for s in view["seats"]}
        assert all(0.0 <= p <= 1.0 for p in b.values())
        me = view["you"]["seat"]
        assert b[me] == (1.0 if view["you"]["role"] == "SABOTEUR" else 0.0)


def test_hard_decisions_fit_the_time_budget(
    expansion_views: list[dict[str, Any]], classic_views: list[dict[str, Any]]
) -> None:
    """Issue 21: a `hard` decision's p95 <= 250 ms of CPU on the evaluation box. CPU time
    (the CI box is shared and its CPU time varies by a third from run to run), bounds
    loose, a guard against a budget gone wrong by a multiple; the benchmark reports the
    real figures."""
    import time

    spent = []
    for i, view in enumerate(expansion_views + classic_views):
        t0 = time.process_time()
        choose_move(view, level="hard", seed=i)
        spent.append(time.process_time() - t0)
    spent.sort()
    assert sum(spent) / len(spent) < 0.2
    assert spent[int(0.95 * len(spent))] < 0.6
