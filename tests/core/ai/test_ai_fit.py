"""Fit-aware route length (core.ai.fit) and its use in the digger's placement choice."""

from __future__ import annotations

import pytest

from core.ai import policy
from core.ai.agent import choose_move
from core.ai.board_model import Board
from core.ai.fit import Supply, deck_counts, fit_distances, supply_for
from tests.core.ai.ai_views import START, make_view


def board(cells: dict[tuple[int, int], tuple[str, bool]]) -> Board:
    return Board.from_view(make_view({**START, **cells}, []))


def plenty(k: float = 2.0) -> Supply:
    return Supply({}, dict(deck_counts("classic")), k=k, t=4.0, w_unseen=1.0)


def last_cross_cell(
    corridor: dict[tuple[int, int], tuple[str, bool]],
) -> dict[tuple[int, int], tuple[str, bool]]:
    """The start, `corridor`, and (7, 0) between two north-south straights, so only a
    cross can cross it west to east; four of the five crosses lie on the table far away."""
    cells = {
        **START,
        **corridor,
        (7, -1): ("S1_STRAIGHT_NS", False),
        (7, 1): ("S1_STRAIGHT_NS", False),
    }
    for i in range(4):
        cells[(-3 - 2 * i, 5)] = ("S1_CROSS", False)
    return cells


def test_with_every_card_available_it_equals_the_plain_distance() -> None:
    b = board({(1, 0): ("S1_STRAIGHT_EW", False), (2, 0): ("S1_CURVE_NW", False)})
    plain = b.goal_distances()
    fit = fit_distances(b, plenty())
    assert {g: round(v, 6) for g, v in fit.items()} == {g: float(v) for g, v in plain.items()}


def test_a_cell_only_a_missing_shape_fits_is_impassable() -> None:
    # (1, 0) is walled north and south by dead ends facing away: only a card joining
    # west and east with walls north and south fits there, i.e. the straight EW
    b = board({(1, -1): ("S1_DEAD_N", False), (1, 1): ("S1_DEAD_N", True)})
    counts = dict(deck_counts("classic"))
    with_straights = Supply({}, dict(counts), k=2.0, t=4.0, w_unseen=1.0)
    counts.pop("S1_STRAIGHT_EW")
    without = Supply({}, counts, k=2.0, t=4.0, w_unseen=1.0)
    assert fit_distances(b, with_straights, [1])[1] == 7.5  # the straight is scarce: +0.5
    assert fit_distances(b, without, [1])[1] == 11.0  # around the walled cell


def test_scarce_shapes_cost_more_and_own_cards_count_as_certain() -> None:
    b = board({})
    scarce = Supply({}, {"S1_STRAIGHT_EW": 1}, k=0.5, t=4.0, w_unseen=0.5)
    own = Supply({"S1_STRAIGHT_EW": 1}, {}, k=0.5, t=4.0, w_unseen=0.5)
    none = Supply({}, {}, k=0.5, t=4.0, w_unseen=0.5)
    d_scarce = fit_distances(b, scarce, [1])[1]
    d_own = fit_distances(b, own, [1])[1]
    assert 7 < d_own < d_scarce  # 7 empty cells, each short of supply
    assert fit_distances(b, none, [1])[1] >= 14  # nothing can be placed: out of reach


def test_supply_counts_what_is_not_on_the_table_nor_in_hand() -> None:
    b = board({(1, 0): ("S1_CROSS", False)})
    sup = supply_for(
        "classic",
        b,
        {"a": "S1_CROSS", "b": "MAP"},
        ["S1_CROSS"],
        k=2.0,
        t=4.0,
        w_unseen=0.5,
    )
    assert sup.own == {"S1_CROSS": 1}
    assert sup.unseen["S1_CROSS"] == deck_counts("classic")["S1_CROSS"] - 3
    assert sup.without("S1_CROSS").own["S1_CROSS"] == 0


