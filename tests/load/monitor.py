"""Background observers of a run: worker RSS and CPU, Redis memory, and turn timers.

The timer watch reads each timed game's record (``v``, ``dl``) straight from Redis every
``interval`` seconds (the record holds the armed deadline; firing or finishing clears
it). A deadline counts as fired late by the time from ``dl`` to the first poll that sees a
newer version (so figures carry up to one interval of slack); a game is *stuck* when its
deadline is still armed more than ``grace`` seconds after it passed.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import psutil
import redis.asyncio as aioredis

from core.store import Keys
from tests.load.stats import dist


@dataclass
class TimerWatch:
    redis_url: str
    prefix: str
    game_ids: Callable[[], list[str]]
    interval: float = 0.25
    grace_ms: int = 2000
    last: dict[str, tuple[int, int | None]] = field(default_factory=dict)
    late_ms: list[float] = field(default_factory=list)
    stuck: dict[tuple[str, int], float] = field(default_factory=dict)
    fired: int = 0
    polls: int = 0
    poll_errors: int = 0
    # (start_ms, end_ms) when Redis itself was away: a deadline inside one may fire up to
    # ``grace_ms`` after the window ends (nothing can fire while the store is gone)
    excused: list[tuple[float, float]] = field(default_factory=list)

    async def run(self, stop: asyncio.Event) -> None:
        client = aioredis.Redis.from_url(self.redis_url, decode_responses=True, socket_timeout=5)
        keys = Keys(self.prefix)
        try:
            while not stop.is_set():
                try:
                    await self._poll(client, keys)
                except Exception:
                    self.poll_errors += 1
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), self.interval)
        finally:
            await client.aclose()  # type: ignore[attr-defined, unused-ignore]

    async def _poll(self, client: aioredis.Redis, keys: Keys) -> None:
        ids = self.game_ids()
        async with client.pipeline(transaction=False) as pipe:
            for game_id in ids:
                pipe.hmget(keys.game(game_id), "v", "dl")
            rows = await pipe.execute()
        now = time.time() * 1000
        self.polls += 1
        pending_check: list[tuple[str, int, int]] = []
        for game_id, (v, dl) in zip(ids, rows, strict=True):
            if v is None:
                continue
            version, deadline = int(v), (int(dl) if dl else None)
            before = self.last.get(game_id)
            moved = before is not None and version != before[0]
            if moved and before[1] is not None and now >= before[1]:  # type: ignore[index]
                self.fired += 1  # it moved on after its deadline: a timer fired
                self.late_ms.append(now - before[1])  # type: ignore[index]
            self.last[game_id] = (version, deadline)
            if deadline is not None and now > self._allowed(deadline) + self.grace_ms:
                pending_check.append((game_id, version, deadline))
        for game_id, version, deadline in pending_check:
            # the record's deadline is the truth (the timer index is only a hint, and a
            # fired or finished timer clears ``dl``): still armed past deadline + grace
            self.stuck[(game_id, version)] = now - deadline

    def _allowed(self, deadline: int) -> float:
        for start, end in self.excused:
            if start - self.grace_ms <= deadline <= end:
                return end
        return deadline

    def summary(self) -> dict[str, Any]:
        return {
            "timers_seen_firing": self.fired,
            "fire_delay_after_deadline_ms": dist(self.late_ms),
            "stuck_games": len({g for g, _ in self.stuck}),
            "stuck_examples": [
                {"game_id": g, "version": v, "late_ms": round(ms)}
                for (g, v), ms in list(self.stuck.items())[:5]
            ],
            "poll_interval_s": self.interval,
        }


@dataclass
class Sampler:
    """Once a second: worker RSS, worker CPU, Redis used_memory, this process's CPU."""

    redis_url: str
    workers: Callable[[], list[float]]
    interval: float = 1.0
    rss: list[float] = field(default_factory=list)  # sum over workers, MB
    rss_each: list[float] = field(default_factory=list)
    redis_mem: list[int] = field(default_factory=list)
    loop_lag_ms: list[float] = field(default_factory=list)
    client_cpu: float = 0.0

    async def run(self, stop: asyncio.Event) -> None:
        client = aioredis.Redis.from_url(self.redis_url, socket_timeout=5)
        me = psutil.Process()
        cpu0 = sum(me.cpu_times()[:2])
        t0 = time.monotonic()
        try:
            while not stop.is_set():
                each = self.workers()
                if each:
                    self.rss.append(sum(each))
                    self.rss_each.extend(each)
                with contextlib.suppress(Exception):
                    info = await client.info("memory")
                    self.redis_mem.append(int(info["used_memory"]))
                began = time.monotonic()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), self.interval)
                self.loop_lag_ms.append(
                    max(0.0, (time.monotonic() - began - self.interval) * 1000)
                    if not stop.is_set()
                    else 0.0
                )
        finally:
            self.client_cpu = (sum(me.cpu_times()[:2]) - cpu0) / max(1e-9, time.monotonic() - t0)
            await client.aclose()  # type: ignore[attr-defined, unused-ignore]

    def summary(self) -> dict[str, Any]:
        return {
            "worker_rss_mb_max_each": round(max(self.rss_each), 1) if self.rss_each else None,
            "worker_rss_mb_total_max": round(max(self.rss), 1) if self.rss else None,
            "redis_used_memory_mb_max": round(max(self.redis_mem) / 2**20, 1)
            if self.redis_mem
            else None,
            "client_loop_lag_ms": dist(self.loop_lag_ms),
            "client_cpu_share_of_one_core": round(self.client_cpu, 2),
        }


async def redis_memory_per_game(
    redis_url: str, prefix: str, game_ids: list[str], baseline: int, sample: int = 50
) -> dict[str, Any]:
    """INFO used_memory growth per game, and MEMORY USAGE of a sample of games' keys."""
    client = aioredis.Redis.from_url(redis_url, decode_responses=True)
    keys = Keys(prefix)
    try:
        info = await client.info("memory")
        used = int(info["used_memory"])
        sizes = []
        for game_id in game_ids[:sample]:
            total = 0
            for key in keys.game_keys(game_id):
                total += int(await client.memory_usage(key, samples=0) or 0)
            sizes.append(total)
        every_key = [k async for k in client.scan_iter(match=prefix + "*", count=1000)]
        all_bytes = 0
        for i in range(0, len(every_key), 500):
            async with client.pipeline(transaction=False) as pipe:
                for key in every_key[i : i + 500]:
                    pipe.memory_usage(key, samples=0)
                all_bytes += sum(int(x or 0) for x in await pipe.execute())
        return {
            "games": len(game_ids),
            # every key of the run (games, logs, per-user indexes, timers) per live game
            "all_keys_per_game_kb": round(all_bytes / max(1, len(game_ids)) / 1024, 1),
            "keys": len(every_key),
            "used_memory_growth_per_game_kb": round(
                (used - baseline) / max(1, len(game_ids)) / 1024, 1
            ),
            "memory_usage_keys_per_game_kb": round(sum(sizes) / max(1, len(sizes)) / 1024, 1),
            "used_memory_mb": round(used / 2**20, 1),
        }
    finally:
        await client.aclose()  # type: ignore[attr-defined, unused-ignore]
