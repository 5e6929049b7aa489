"""Fit the classic win model (`core.ai.win_model`) on rounds played by `normal` seats.

    .venv/bin/python benchmarks/fit_win_model.py                  # fit and print, write nothing
    .venv/bin/python benchmarks/fit_win_model.py --rounds 300 --write

Plays one-round classic deals at 3-10 players (seeds `--seed`, `--seed + 1`, ...; every
seat `normal`), records the model's features before every move and whether the diggers
won the round, fits a logistic regression (Newton's method) on the rounds of even seeds
and reports on the odd ones: log-loss and accuracy of the model, of the same fit on the
distance alone, and of the base rate (`--samples FILE` keeps the played situations, so
that another feature set is fitted without playing again). `--write` stores the coefficients in
core/ai/data/win_classic.json. Deals are played in `--jobs` processes.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import astuple
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core import engine
from core.ai.agent import choose_move
from core.ai.entry import ai_view
from core.ai.knowledge import role_kind
from core.ai.win_model import FEATURES, Situation, chance, features, situation
from core.engine import GameConfig

OUT = Path(__file__).resolve().parent.parent / "core" / "ai" / "data" / "win_classic.json"
Sample = tuple[Situation, int, int]  # (situation, diggers won, seed)


def play(args: tuple[int, int]) -> list[Sample]:
    """One round's samples: (the situation before each move, diggers won, seed)."""
    players, seed = args
    cfg = GameConfig.from_options("classic", players, {"rounds": 1})
    state = engine.new_game(cfg, seed)
    rng = random.Random(f"fit:{seed}")
    xs = []
    while engine.phase(state) in ("playing", "stealing"):
        s = engine.actor(state)
        if s is None:
            state, _ = engine.apply_timeout(state)
            continue
        xs.append(situation(state))
        move = choose_move(ai_view(state, s), level="normal", seed=rng.randrange(1 << 30))
        state, _ = engine.apply_move(state, s, move)
    won = (state.rs.result or {}).get("winning_seats") or ()
    diggers_won = int(any(role_kind(state.rs.roles[s]) == "digger" for s in won))
    return [(x, diggers_won, seed) for x in xs]


def fit(xs: list[tuple[float, ...]], ys: list[int], ridge: float = 1e-3) -> list[float]:
    """Logistic regression by Newton's method (a small ridge keeps the Hessian solvable)."""
    k = len(xs[0])
    w = [0.0] * k
    for _ in range(25):
        grad = [0.0] * k
        hess = [[0.0] * k for _ in range(k)]
        for x, y in zip(xs, ys, strict=True):
            p = chance(x, tuple(w))
            r = p - y
            q = p * (1.0 - p)
            for i in range(k):
                grad[i] += r * x[i]
                qi = q * x[i]
                row = hess[i]
                for j in range(i, k):
                    row[j] += qi * x[j]
        for i in range(k):
            grad[i] += ridge * w[i]
            hess[i][i] += ridge
            for j in range(i):
                hess[i][j] = hess[j][i]
        step = solve(hess, grad)
        w = [a - b for a, b in zip(w, step, strict=True)]
        if max(abs(s) for s in step) < 1e-7:
            break
    return w


def solve(a: list[list[float]], b: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting."""
    n = len(b)
    m = [[*row, b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(c + 1, n):
            f = m[r][c] / m[c][c]
            for j in range(c, n + 1):
                m[r][j] -= f * m[c][j]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (m[r][n] - sum(m[r][j] * x[j] for j in range(r + 1, n))) / m[r][r]
    return x


def report(xs: list[tuple[float, ...]], ys: list[int], w: list[float]) -> dict[str, float]:
    loss = hits = 0.0
    for x, y in zip(xs, ys, strict=True):
        p = min(1 - 1e-9, max(1e-9, chance(x, tuple(w))))
        loss -= math.log(p if y else 1.0 - p)
        hits += (p >= 0.5) == bool(y)
    return {"log_loss": round(loss / len(xs), 4), "accuracy": round(hits / len(xs), 4)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=200, help="deals per player count")
    ap.add_argument("--players", type=int, nargs="+", default=list(range(3, 11)))
    ap.add_argument("--seed", type=int, default=50_000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--samples", metavar="FILE", help="keep the played samples here (reused)")
    a = ap.parse_args()
    if a.samples and Path(a.samples).exists():
        rows = json.loads(Path(a.samples).read_text())
        samples = [(Situation(*sit), y, seed) for sit, y, seed in rows]
    else:
        tasks = [(n, a.seed + i) for n in a.players for i in range(a.rounds)]
        with ProcessPoolExecutor(a.jobs) as pool:
            samples = [s for rows in pool.map(play, tasks, chunksize=8) for s in rows]
        if a.samples:
            rows = [(list(astuple(x)), y, d) for x, y, d in samples]
            Path(a.samples).write_text(json.dumps(rows))
    train = [(features(x), y) for x, y, seed in samples if seed % 2 == 0]
    test = [(features(x), y) for x, y, seed in samples if seed % 2 == 1]
    w = fit([x for x, _ in train], [y for _, y in train])
    d_only = [0, 1]  # bias, dist
    wd = fit([tuple(x[i] for i in d_only) for x, _ in train], [y for _, y in train])
    rate = sum(y for _, y in train) / len(train)
    base = [math.log(rate / (1 - rate))]
    tx, ty = [x for x, _ in test], [y for _, y in test]
    out = {
        "what": "P(the diggers win the round) = 1 / (1 + exp(-sum(coef * feature)))",
        "fitted_by": "benchmarks/fit_win_model.py "
        f"--rounds {a.rounds} --players {' '.join(map(str, a.players))} --seed {a.seed}",
        "samples": {"train": len(train), "test": len(test)},
        "coefficients": {name: round(c, 5) for name, c in zip(FEATURES, w, strict=True)},
        "held_out": {
            "model": report(tx, ty, w),
            "distance_only": report([tuple(x[i] for i in d_only) for x in tx], ty, wd),
            "base_rate": report([(1.0,) for _ in tx], ty, base),
        },
    }
    print(json.dumps(out, indent=2))
    if a.write:
        OUT.parent.mkdir(parents=True, exist_ok=True)
        OUT.write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
