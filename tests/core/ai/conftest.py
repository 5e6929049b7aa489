"""Fixtures for the computer-player tests: views recorded from real engine games."""

from __future__ import annotations

import random
from typing import Any

import pytest

engine = pytest.importorskip("core.engine")


def sample_views(
    edition: str,
    players: int,
    games: int,
    seed: int,
    options: dict[str, Any] | None = None,
    every: int = 3,
) -> list[dict[str, Any]]:
    """Views of the acting seat at every `every`-th turn of random-play games."""
    cfg = engine.GameConfig.from_options(edition, players, {"rounds": 1, **(options or {})})
    out: list[dict[str, Any]] = []
    for g in range(games):
        state = engine.new_game(cfg, seed + g)
        rng = random.Random(seed + g)
        turn = 0
        while engine.phase(state) in ("playing", "stealing"):
            seat = engine.actor(state)
            view = engine.view_for(state, seat)
            if turn % every == 0:
                out.append(view)
            state, _ = engine.apply_move(state, seat, rng.choice(view["legal_moves"]))
            turn += 1
    return out


def midgame(edition: str, players: int, seed: int, moves: int) -> Any:
    """A one-round state after `moves` random moves, or None if the round ended first."""
    cfg = engine.GameConfig.from_options(edition, players, {"rounds": 1})
    state = engine.new_game(cfg, seed)
    rng = random.Random(seed)
    for _ in range(moves):
        seat = engine.actor(state)
        v = engine.view_for(state, seat)
        state, _ = engine.apply_move(state, seat, rng.choice(v["legal_moves"]))
        if engine.phase(state) != "playing":
            return None
    return state


@pytest.fixture(scope="session")
def classic_views() -> list[dict[str, Any]]:
    return sample_views("classic", 6, 3, 7000)


@pytest.fixture(scope="session")
def expansion_views() -> list[dict[str, Any]]:
    return sample_views("expansion", 7, 3, 8000)
