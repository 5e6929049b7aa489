"""``python -m tests.fuzz``: hostile input against the real server (see tests/fuzz/run.py).

    python -m tests.fuzz --requests 10000 --schemathesis-examples 100

Prints one JSON report; exits 1 when any 5xx was seen, a forgery was not answered 401,
or a game no longer replays from its log.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

from tests.fuzz.run import run_fuzz


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m tests.fuzz",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--requests", type=int, default=10_000, help="hand-made requests")
    p.add_argument("--games", type=int, default=20)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument(
        "--schemathesis-examples", type=int, default=100, help="per operation; 0 skips schemathesis"
    )
    p.add_argument("--schemathesis-time", type=float, default=180)
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    report = asyncio.run(
        run_fuzz(
            requests=args.requests,
            games=args.games,
            workers=args.workers,
            seed=args.seed,
            schemathesis_examples=args.schemathesis_examples,
            schemathesis_time=args.schemathesis_time,
        )
    )
    text = json.dumps(report, indent=2, ensure_ascii=False)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    return 0 if report["pass"] else 1


if __name__ == "__main__":
    sys.exit(main())
