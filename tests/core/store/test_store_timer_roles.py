"""Timer claims by role (both stores): the dedicated timer process takes turn deadlines
only, a worker's fallback takes a turn only once it is overdue by more than its margin and
nobody's lease holds it, and a failed fire gives its lease back (issue 8: no stuck turns)."""

from __future__ import annotations

import time

from core.store import Deadline, GameStore, TimerClaim

TTL = 60


def now_ms() -> int:
    return int(time.time() * 1000)


async def armed(store: GameStore, game_id: str, at: int, warn: int | None = None) -> None:
    assert await store.create(game_id, "s", "m", ttl_s=TTL)
    result = await store.commit(game_id, 1, "s", "m", [], Deadline(at, warn), ttl_s=TTL)
    assert result.ok


async def test_turns_only_leaves_warnings_to_the_workers(store: GameStore) -> None:
    t0 = now_ms()
    await armed(store, "g1", t0 + 1000, warn=t0 + 500)
    assert await store.claim_due(t0 + 600, kinds="t") == []  # the warning is not ours
    [warn] = await store.claim_due(t0 + 600, kinds="w")
    assert warn.kind == "w"
    [turn] = await store.claim_due(t0 + 1000, kinds="t")
    assert (turn.kind, turn.version) == ("t", 2)
    assert await store.claim_due(t0 + 1000, kinds="w") == []


async def test_fallback_takes_a_turn_only_when_overdue_and_free(store: GameStore) -> None:
    t0 = now_ms()
    await armed(store, "g1", t0)
    # due but not yet overdue by the margin: left to the timer process
    assert await store.claim_due(t0 + 999, overdue_ms=1000, lease_ms=500) == []
    # the timer process claims it (and, say, dies mid-fire): its lease holds it
    [primary] = await store.claim_due(t0 + 100, kinds="t", lease_ms=2000)
    assert await store.claim_due(t0 + 1500, overdue_ms=1000, lease_ms=500) == []
    # the lease ran out: the fallback takes it
    [fallback] = await store.claim_due(t0 + 2101, overdue_ms=1000, lease_ms=500)
    assert (fallback.game_id, fallback.version) == (primary.game_id, primary.version)
    # and now the fallback's lease holds it against everyone
    assert await store.claim_due(t0 + 2200, kinds="t") == []
    assert await store.claim_due(t0 + 2200, overdue_ms=1000) == []


async def test_fallback_takes_a_never_claimed_deadline(store: GameStore) -> None:
    t0 = now_ms()
    await armed(store, "g1", t0)
    await armed(store, "g2", t0 + 5000)
    claims = await store.claim_due(t0 + 1001, overdue_ms=1000, lease_ms=60_000)
    assert [c.game_id for c in claims] == ["g1"]
    # the hint was only read by the fallback: the primary still finds g2 when it is due
    assert [c.game_id for c in await store.claim_due(t0 + 5000, kinds="t")] == ["g2"]


async def test_a_released_claim_is_claimable_at_once(store: GameStore) -> None:
    t0 = now_ms() - 10
    await armed(store, "g1", t0)
    [claim] = await store.claim_due(now_ms(), lease_ms=60_000)
    assert await store.claim_due(now_ms(), lease_ms=60_000) == []
    await store.timer_release(claim)
    [again] = await store.claim_due(now_ms(), lease_ms=50_000)  # another lease end
    assert (again.game_id, again.version) == ("g1", 2)
    # releasing a claim whose lease is not the holder's any more does nothing
    await store.timer_release(TimerClaim("g1", 2, "t", claim.lease_until))
    assert await store.claim_due(now_ms(), lease_ms=60_000) == []
