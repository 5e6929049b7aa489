"""Redis Cluster readiness: every script call stays in one hash slot, the timer index is
only a hint next to the game's own deadline, and the sweeper repairs a lost hint."""

from __future__ import annotations

import asyncio
import re
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.service import GameService, ServiceConfig, UserRef
from core.store import Deadline, RedisStore, SendBudget, lua
from core.store.keys import timer_member
from tests.core.store.store_commands import CommandLog

TTL = 60
SCRIPTS = {
    name: text
    for name, text in vars(lua).items()
    if name.isupper() and isinstance(text, str) and "redis.call" in text
}
# commands whose first argument is not a key
KEYLESS = {"PUBLISH", "TIME", "INFO"}  # INFO replication: the node's own epoch (lua.py)


def now_ms() -> int:
    return int(time.time() * 1000)


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_scripts_name_keys_only_through_keys(name: str) -> None:
    """Statically: every key a script touches is one of its KEYS (never built from ARGV),
    so the caller's KEYS are the whole footprint the slot check below looks at."""
    calls = re.findall(r"redis\.call\('(\w+)'(?:,\s*([^,)]+))?", SCRIPTS[name])
    assert calls
    for command, first in calls:
        if command.upper() in KEYLESS:
            continue
        assert re.fullmatch(r"KEYS\[\d+\]", first.strip()), (name, command, first)


async def test_every_script_call_is_single_slot(
    redis_url: str, redis_prefix: str, redis_client: object, redis_commands: CommandLog
) -> None:
    """Run every script of the store once; the autouse recorder asserts afterwards that no
    call spans two slots and no MULTI was opened. Here: every script was really called."""
    store = RedisStore.from_url(redis_url, prefix=redis_prefix)
    try:
        t0 = now_ms()
        await store.create("g1", "s", "m", ttl_s=TTL)
        assert (await store.load("g1")) is not None
        await store.touch("g1", "1", t0)
        await store.set_adapter("g1", "board", "5")
        first = await store.commit(
            "g1", 1, "s", "m", ["x"], Deadline(t0, t0 - 1), ttl_s=TTL, submission="a1"
        )
        assert first.ok
        assert not (await store.commit("g1", 1, "s", "m", [], Deadline(t0), ttl_s=TTL)).ok
        assert await store.arm_warning("g1", t0, t0 - 1)
        assert await store.submitted("g1", "a1") == 2
        assert await store.version("g1") == 2
        assert await store.renumbered_from("g1") is None
        claims = await store.claim_due(t0 + 1000, lease_ms=1000)
        assert sorted(c.kind for c in claims) == ["t", "w"]
        await store.timer_done(next(c for c in claims if c.kind == "t"))
        await store.bind_chat(-1, None, "g1")
        await store.unbind_chat(-1, None, "g1")
        await store.take_send_token(-1, SendBudget())
        await store.hold_sends(-1, 0.01)
        await store.archive("g1", {"seats": []}, user_ids=[1, 2], chat_id=-1, finished_ms=t0)
        await store.sweep_timers()
    finally:
        await store.close()
    shas = {sha for sha, _ in redis_commands.scripts}
    called = {name for name, text in SCRIPTS.items() if _sha(store, text) in shas}
    assert called == set(SCRIPTS)
    assert redis_commands.cross_slot() == []


def _sha(store: RedisStore, text: str) -> str:
    return str(store.redis.register_script(text).sha)


async def test_lost_index_entry_is_restored_by_the_sweeper(
    redis_url: str, redis_prefix: str, redis_client: object
) -> None:
    store = RedisStore.from_url(redis_url, prefix=redis_prefix)
    try:
        t0 = now_ms()
        await store.create("g1", "s", "m", ttl_s=TTL)
        await store.commit("g1", 1, "s", "m", [], Deadline(t0 + 100, t0 + 50), ttl_s=TTL)
        timers = store.keys.timers()
        # the hints are lost behind the store's back (a failover, a crash mid-pipeline)
        await store.redis.zrem(timers, timer_member("g1", "t"), timer_member("g1", "w"))
        assert await store.claim_due(t0 + 1000) == []
        assert await _sweep_all(store) == 2
        assert await store.redis.zscore(timers, timer_member("g1", "t")) == t0 + 100
        claims = await store.claim_due(t0 + 1000)
        assert sorted((c.game_id, c.version, c.kind) for c in claims) == [
            ("g1", 2, "t"),
            ("g1", 2, "w"),
        ]
        # a leased deadline is not pulled back by the sweeper: nobody else fires it
        assert await _sweep_all(store) == 0
        assert await store.claim_due(t0 + 1000) == []
        # a hint later than the truth (a lost race) is lowered to the game's deadline
        await store.commit("g1", 2, "s", "m", [], Deadline(t0 + 200), ttl_s=TTL)
        await store.redis.zadd(timers, {timer_member("g1", "t"): t0 + 10**9})
        assert await _sweep_all(store) == 1
        assert await store.next_due_ms() == t0 + 200
    finally:
        await store.close()


