"""Sampling full game states a seat cannot tell apart from the real one (determinization).

Why: the `hard` search plays moves forward with the engine itself, which needs every card
and role; a world fills in what the seat's view hides (other seats' roles and hands, the
pile, the face-down discards, which goal holds the gold) from the seat's own beliefs,
consistent with its view and the public log: the maze, the cards in front of seats, its
own hand, the goals it saw, the hand sizes, pile and discard sizes, and the cards the log
shows were played. Worlds are built with the engine's position notation.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections import Counter
from collections.abc import Mapping

from core.ai.beliefs import BeliefState
from core.ai.knowledge import known_roles, role_kind
from core.engine import CURRENT_CATALOGUE, GameConfig, GameState, state_from_position
from core.engine.cards import CARD_LIST, GOLD
from core.engine.log import Log
from core.engine.setup import role_cards
from core.engine.shapes import EventDict, ViewDict

# log events whose card (and removed card) went to the discard pile face up
_TO_DISCARD = frozenset(
    {"tool_repaired", "rockfall", "map_used", "freed", "hands_swapped", "inspected", "hats_swapped"}
)
_BAD_ROLES = frozenset({"SABOTEUR", "PROFITEER"})


def _sig(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, x))))


def round_log(view: ViewDict) -> list[EventDict]:
    """The view's log entries of the current round (from its round_started entry on)."""
    log = list(view.get("log") or ())
    for i in range(len(log) - 1, -1, -1):
        if str(log[i].get("code")) == "round_started":
            return log[i:]
    return log


