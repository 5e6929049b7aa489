"""legal_moves and apply_move agree: every listed move applies, every unlisted one is refused."""

from __future__ import annotations

import random

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
    state_to_json,
)
from core.engine.board import unkey
from core.engine.cards import CARD_LIST, SYMMETRIC


def positions(edition: str, players: int, seed: int, every: int = 7):
    s = new_game(GameConfig.from_options(edition, players, {}), seed)
    rng = random.Random(seed)
    i = 0
    while phase(s) != "finished":
        if phase(s) != "playing":
            s, _ = apply_timeout(s)
            continue
        a = actor(s)
        lm = legal_moves(s, a)
        paths = [m for m in lm if m["type"] == "place_path"]
        if i % every == 0:
            yield s
        i += 1
        s, _ = apply_move(s, a, rng.choice(paths if paths and rng.random() < 0.8 else lm))


@pytest.mark.parametrize(("edition", "players", "seed"), [("classic", 5, 1), ("expansion", 4, 2)])
def test_placements_listed_iff_accepted(edition: str, players: int, seed: int) -> None:
    checked = 0
    for s in positions(edition, players, seed):
        a = actor(s)
        listed = {
            (m["card"], m["x"], m["y"], m["rotated"])
            for m in legal_moves(s, a)
            if m["type"] == "place_path"
        }
        xs = [unkey(k)[0] for k in s.rs.board.cells]
        ys = [unkey(k)[1] for k in s.rs.board.cells]
        rs = s.rs
        before = state_to_json(s)
        for pos in rs.hands[a]:
            idx = rs.table.cards[pos]
            if CARD_LIST[idx].category != "path":
                continue
            card = rs.table.iids[pos]
            for x in range(min(xs) - 1, max(xs) + 2):
                for y in range(min(ys) - 1, max(ys) + 2):
                    for rot in (False, True):
                        move = {"type": "place_path", "card": card, "x": x, "y": y, "rotated": rot}
                        want = (card, x, y, False if SYMMETRIC[idx] else rot) in listed
                        try:
                            apply_move(s, a, move)
                            ok = True
                        except IllegalMove:
                            ok = False
                        assert ok == want, (move, want)
                        checked += 1
        assert state_to_json(s) == before  # apply_move never mutates its input
    assert checked > 500


@pytest.mark.parametrize(("edition", "players", "seed"), [("classic", 4, 3), ("expansion", 5, 4)])
def test_every_listed_move_applies(edition: str, players: int, seed: int) -> None:
    n = 0
    for s in positions(edition, players, seed, every=5):
        a = actor(s)
        for m in legal_moves(s, a):
            apply_move(s, a, m)
            n += 1
    assert n > 200
