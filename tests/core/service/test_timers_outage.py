"""Turn timers across Redis restarts (issue 8: every expired turn advances within its
deadline + 2 s; a deadline that falls inside an outage, within 2 s of Redis being back).

A private redis-server (AOF, fsync always) is killed -9 and restarted under a service that
runs ``run_timers`` on a game the computer plays (a deadline every ~0.3 s). Before the fix,
the pool handed out its dead connections after each restart and the timer loop logged
errors and lost a lease (1 s) or more per failed claim.
"""

from __future__ import annotations

import asyncio
import logging
import shutil
import time

import pytest
import redis.asyncio as aioredis

from core.service import GameService, ServiceConfig, UserRef
from core.store import Keys, RedisStore
from tests.load.harness import RedisServer

pytestmark = [
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server"),
    pytest.mark.timeout(120),
]

PREFIX = "outage:"


async def _game(service: GameService) -> str:
    view = await service.create_lobby(
        chat=None,
        creator=UserRef(1, "P1"),
        seats=3,
        computers=2,
        autostart=False,
        settings={
            "turn_time": 5,
            "think_delay": 0.3,
            "round_pause": 1,
            "rounds": 3,
            "takeover_after": 1,
        },
    )
    await service.start(view["game_id"], 1)
    return str(view["game_id"])


async def test_timers_fire_in_time_across_redis_restarts(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING)
    with RedisServer(aof=True) as server:
        store = RedisStore.from_url(server.url, prefix=PREFIX)
        service = GameService(store, ServiceConfig())
        watcher = aioredis.Redis.from_url(server.url, decode_responses=True)
        stop = asyncio.Event()
        timers = asyncio.create_task(service.run_timers(stop))
        try:
            game_ids = [await _game(service) for _ in range(4)]
            keys = Keys(PREFIX)
            outages: list[tuple[float, float]] = []  # wall ms: Redis gone .. back
            late: list[float] = []  # ms after max(deadline, Redis back)
            last: dict[str, tuple[int, int | None]] = {}

            def allowed(deadline: float) -> float:
                for began, ended in outages:
                    if began - 2000 <= deadline <= ended:
                        return ended
                return deadline

            async def poll() -> None:
                try:
                    rows = [await watcher.hmget(keys.game(g), ["v", "dl"]) for g in game_ids]
                except Exception:  # Redis is away
                    return
                now = time.time() * 1000
                for game_id, (v, dl) in zip(game_ids, rows, strict=True):
                    if v is None:
                        continue
                    current = (int(v), int(dl) if dl else None)
                    before = last.get(game_id)
                    if before is not None and before[0] != current[0] and before[1]:
                        late.append(now - allowed(before[1]))
                    if current[1] is not None:
                        assert now - allowed(current[1]) < 2000, (game_id, current, outages)
                    last[game_id] = current

            async def watch(seconds: float) -> None:
                end = time.monotonic() + seconds
                while time.monotonic() < end:
                    await poll()
                    await asyncio.sleep(0.05)

            await watch(7.0)  # the human's first turn times out; then a move every ~0.3 s
            for _ in range(2):
                began = time.time() * 1000
                server.kill()
                await asyncio.sleep(1.0)
                await asyncio.to_thread(server.start)
                outages.append((began, time.time() * 1000))
                await watch(4.0)
            fired_after_restarts = [x for x in late[-20:]]
            assert len(late) >= 20, late
            assert max(late) < 2000, sorted(late)[-5:]
            assert fired_after_restarts, late
        finally:
            stop.set()
            await asyncio.wait_for(timers, 10)
            await watcher.aclose()
            await store.close()
    errors = [
        r
        for r in caplog.records
        if r.levelno >= logging.ERROR and r.name.startswith("core.service")
    ]
    assert errors == [], [r.getMessage() for r in errors[:3]]
    assert any("store unavailable" in r.getMessage() for r in caplog.records)
    assert any("store back" in r.getMessage() for r in caplog.records)
