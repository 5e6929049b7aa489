"""``python -m tests.load``: the load benchmark against the real server processes.

Example (the full run of docs/benchmarks/load.md)::

    python -m tests.load --workers 2 --games 1000 --rate 100,200,300,400,500 --duration 60

Starts a private redis-server (unless ``--redis-url``), ``python -m telegram_bot`` with
``WORKERS`` workers, ``API_ONLY=1`` and a test bot token, creates the games through the API
and plays them at each offered rate in turn; prints one JSON report (``--out`` saves it).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Callable
from pathlib import Path

from tests.load.run import LoadConfig, run_load


def parse_rates(text: str) -> list[float]:
    return [float(x) for x in text.split(",") if x.strip()]


def parse_cpus(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x.strip()]


def client_loop(name: str) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """The load generator's own event loop: uvloop by default (it shares the machine with
    the workers, so its CPU per request matters), the standard loop on request."""
    if name != "uvloop":
        return None
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m tests.load",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--workers", type=int, default=2, help="server worker processes")
    p.add_argument("--games", type=int, default=1000, help="live games (all kinds)")
    p.add_argument(
        "--timed-games",
        type=int,
        default=0,
        help="of those, games of one silent human and two computers with a 5 s "
        "turn time (timer-driven; checked for stuck turns)",
    )
    p.add_argument(
        "--hard-games",
        type=int,
        default=0,
        help="beside those, tables whose seats the computer plays at level hard (the "
        "creator's seat handed over after its first turn times out): the timer process "
        "plays them through its AI pool for the whole run; finished ones are replaced",
    )
    p.add_argument(
        "--hard-think-delay",
        type=float,
        default=None,
        help="the hard tables' think delay, seconds between a computer's turn and its "
        "move (the lobby setting think_delay; default: the deployment's, 1.5 s)",
    )
    p.add_argument(
        "--rate",
        type=parse_rates,
        default=[500.0],
        help="offered moves/s; a comma list steps through rates (saturation)",
    )
    p.add_argument("--duration", type=float, default=30.0, help="seconds per rate step")
    p.add_argument(
        "--redis-url",
        default=None,
        help="use this Redis (keys under a unique prefix, deleted afterwards) "
        "instead of a private redis-server",
    )
    p.add_argument("--no-ws", action="store_true", help="no WebSocket per game")
    p.add_argument(
        "--redis-max-connections",
        type=int,
        default=0,
        help="workaround: add ?max_connections=N to the workers' REDIS_URL "
        "(redis-py's default pool raises beyond 100 connections)",
    )
    p.add_argument("--seed", type=int, default=1)
    p.add_argument(
        "--client-loop",
        choices=("uvloop", "asyncio"),
        default="uvloop",
        help="the load generator's event loop (the workers' is EVENT_LOOP)",
    )
    p.add_argument(
        "--client",
        choices=("raw", "aiohttp"),
        default="raw",
        help="the slots' GET + POST: a lean keep-alive HTTP/1.1 client (raw) or "
        "aiohttp's ClientSession (the generator before 2026-11-29 evening)",
    )
    p.add_argument(
        "--connections",
        choices=("shared", "per-player"),
        default="shared",
        help="the raw client's keep-alive connections: one pool for all "
        "players, as the deployment's proxy keeps to the shared port "
        "(shared), or each player's own, as browsers talking to the "
        "workers directly (per-player)",
    )
    p.add_argument(
        "--client-gc",
        choices=("freeze", "default"),
        default="freeze",
        help="the generator's GC: freeze the set-up's objects and collect only "
        "between rate steps (freeze), or Python's default collector",
    )
    p.add_argument(
        "--generator-cpus",
        type=parse_cpus,
        default=None,
        help="pin the load generator to these CPUs, e.g. 1",
    )
    p.add_argument(
        "--server-cpus",
        type=parse_cpus,
        default=None,
        help="pin the server (supervisor and workers) to these CPUs, e.g. 0,1",
    )
    p.add_argument(
        "--generator-nice",
        type=int,
        default=0,
        help="lower the generator's priority by this much after the server "
        "started (with autogroup scheduling: in a session of its own whose "
        "group nice is set too; plain nice would not reach the server)",
    )
    p.add_argument("--out", type=Path, default=None, help="also write the JSON report here")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    cfg = LoadConfig(
        workers=args.workers,
        games=args.games,
        timed_games=args.timed_games,
        rates=args.rate,
        duration=args.duration,
        redis_url=args.redis_url,
        websockets=not args.no_ws,
        seed=args.seed,
        redis_max_connections=args.redis_max_connections,
        client=args.client,
        client_gc=args.client_gc,
        connections=args.connections,
        generator_cpus=args.generator_cpus,
        server_cpus=args.server_cpus,
        generator_nice=args.generator_nice,
        hard_games=args.hard_games,
        hard_think_delay=args.hard_think_delay,
    )
    with asyncio.Runner(loop_factory=client_loop(args.client_loop)) as runner:
        report = runner.run(run_load(cfg))
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    ok = report["integrity"]["games_lost"] == 0 and report["integrity"]["games_corrupted"] == 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
