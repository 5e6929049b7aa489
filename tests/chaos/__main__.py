"""``python -m tests.chaos SCENARIO``: faults during load, then integrity checks.

Scenarios (full-run defaults; see docs/benchmarks/load.md for the measured figures)::

    python -m tests.chaos kill            # kill -9 a worker every 3 s, 100 times
    python -m tests.chaos redis-restart   # kill -9 Redis (AOF, fsync always) and restart it
    python -m tests.chaos redis-drop      # cut worker<->Redis at a proxy; CLIENT KILL
    python -m tests.chaos duplicates      # webhook update x N concurrently; move x 100
    python -m tests.chaos failover        # Sentinel: kill -9 the Redis master mid-stream
    python -m tests.chaos hosts           # two app hosts behind Caddy: kill -9 one of them

Every run plays human games through the API and timer-driven games (a silent human with
a 5 s turn time and two computer seats), then checks: no game lost or corrupted (the log
replays to the stored state), no acknowledged move lost, no stuck timer (each expired
turn advanced within its deadline + 2 s, outside Redis outages).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from tests.chaos.proxy import ProxyProcess
from tests.chaos.scenarios import cut_redis, kill_workers, restart_redis
from tests.load.harness import RedisServer
from tests.load.run import LoadConfig, run_load


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m tests.chaos",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "scenario",
        choices=["kill", "redis-restart", "redis-drop", "duplicates", "failover", "hosts"],
    )
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--games", type=int, default=200)
    p.add_argument("--timed-games", type=int, default=40)
    p.add_argument("--rate", type=float, default=100.0)
    p.add_argument("--kills", type=int, default=100)
    p.add_argument(
        "--every", type=float, default=None, help="seconds between faults (kill: 3, redis: 20)"
    )
    p.add_argument("--faults", type=int, default=3, help="Redis restarts / cuts")
    p.add_argument(
        "--down", type=float, default=None, help="seconds Redis stays away (restart: 1, cut: 3)"
    )
    p.add_argument(
        "--deliveries", type=int, default=20, help="duplicates: copies of each webhook update"
    )
    p.add_argument("--copies", type=int, default=100, help="duplicates: copies of the move")
    p.add_argument(
        "--redis-max-connections",
        type=int,
        default=0,
        help="workaround for the store's pool limit (see python -m tests.load -h)",
    )
    p.add_argument(
        "--replica-wait-ms",
        type=int,
        default=0,
        help="failover: REDIS_REPLICA_WAIT_MS of the workers (0: no wait)",
    )
    p.add_argument(
        "--seconds", type=float, default=None, help="failover/hosts: seconds after the fault"
    )
    p.add_argument("--out", type=Path, default=None)
    return p


async def run(args: argparse.Namespace) -> dict[str, Any]:
    if args.scenario == "failover":
        from tests.chaos.failover import run_failover

        return await run_failover(
            replica_wait_ms=args.replica_wait_ms,
            games=args.games,
            computer_games=args.timed_games,
            workers=args.workers,
            before_s=args.every or 3.0,
            after_s=args.seconds or 5.0,
        )
    if args.scenario == "hosts":
        from tests.chaos.hosts import run_hosts

        return await run_hosts(
            workers=args.workers,
            games=args.games,
            timed_games=args.timed_games,
            rate=args.rate,
            before_s=args.every or 10.0,
            after_s=args.seconds or 20.0,
        )
    cfg = LoadConfig(
        workers=args.workers,
        games=args.games,
        timed_games=args.timed_games,
        rates=[args.rate],
        settle=3.0,
        redis_max_connections=args.redis_max_connections,
    )
    if args.scenario == "kill":
        every = args.every or 3.0
        cfg.duration = args.kills * (every + 3.5) + 5
        return await run_load(cfg, during=kill_workers(args.kills, every))
    if args.scenario == "redis-restart":
        every = args.every or 20.0
        cfg.aof = True
        cfg.duration = args.faults * (every + 10) + 10
        return await run_load(cfg, during=restart_redis(args.faults, every, args.down or 1.0))
    if args.scenario == "redis-drop":
        every = args.every or 20.0
        cfg.duration = (args.faults + 1) * (every + 10) + 10
        holder: dict[str, ProxyProcess] = {}

        def via_proxy(url: str) -> str:
            port = int(url.rsplit(":", 1)[1].split("/")[0])
            holder["p"] = ProxyProcess(port).start()
            return holder["p"].url

        async def hook(env: Any) -> None:
            await cut_redis(holder["p"], args.faults, every, args.down or 3.0)(env)

        try:
            return await run_load(cfg, during=hook, server_redis_url=via_proxy)
        finally:
            if "p" in holder:
                holder["p"].close()
    from tests.chaos.duplicates import run_duplicates

    with RedisServer() as redis_server:
        return await run_duplicates(
            redis_server.url, workers=args.workers, deliveries=args.deliveries, copies=args.copies
        )


def verdict(report: dict[str, Any]) -> bool:
    if "made_twice" in report:  # failover
        return (
            report["games_corrupted"] == 0
            and report["made_twice"] == 0
            and report["log_entries_of_no_submission"] == 0
            and (report["replica_wait_ms"] == 0 or report["acknowledged_then_lost"] == 0)
        )
    if "integrity" not in report:
        return bool(report.get("ok"))
    integrity, timers = report["integrity"], report["timers"]
    return (
        integrity["games_lost"] == 0
        and integrity["games_corrupted"] == 0
        and integrity["acknowledged_then_lost"] == 0
        and timers["stuck_games"] == 0
    )


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    report = asyncio.run(run(args))
    report["pass"] = verdict(report)
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    return 0 if report["pass"] else 1


if __name__ == "__main__":
    sys.exit(main())
