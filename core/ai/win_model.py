"""How likely the diggers are to win a classic round from here, read off a whole state.

Why: the search judged where its rollouts end by the distance to the gold, at 10 points a
card whatever the round's stage. A card of distance means little with forty cards to
play and everything on the last turn; a broken digger matters more as the pile thins.
This model turns what decides a round (the distance, the turns the unbroken diggers have
left, how many saboteurs there are and how many of them can still dig) into the diggers'
chance of winning, fitted by logistic regression on rounds played by `normal` seats
(`benchmarks/fit_win_model.py` refits it and writes `data/win_classic.json`; its accuracy
is in docs/benchmarks/ai.md). The inputs are chosen so that each weight has the sign of
its cause (richer sets fitted a little better but credited a broken digger or a longer
route to the diggers, which a search would then play for).

It reads a world the search sampled (every role and hand known), never a seat's view.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache
from importlib import resources

from core.ai.board_model import INF, Board
from core.ai.cards import BREAK_CARDS
from core.ai.knowledge import role_kind
from core.engine import GameState, view_for
from core.engine.cards import GOLD

FEATURES = (
    "bias",
    "dist",  # cards still needed to reach the gold (capped at DIST_CAP)
    "log_dig_turns",  # log(1 + turns the unbroken diggers still have)
    "saboteurs",  # share of the seats that are saboteurs
    "free_saboteurs",  # share of the seats that are saboteurs with every tool whole
)
DIST_CAP = 12


@dataclass(frozen=True, slots=True)
class Situation:
    """What the model reads of a classic state."""

    dist: int  # cards still needed from the maze to the gold (0 once revealed)
    cards: int  # cards left to play: the pile and every hand (every turn spends one)
    players: int
    free_diggers: int  # diggers without a broken tool
    saboteurs: int
    free_saboteurs: int


def unrevealed_gold(state: GameState) -> tuple[int, Board] | None:
    """The gold's goal and the maze as a board, or None once the gold is revealed."""
    gold = next(g for g, c in enumerate(state.rs.board.goals) if c == GOLD)
    if state.rs.board.revealed[gold]:
        return None
    return gold, Board.from_view(view_for(state, None, log_limit=0))


def gold_distance(state: GameState) -> int:
    """Cards still needed from the maze to the gold (0 once it is revealed)."""
    found = unrevealed_gold(state)
    if found is None:
        return 0
    gold, board = found
    return int(board.goal_distances().get(gold, INF))


def situation(state: GameState) -> Situation:
    """The model's reading of a classic state."""
    rs = state.rs
    n = state.config.players
    free_diggers = saboteurs = free_saboteurs = 0
    for s in range(n):
        broken = any(c in BREAK_CARDS for c in rs.in_front[s])
        if role_kind(rs.roles[s]) == "saboteur":
            saboteurs += 1
            free_saboteurs += not broken
        else:
            free_diggers += not broken
    return Situation(
        dist=gold_distance(state),
        cards=rs.deck_size() + sum(len(h) for h in rs.hands),
        players=n,
        free_diggers=free_diggers,
        saboteurs=saboteurs,
        free_saboteurs=free_saboteurs,
    )


def features(sit: Situation) -> tuple[float, ...]:
    """The model's inputs, in the order of FEATURES."""
    d = min(sit.dist, DIST_CAP)
    # the turns left are shared by the seats in turn
    dig_turns = sit.cards * sit.free_diggers / sit.players
    return (
        1.0,
        float(d),
        math.log1p(dig_turns),
        sit.saboteurs / sit.players,
        sit.free_saboteurs / sit.players,
    )


@cache
def coefficients() -> tuple[float, ...]:
    raw = json.loads(resources.files("core.ai").joinpath("data/win_classic.json").read_text())
    coef = raw["coefficients"]
    return tuple(float(coef[name]) for name in FEATURES)


def logit(xs: tuple[float, ...], coef: tuple[float, ...]) -> float:
    return sum(x * w for x, w in zip(xs, coef, strict=True))


def chance(xs: tuple[float, ...], coef: tuple[float, ...]) -> float:
    """The logistic of the inputs' weighted sum (clamped: exp overflows past ~700)."""
    z = max(-30.0, min(30.0, logit(xs, coef)))
    return 1.0 / (1.0 + math.exp(-z))


def p_diggers(state: GameState) -> float:
    """The diggers' chance of winning the round from this classic state."""
    return chance(features(situation(state)), coefficients())