async def _sweep_all(store: RedisStore) -> int:
    """Sweep calls until the SCAN cursor has gone round the whole keyspace once."""
    store.sweep_batch = 1000
    repaired = await store.sweep_timers()
    while store._sweep_cursor != 0:
        repaired += await store.sweep_timers()
    return repaired


async def test_hint_of_a_losing_commit_cannot_delay_the_winner(
    redis_url: str, redis_prefix: str, redis_client: object
) -> None:
    store = RedisStore.from_url(redis_url, prefix=redis_prefix)
    try:
        t0 = now_ms()
        await store.create("g1", "s", "m", ttl_s=TTL)
        assert (await store.commit("g1", 1, "w", "m", [], Deadline(t0 + 1000), ttl_s=TTL)).ok
        # the loser's pipeline writes its (wrong, later) hint before learning it lost
        lost = await store.commit("g1", 1, "l", "m", [], Deadline(t0 + 10**9), ttl_s=TTL)
        assert not lost.ok and lost.version == 2
        assert (await store.next_due_ms() or 0) <= t0 + 1000  # undone: "look now"
        assert await store.claim_due(t0 + 500) == []  # the record says: not yet
        assert await store.next_due_ms() == t0 + 1000  # re-scheduled to the truth
        assert [c.version for c in await store.claim_due(t0 + 1000)] == [2]
        # a losing clear does not make the winner's deadline disappear either
        assert (await store.commit("g1", 2, "w", "m", [], Deadline(t0 + 3000), ttl_s=TTL)).ok
        assert not (await store.commit("g1", 2, "l", "m", [], None, ttl_s=TTL)).ok
        assert await store.claim_due(t0 + 2000) == []
        assert [c.version for c in await store.claim_due(t0 + 3000)] == [3]
    finally:
        await store.close()


async def test_concurrent_claims_fire_once(
    redis_url: str, redis_prefix: str, redis_client: object
) -> None:
    stores = [RedisStore.from_url(redis_url, prefix=redis_prefix) for _ in range(4)]
    try:
        t0 = now_ms()
        await stores[0].create("g1", "s", "m", ttl_s=TTL)
        await stores[0].commit("g1", 1, "s", "m", [], Deadline(t0), ttl_s=TTL)
        # a duplicate hint (e.g. the sweeper racing a claim) must not hand it out twice
        results = await asyncio.gather(
            *(s.claim_due(t0 + 1, lease_ms=5000) for s in stores),
            stores[1].redis.zadd(stores[1].keys.timers(), {timer_member("g1", "t"): t0}),
            *(s.claim_due(t0 + 1, lease_ms=5000) for s in stores),
        )
        claims = [c for r in results if isinstance(r, list) for c in r]
        assert [(c.game_id, c.version) for c in claims] == [("g1", 2)]
    finally:
        for s in stores:
            await s.close()


async def test_legacy_index_members_still_fire_once(
    redis_url: str, redis_prefix: str, redis_client: object
) -> None:
    """Hints of the previous release (``<id>|<version>|t``) are understood and retired."""
    store = RedisStore.from_url(redis_url, prefix=redis_prefix)
    try:
        t0 = now_ms()
        timers = store.keys.timers()
        await store.create("g1", "s", "m", ttl_s=TTL)
        await store.commit("g1", 1, "s", "m", [], Deadline(t0), ttl_s=TTL)
        await store.redis.zadd(timers, {"g1|2|t": t0})
        claims = await store.claim_due(t0, lease_ms=100)
        assert [(c.version, c.kind) for c in claims] == [(2, "t")]
        await store.commit("g1", 2, "s", "m", [], Deadline(t0 + 5000), ttl_s=TTL)
        assert await store.claim_due(t0 + 200) == []  # the legacy hint came back: retired
        assert await store.redis.zrange(timers, 0, -1) == ["g1|t"]
    finally:
        await store.close()


