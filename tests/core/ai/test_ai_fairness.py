"""The agents decide from the view only: they never touch anything else.

Three angles: (1) a view that records every key read, plus poisoned keys that must never
be read; (2) hidden state changed behind the view (other seats' roles, where the gold
lies) gives the same view and the same decision; (3) the view is never mutated.
"""

from __future__ import annotations

import copy
import dataclasses
import random
from typing import Any

import pytest

from core.ai import beliefs, choose_move
from tests.core.ai.conftest import engine

# every field the API view may carry (API.md) - the agents may read these, nothing else
VIEW_KEYS = {
    "game_id",
    "version",
    "status",
    "edition",
    "options",
    "round",
    "rounds",
    "seq",
    "you",
    "seats",
    "board",
    "goals",
    "deck_size",
    "discard_size",
    "current_seat",
    "turn_deadline",
    "log",
    "round_result",
    "final",
    "legal_moves",
}
POISON = {"_state": "hidden", "seed": 12345, "roles": ["SABOTEUR"], "hands": [[1, 2]]}


class Spy(dict):  # type: ignore[type-arg,unused-ignore]
    """A dict that records which keys are read (recursively wraps what it returns)."""

    def __init__(self, data: dict[str, Any], seen: set[str], path: str = "") -> None:
        super().__init__(data)
        self._seen = seen
        self._path = path

    def _wrap(self, key: str, value: Any) -> Any:
        p = f"{self._path}.{key}" if self._path else str(key)
        self._seen.add(p)
        if isinstance(value, dict):
            return Spy(value, self._seen, p)
        if isinstance(value, list):
            return [Spy(v, self._seen, p + "[]") if isinstance(v, dict) else v for v in value]
        return value

    def __getitem__(self, key: str) -> Any:
        return self._wrap(key, super().__getitem__(key))

    def get(self, key: str, default: Any = None) -> Any:
        if key in self:
            return self._wrap(key, super().__getitem__(key))
        self._seen.add(f"{self._path}.{key}" if self._path else str(key))
        return default

    def items(self):  # type: ignore[no-untyped-def,override,unused-ignore]
        raise AssertionError(f"agent iterated over every field of {self._path or 'view'}")

    def values(self):  # type: ignore[no-untyped-def,override,unused-ignore]
        raise AssertionError(f"agent iterated over every field of {self._path or 'view'}")


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
def test_agents_read_only_view_fields(
    classic_views: list[dict[str, Any]], expansion_views: list[dict[str, Any]], level: str
) -> None:
    seen: set[str] = set()
    for view in classic_views[:25] + expansion_views[:25]:
        poisoned = {**copy.deepcopy(view), **POISON}
        move = choose_move(Spy(poisoned, seen), level=level, seed=3)
        assert move in view["legal_moves"]
        beliefs(Spy(poisoned, seen))
    top = {p.split(".")[0].removesuffix("[]") for p in seen}
    assert top <= VIEW_KEYS, top - VIEW_KEYS
    assert not top & set(POISON)


def test_hidden_state_cannot_change_the_decision() -> None:
    cfg = engine.GameConfig.from_options("classic", 6, {"rounds": 1})
    checked = 0
    for g in range(4):
        state = engine.new_game(cfg, 900 + g)
        rng = random.Random(g)
        for _ in range(rng.randrange(4, 20)):
            seat = engine.actor(state)
            v = engine.view_for(state, seat)
            state, _ = engine.apply_move(state, seat, rng.choice(v["legal_moves"]))
            if engine.phase(state) != "playing":
                break
        if engine.phase(state) != "playing":
            continue
        seat = engine.actor(state)
        rs = state.rs
        # swap every other seat's role and move the gold: nothing the seat may know
        others = [s for s in range(cfg.players) if s != seat]
        roles = list(rs.roles)
        flipped = {s: ("SABOTEUR" if roles[s] != "SABOTEUR" else "GOLD_DIGGER") for s in others}
        for s, r in flipped.items():
            roles[s] = r
        altered = dataclasses.replace(state, rs=dataclasses.replace(rs, roles=tuple(roles)))
        v1, v2 = engine.view_for(state, seat), engine.view_for(altered, seat)
        if any(k["goal"] is not None for k in v1["you"]["known_goals"]):
            pass  # a seat that looked at a goal still sees the same thing: roles only
        assert v1 == v2
        for level in ("easy", "normal", "hard"):
            assert choose_move(v1, level=level, seed=5) == choose_move(v2, level=level, seed=5)
        assert beliefs(v1) == beliefs(v2)
        checked += 1
    assert checked >= 2


def test_the_view_is_not_mutated(expansion_views: list[dict[str, Any]]) -> None:
    for view in expansion_views[:20]:
        before = copy.deepcopy(view)
        choose_move(view, level="hard", seed=1)
        beliefs(view)
        assert view == before


def test_the_search_sees_the_round_log_but_no_hidden_card() -> None:
    """`hard` via the pool entry (`decide`: the round's whole public log) decides the same
    when other seats' roles, the cards in their hands and where the gold lies change."""
    from core.ai import AI_LOG_LIMIT, decide

    cfg = engine.GameConfig.from_options("classic", 6, {"rounds": 1})
    checked = 0
    for g in range(6):
        state = engine.new_game(cfg, 950 + g)
        rng = random.Random(g)
        for _ in range(rng.randrange(8, 30)):
            seat = engine.actor(state)
            v = engine.view_for(state, seat)
            state, _ = engine.apply_move(state, seat, rng.choice(v["legal_moves"]))
            if engine.phase(state) != "playing":
                break
        if engine.phase(state) != "playing":
            continue
        seat = engine.actor(state)
        rs = state.rs
        others = [s for s in range(cfg.players) if s != seat and rs.hands[s]]
        roles = list(rs.roles)
        for s in others:
            roles[s] = "SABOTEUR" if roles[s] != "SABOTEUR" else "GOLD_DIGGER"
        hands = list(rs.hands)
        a, b = others[0], others[1]
        if len(hands[a]) == len(hands[b]):
            hands[a], hands[b] = hands[b], hands[a]
        board = rs.board
        hidden = [i for i in range(3) if not board.revealed[i] and i not in rs.known_goals[seat]]
        goals = list(board.goals)
        if len(hidden) >= 2:
            goals[hidden[0]], goals[hidden[1]] = goals[hidden[1]], goals[hidden[0]]
        altered = dataclasses.replace(
            state,
            rs=dataclasses.replace(
                rs,
                roles=tuple(roles),
                hands=tuple(hands),
                board=type(board)(dict(board.cells), tuple(goals), board.revealed, board.bounded),
            ),
        )
        full = engine.view_for(state, seat, log_limit=AI_LOG_LIMIT)
        assert full == engine.view_for(altered, seat, log_limit=AI_LOG_LIMIT)
        assert len(full["log"]) > 50 or full["log"][0]["code"] == "round_started"
        assert decide(state, seat, "hard", 11) == decide(altered, seat, "hard", 11)
        checked += 1
    assert checked >= 3
