"""Redis-only behaviour: one slot per game, pub/sub reconnect, one round trip per commit,
epochs (renumbering after another master wrote a record), the replica wait."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncGenerator

import pytest
import redis.asyncio as aioredis
from redis.crc import key_slot

from core.store import Deadline, Keys, RedisStore, lua


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


async def test_a_record_written_by_another_master_is_renumbered(
    redis_url: str, redis_prefix: str, redis_client: object
) -> None:
    """A record whose ``ri`` names another master (as after a failover or a restart) moves
    up one epoch on its first touch: a number the old master may have handed out for a
    commit the replica never got is never reused; who decided on the very state it had
    may still commit (renumbered), anyone else gets a conflict."""
    store = RedisStore.from_url(redis_url, prefix=redis_prefix)
    try:
        t0 = int(time.time() * 1000)
        assert await store.create("g1", "s", "m", ttl_s=60)
        assert (await store.commit("g1", 1, "s", "m", [], Deadline(t0 + 60_000), ttl_s=60)).ok
        key = store.keys.game("g1")
        tag = await store.redis.hget(key, "ri")
        assert tag and len(tag) == 8
        await store.redis.hset(key, "ri", "0ld0ld00")  # "written by the previous master"
        gap = lua.EPOCH_GAP
        assert await store.version("g1") == 2 + gap  # every read sees the new numbering
        assert await store.redis.hget(key, "ri") == tag
        assert int(await store.redis.hget(key, "tv")) == 2 + gap  # the armed timer too
        record = await store.load("g1")
        assert record is not None and record.version == 2 + gap
        assert await store.version("g1") == 2 + gap  # renumbered once, not on every read
        assert await store.renumbered_from("g1") == 2
        stale = await store.commit("g1", 3, "s", "m", [], None, ttl_s=60)  # a lost number
        assert (stale.ok, stale.version, stale.renumbered) == (False, 2 + gap, False)
        same = await store.commit("g1", 2, "s", "m", [], None, ttl_s=60)  # the same state
        assert (same.ok, same.version, same.renumbered) == (False, 2 + gap, True)
        done = await store.commit("g1", 2 + gap, "s", "m", [], None, ttl_s=60, submission="x")
        assert done.ok and done.version == 3 + gap
        assert await store.renumbered_from("g1") is None
        again = await store.commit("g1", 2, "s", "m", [], None, ttl_s=60)  # only until a commit
        assert (again.ok, again.renumbered) == (False, False)
        claims = await store.claim_due(t0 + 10**6)
        assert claims == []  # the commit cleared the deadline
    finally:
        await store.close()


async def test_a_claim_sees_the_renumbered_timer(
    redis_url: str, redis_prefix: str, redis_client: object
) -> None:
    store = RedisStore.from_url(redis_url, prefix=redis_prefix)
    try:
        t0 = int(time.time() * 1000)
        assert await store.create("g1", "s", "m", ttl_s=60)
        assert (await store.commit("g1", 1, "s", "m", [], Deadline(t0 - 5), ttl_s=60)).ok
        await store.redis.hset(store.keys.game("g1"), "ri", "0ld0ld00")
        claims = await store.claim_due(t0)
        assert [(c.game_id, c.version) for c in claims] == [("g1", 2 + lua.EPOCH_GAP)]
    finally:
        await store.close()


async def test_commits_wait_for_a_replica_when_asked(
    redis_url: str, redis_prefix: str, redis_client: object
) -> None:
    """No replica answers the WAIT here: the commit is applied but unconfirmed, and not
    announced; a retry with its id waits again (topology tests: with a replica)."""
    from core.store.roundtrips import count_round_trips

    if int((await aioredis.Redis.from_url(redis_url).info("replication"))["connected_slaves"]):
        pytest.skip("this Redis has replicas")
    store = RedisStore.from_url(redis_url, prefix=redis_prefix, replica_wait_ms=30)
    try:
        assert await store.create("g1", "s", "m", ttl_s=60)
        heard = store.listen("g1")
        first = asyncio.ensure_future(anext(heard))
        await store.start()
        await asyncio.sleep(0.05)
        assert await store.create("g0", "s", "m", ttl_s=60)
        assert (await store.commit("g0", 1, "s", "m", [], None, ttl_s=60)).ok  # script loaded
        with count_round_trips() as counter:
            result = await store.commit("g1", 1, "s", "m", ["e"], None, ttl_s=60, submission="w")
        assert counter.count == 1  # script + WAIT in one pipeline
        assert (result.ok, result.version, result.confirmed) == (True, 2, False)
        retry = await store.commit("g1", 1, "s", "m", ["e"], None, ttl_s=60, submission="w")
        assert (retry.ok, retry.duplicate, retry.confirmed) == (True, True, False)
        assert await store.read_log("g1") == ["e"]
        await asyncio.sleep(0.1)
        assert not first.done()  # never announced unconfirmed
        first.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await first
        assert isinstance(heard, AsyncGenerator)
        await heard.aclose()
    finally:
        await store.close()
