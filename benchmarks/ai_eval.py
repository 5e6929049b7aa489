"""Evaluate the computer players against each other (issue 7 targets).

    .venv/bin/python benchmarks/ai_eval.py                       # the full table, 300 rounds
    .venv/bin/python benchmarks/ai_eval.py --rounds 60 --players 5 --edition classic
    .venv/bin/python benchmarks/ai_eval.py --matchup ai-vs-ai --level hard
    .venv/bin/python benchmarks/ai_eval.py --substitute digger saboteur --players 6 --deals 1000

Prints one JSON line per configuration (edition, players, matchup, rounds, win rates
with a 95% Wilson interval, belief accuracy, mean/p95/p99/max AI decision CPU time);
`--table FILE` turns such lines into the markdown tables of docs/benchmarks/ai.md.
`--substitute ROLE...` runs the seat-substitution protocol instead (core.ai.substitution):
one-round deals, the seat dealt ROLE at `--level` against the same seat at `--base`, every
other seat at `--base`; one JSON line per role with the paired differences of the seat's
side winning and of its gold (mean and 95% interval) and its CPU ms per decision.
`--paired A B` compares two versions' `--substitute` runs deal by deal (B - A).
`--departures ROLE...` plays each deal at `normal` and, wherever the seat at `--level` would
play another move, plays both moves out to the round's end `--playouts` times from the true
position: what each kind of change (`place_path -> discard`, ...) wins or loses.
`--consistency ROLE...` asks how often two `--level` decisions of the same view, with other
seeds, pick the same move (and the same for `normal`): the search's noise, in a minute.
`--level oracle` (or `oracle-roles`, `oracle-gold`) with `--substitute` measures a seat's
headroom: the seat plays at `--base` but is told every role and/or the gold's goal.
`--judge win` makes classic `hard` judge its rollouts by the win model (core.ai.win_model)
instead of the distance (its default), for any of the above.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.ai import agent
from core.ai.evaluate import Assignment, play_games
from core.ai.substitution import ORACLES, decision_consistency, departures, seat_substitution
from core.engine import GameConfig

MATCHUPS = {
    "ai-diggers": Assignment(default="random", by_side={"diggers": "ai", "saboteurs": "random"}),
    "ai-saboteurs": Assignment(default="random", by_side={"diggers": "random", "saboteurs": "ai"}),
    "ai-vs-ai": Assignment(default="ai"),
    "random": Assignment(default="random"),
}


def run(
    edition: str, players: int, matchup: str, rounds: int, seed: int, level: str
) -> dict[str, object]:
    a = MATCHUPS[matchup]
    if level != "normal":

        def lv(k: str) -> str:
            return f"ai:{level}" if k == "ai" else k

        a = Assignment(
            lv(a.default),
            {k: lv(v) for k, v in a.by_side.items()},
            {k: lv(v) for k, v in a.by_role.items()},
        )
    cfg = GameConfig.from_options(edition, players, {"rounds": 3})
    t0 = time.perf_counter()
    tally = play_games(
        cfg, games=10_000, seed=seed, assignment=a, clock=time.process_time, max_rounds=rounds
    )
    out: dict[str, object] = {
        "edition": edition,
        "players": players,
        "matchup": matchup,
        "level": level,
        **tally.summary(),
    }
    out["seconds"] = round(time.perf_counter() - t0, 1)
    return out


def substitute(
    edition: str, players: int, role: str, deals: int, seed: int, level: str, base: str
) -> dict[str, object]:
    cfg = GameConfig.from_options(edition, players, {"rounds": 1})
    t0 = time.perf_counter()
    paired = seat_substitution(
        cfg, deals=deals, seed=seed, tested=role, level=level, base=base, clock=time.process_time
    )
    out: dict[str, object] = {
        "protocol": "seat-substitution",
        "edition": edition,
        "players": players,
        "role": role,
        "level": level,
        "base": base,
        "seed": seed,
        **paired.summary(),
        "per_deal": {"win": paired.win, "gold": paired.gold, "times": paired.times},
        "seat_log_totals": {side: dict(c) for side, c in paired.seat_log.items()},
    }
    out["seconds"] = round(time.perf_counter() - t0, 1)
    return out


def consistency(
    edition: str, players: int, role: str, deals: int, seed: int, level: str
) -> dict[str, object]:
    cfg = GameConfig.from_options(edition, players, {"rounds": 1})
    out: dict[str, object] = {
        "protocol": "consistency",
        "edition": edition,
        "players": players,
        "role": role,
        "level": level,
        "seed": seed,
        "deals": deals,
        **decision_consistency(
            cfg, deals=deals, seed=seed, tested=role, level=level, clock=time.process_time
        ),
    }
    return out


def departure_line(
    edition: str, players: int, role: str, deals: int, seed: int, level: str, playouts: int
) -> dict[str, object]:
    cfg = GameConfig.from_options(edition, players, {"rounds": 1})
    t0 = time.perf_counter()
    found = departures(cfg, deals=deals, seed=seed, tested=role, level=level, playouts=playouts)
    return {
        "protocol": "departures",
        "edition": edition,
        "players": players,
        "role": role,
        "level": level,
        "base": "normal",
        "seed": seed,
        "playouts": playouts,
        **found.summary(),
        "seconds": round(time.perf_counter() - t0, 1),
    }


def merge(path: str) -> str:
    """Pool seat-substitution lines of the same configuration (runs over other seeds)."""
    from core.ai.substitution import Paired

    pooled: dict[tuple[Any, ...], Paired] = {}
    bases: dict[tuple[Any, ...], int] = {}
    for line in Path(path).read_text().splitlines():
        r = json.loads(line) if line.strip() else {}
        if r.get("protocol") != "seat-substitution":
            continue
        k = (r["edition"], r["players"], r["role"], r["level"], r["base"])
        p = pooled.setdefault(k, Paired())
        p.win += r["per_deal"]["win"]
        p.gold += r["per_deal"]["gold"]
        p.times += r["per_deal"]["times"]
        p.skipped += r["skipped"]
        for side, counts in (r.get("seat_log_totals") or {}).items():
            p.seat_log[side].update(counts)
        bases[k] = bases.get(k, 0) + round((r["base_win_rate"] or 0) * r["deals"])
    out = []
    for k, p in pooled.items():
        p.base_wins = bases[k]
        out.append(
            json.dumps(
                {
                    "edition": k[0],
                    "players": k[1],
                    "role": k[2],
                    "level": k[3],
                    "base": k[4],
                    **p.summary(),
                }
            )
        )
    return "\n".join(out)


def paired(path_a: str, path_b: str) -> str:
    """Two versions of `hard` on the same deals: per configuration, the paired difference
    (B - A) of the seat's side winning and of its gold, over the chunks both files hold
    (same edition, players, role, base, seed and deal count: the same deals in order)."""
    from core.ai.substitution import mean_ci

    def chunks(path: str) -> dict[tuple[Any, ...], dict[str, Any]]:
        out = {}
        for line in Path(path).read_text().splitlines():
            r = json.loads(line) if line.strip() else {}
            if r.get("protocol") == "seat-substitution":
                k = (r["edition"], r["players"], r["role"], r["base"], r["seed"], r["deals"])
                out[k] = r
        return out

    a, b = chunks(path_a), chunks(path_b)
    wins: dict[tuple[Any, ...], list[float]] = {}
    gold: dict[tuple[Any, ...], list[float]] = {}
    for k in sorted(set(a) & set(b)):
        conf = k[:4]
        wa, wb = a[k]["per_deal"]["win"], b[k]["per_deal"]["win"]
        ga, gb = a[k]["per_deal"]["gold"], b[k]["per_deal"]["gold"]
        wins.setdefault(conf, []).extend(y - x for x, y in zip(wa, wb, strict=True))
        gold.setdefault(conf, []).extend(y - x for x, y in zip(ga, gb, strict=True))
    return "\n".join(
        json.dumps(
            {
                "edition": conf[0],
                "players": conf[1],
                "role": conf[2],
                "base": conf[3],
                "deals": len(wins[conf]),
                "win_diff_b_minus_a": mean_ci(wins[conf]),
                "gold_diff_b_minus_a": mean_ci(gold[conf]),
            }
        )
        for conf in wins
    )


def _pct(r: dict[str, Any] | None) -> str:
    if not r:
        return "0%"
    lo, hi = r["ci95"]
    return f"{100 * r['rate']:.1f}% ({100 * lo:.0f}-{100 * hi:.0f})"


def table(path: str) -> str:
    """Markdown tables from the JSON lines of earlier runs."""
    rows = [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
    out = []
    for ed in ("classic", "expansion"):
        sel = [r for r in rows if r["edition"] == ed]
        if not sel:
            continue
        if ed == "classic":
            out.append(
                "| players | matchup | level | rounds | diggers win (95% CI) | "
                "saboteurs win (95% CI) | belief accuracy | AI ms mean / p95 / max |"
            )
            out.append("|---|---|---|---|---|---|---|---|")
        else:
            out.append(
                "| players | matchup | level | rounds | blue | green | blue+green | "
                "saboteurs | belief accuracy | AI ms mean / p95 / max |"
            )
            out.append("|---|---|---|---|---|---|---|---|---|---|")
        for r in sel:
            w = r["win_rates"]
            acc = r.get("belief_accuracy")
            accs = "-" if acc is None else f"{100 * acc:.1f}% (n={r['belief_samples']})"
            ms = (
                " / ".join(str(r[k]) for k in ("ai_ms_mean", "ai_ms_p95", "ai_ms_max") if k in r)
                or "-"
            )
            head = f"| {r['players']} | {r['matchup']} | {r['level']} | {r['rounds']} | "
            if ed == "classic":
                out.append(
                    head + f"{_pct(w.get('diggers'))} | {_pct(w.get('saboteurs'))} | "
                    f"{accs} | {ms} |"
                )
            else:
                out.append(
                    head + f"{_pct(w.get('blue'))} | {_pct(w.get('green'))} | "
                    f"{_pct(w.get('blue+green'))} | {_pct(w.get('saboteurs'))} | "
                    f"{accs} | {ms} |"
                )
        out.append("")
        out.append("Per-role round win rates:")
        out.append("")
        for r in sel:
            roles = ", ".join(f"{k} {100 * v:.0f}%" for k, v in r["role_win_rates"].items())
            out.append(f"- {r['players']} players, {r['matchup']}: {roles}")
        out.append("")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--edition", choices=["classic", "expansion", "both"], default="both")
    p.add_argument("--players", type=int, nargs="*", default=None)
    p.add_argument("--matchup", choices=[*MATCHUPS, "all"], default="all")
    p.add_argument("--rounds", type=int, default=300)
    p.add_argument("--seed", type=int, default=1000)
    p.add_argument(
        "--level",
        choices=["easy", "normal", "hard", *ORACLES],
        default="normal",
        help="oracle levels (--substitute only): --base told every role and/or the gold",
    )
    p.add_argument("--table", metavar="FILE", help="print markdown tables from JSON lines")
    p.add_argument("--substitute", metavar="ROLE", nargs="+", help="seat substitution per role")
    p.add_argument("--deals", type=int, default=1000, help="deals per role (--substitute)")
    p.add_argument("--base", choices=["easy", "normal", "hard"], default="normal")
    p.add_argument("--merge", metavar="FILE", help="pool --substitute lines of other seeds")
    p.add_argument(
        "--paired",
        metavar="FILE",
        nargs=2,
        help="--substitute lines of two versions (A B): B - A on the deals both played",
    )
    p.add_argument(
        "--consistency",
        metavar="ROLE",
        nargs="+",
        help="how often two decisions of one view agree, per role (views of --deals deals)",
    )
    p.add_argument(
        "--departures",
        metavar="ROLE",
        nargs="+",
        help="where --level departs from normal, what the change is worth (played out)",
    )
    p.add_argument("--playouts", type=int, default=16, help="playouts per move (--departures)")
    p.add_argument(
        "--judge",
        choices=["distance", "win"],
        help="how classic hard judges a rollout's end (default: the committed budget's)",
    )
    args = p.parse_args(argv)
    if args.level in ORACLES and not args.substitute:
        p.error(f"--level {args.level} measures one seat's headroom: use it with --substitute")
    if args.judge:
        budget = agent.HARD_BUDGET["classic"]
        agent.HARD_BUDGET["classic"] = dataclasses.replace(budget, judge=args.judge)
    extra = {"judge": args.judge} if args.judge else {}
    if args.merge:
        print(merge(args.merge))
        return 0
    if args.paired:
        print(paired(*args.paired))
        return 0
    if args.table:
        print(table(args.table))
        return 0
    editions = ["classic", "expansion"] if args.edition == "both" else [args.edition]
    tables = [
        (ed, n)
        for ed in editions
        for n in args.players or ([5, 6, 7, 8] if ed == "classic" else [5, 8, 10])
    ]
    if args.consistency:
        level = "hard" if args.level == "normal" else args.level
        for ed, n in tables:
            for role in args.consistency:
                line = consistency(ed, n, role, args.deals, args.seed, level)
                print(json.dumps(line | extra), flush=True)
        return 0
    if args.departures:
        level = "hard" if args.level == "normal" else args.level
        for ed, n in tables:
            for role in args.departures:
                line = departure_line(ed, n, role, args.deals, args.seed, level, args.playouts)
                print(json.dumps(line | extra), flush=True)
        return 0
    if args.substitute:
        level = "hard" if args.level == "normal" and args.base == "normal" else args.level
        for ed, n in tables:
            for role in args.substitute:
                line = substitute(ed, n, role, args.deals, args.seed, level, args.base)
                print(json.dumps(line | extra), flush=True)
        return 0
    matchups = [m for m in MATCHUPS if m != "random"] if args.matchup == "all" else [args.matchup]
    for ed, n in tables:
        for m in matchups:
            print(json.dumps(run(ed, n, m, args.rounds, args.seed, args.level)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
