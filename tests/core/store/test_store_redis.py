"""Redis-only behaviour: one slot per game, pub/sub reconnect, one round trip per commit."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator

import redis.asyncio as aioredis
from redis.crc import key_slot

from core.store import Deadline, Keys, RedisStore


def test_game_keys_share_one_slot() -> None:
    keys = Keys("sab:")
    slots = {
        key_slot(k.encode())
        for k in [*keys.game_keys("Ab_-9"), keys.archive("Ab_-9"), keys.archive_log("Ab_-9")]
    }
    assert len(slots) == 1
    assert keys.game("Ab_-9") == "sab:{g:Ab_-9}:rec"


async def test_pubsub_reconnects_and_resyncs(
    redis_url: str, redis_prefix: str, redis_client: object
) -> None:
    name = "t" + redis_prefix.replace(":", "")
    store = RedisStore.from_url(redis_url, prefix=redis_prefix, client_name=name)
    admin = aioredis.Redis.from_url(redis_url, decode_responses=True)
    try:
        assert await store.create("g1", "s", "m", ttl_s=60)
        versions = store.listen("g1")
        first = asyncio.ensure_future(anext(versions))
        await store.start()
        await asyncio.sleep(0.05)
        await store.commit("g1", 1, "s", "m", [], None, ttl_s=60)
        assert await asyncio.wait_for(first, 2) == 2
        # kill exactly our subscriber connection (others share this Redis)
        ours = [
            c
            for c in await admin.client_list()
            if c.get("name") == name and c.get("cmd") in {"subscribe", "ssubscribe"}
        ]
        assert len(ours) == 1
        await admin.execute_command("CLIENT", "KILL", "ID", ours[0]["id"])
        # a commit while the subscriber is away: the resync announces it after reconnecting
        await store.commit("g1", 2, "s", "m", [], None, ttl_s=60)
        assert await asyncio.wait_for(anext(versions), 5) == 3
        assert store.reconnects >= 1
        await store.commit("g1", 3, "s", "m", [], None, ttl_s=60)
        assert await asyncio.wait_for(anext(versions), 2) == 4
        assert isinstance(versions, AsyncGenerator)
        await versions.aclose()
    finally:
        await admin.aclose()
        await store.close()


async def test_commit_is_one_round_trip(
    redis_url: str, redis_prefix: str, redis_client: object
) -> None:
    from core.store.roundtrips import count_round_trips

    store = RedisStore.from_url(redis_url, prefix=redis_prefix)
    try:
        await store.create("g1", "s", "m", ttl_s=60)
        await store.commit("g1", 1, "s", "m", ["x"], None, ttl_s=60)  # script cached
        with count_round_trips() as counter:
            record = await store.load("g1")
            assert record is not None
            result = await store.commit(
                "g1", record.version, "s", "m", ["y"], Deadline(10**13), ttl_s=60
            )
        assert result.ok
        assert counter.count == 2  # one read, one commit
    finally:
        await store.close()


async def test_cached_load_sees_other_workers_commits(
    redis_url: str, redis_prefix: str, redis_client: aioredis.Redis
) -> None:
    """Each worker caches the big fields; a load still returns what Redis holds: another
    worker's commit, a deleted game, and a game recreated under the same id and version."""
    a = RedisStore.from_url(redis_url, prefix=redis_prefix)
    b = RedisStore.from_url(redis_url, prefix=redis_prefix)
    try:
        assert await a.create("g1", "s1", "m1", ttl_s=60)
        first = await a.load("g1")
        assert first is not None and (first.state, first.meta) == ("s1", "m1")
        assert (await a.load("g1")) == first  # served from the cache: same record
        assert (await b.commit("g1", 1, "s2-é", "m2", [], None, ttl_s=60)).ok
        await b.touch("g1", "7", 1234)
        seen = await a.load("g1")
        assert seen is not None
        assert (seen.version, seen.state, seen.meta) == (2, "s2-é", "m2")
        assert seen.presence == {"7": 1234}
        await b.delete_game("g1")
        assert await a.load("g1") is None
        assert await b.create("g1", "other", "m9", ttl_s=60, version=2)
        again = await a.load("g1")
        assert again is not None and (again.state, again.meta) == ("other", "m9")
    finally:
        await a.close()
        await b.close()
