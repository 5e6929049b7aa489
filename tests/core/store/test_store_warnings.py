"""A turn warned more than once: ``arm_warning`` on both stores (the contract of
``GameStore``): armed only for the deadline it was meant for, claimed once like the
commit's own warning, gone with its turn, repaired by the sweeper."""

from __future__ import annotations

import time

from core.store import KEEP, Deadline, GameStore

TTL = 60


def now_ms() -> int:
    return int(time.time() * 1000)


async def armed_game(store: GameStore, t0: int) -> None:
    assert await store.create("g1", "s", "m", ttl_s=TTL)
    deadline = Deadline(t0 + 90_000, t0 + 60_000)
    result = await store.commit("g1", 1, "s", "m", [], deadline, ttl_s=TTL)
    assert result.ok


async def test_a_second_warning_is_claimed_once_before_the_same_deadline(store: GameStore) -> None:
    t0 = now_ms()
    await armed_game(store, t0)
    first = await store.claim_due(t0 + 60_000)
    assert [(c.game_id, c.version, c.kind) for c in first] == [("g1", 2, "w")]
    assert await store.arm_warning("g1", t0 + 90_000, t0 + 80_000)
    assert await store.claim_due(t0 + 79_000) == []
    assert await store.next_due_ms() == t0 + 80_000
    second = await store.claim_due(t0 + 80_000)
    assert [(c.version, c.kind) for c in second] == [(2, "w")]
    assert await store.claim_due(t0 + 85_000) == []  # once
    turn = await store.claim_due(t0 + 90_000)
    assert [(c.version, c.kind) for c in turn] == [(2, "t")]


async def test_a_warning_for_another_deadline_is_refused(store: GameStore) -> None:
    t0 = now_ms()
    assert not await store.arm_warning("nope", t0 + 1000, t0)  # no such game
    await armed_game(store, t0)
    assert not await store.arm_warning("g1", t0 + 91_000, t0 + 80_000)  # not this turn's
    # the next turn armed its own deadline: the old turn's warning is not armed
    assert (await store.commit("g1", 2, "s", "m", [], Deadline(t0 + 200_000), ttl_s=TTL)).ok
    assert not await store.arm_warning("g1", t0 + 90_000, t0 + 80_000)
    assert [c.kind for c in await store.claim_due(t0 + 150_000)] == []
    # no deadline at all (a paused game): nothing to warn about
    assert (await store.commit("g1", 3, "s", "m", [], None, ttl_s=TTL)).ok
    assert not await store.arm_warning("g1", t0 + 200_000, t0 + 190_000)
    assert await store.claim_due(t0 + 300_000) == []


async def test_a_kept_deadline_keeps_its_armed_warning(store: GameStore) -> None:
    t0 = now_ms()
    await armed_game(store, t0)
    await store.claim_due(t0 + 60_000)
    assert await store.arm_warning("g1", t0 + 90_000, t0 + 80_000)
    assert (await store.commit("g1", 2, "s", "m", [], KEEP, ttl_s=TTL)).ok  # same turn
    claims = await store.claim_due(t0 + 80_000)
    assert [(c.version, c.kind) for c in claims] == [(3, "w")]


async def test_the_sweeper_restores_a_lost_warning_hint(store: GameStore) -> None:
    t0 = now_ms()
    await armed_game(store, t0)
    await store.claim_due(t0 + 60_000)
    assert await store.arm_warning("g1", t0 + 90_000, t0 + 80_000)
    redis = getattr(store, "redis", None)
    if redis is not None:  # lose the hint, as a crash between the two halves could
        await redis.zrem(store.keys.timers(), "g1|w")  # type: ignore[attr-defined]
    for _ in range(5):
        await store.sweep_timers()
    claims = await store.claim_due(t0 + 80_000)
    assert [(c.version, c.kind) for c in claims] == [(2, "w")]
