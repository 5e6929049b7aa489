"""Faults injected while the load runs: worker kills, Redis restarts, Redis cut off.

Each scenario is a hook for ``tests.load.run.run_load`` (it runs during the last rate
step) that records what it did and how long the service took to come back in
``env.notes``. Recovery is measured from the moment the fault ends (a worker killed: the
supervisor's replacement listening again; Redis back: the first move answered 200 after
it) — the integrity checks after the run say whether anything was lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import signal
import time
from typing import Any

import psutil
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


def timer_process(env: Env) -> psutil.Process | None:
    """The supervisor's timer process: its child that does not listen on the HTTP port."""
    listening = {p.pid for p in env.server.listening_workers()}
    others = [p for p in env.server.worker_procs() if p.pid not in listening]
    return others[0] if len(others) == 1 else None


def kill_workers(kills: int, every: float, seed: int = 7, timer_every: int = 3) -> Hook:
    """kill -9 a random worker every ``every`` seconds, ``kills`` times; every
    ``timer_every``-th kill hits the timer process instead, when there is one (its
    deadlines must still advance in time: the workers' fallback fires them)."""

    async def hook(env: Env) -> None:
        rng = random.Random(seed)
        restarts: list[float] = []
        not_back = 0
        errors_around: list[int] = []
        done = timer_kills = 0
        timer_back: list[float] = []
        for n in range(kills):
            await asyncio.sleep(every)
            killed_at = time.monotonic()
            timer_turn = timer_every > 0 and n % timer_every == timer_every - 1
            victim = timer_process(env) if timer_turn else None
            if victim is not None:
                with contextlib.suppress(psutil.Error):
                    victim.send_signal(signal.SIGKILL)
                    timer_kills += 1
                    done += 1
                    back = await _wait_new_timer(env, victim.pid)
                    if back is not None:
                        timer_back.append(back)
                continue
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
            errors_around.append(
                _errors_between(stats.error_times, killed_at - 0.1, killed_at + (back or 30) + 0.5)
            )
        env.notes.update(
            {
                "kind": f"kill -9 a worker (one kill in {timer_every}: the timer process)"
                if timer_kills
                else "kill -9 a worker",
                "kills": done,
                "timer_process_kills": timer_kills,
                "timer_process_back_s": dist(timer_back),
                "every_s": every,
                "worker_back_listening_s": dist(restarts),
                "workers_not_back_within_30s": not_back,
                "client_errors_per_kill": dist([float(e) for e in errors_around]),
            }
        )

    return hook


async def _wait_new_timer(env: Env, old_pid: int, timeout: float = 30.0) -> float | None:
    """Seconds until the supervisor has a new timer process (another pid)."""
    began = time.monotonic()
    while time.monotonic() - began < timeout:
        proc = timer_process(env)
        if proc is not None and proc.pid != old_pid:
            return time.monotonic() - began
        await asyncio.sleep(0.1)
    return None


def _excuse_from(env: Env, wall_ms: float) -> int:
    """Open an outage window in the timer watch *before* the fault (its end comes when
    the fault does): the watcher keeps polling Redis directly while the workers are cut
    off, and a deadline inside a 3 s cut would otherwise be counted stuck 2 s after it
    passed, while the cut was still on. Returns the window's index."""
    env.watch.excused.append((wall_ms, float("inf")))
    return len(env.watch.excused) - 1


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
            window = _excuse_from(env, wall)
            env.redis.kill()
            await asyncio.sleep(down)
            await asyncio.to_thread(env.redis.start)
            ended = time.monotonic()
            env.watch.excused[window] = (wall, time.time() * 1000)
            await asyncio.sleep(min(every, 8.0))
            rounds.append(_outage_figures(env, began, ended))
        env.notes.update(
            {
                "kind": "kill -9 and restart Redis (appendonly yes, appendfsync always)",
                "restarts": rounds,
            }
        )

    return hook


def cut_redis(proxy: ProxyProcess, cuts: int, every: float, down: float = 3.0) -> Hook:
    """Cut every worker<->Redis connection at a proxy for ``down`` s; then CLIENT KILL."""

    async def hook(env: Env) -> None:
        rounds = []
        for _ in range(cuts):
            await asyncio.sleep(every)
            began = time.monotonic()
            wall = time.time() * 1000
            window = _excuse_from(env, wall)
            proxy.cut()
            await asyncio.sleep(down)
            proxy.restore()
            ended = time.monotonic()
            env.watch.excused[window] = (wall, time.time() * 1000)
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
        env.notes.update(
            {
                "kind": "cut worker<->Redis TCP at a proxy, then CLIENT KILL TYPE normal+pubsub",
                "cuts": rounds,
                "client_kill": kill_round,
            }
        )

    return hook