async def test_service_timer_fires_after_the_sweeper_restores_its_hint(
    redis_url: str, redis_prefix: str, redis_client: object
) -> None:
    """End to end: a turn whose index entry was lost still times out, through the sweeper
    that ``run_timers`` calls."""
    store = RedisStore.from_url(redis_url, prefix=redis_prefix)
    store.sweep_batch = 100_000  # one sweep call covers this test Redis
    clock = [now_ms()]
    service = GameService(
        store,
        ServiceConfig(think_delay_s=0.0, bot_ready_delay_s=0.0, round_pause_s=0),
        clock=lambda: clock[0],
    )
    stop = asyncio.Event()
    try:
        users = [UserRef(i, f"P{i}") for i in (1, 2, 3)]
        view = await service.create_lobby(chat=None, creator=users[0], settings={"turn_time": 30})
        game_id = view["game_id"]
        for user in users[1:]:
            await service.join(game_id, user)
        await service.start(game_id, 1)
        record = await store.load(game_id)
        assert record is not None and record.deadline_ms is not None
        await store.redis.delete(store.keys.timers())
        clock[0] = record.deadline_ms + 1
        assert await service.fire_due() == 0  # lost: nothing to claim
        runner = asyncio.create_task(service.run_timers(stop))
        deadline = time.monotonic() + 20
        while (await store.version(game_id) or 0) <= record.version:
            assert time.monotonic() < deadline, "the lost timer never fired"
            await asyncio.sleep(0.05)
        stop.set()
        await asyncio.wait_for(runner, 10)
        assert [e.get("timeout") for e in await service.move_log(game_id)] == [True]
    finally:
        stop.set()
        await store.close()


def test_recorder_flags_a_cross_slot_script_call() -> None:
    """The recorder behind the autouse check does catch what the old commit script did
    (the game's keys plus the global timer index in one call)."""
    commands = CommandLog()
    commands.record(("EVALSHA", "abc", 2, "sab:{g:x}:rec", "sab:timers", "arg"))
    commands.record(("EVALSHA", "abc", 2, "sab:{g:x}:rec", "sab:{g:x}:log"))
    assert commands.cross_slot() == [("abc", ["sab:{g:x}:rec", "sab:timers"])]


async def test_junk_index_member_is_dropped(
    redis_url: str, redis_prefix: str, redis_client: object
) -> None:
    store = RedisStore.from_url(redis_url, prefix=redis_prefix)
    try:
        t0 = now_ms()
        await store.create("g1", "s", "m", ttl_s=TTL)
        await store.commit("g1", 1, "s", "m", [], Deadline(t0), ttl_s=TTL)
        await store.redis.zadd(store.keys.timers(), {"bad id!|t": t0 - 1})
        assert [c.game_id for c in await store.claim_due(t0)] == ["g1"]
        assert await store.redis.zscore(store.keys.timers(), "bad id!|t") is None
    finally:
        await store.close()


def test_recorder_flags_a_cross_slot_multi_key_command() -> None:
    commands = CommandLog()
    commands.record(("DEL", "sab:arch:user:1", "sab:user:1:games"))
    commands.record(("DEL", "sab:{g:x}:rec", "sab:{g:x}:log", "sab:{g:x}:ad"))
    assert commands.cross_slot() == [("DEL", ["sab:arch:user:1", "sab:user:1:games"])]


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[str]:
    """A redis-server of our own: SCRIPT FLUSH must not disturb the shared one."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [
            "redis-server",
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(tmp_path),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        end = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                break
            except OSError:
                assert time.monotonic() < end and proc.poll() is None, "redis-server did not start"
                time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(10)


async def test_pipelined_scripts_reload_after_redis_forgot_them(private_redis: str) -> None:
    """Scripts in pipelines are bare EVALSHA (no SCRIPT EXISTS trip): after a restart or a
    SCRIPT FLUSH the store loads them again and runs the pipeline once more."""
    store = RedisStore.from_url(private_redis, prefix="t:")
    try:
        t0 = now_ms()
        await store.create("g1", "s", "m", ttl_s=TTL)
        assert (await store.commit("g1", 1, "s", "m", ["a"], Deadline(t0), ttl_s=TTL)).ok
        await store.redis.script_flush()
        assert (await store.commit("g1", 2, "s", "m", ["b"], Deadline(t0), ttl_s=TTL)).ok
        assert await store.read_log("g1") == ["a", "b"]  # ran once, not twice
        await store.redis.script_flush()
        claims = await store.claim_due(t0 + 1)
        assert [(c.game_id, c.version) for c in claims] == [("g1", 3)]
        await store.redis.script_flush()
        await store.timer_done(claims[0])
        record = await store.load("g1")
        assert record is not None and record.deadline_ms is None
    finally:
        await store.close()
