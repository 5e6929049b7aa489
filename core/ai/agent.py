"""Picking one legal move: score them all, add level noise, take the best.

Levels: `easy` reasons without the log's maze history, adds large noise and sometimes
plays a random legal move; `normal` adds small noise and looks one placement ahead with
its own remaining cards for its 4 best placements; `hard` adds almost none and looks
ahead for its 8 best.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core.ai import policy
from core.ai.policy import make_ctx, score_move


@dataclass(frozen=True, slots=True)
class Level:
    noise: float
    random_move: float
    careful: bool
    lookahead: int  # how many of the best placements are re-scored with a follow-up card


LEVELS: dict[str, Level] = {
    "easy": Level(noise=4.0, random_move=0.12, careful=False, lookahead=0),
    "normal": Level(noise=0.4, random_move=0.0, careful=True, lookahead=4),
    "hard": Level(noise=0.1, random_move=0.0, careful=True, lookahead=8),
}

_TRIVIAL = {"next_round", "steal"}


def _rng(view: Mapping[str, Any], level: str, seed: int) -> random.Random:
    you = view.get("you") or {}
    pos = view.get("version", len(view.get("log") or ()))
    return random.Random(
        f"{seed}:{level}:{view.get('round')}:{pos}:{you.get('seat')}:{view.get('deck_size')}"
    )


def choose_move(view: Mapping[str, Any], *, level: str = "normal", seed: int) -> dict[str, Any]:
    """One of `view["legal_moves"]`; ValueError when the seat may not act."""
    moves = list(view.get("legal_moves") or ())
    if not moves:
        raise ValueError("no legal move: this seat may not act now")
    lv = LEVELS.get(level)
    if lv is None:
        raise ValueError(f"unknown level {level!r} (easy, normal, hard)")
    if len(moves) == 1:
        return dict(moves[0])
    rng = _rng(view, level, seed)
    kinds = {m.get("type") for m in moves}
    if kinds <= {"next_round"}:
        return dict(moves[0])
    if lv.random_move and not kinds & _TRIVIAL and rng.random() < lv.random_move:
        return dict(rng.choice(moves))
    ctx = make_ctx(view, careful=lv.careful)
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
    best_i = max(scored, key=lambda si: (si[0] + rng.gauss(0.0, lv.noise), -si[1]))[1]
    return dict(moves[best_i])
