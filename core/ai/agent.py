"""Picking one legal move: score them all, add level noise, take the best.

Levels: `easy` reasons without the log's maze history, adds large noise and sometimes
plays a random legal move; `normal` adds small noise and looks one placement ahead with
its own remaining cards for its 4 best placements; `hard` adds almost none, looks ahead
for its 8 best, then searches its best few moves in worlds drawn from its beliefs
(`core.ai.search`).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial

from core.ai import policy
from core.ai.board_model import Memo
from core.ai.policy import make_ctx, score_move
from core.ai.search import Budget, search
from core.ai.worlds import WorldSampler
from core.engine.shapes import MoveDict, ViewDict


@dataclass(frozen=True, slots=True)
class Level:
    noise: float
    random_move: float
    careful: bool
    lookahead: int  # how many of the best placements are re-scored with a follow-up card
    search: Mapping[str, Budget] | None = None  # per edition: rollouts over the best moves


# the budget of `hard`, per edition (a Saboteur 2 rollout move costs about twice a
# classic one); its p95 CPU time per decision is in docs/benchmarks/ai.md. Classic plays
# each candidate through the next two seats in more worlds, its verdicts shrunk by their
# spread: steadier and cheaper than five plies and no weaker over 1,000 deals (ai.md, the
# gain's interval still contains 0). Its verdicts count the other side's turns only
# (`team`): crediting teammates' turns made a `hard` digger pass where it could tunnel
# and earn less gold than `normal` (ai.md). Saboteur 2 plays the next four plies in two
# worlds at every table size (`search.worlds_for`): a fifth to a quarter cheaper than five
# plies, which went over the p95 target at 10 players, and no weaker (ai.md).
HARD_BUDGET = {
    "classic": Budget(candidates=4, steps=96, depth=2, shrink=True, team=0.0),
    "expansion": Budget(candidates=4, steps=40, depth=4),
}

LEVELS: dict[str, Level] = {
    "easy": Level(noise=4.0, random_move=0.12, careful=False, lookahead=0),
    "normal": Level(noise=0.4, random_move=0.0, careful=True, lookahead=4),
    "hard": Level(noise=0.1, random_move=0.0, careful=True, lookahead=8, search=HARD_BUDGET),
}
# how every seat moves inside the search's rollouts: `normal` without its lookahead and
# the log's maze history, four times cheaper
ROLLOUT = Level(noise=0.4, random_move=0.0, careful=False, lookahead=0)

_TRIVIAL = {"next_round", "steal"}


def _rng(view: ViewDict, level: str, seed: int) -> random.Random:
    you = view.get("you") or {}
    pos = view.get("version", len(view.get("log") or ()))
    return random.Random(
        f"{seed}:{level}:{view.get('round')}:{pos}:{you.get('seat')}:{view.get('deck_size')}"
    )


def choose_move(
    view: ViewDict,
    *,
    level: str = "normal",
    seed: int,
    verdicts: list[list[dict[int, float]]] | None = None,
) -> MoveDict:
    """One of `view["legal_moves"]`; ValueError when the seat may not act. `verdicts`,
    when given, receives the search's per-world values of its candidates (benchmarks)."""
    moves = list(view.get("legal_moves") or ())
    if not moves:
        raise ValueError("no legal move: this seat may not act now")
    lv = LEVELS.get(level)
    if lv is None:
        raise ValueError(f"unknown level {level!r} (easy, normal, hard)")
    return _decide(view, moves, lv, _rng(view, level, seed), {}, verdicts)


def rollout_move(view: ViewDict, seed: int, memo: Memo) -> MoveDict:
    """The move every seat makes inside the search's rollouts (`ROLLOUT`), and in the
    playouts that judge a decision after the fact (`core.ai.substitution.departures`)."""
    moves = list(view.get("legal_moves") or ())
    return _decide(view, moves, ROLLOUT, random.Random(seed), memo)


def _sampler(view: ViewDict, ctx: policy.Ctx) -> WorldSampler | None:
    """The worlds of this view, or None for a view the engine did not write."""
    try:
        return WorldSampler(view, ctx.bel, ctx.probs)
    except (KeyError, TypeError, ValueError):
        return None


def _decide(
    view: ViewDict,
    moves: list[MoveDict],
    lv: Level,
    rng: random.Random,
    memo: Memo,
    verdicts: list[list[dict[int, float]]] | None = None,
) -> MoveDict:
    """The move `lv` plays; `memo` holds the maze distances this decision has searched
    (its rollouts' boards share it: the same public maze recurs in every world)."""
    if len(moves) == 1:
        return moves[0].copy()
    kinds = {m.get("type") for m in moves}
    if kinds <= {"next_round"}:
        return moves[0].copy()
    if lv.random_move and not kinds & _TRIVIAL and rng.random() < lv.random_move:
        return rng.choice(moves).copy()
    ctx = make_ctx(view, careful=lv.careful, memo=memo)
    scored = [(score_move(ctx, m), i) for i, m in enumerate(moves)]
    if lv.lookahead and policy.SAB_FIT_W and ctx.kind == "saboteur" and not ctx.expansion:
        # saboteurs re-judge their best placements, progress-looking ones included, by
        # the fit-aware route length (a tunnel that strands a cell on a scarce shape)
        redo = policy.sab_fit_rescore(ctx, moves, scored)
        scored = [(redo.get(i, s), i) for s, i in scored]
    elif lv.lookahead:
        top = sorted((s, i) for s, i in scored if moves[i].get("type") == "place_path")[
            -lv.lookahead :
        ]
        redo = {i: score_move(ctx, moves[i], lookahead=True) for _, i in top}
        if policy.FIT_TOP > 0:
            for i in sorted(redo, key=lambda j: redo[j])[-policy.FIT_TOP :]:
                redo[i] += policy.fit_bonus(ctx, moves[i])
        scored = [(redo.get(i, s), i) for s, i in scored]
    if lv.search is not None and view.get("status") == "playing":
        budget = lv.search.get(str(view.get("edition")))
        sampler = _sampler(view, ctx)
        if budget is not None and sampler is not None:
            decide = partial(rollout_move, memo=memo)
            scored = search(view, moves, scored, sampler, budget, decide, rng, verdicts)
    best_i = max(scored, key=lambda si: (si[0] + rng.gauss(0.0, lv.noise), -si[1]))[1]
    return moves[best_i].copy()
