"""Store fixtures: a ``store`` over every backend (in memory; ``RedisStore`` on the shared
Redis, and through Sentinel on a topology of its own), and a recorder that checks every
Redis command the store sends is valid on Redis Cluster."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from redis.asyncio.connection import AbstractConnection

from core.store import GameStore, MemoryStore, RedisStore
from core.store.connection import Checked
from tests.core.store.store_commands import CommandLog
from tests.load.topology import TOPOLOGY_MARKER, SentinelTopology


@pytest.fixture(autouse=True)
def redis_commands() -> Iterator[CommandLog]:
    """Record every command packed for Redis; after the test: no script call spans two
    slots, and no MULTI is ever opened (a transaction is slot-bound on a Cluster too)."""
    commands = CommandLog()
    original = AbstractConnection.pack_command
    ours = Checked.pack_command  # the store's own packer (hiredis), every topology

    def recording(self: AbstractConnection, *args: Any) -> list[bytes]:
        commands.record(args)
        return original(self, *args)

    def recording_ours(self: Checked, *args: Any) -> list[bytes]:
        commands.record(args)  # (a fallback to redis-py's packer records twice: harmless)
        return ours(self, *args)

    AbstractConnection.pack_command = recording  # type: ignore[method-assign]
    Checked.pack_command = recording_ours  # type: ignore[method-assign]
    try:
        yield commands
    finally:
        AbstractConnection.pack_command = original  # type: ignore[method-assign]
        Checked.pack_command = ours  # type: ignore[method-assign]
    assert commands.cross_slot() == []
    assert "MULTI" not in commands.names


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", TOPOLOGY_MARKER)


@pytest.fixture(scope="session")
def sentinel_topology() -> Iterator[SentinelTopology]:
    """1 master + 1 replica + 3 sentinels for the whole session (started on first use;
    tests that fail a master over start their own)."""
    if shutil.which("redis-server") is None:
        pytest.skip("needs redis-server")
    with SentinelTopology() as topology:
        yield topology


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The contract suite's Sentinel runs belong to the topology group too."""
    for item in items:
        callspec = getattr(item, "callspec", None)
        if callspec is not None and callspec.params.get("store") == "sentinel":
            item.add_marker(pytest.mark.topology)


@pytest.fixture(params=["memory", "redis", "sentinel"])
async def store(
    request: pytest.FixtureRequest, redis_url: str, redis_prefix: str, redis_client: object
) -> AsyncIterator[GameStore]:
    # redis_client is requested for its cleanup: every key under redis_prefix is deleted.
    if request.param == "memory":
        backend: GameStore = MemoryStore()
    elif request.param == "redis":
        backend = RedisStore.from_url(redis_url, prefix=redis_prefix)
    else:  # the same contract through a Sentinel client, on the topology's own master
        topology: SentinelTopology = request.getfixturevalue("sentinel_topology")
        backend = RedisStore.from_url(topology.url, prefix=redis_prefix)
    try:
        yield backend
    finally:
        await backend.close()
