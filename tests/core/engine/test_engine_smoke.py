"""End-to-end: random legal play of whole games in both editions, codec and replay."""

from __future__ import annotations

import json
import random

import pytest

from core.engine import (
    GameConfig,
    actor,
    apply_move,
    apply_timeout,
    legal_moves,
    new_game,
    phase,
    replay,
    scores,
    state_from_json,
    state_to_json,
    view_for,
    waiting_on,
)


def random_game(edition: str, players: int, seed: int, options=None, check: bool = True):
    cfg = GameConfig.from_options(edition, players, options or {})
    s = new_game(cfg, seed)
    rng = random.Random(seed)
    log = []
    while phase(s) != "finished":
        if phase(s) == "round_over":
            if rng.random() < 0.5:
                s, _ = apply_timeout(s)
                log.append({"timeout": True})
                continue
            for seat in sorted(waiting_on(s)):
                s, _ = apply_move(s, seat, {"type": "next_round"})
                log.append({"seat": seat, "move": {"type": "next_round"}})
            continue
        a = actor(s)
        if rng.random() < 0.03:
            s, _ = apply_timeout(s)
            log.append({"timeout": True})
            continue
        move = rng.choice(legal_moves(s, a))
        s, _ = apply_move(s, a, move)
        log.append({"seat": a, "move": move})
        if check:
            assert state_from_json(json.loads(json.dumps(state_to_json(s)))) == s
    return s, log


@pytest.mark.parametrize(
    ("edition", "players", "options"),
    [
        ("classic", 3, {}),
        ("classic", 10, {}),
        ("classic", 7, {"selfish_dwarf": True, "old_mine": True}),
        ("classic", 6, {"tournament": True, "competitive": True}),
        ("expansion", 2, {}),
        ("expansion", 12, {"bounded_board": True}),
    ],
)
def test_random_games_finish_and_replay(edition: str, players: int, options: dict) -> None:
    for seed in range(2):
        s, log = random_game(edition, players, seed, options)
        assert phase(s) == "finished"
        assert len(s.results) == 3
        assert sum(scores(s)) >= 0
        again = replay(s.config, seed, log)
        assert state_to_json(again) == state_to_json(s)
        v = view_for(s, 0)
        assert v["final"]["gold"] == scores(s)
