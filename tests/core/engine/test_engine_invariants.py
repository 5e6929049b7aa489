"""Invariants after every move of random games: card conservation, one gold goal, hands."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from core.engine import (
    GameConfig,
    IllegalMove,
    actor,
    apply_move,
    apply_timeout,
    legal_moves,
    new_game,
    phase,
)
from core.engine.board import GOAL_KEYS, START_KEY, Board
from core.engine.cards import CARD_INDEX, GOLD
from core.engine.setup import hand_size


def check(s) -> None:
    rs = s.rs
    t = rs.table
    seen: Counter[int] = Counter()
    seen.update(t.cards[rs.drawn :])
    if s.config.expansion:
        seen.update(t.cards[:10])
    for h in rs.hands:
        seen.update(t.cards[p] for p in h)
        assert len(h) <= hand_size(s.config, s.catalogue)
    held = [p for h in rs.hands for p in h]
    assert len(held) == len(set(held))
    assert all(p >= (10 if s.config.expansion else 0) and p < rs.drawn for p in held)
    for k, o in rs.board.cells.items():
        if k != START_KEY and k not in GOAL_KEYS:
            seen[o >> 1] += 1
    seen.update(rs.discard)
    for f in rs.in_front:
        seen.update(CARD_INDEX[c] for c in f)
        assert len(f) == len(set(f))
    assert seen == Counter(s.catalogue.decks[s.config.edition])
    assert list(rs.board.goals).count(GOLD) == 1
    b = rs.board
    fresh = Board(dict(b.cells), b.goals, b.revealed, b.bounded)
    assert fresh.conn == b.conn  # incremental connection == recomputed
    assert fresh.frontier() == b.frontier()  # incremental frontier == recomputed
    assert len(rs.roles) == s.n
    assert all(g >= 0 for g in s.gold)


@pytest.mark.parametrize(
    ("edition", "players", "options", "seed"),
    [
        ("classic", 3, {}, 1),
        ("classic", 8, {"competitive": True, "gold_per_digger": True}, 2),
        ("classic", 9, {"tournament": True}, 3),
        ("expansion", 2, {}, 4),
        ("expansion", 7, {}, 5),
        ("expansion", 12, {}, 6),
    ],
)
def test_random_play_invariants(edition, players, options, seed) -> None:
    s = new_game(GameConfig.from_options(edition, players, options), seed)
    rng = random.Random(seed)
    check(s)
    moves = 0
    while phase(s) != "finished":
        if phase(s) == "round_over":
            s, _ = apply_timeout(s)
            check(s)
            continue
        a = actor(s)
        lm = legal_moves(s, a)
        assert lm
        paths = [m for m in lm if m["type"] == "place_path"]
        if paths and rng.random() < 0.5:
            best = max(m["x"] for m in paths)
            move = rng.choice([m for m in paths if m["x"] == best])
        else:
            move = rng.choice(lm)
        # a random unlisted placement is refused with a reason
        if phase(s) == "playing" and paths:
            bogus = dict(paths[0], x=paths[0]["x"] + 40)
            with pytest.raises(IllegalMove):
                apply_move(s, a, bogus)
        s, _ = apply_move(s, a, move)
        moves += 1
        check(s)
    assert moves > 100
