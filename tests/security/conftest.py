"""Fixtures of the security suite: stores on the shared Redis (under the test's prefix) and
in memory, a clock that moves when told, and a view of what keys a test left behind.

The attack runs against real processes (``tests/security/attacks.py``, ``python -m
tests.security``) start their own redis-server and server processes; see there.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from core.service import GameService, ServiceConfig
from core.store import GameStore, MemoryStore, RedisStore
from tests.conftest import _glob_escape
from tests.core.service.service_clock import Clock

FAST = ServiceConfig(think_delay_s=0.0, bot_ready_delay_s=0.0, round_pause_s=0)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture(params=["memory", "redis"])
async def store(
    request: pytest.FixtureRequest, redis_url: str, redis_prefix: str, redis_client: object
) -> AsyncIterator[GameStore]:
    backend: GameStore
    if request.param == "memory":
        backend = MemoryStore()
    else:
        backend = RedisStore.from_url(redis_url, prefix=redis_prefix)
    try:
        yield backend
    finally:
        await backend.close()


@pytest.fixture
async def redis_store(
    redis_url: str, redis_prefix: str, redis_client: object
) -> AsyncIterator[RedisStore]:
    backend = RedisStore.from_url(redis_url, prefix=redis_prefix)
    try:
        yield backend
    finally:
        await backend.close()


def service_on(store: GameStore, clock: Clock, **config: object) -> GameService:
    from dataclasses import replace

    return GameService(store, replace(FAST, **config), clock=clock)  # type: ignore[arg-type]


# A group's own preferences outlive its games on purpose, one key each per group: the
# language an admin chose (/lang) and the settings of its last game (what /new starts from).
GROUP_PREFERENCES = ("pref:c:", "pref:ls:")


def game_keys_without_ttl(keys: list[str]) -> list[str]:
    """Keys without a TTL that a game left behind (the group's preferences are not)."""
    return [k for k in keys if not k.startswith(GROUP_PREFERENCES)]


async def keys_by_ttl(redis_url: str, prefix: str) -> dict[str, list[str]]:
    """Every key under ``prefix`` (prefix removed), split into ``"no_ttl"`` and ``"ttl"``."""
    client = aioredis.Redis.from_url(redis_url, decode_responses=True)
    out: dict[str, list[str]] = {"no_ttl": [], "ttl": []}
    try:
        async for key in client.scan_iter(match=_glob_escape(prefix) + "*", count=1000):
            ttl = await client.pttl(key)
            if ttl == -2:
                continue  # gone meanwhile
            out["no_ttl" if ttl == -1 else "ttl"].append(key[len(prefix) :])
    finally:
        await client.aclose()
    for names in out.values():
        names.sort()
    return out
