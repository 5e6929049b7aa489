"""Evaluate the computer players against each other (issue 7 targets).

    .venv/bin/python benchmarks/ai_eval.py                       # the full table, 300 rounds
    .venv/bin/python benchmarks/ai_eval.py --rounds 60 --players 5 --edition classic
    .venv/bin/python benchmarks/ai_eval.py --matchup ai-vs-ai --level hard

Prints one JSON line per configuration (edition, players, matchup, rounds, win rates
with a 95% Wilson interval, belief accuracy, mean/max AI decision time) and, with
`--markdown`, a table for docs/benchmarks/ai.md.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.ai.evaluate import Assignment, play_games
from core.engine import GameConfig

MATCHUPS = {
    "ai-diggers": Assignment(default="random", by_side={"diggers": "ai", "saboteurs": "random"}),
    "ai-saboteurs": Assignment(default="random",
                               by_side={"diggers": "random", "saboteurs": "ai"}),
    "ai-vs-ai": Assignment(default="ai"),
    "random": Assignment(default="random"),
}


def run(edition: str, players: int, matchup: str, rounds: int, seed: int,
        level: str) -> dict[str, object]:
    a = MATCHUPS[matchup]
    if level != "normal":
        def lv(k: str) -> str:
            return f"ai:{level}" if k == "ai" else k

        a = Assignment(lv(a.default), {k: lv(v) for k, v in a.by_side.items()},
                       {k: lv(v) for k, v in a.by_role.items()})
    cfg = GameConfig.from_options(edition, players, {"rounds": 3})
    t0 = time.perf_counter()
    tally = play_games(cfg, games=10_000, seed=seed, assignment=a,
                       clock=time.process_time, max_rounds=rounds)
    out: dict[str, object] = {"edition": edition, "players": players, "matchup": matchup,
                              "level": level, **tally.summary()}
    out["seconds"] = round(time.perf_counter() - t0, 1)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--edition", choices=["classic", "expansion", "both"], default="both")
    p.add_argument("--players", type=int, nargs="*", default=None)
    p.add_argument("--matchup", choices=[*MATCHUPS, "all"], default="all")
    p.add_argument("--rounds", type=int, default=300)
    p.add_argument("--seed", type=int, default=1000)
    p.add_argument("--level", choices=["easy", "normal", "hard"], default="normal")
    args = p.parse_args(argv)
    editions = ["classic", "expansion"] if args.edition == "both" else [args.edition]
    matchups = [m for m in MATCHUPS if m != "random"] if args.matchup == "all" else [args.matchup]
    for ed in editions:
        counts = args.players or ([5, 6, 7, 8] if ed == "classic" else [5, 8, 10])
        for n in counts:
            for m in matchups:
                print(json.dumps(run(ed, n, m, args.rounds, args.seed, args.level)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
