"""Store fixtures: a ``store`` over both backends (real Redis for ``RedisStore``), and a
recorder that checks every Redis command the store sends is valid on Redis Cluster."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from redis.asyncio.connection import AbstractConnection

from core.store import GameStore, MemoryStore, RedisStore
from core.store.redis_store import _CheckedConnection
from tests.core.store.store_commands import CommandLog


@pytest.fixture(autouse=True)
def redis_commands() -> Iterator[CommandLog]:
    """Record every command packed for Redis; after the test: no script call spans two
    slots, and no MULTI is ever opened (a transaction is slot-bound on a Cluster too)."""
    commands = CommandLog()
    original = AbstractConnection.pack_command
    ours = _CheckedConnection.pack_command  # the store's own packer (hiredis)

    def recording(self: AbstractConnection, *args: Any) -> list[bytes]:
        commands.record(args)
        return original(self, *args)

    def recording_ours(self: _CheckedConnection, *args: Any) -> list[bytes]:
        commands.record(args)  # (a fallback to redis-py's packer records twice: harmless)
        return ours(self, *args)

    AbstractConnection.pack_command = recording  # type: ignore[method-assign]
    _CheckedConnection.pack_command = recording_ours  # type: ignore[method-assign]
    try:
        yield commands
    finally:
        AbstractConnection.pack_command = original  # type: ignore[method-assign]
        _CheckedConnection.pack_command = ours  # type: ignore[method-assign]
    assert commands.cross_slot() == []
    assert "MULTI" not in commands.names


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
