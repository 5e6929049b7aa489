"""A ``store`` fixture parametrised over both backends (real Redis for ``RedisStore``)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from core.store import GameStore, MemoryStore, RedisStore


@pytest.fixture(params=["memory", "redis"])
async def store(
    request: pytest.FixtureRequest, redis_url: str, redis_prefix: str, redis_client: object
) -> AsyncIterator[GameStore]:
    # redis_client is requested for its cleanup: every key under redis_prefix is deleted.
    if request.param == "memory":
        backend: GameStore = MemoryStore()
    else:
        backend = RedisStore.from_url(redis_url, prefix=redis_prefix)
    try:
        yield backend
    finally:
        await backend.close()
