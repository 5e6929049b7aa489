"""Round trip through the shared Redis fixtures: isolated keys, cleaned afterwards."""

from __future__ import annotations

import redis.asyncio

from tests.conftest import delete_prefixed


async def test_round_trip_under_the_prefix(
    redis_client: redis.asyncio.Redis, redis_prefix: str
) -> None:
    key = f"{redis_prefix}greeting"
    await redis_client.set(key, "破坏者 hello".encode(), ex=60)
    await redis_client.hset(f"{redis_prefix}h", mapping={"a": "1"})
    assert await redis_client.get(key) == "破坏者 hello".encode()
    assert await redis_client.hgetall(f"{redis_prefix}h") == {b"a": b"1"}
    assert redis_prefix.startswith("test:") and redis_prefix.endswith(":")


async def test_prefixes_are_unique_and_cleanup_deletes_only_them(
    redis_url: str, redis_prefix: str
) -> None:
    other = redis_prefix + "x:"  # a longer prefix inside ours: deleted with ours
    neighbour = redis_prefix.rstrip(":") + "-neighbour:"  # shares characters, not the prefix
    client = redis.asyncio.Redis.from_url(redis_url)
    try:
        await client.set(f"{redis_prefix}a", 1, ex=60)
        await client.set(f"{other}b", 2, ex=60)
        await client.set(f"{neighbour}c", 3, ex=60)
        assert await delete_prefixed(redis_url, redis_prefix) == 2
        assert await client.exists(f"{redis_prefix}a", f"{other}b") == 0
        assert await client.get(f"{neighbour}c") == b"3"
    finally:
        await client.delete(f"{neighbour}c")
        await client.aclose()