def test_digger_keeps_the_cross_the_last_cell_needs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Front at (4, 0), gold known at (8, 0): (7, 0) lies between two north-south
    straights, so only a cross can cross it west to east, and the digger holds the last
    one. The plain model takes the cross for (5, 0) (most open exits); the fit-aware
    re-ranking lays the T there and keeps the cross."""
    cells = last_cross_cell(
        {
            (1, 0): ("S1_T_NEW", False),
            (2, 0): ("S1_T_NEW", False),
            (3, 0): ("S1_STRAIGHT_EW", False),
            (4, 0): ("S1_STRAIGHT_EW", False),
        }
    )
    view = make_view(
        cells,
        ["S1_CROSS", "S1_T_NEW", "S1_STRAIGHT_EW"],
        deck_size=3,
        known_goals=[{"goal": 1, "kind": "gold"}],
    )
    for level in ("normal", "hard"):
        move = choose_move(view, level=level, seed=1)
        assert (move["x"], move["y"]) == (5, 0)
        assert move["card"] != "c0"  # not the cross
    monkeypatch.setattr(policy, "FIT_W", 0.0)
    move = choose_move(view, level="hard", seed=1)
    assert (move["card"], move["x"], move["y"]) == ("c0", 5, 0)


def test_supply_without_own_leaves_my_cards_out() -> None:
    sup = Supply({"S1_CROSS": 1}, {"S1_CROSS": 2}, k=2.0, t=4.0, w_unseen=1.0)
    other = sup.without_own()
    assert other.own == {} and other.unseen == {"S1_CROSS": 2}


def test_saboteur_lays_progress_that_strands_the_route(monkeypatch: pytest.MonkeyPatch) -> None:
    """A corridor of east-west straights ends at (5, 0); gold known at (8, 0); (7, 0)
    lies between two north-south straights, so only a cross crosses it, and the saboteur
    holds the last one. A straight at (6, 0) looks like progress on the public maze, yet
    it seals the corridor for the diggers (nothing they can get fits (7, 0)); the plain
    model prefers to turn the corridor away with the curve (an open block)."""
    cells = last_cross_cell({(x, 0): ("S1_STRAIGHT_EW", False) for x in range(1, 6)})
    view = make_view(
        cells,
        ["S1_CROSS", "S1_STRAIGHT_EW", "S1_CURVE_NW"],
        role="SABOTEUR",
        players=6,
        deck_size=10,
        known_goals=[{"goal": 1, "kind": "gold"}],
    )
    monkeypatch.setattr(policy, "SAB_FIT_W", 1.0)
    for level in ("normal", "hard"):
        move = choose_move(view, level=level, seed=1)
        assert (move["x"], move["y"]) == (6, 0)
        assert move["card"] != "c2"  # not the curve
    monkeypatch.setattr(policy, "SAB_FIT_W", 0.0)
    move = choose_move(view, level="normal", seed=1)
    assert (move["card"], move["x"], move["y"]) == ("c2", 6, 0)


def test_a_quiet_tunnel_earns_the_saboteur_quiet_w(monkeypatch: pytest.MonkeyPatch) -> None:
    """A north-south straight on the cross's north exit at (1, -1) changes no distance,
    true or public: for a classic saboteur it scores QUIET_W more than without the term;
    a dead end there, and the same tunnel for a digger, score the same either way."""
    cells = {
        **START,
        (1, 0): ("S1_CROSS", False),
        (2, 0): ("S1_STRAIGHT_EW", False),
        (3, 0): ("S1_STRAIGHT_EW", False),
    }

    def scores(role: str) -> dict[str, float]:
        view = make_view(cells, ["S1_STRAIGHT_NS", "S1_DEAD_N"], role=role, players=6)
        ctx = policy.make_ctx(view, careful=True)
        out = {}
        for m in view["legal_moves"]:
            if m["type"] == "place_path" and (m["x"], m["y"]) == (1, -1):
                out[ctx.hand[m["card"]]] = policy.score_move(ctx, m)
        return out

    with_term = {role: scores(role) for role in ("SABOTEUR", "GOLD_DIGGER")}
    monkeypatch.setattr(policy, "QUIET_W", 0.0)
    without = {role: scores(role) for role in ("SABOTEUR", "GOLD_DIGGER")}
    sab, dig = with_term["SABOTEUR"], with_term["GOLD_DIGGER"]
    assert set(sab) == {"S1_STRAIGHT_NS", "S1_DEAD_N"}
    assert sab["S1_STRAIGHT_NS"] == pytest.approx(without["SABOTEUR"]["S1_STRAIGHT_NS"] + 1.5)
    assert sab["S1_DEAD_N"] == pytest.approx(without["SABOTEUR"]["S1_DEAD_N"])
    assert dig == pytest.approx(without["GOLD_DIGGER"])
