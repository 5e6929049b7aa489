"""Faults injected while the load runs: worker kills, Redis restarts, Redis cut off.

Each scenario is a hook for ``tests.load.run.run_load`` (it runs during the last rate
step) that records what it did and how long the service took to come back in
``env.notes``. Recovery is measured from the moment the fault ends (a worker killed: the
supervisor's replacement listening again; Redis back: the first move answered 200 after
it) — the integrity checks after the run say whether anything was lost.
"""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import redis

from tests.chaos.proxy import ProxyProcess
from tests.load.run import Env, Hook
from tests.load.stats import dist


def _first_after(times: list[float], t: float) -> float | None:
    later = [x for x in times if x >= t]
    return min(later) if later else None


def _errors_between(times: list[float], a: float, b: float) -> int:
    return sum(1 for x in times if a <= x <= b)


async def _wait_workers(env: Env, timeout: float = 30.0) -> float | None:
    began = time.monotonic()
    while time.monotonic() - began < timeout:
        if len(env.server.listening_workers()) >= env.server.workers:
            return time.monotonic() - began
        await asyncio.sleep(0.1)
    return None


def kill_workers(kills: int, every: float, seed: int = 7) -> Hook:
    """kill -9 a random worker every ``every`` seconds, ``kills`` times."""

    async def hook(env: Env) -> None:
        rng = random.Random(seed)
        restarts: list[float] = []
        not_back = 0
        errors_around: list[int] = []
        done = 0
        for _ in range(kills):
            await asyncio.sleep(every)
            killed_at = time.monotonic()
            pid = env.server.kill_worker(rng.randrange(env.server.workers))
            if pid is None:
                continue
            done += 1
            await asyncio.sleep(0.3)  # let the supervisor notice
            back = await _wait_workers(env)
            if back is None:
                not_back += 1
            else:
                restarts.append(back + 0.3)
            stats = env.driver.stats
            errors_around.append(_errors_between(stats.error_times, killed_at - 0.1,
                                                 killed_at + (back or 30) + 0.5))
        env.notes.update({
            "kind": "kill -9 a worker",
            "kills": done,
            "every_s": every,
            "worker_back_listening_s": dist(restarts),
            "workers_not_back_within_30s": not_back,
            "client_errors_per_kill": dist([float(e) for e in errors_around]),
        })

    return hook


def _outage_figures(env: Env, began: float, ended: float) -> dict[str, Any]:
    stats = env.driver.stats
    first_ok = _first_after(stats.ok_times, ended)
    return {
        "outage_s": round(ended - began, 2),
        "first_move_ok_after_s": round(first_ok - ended, 2) if first_ok else None,
        "client_errors": _errors_between(stats.error_times, began, (first_ok or ended) + 1),
    }


def restart_redis(restarts: int, every: float, down: float = 1.0) -> Hook:
    """kill -9 Redis (AOF, fsync always) and start it again on the same port and dir."""

    async def hook(env: Env) -> None:
        assert env.redis is not None, "the restart scenario needs the private redis-server"
        rounds = []
        for _ in range(restarts):
            await asyncio.sleep(every)
            began = time.monotonic()
            wall = time.time() * 1000
            env.redis.kill()
            await asyncio.sleep(down)
            await asyncio.to_thread(env.redis.start)
            ended = time.monotonic()
            env.watch.excused.append((wall, time.time() * 1000))
            await asyncio.sleep(min(every, 8.0))
            rounds.append(_outage_figures(env, began, ended))
        env.notes.update({"kind": "kill -9 and restart Redis (appendonly yes, appendfsync "
                                   "always)", "restarts": rounds})

    return hook


def cut_redis(proxy: ProxyProcess, cuts: int, every: float, down: float = 3.0) -> Hook:
    """Cut every worker<->Redis connection at a proxy for ``down`` s; then CLIENT KILL."""

    async def hook(env: Env) -> None:
        rounds = []
        for _ in range(cuts):
            await asyncio.sleep(every)
            began = time.monotonic()
            wall = time.time() * 1000
            proxy.cut()
            await asyncio.sleep(down)
            proxy.restore()
            ended = time.monotonic()
            env.watch.excused.append((wall, time.time() * 1000))
            await asyncio.sleep(min(every, 8.0))
            rounds.append(_outage_figures(env, began, ended))
        # and the gentler drop: Redis itself closes every client connection at once
        await asyncio.sleep(every)
        began = time.monotonic()
        wall = time.time() * 1000
        client = redis.Redis.from_url(env.redis_url)
        try:
            killed = client.client_kill_filter(_type="normal", skipme=True)
            killed += client.client_kill_filter(_type="pubsub", skipme=True)
        finally:
            client.close()
        ended = time.monotonic()
        env.watch.excused.append((wall, time.time() * 1000))
        await asyncio.sleep(min(every, 8.0))
        kill_round = _outage_figures(env, began, ended)
        kill_round["connections_killed"] = killed
        env.notes.update({
            "kind": "cut worker<->Redis TCP at a proxy, then CLIENT KILL TYPE normal+pubsub",
            "cuts": rounds,
            "client_kill": kill_round,
        })

    return hook