class WorldSampler:
    """Everything fixed by the view, computed once; `sample(rng)` draws one world."""

    def __init__(self, view: ViewDict, bel: BeliefState, probs: Mapping[int, float]):
        you = view.get("you") or {}
        me = you["seat"]
        if me is None:
            raise TypeError("a spectator's view has no world to draw")
        self.me = int(me)
        self.view = view
        self.bel = bel
        self.probs = dict(probs)
        seats = list(view.get("seats") or ())
        self.n = len(seats)
        self.edition = str(view.get("edition"))
        self.options = dict(view.get("options") or {})
        cfg = GameConfig.from_options(self.edition, self.n, self.options)
        cat = CURRENT_CATALOGUE
        self.removed = cat.removed if cfg.expansion else 0
        self.my_role = str(you.get("role"))
        self.hand = [str(c["card"]) for c in you.get("hand") or ()]
        self.hand_sizes = [int(s.get("hand_size") or 0) for s in seats]
        self.in_front = [[str(c) for c in s.get("in_front") or ()] for s in seats]
        self.maze: list[list[object]] = []  # [x, y, card, rotated]
        goal_cells = {(int(g["x"]), int(g["y"])): int(g["goal"]) for g in view.get("goals") or ()}
        self.fixed_goals: dict[int, str] = {}
        on_board: Counter[str] = Counter()
        for c in view.get("board") or ():
            x, y, card = int(c["x"]), int(c["y"]), str(c["card"])
            if (x, y) == (0, 0):
                continue
            self.maze.append([x, y, card, bool(c.get("rotated"))])
            if (x, y) in goal_cells:
                self.fixed_goals[goal_cells[(x, y)]] = card
            else:
                on_board[card] += 1
        self.kinds: dict[int, str] = {}
        for g in view.get("goals") or ():
            if g.get("kind"):
                self.kinds[int(g["goal"])] = str(g["kind"])
        self.goal_cards = [CARD_LIST[i].id for i in cat.goals]
        self.gold_card = CARD_LIST[GOLD].id
        # who looked at which goal, and which cards the log shows were discarded face up
        entries = round_log(view)
        self.known_goals: list[set[int]] = [set() for _ in range(self.n)]
        known_discard: Counter[str] = Counter()
        self.theft_seq = [-1] * self.n
        self.start_seat: int | None = None
        self.last_mover: int | None = None
        for e in entries:
            code = str(e.get("code"))
            s = e.get("seat")
            if code == "round_started" and e.get("start_seat") is not None:
                self.start_seat = int(e["start_seat"])
            if isinstance(s, int):
                self.last_mover = s
            if code == "map_used" and isinstance(s, int) and e.get("goal") is not None:
                self.known_goals[s].add(int(e["goal"]))
            if code == "theft_laid" and isinstance(s, int):
                self.theft_seq[s] = int(e.get("seq") or 0)
            if code in _TO_DISCARD:
                for f in ("card", "removed"):
                    if e.get(f):
                        known_discard[str(e[f])] += 1
        for k in you.get("known_goals") or ():
            self.known_goals[self.me].add(int(k["goal"]))
        for s in range(self.n):
            has_theft = any("THEFT" in c for c in self.in_front[s])
            if has_theft and self.theft_seq[s] < 0:
                self.theft_seq[s] = 0
            elif not has_theft:
                self.theft_seq[s] = -1
        deck = Counter(CARD_LIST[i].id for i in cat.decks[self.edition])
        seen = on_board + Counter(self.hand)
        for front in self.in_front:
            seen.update(front)
        unseen = deck - seen
        self.known_discard: list[str] = []
        for card, count in sorted(known_discard.items()):
            take = min(count, unseen[card])
            self.known_discard += [card] * take
            unseen[card] -= take
        self.unseen = sorted(unseen.elements())
        self.deck_size = int(view.get("deck_size") or 0)
        # roles: what is known, and the role cards left for the others
        self.certain = known_roles(view)
        pool = Counter(role_cards(cfg, cat))
        pool[self.my_role] -= 1
        self.fixed_roles: dict[int, str] = {}
        for s, kind in self.certain.items():
            if s == self.me:
                continue
            held = next((r for r in pool if pool[r] > 0 and role_kind(r) == kind), None)
            if held is not None:
                pool[held] -= 1
                self.fixed_roles[s] = held
        self.role_pool = +pool
        self.gold = [0] * self.n
        for s, seat in enumerate(seats):
            self.gold[s] = 1 if seat.get("has_gold") else 0
        self.gold[self.me] = int(you.get("gold") or 0)
        self.log = Log.of(e.copy() for e in entries) if entries else None
        self.seq = int(view.get("seq") or 0)
        self.round = int(view.get("round") or 1)
        self.my_known_roles = [
            [int(k["seat"]), str(k["role"]), bool(k.get("stale"))]
            for k in you.get("known_roles") or ()
        ]

    # ---- one world ----------------------------------------------------------------------

    def _roles(self, rng: random.Random) -> list[str]:
        roles = [""] * self.n
        roles[self.me] = self.my_role
        pool = Counter(self.role_pool)
        for s, r in self.fixed_roles.items():
            roles[s] = r
        others = [s for s in range(self.n) if not roles[s]]
        rng.shuffle(others)
        for s in others:
            bad = [r for r in sorted(pool) if pool[r] > 0 and r in _BAD_ROLES]
            good = [r for r in sorted(pool) if pool[r] > 0 and r not in _BAD_ROLES]
            want_bad = rng.random() < self.bel.p(s)
            side = bad if (want_bad and bad) or not good else good
            weights = [float(pool[r]) for r in side]
            if side is good and self.edition == "expansion":
                blue = _sig(self.bel.colour.get(s, 0.0))
                weights = [
                    w * (2 * blue if "BLUE" in r else 2 * (1 - blue) if "GREEN" in r else 1.0)
                    for w, r in zip(weights, side, strict=True)
                ]
            pick = rng.choices(side, weights=weights)[0]
            pool[pick] -= 1
            roles[s] = pick
        return roles

    def _goals(self, rng: random.Random) -> list[str]:
        goals: list[str | None] = [self.fixed_goals.get(g) for g in range(3)]
        gold_at = next((g for g, k in self.kinds.items() if k == "gold"), None)
        if gold_at is None:
            open_ = [g for g in range(3) if self.kinds.get(g) != "stone" and goals[g] is None]
            weights = [max(1e-6, self.probs.get(g, 0.0)) for g in open_]
            gold_at = rng.choices(open_, weights=weights)[0] if open_ else None
        left = [c for c in self.goal_cards if c not in goals]
        if gold_at is not None and goals[gold_at] is None and self.gold_card in left:
            goals[gold_at] = self.gold_card
            left.remove(self.gold_card)
        stones = [c for c in left if c != self.gold_card]
        rng.shuffle(stones)
        rest = stones + [c for c in left if c == self.gold_card]
        for g in range(3):
            if goals[g] is None:
                goals[g] = rest.pop(0)
        return [str(c) for c in goals]

    def sample(self, rng: random.Random) -> GameState:
        cards = list(self.unseen)
        rng.shuffle(cards)
        hands: list[list[str]] = []
        for s in range(self.n):
            if s == self.me:
                hands.append(list(self.hand))
            else:
                k = min(self.hand_sizes[s], len(cards))
                hands.append(cards[:k])
                cards = cards[k:]
        aside, cards = cards[: self.removed], cards[self.removed :]
        pile, rest = cards[: self.deck_size], cards[self.deck_size :]
        doc: dict[str, object] = {
            "edition": self.edition,
            "players": self.n,
            "options": self.options,
            "seed": rng.randrange(1 << 30),
            "seq": self.seq,
            "round": self.round,
            "phase": "playing",
            "current": self.me,
            "start_seat": self.start_seat if self.start_seat is not None else self.me,
            "last_mover": self.last_mover,
            "gold": self.gold,
            "goals": self._goals(rng),
            "maze": self.maze,
            "hands": hands,
            "roles": self._roles(rng),
            "in_front": self.in_front,
            "known_goals": [sorted(k) for k in self.known_goals],
            "known_roles": [self.my_known_roles if s == self.me else [] for s in range(self.n)],
            "pile": pile,
            "set_aside": aside,
            "discard": self.known_discard + rest,
            "theft_laid": self.theft_seq,
        }
        state = state_from_position(doc)
        if self.log is not None:
            state = dataclasses.replace(state, log=self.log)
        return state
