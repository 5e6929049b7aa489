"""The store's connection packs commands with hiredis: the same bytes as redis-py's packer.

Why: ``CheckedConnection.pack_command`` replaces redis-py's Python packer on the hot path
(issue 8, CPU per move); a byte of difference would be a different command.
"""

from __future__ import annotations

from typing import Any

import pytest
import redis.asyncio as aioredis
from redis.exceptions import DataError

from core.store import RedisStore
from core.store.connection import CheckedConnection

SAMPLES: list[tuple[Any, ...]] = [
    ("PING",),
    ("HGET", "{g:abc}:r", "v"),
    ("EVALSHA", "a" * 40, 3, "{g:abc}:r", "{g:abc}:l", "{g:abc}:a", 5, "z1:" + "x" * 9000),
    ("HSET", "k", "field", "ünïcødé ✓ 漢字", b"\x00\xffraw", -17, 0, 2**62),
    ("ZADD", "timers", "XX", "LT", 1732900000000, "game|t"),
    ("SET", "k", ""),
]


def _wire(conn: aioredis.Connection, args: tuple[Any, ...]) -> bytes:
    return b"".join(bytes(part) for part in conn.pack_command(*args))


@pytest.mark.parametrize("args", SAMPLES)
def test_same_bytes_as_redis_py(args: tuple[Any, ...]) -> None:
    assert _wire(CheckedConnection(), args) == _wire(aioredis.Connection(), args)


def test_what_hiredis_does_not_take_goes_through_redis_py() -> None:
    ours, theirs = CheckedConnection(), aioredis.Connection()
    for args in [("CLIENT SETINFO", "LIB-NAME", "x"), ("ZADD", "k", 1.5, "m")]:
        assert _wire(ours, args) == _wire(theirs, args)
    with pytest.raises(DataError):  # redis-py refuses a bool; so do we
        ours.pack_command("SET", "k", True)


async def test_commands_still_round_trip(redis_url: str, redis_prefix: str) -> None:
    store = RedisStore.from_url(redis_url, prefix=redis_prefix)
    try:
        key = f"{redis_prefix}pack"
        value = "ünïcødé " + "x" * 20000  # past redis-py's chunking cut-off
        await store.redis.set(key, value, px=60_000)
        assert await store.redis.get(key) == value
        await store.redis.delete(key)
    finally:
        await store.close()


# --- the lean path of the hot calls (RedisStore._lean) ---------------------------------


async def test_load_and_commit_after_the_scripts_were_flushed(
    redis_url: str, redis_prefix: str
) -> None:
    """NOSCRIPT on the lean path: redis-py's path loads the script and runs it, once."""
    store = RedisStore.from_url(redis_url, prefix=redis_prefix)
    try:
        await store.create("g1", "s1", "m1", ttl_s=60)
        await store.redis.script_flush()
        record = await store.load("g1")
        assert record is not None and (record.version, record.state) == (1, "s1")
        await store.redis.script_flush()
        assert (await store.commit("g1", 1, "s2", "m2", ["x"], None, ttl_s=60)).ok
        assert await store.read_log("g1") == ["x"]  # applied once
        record = await store.load("g1")
        assert record is not None and (record.version, record.state) == (2, "s2")
    finally:
        await store.delete_game("g1")
        await store.close()


async def test_a_connection_failing_mid_command_is_dropped_and_the_call_retried(
    redis_url: str, redis_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = RedisStore.from_url(redis_url, prefix=redis_prefix)
    try:
        await store.create("g1", "s1", "m1", ttl_s=60)
        failed: list[tuple[CheckedConnection, Any]] = []
        real_read = CheckedConnection.read_response

        async def read_once_broken(self: CheckedConnection, *args: Any, **kwargs: Any) -> Any:
            if not failed:
                failed.append((self, self._writer))
                from redis.exceptions import ConnectionError as RedisConnectionError

                raise RedisConnectionError("reset by test")
            return await real_read(self, *args, **kwargs)

        monkeypatch.setattr(CheckedConnection, "read_response", read_once_broken)
        record = await store.load("g1")
        assert record is not None and record.version == 1
        conn, stream = failed[0]
        assert conn._writer is not stream  # its socket was closed, never read from again
    finally:
        monkeypatch.undo()
        await store.delete_game("g1")
        await store.close()
