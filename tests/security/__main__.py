"""``python -m tests.security``: every attack of the security issue against real processes.

    python -m tests.security [--scale 1.0] [--out report.json]

Prints a table of the attacks and what came of them, then the JSON report; exits 1 when
any attack was not refused or bounded (docs/security.md reports a run).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

from tests.security.run import run_all


def table(report: dict) -> str:
    rows = ["| attack | tried | result | held | 5xx |", "|---|---|---|---|---|"]
    for o in report["outcomes"]:
        held = "✅" if o["ok"] else "❌"
        rows.append(f"| {o['attack']} | {o['tried']} | {o['result']} | {held} | {o['5xx']} |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.security", description=__doc__)
    p.add_argument("--scale", type=float, default=1.0, help="sizes of the floods (1 = issue's)")
    p.add_argument("--out", type=Path, default=None, help="write the JSON report here")
    args = p.parse_args(argv)
    report = asyncio.run(run_all(args.scale))
    print(table(report))
    text = json.dumps(report, indent=2, ensure_ascii=False)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    return 0 if report["pass"] else 1


if __name__ == "__main__":
    sys.exit(main())
