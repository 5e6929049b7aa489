"""One contract for both stores: every test runs on MemoryStore and on RedisStore (real Redis)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncGenerator

import pytest

from core.store import KEEP, Change, Deadline, GameStore
from core.store.base import SUBMISSIONS

TTL = 60


def now_ms() -> int:
    return int(time.time() * 1000)


async def make(store: GameStore, game_id: str = "g1", version: int = 1) -> None:
    assert await store.create(game_id, '{"s":0}', '{"m":0}', ttl_s=TTL, version=version)


async def test_create_load_roundtrip(store: GameStore) -> None:
    assert isinstance(store, GameStore)
    assert await store.load("nope") is None
    assert await store.version("nope") is None
    await make(store)
    assert not await store.create("g1", "x", "y", ttl_s=TTL)
    assert await store.create("g1", '{"s":0}', '{"m":0}', ttl_s=TTL)  # a retry of the first
    record = await store.load("g1")
    assert record is not None
    assert (record.version, record.state, record.meta, record.deadline_ms) == (
        1,
        '{"s":0}',
        '{"m":0}',
        None,
    )


async def test_commit_compares_versions(store: GameStore) -> None:
    await make(store)
    ok = await store.commit("g1", 1, "s2", "m2", ['{"n":1}'], None, ttl_s=TTL)
    assert ok.ok and ok.version == 2
    stale = await store.commit("g1", 1, "s3", "m3", ['{"n":2}'], None, ttl_s=TTL)
    assert not stale.ok and stale.version == 2
    assert await store.version("g1") == 2
    record = await store.load("g1")
    assert record is not None and (record.version, record.state, record.meta) == (2, "s2", "m2")
    assert await store.read_log("g1") == ['{"n":1}']
    missing = await store.commit("zz", 1, "s", "m", [], None, ttl_s=TTL)
    assert not missing.ok and missing.version is None


async def test_log_appends_in_order(store: GameStore) -> None:
    await make(store)
    version = 1
    for i in range(5):
        entries = [json.dumps({"i": i, "k": k}) for k in range(i % 3)]
        result = await store.commit("g1", version, f"s{i}", "m", entries, None, ttl_s=TTL)
        assert result.ok
        version = result.version or 0
    logged = [json.loads(e) for e in await store.read_log("g1")]
    assert [(e["i"], e["k"]) for e in logged] == [(1, 0), (2, 0), (2, 1), (4, 0)]
    assert len(await store.read_log("g1", 1, 2)) == 2
    assert await store.read_log("g1", -1) == [json.dumps({"i": 4, "k": 0})]


async def test_deadline_set_keep_clear_and_claim(store: GameStore) -> None:
    await make(store)
    t0 = now_ms()
    r = await store.commit("g1", 1, "s", "m", [], Deadline(t0 + 1000, t0 + 500), ttl_s=TTL)
    assert r.ok
    rec = await store.load("g1")
    assert rec is not None and rec.deadline_ms == t0 + 1000
    assert await store.claim_due(t0) == []
    assert await store.next_due_ms() == t0 + 500
    # a commit that does not change who acts keeps the deadline, re-armed at its version
    r = await store.commit("g1", 2, "s", "m", [], KEEP, ttl_s=TTL)
    assert r.ok and r.version == 3
    rec = await store.load("g1")
    assert rec is not None and rec.deadline_ms == t0 + 1000
    warn = await store.claim_due(t0 + 600)
    assert [(c.game_id, c.version, c.kind) for c in warn] == [("g1", 3, "w")]
    assert await store.claim_due(t0 + 700) == []  # a warning is handed out once
    claims = await store.claim_due(t0 + 1000, lease_ms=2000)
    assert [(c.game_id, c.version, c.kind) for c in claims] == [("g1", 3, "t")]
    # leased: nobody else gets it until the lease runs out, then it is due again
    assert await store.claim_due(t0 + 2999, lease_ms=2000) == []
    again = await store.claim_due(t0 + 3000, lease_ms=2000)
    assert [(c.version, c.kind) for c in again] == [(3, "t")]
    await store.timer_done(again[0])
    assert await store.claim_due(t0 + 10_000) == []
    # KEEP after the warning fired does not warn again; clearing removes the deadline
    r = await store.commit("g1", 3, "s", "m", [], Deadline(t0 + 5000, t0 + 4000), ttl_s=TTL)
    assert (await store.claim_due(t0 + 4000))[0].kind == "w"
    r = await store.commit("g1", 4, "s", "m", [], KEEP, ttl_s=TTL)
    due = await store.claim_due(t0 + 5000)
    assert [(c.version, c.kind) for c in due] == [(5, "t")]
    r = await store.commit("g1", 5, "s", "m", [], None, ttl_s=TTL)
    assert r.ok
    rec = await store.load("g1")
    assert rec is not None and rec.deadline_ms is None
    assert await store.claim_due(t0 + 100_000) == []
    assert await store.next_due_ms() is None


async def test_claim_respects_limit_and_order(store: GameStore) -> None:
    t0 = now_ms()
    for i in range(5):
        await make(store, f"g{i}")
        await store.commit(f"g{i}", 1, "s", "m", [], Deadline(t0 - i), ttl_s=TTL)
    first = await store.claim_due(t0, limit=2)
    assert [c.game_id for c in first] == ["g4", "g3"]
    rest = await store.claim_due(t0, limit=10)
    assert sorted(c.game_id for c in rest) == ["g0", "g1", "g2"]


async def test_ttl_refreshed_by_commit_and_expires(store: GameStore) -> None:
    assert await store.create("short", "s", "m", ttl_s=0.3)
    r = await store.commit("short", 1, "s", "m", ["e"], None, ttl_s=0.5)
    assert r.ok
    await store.set_adapter("short", "board", "42")
    await asyncio.sleep(0.35)
    assert await store.load("short") is not None  # refreshed to 0.5 s
    await asyncio.sleep(0.3)
    assert await store.load("short") is None
    assert await store.read_log("short") == []
    assert await store.get_adapter("short") == {}


async def test_adapter_data_and_presence(store: GameStore) -> None:
    await make(store)
    await store.set_adapter("g1", "board_message", "1234")
    await store.set_adapter("g1", "board_chat", "-100")
    assert await store.get_adapter("g1") == {"board_message": "1234", "board_chat": "-100"}
    await store.set_adapter("nope", "x", "y")
    assert await store.get_adapter("nope") == {}
    assert await store.get_adapter_value("g1", "board_chat") == "-100"
    assert await store.get_adapter_value("g1", "missing") is None
    assert await store.get_adapter_value("nope", "x") is None
    await store.touch("g1", "7", 1000)
    await store.touch("nope", "7", 1000)
    rec = await store.load("g1")
    assert rec is not None and rec.presence == {"7": 1000}
    assert await store.load("nope") is None


async def test_chat_and_user_indexes(store: GameStore) -> None:
    assert await store.bind_chat(-100, None, "g1")
    assert not await store.bind_chat(-100, None, "g2")
    assert await store.bind_chat(-100, 5, "g2")  # forum topics are separate lobbies
    assert await store.chat_game(-100, None) == "g1"
    assert await store.chat_game(-100, 5) == "g2"
    assert not await store.unbind_chat(-100, None, "g2")  # only the bound game may unbind
    assert await store.unbind_chat(-100, None, "g1")
    assert await store.chat_game(-100, None) is None
    await store.add_user_game(7, "g1", 1)
    await store.add_user_game(7, "g2", 2)
    assert await store.user_games(7) == ["g2", "g1"]
    await store.remove_user_game(7, "g2")
    assert await store.user_games(7) == ["g1"]
    assert await store.user_games(8) == []


async def test_claim_once(store: GameStore) -> None:
    assert await store.claim_once("upd:1", 60)
    assert not await store.claim_once("upd:1", 60)
    assert await store.claim_once("upd:2", 60)
    assert await store.claim_once("short", 0.2)
    await asyncio.sleep(0.3)
    assert await store.claim_once("short", 0.2)


async def test_listen_fans_out_versions(store: GameStore) -> None:
    await make(store)
    await make(store, "g2")
    one = store.listen("g1")
    every = store.listen_all()
    first = asyncio.ensure_future(anext(one))
    all_first = asyncio.ensure_future(anext(every))
    await asyncio.sleep(0.1)  # both registered and subscribed
    await store.commit("g2", 1, "s", "m", [], None, ttl_s=TTL)
    await store.commit("g1", 1, "s", "m", [], None, ttl_s=TTL)
    assert await asyncio.wait_for(first, 2) == 2
    assert await asyncio.wait_for(all_first, 2) == Change("g2", 2)
    assert await asyncio.wait_for(anext(every), 2) == Change("g1", 2)
    assert isinstance(one, AsyncGenerator) and isinstance(every, AsyncGenerator)
    await one.aclose()
    await every.aclose()


async def test_archive_stats_and_user_deletion(store: GameStore) -> None:
    await make(store)
    await store.commit("g1", 1, "s", "m", ['{"seat":0}', '{"seat":1}'], None, ttl_s=TTL)
    record = {
        "game_id": "g1",
        "chat_id": -100,
        "seats": [
            {"seat": 0, "user_id": 7, "name": "Ann"},
            {"seat": 1, "user_id": 8, "name": "Bo"},
        ],
        "final": [3, 5],
    }
    t0 = now_ms()
    await store.archive("g1", record, user_ids=[7, 8], chat_id=-100, finished_ms=t0)
    assert await store.archived("g1") == record
    assert await store.archived_log("g1") == ['{"seat":0}', '{"seat":1}']
    await store.delete_game("g1")
    assert await store.load("g1") is None
    assert await store.archived_log("g1") == ['{"seat":0}', '{"seat":1}']  # outlives the game
    assert [r["game_id"] for r in await store.archived_for_user(7)] == ["g1"]
    assert [r["game_id"] for r in await store.archived_for_chat(-100)] == ["g1"]
    assert await store.delete_user_data(7) == 1
    assert await store.archived_for_user(7) == []
    kept = await store.archived("g1")
    assert kept is not None
    assert kept["seats"][0] == {"seat": 0, "user_id": None, "name": None}
    assert kept["seats"][1]["user_id"] == 8
    assert await store.prune_archive(t0 + 1000) == 0  # well within retention
    assert await store.prune_archive(t0 + 91 * 24 * 3600 * 1000) == 1
    assert await store.archived("g1") is None
    assert await store.archived_for_user(8) == []
    assert await store.archived_for_chat(-100) == []


async def test_concurrent_commits_one_winner(store: GameStore) -> None:
    await make(store)
    results = await asyncio.gather(
        *(store.commit("g1", 1, f"s{i}", "m", [f"e{i}"], None, ttl_s=TTL) for i in range(10))
    )
    assert sum(r.ok for r in results) == 1
    assert all(r.version == 2 for r in results)
    assert len(await store.read_log("g1")) == 1
    assert await store.ping()


async def test_commit_records_presence(store: GameStore) -> None:
    await make(store)
    result = await store.commit("g1", 1, "s", "m", [], None, ttl_s=TTL, presence=("7", 1234))
    assert result.ok
    record = await store.load("g1")
    assert record is not None and record.presence == {"7": 1234}
    await store.commit("g1", 2, "s", "m", [], None, ttl_s=TTL)
    record = await store.load("g1")
    assert record is not None and record.presence == {"7": 1234}


async def test_keep_after_a_claim_makes_the_deadline_due_again_at_once(store: GameStore) -> None:
    """A commit that keeps a deadline while a worker fires it (that claim is now stale):
    the deadline is claimable at the new version without waiting for the old lease."""
    await make(store)
    t0 = now_ms()
    await store.commit("g1", 1, "s", "m", [], Deadline(t0 - 10), ttl_s=TTL)
    claims = await store.claim_due(t0, lease_ms=60_000)
    assert [(c.version, c.kind) for c in claims] == [(2, "t")]
    assert (await store.commit("g1", 2, "s", "m", [], KEEP, ttl_s=TTL)).ok
    again = await store.claim_due(now_ms(), lease_ms=60_000)
    assert [(c.version, c.kind) for c in again] == [(3, "t")]


async def test_preferences_persist_and_go_with_the_user(store: GameStore) -> None:
    assert await store.get_pref("u:7") is None
    await store.set_pref("u:7", "zh_Hant")
    await store.set_pref("lc:7", "zh-hk")
    await store.set_pref("u:8", "en")
    await store.set_pref("c:-1001", "zh_Hans")  # a group's: nobody's user data
    await store.set_pref("u:7", "en")  # overwritten, not appended
    assert await store.get_pref("u:7") == "en"
    assert await store.get_pref("lc:7") == "zh-hk"
    assert await store.get_pref("c:-1001") == "zh_Hans"
    await store.delete_user_data(7)
    assert await store.get_pref("u:7") is None
    assert await store.get_pref("lc:7") is None
    assert await store.get_pref("u:8") == "en"
    assert await store.get_pref("c:-1001") == "zh_Hans"


async def test_create_arms_a_deadline_at_the_created_version(store: GameStore) -> None:
    t0 = now_ms()
    assert await store.create("lob", "", "m", ttl_s=TTL, deadline=Deadline(t0 + 1000))
    assert not await store.create("lob", "", "m", ttl_s=TTL, deadline=Deadline(t0))
    rec = await store.load("lob")
    assert rec is not None and rec.deadline_ms == t0 + 1000
    assert await store.claim_due(t0) == []  # the loser's hint did not make it due early
    claims = await store.claim_due(t0 + 1000)
    assert [(c.game_id, c.version, c.kind) for c in claims] == [("lob", 1, "t")]
    # a commit replaces it like any deadline
    r = await store.commit("lob", 1, "", "m", [], None, ttl_s=TTL)
    assert r.ok
    assert await store.claim_due(t0 + 100_000) == []


async def test_a_retried_commit_finds_its_own_write(store: GameStore) -> None:
    """A commit sent again with its submission id (the first reply was lost) answers as the
    first did, and is applied once; the id is remembered for the last SUBMISSIONS commits."""
    await make(store)
    first = await store.commit("g1", 1, "s2", "m2", ['{"n":1}'], None, ttl_s=TTL, submission="a-1")
    assert (first.ok, first.version, first.duplicate, first.confirmed) == (True, 2, False, True)
    again = await store.commit("g1", 1, "s2", "m2", ['{"n":1}'], None, ttl_s=TTL, submission="a-1")
    assert (again.ok, again.version, again.duplicate) == (True, 2, True)
    assert await store.read_log("g1") == ['{"n":1}']
    assert await store.submitted("g1", "a-1") == 2
    # another submission at the same version is a conflict like any other
    other = await store.commit("g1", 1, "s3", "m3", [], None, ttl_s=TTL, submission="b-1")
    assert (other.ok, other.version, other.duplicate) == (False, 2, False)
    assert await store.submitted("g1", "b-1") is None
    version = 2
    for i in range(SUBMISSIONS - 1):
        result = await store.commit(
            "g1", version, "s", "m", [], None, ttl_s=TTL, submission=f"c{i}"
        )
        assert result.ok
        version = result.version or 0
    late = await store.commit("g1", 1, "s2", "m2", ['{"n":1}'], None, ttl_s=TTL, submission="a-1")
    assert late.ok and late.duplicate and late.version == 2  # still among the last ones
    assert (await store.commit("g1", version, "s", "m", [], None, ttl_s=TTL)).ok  # no id
    assert (await store.commit("g1", version + 1, "s", "m", [], None, ttl_s=TTL, submission="d")).ok
    assert await store.submitted("g1", "a-1") is None  # forgotten: SUBMISSIONS newer ones
    assert await store.submitted("g1", "d") == version + 2
    assert await store.submitted("nope", "d") is None
    for bad in ("", "a b", "x:1", "é", "x" * 33):
        with pytest.raises(ValueError):
            await store.commit("g1", 1, "s", "m", [], None, ttl_s=TTL, submission=bad)


async def test_send_budget_is_shared_and_puts_urgent_sends_first(store: GameStore) -> None:
    from core.store import SendBudget

    budget = SendBudget(rate=4.0, burst=4, chat_capacity=3, chat_per_seconds=3.0, reserve=0.5)
    # a board picture (bulk) leaves half of each bucket to urgent sends
    assert (await store.take_send_token(-7, budget, bulk=True)).allowed
    assert (await store.take_send_token(-7, budget, bulk=True)).allowed
    assert not (await store.take_send_token(-7, budget, bulk=True)).allowed  # 1 left
    assert (await store.take_send_token(-7, budget)).allowed  # a lobby change still goes
    refused = await store.take_send_token(-7, budget)
    assert not refused.allowed and 0 < refused.wait_s <= 1.0  # the chat's bucket is empty
    # the bot-wide bucket (4) was spent by the three group sends: one private send left
    assert (await store.take_send_token(None, budget)).allowed
    assert not (await store.take_send_token(None, budget)).allowed
    await asyncio.sleep(0.3)
    assert (await store.take_send_token(None, budget)).allowed  # refilled at 4/s


async def test_send_hold_stops_every_send_until_it_expires(store: GameStore) -> None:
    from core.store import SendBudget

    budget = SendBudget(rate=100.0, burst=100)
    await store.hold_sends(-9, 0.3)
    held = await store.take_send_token(-9, budget)
    assert not held.allowed and 0.1 < held.wait_s <= 0.3
    assert (await store.take_send_token(-10, budget)).allowed  # another chat goes on
    await store.hold_sends(None, 0.2)
    await store.hold_sends(None, 0.05)  # a shorter hold does not shorten it
    assert not (await store.take_send_token(None, budget)).allowed
    assert not (await store.take_send_token(-10, budget)).allowed
    await asyncio.sleep(0.35)
    assert (await store.take_send_token(-9, budget)).allowed
