"""The classic win model: it reads a round the way rounds end, and the search can use it."""

from __future__ import annotations

import dataclasses
import itertools
import json
from importlib import resources

from core.ai import win_model
from core.ai.search import WIN, value
from tests.core.ai.conftest import midgame


def _p(sit: win_model.Situation) -> float:
    return win_model.chance(win_model.features(sit), win_model.coefficients())


def test_the_fit_predicts_held_out_rounds_better_than_the_distance_alone() -> None:
    raw = json.loads(resources.files("core.ai").joinpath("data/win_classic.json").read_text())
    held = raw["held_out"]
    assert raw["samples"]["test"] >= 10_000
    assert held["model"]["log_loss"] < held["distance_only"]["log_loss"]
    assert held["distance_only"]["log_loss"] < held["base_rate"]["log_loss"]
    assert set(raw["coefficients"]) == set(win_model.FEATURES)


def test_the_diggers_chance_falls_with_distance_and_rises_with_their_turns() -> None:
    """At every stage of a round the search meets, a card more to dig never helps the
    diggers, a broken digger never helps them, and a broken saboteur never hurts them
    (the search's verdicts lean on all three)."""
    for players, saboteurs in ((3, 1), (4, 1), (6, 2), (8, 3), (10, 4)):
        diggers = players - saboteurs
        for cards in range(0, 70, 3):
            for free in range(diggers + 1):
                for free_sab in range(saboteurs + 1):
                    row = [
                        _p(win_model.Situation(d, cards, players, free, saboteurs, free_sab))
                        for d in range(win_model.DIST_CAP + 1)
                    ]
                    where = (players, cards, free, free_sab)
                    assert all(a >= b for a, b in itertools.pairwise(row)), where
                    if free:
                        fewer = win_model.Situation(
                            5, cards, players, free - 1, saboteurs, free_sab
                        )
                        more = win_model.Situation(5, cards, players, free, saboteurs, free_sab)
                        assert _p(fewer) <= _p(more), where
                    if free_sab:
                        mended = win_model.Situation(5, cards, players, free, saboteurs, free_sab)
                        broken = win_model.Situation(
                            5, cards, players, free, saboteurs, free_sab - 1
                        )
                        assert _p(broken) >= _p(mended), where


def test_a_broken_digger_lowers_the_diggers_chance() -> None:
    state = midgame("classic", 6, 7, 10)
    assert state is not None
    digger = next(
        s
        for s, r in enumerate(state.rs.roles)
        if "DIGGER" in r.upper() and not any("BREAK" in c for c in state.rs.in_front[s])
    )
    front = list(state.rs.in_front)
    front[digger] = (*front[digger], "BREAK_PICKAXE")
    broken = dataclasses.replace(state, rs=dataclasses.replace(state.rs, in_front=tuple(front)))
    assert win_model.p_diggers(broken) < win_model.p_diggers(state)


def test_a_judged_world_is_worth_the_same_to_both_sides_with_opposite_signs() -> None:
    state = midgame("classic", 6, 11, 12)
    assert state is not None
    roles = [r.upper() for r in state.rs.roles]
    digger = next(s for s, r in enumerate(roles) if "DIGGER" in r)
    saboteur = next(s for s, r in enumerate(roles) if "SABOTEUR" in r)
    p = win_model.p_diggers(state)
    assert 0.0 < p < 1.0
    assert value(state, digger, "win") == WIN * (2 * p - 1)
    assert value(state, saboteur, "win") == -value(state, digger, "win")
    # the distance judge is unchanged by it
    assert value(state, digger) != value(state, digger, "win")
