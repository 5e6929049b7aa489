"""Service fixtures: a store per backend (real Redis for RedisStore) and a controllable clock."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from core.service import GameService, ServiceConfig
from core.store import GameStore, MemoryStore, RedisStore
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
def service(store: GameStore, clock: Clock) -> GameService:
    return GameService(store, FAST, clock=clock)
