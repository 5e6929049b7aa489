"""A fire that outlasts its claim's lease is not fired twice by the same process: the
claim that comes due again only renews the lease (so the timer process can use a short
lease, and a killed one's claims are taken over soon — issue 8)."""

from __future__ import annotations

import asyncio
import time

from core.service import GameService, ServiceConfig
from core.service.timers import Timers
from core.store import Deadline, GameStore, TimerClaim


class SlowTimers(Timers):
    calls: list[TimerClaim]

    async def fire(self, claim: TimerClaim) -> None:
        self.calls.append(claim)
        await asyncio.sleep(0.5)  # a slow computer move: five leases long


async def test_a_slow_fire_renews_its_lease_instead_of_firing_again(store: GameStore) -> None:
    now = int(time.time() * 1000)
    assert await store.create("g1", "s", "m", ttl_s=60)
    assert (await store.commit("g1", 1, "s", "m", [], Deadline(now - 1), ttl_s=60)).ok
    service = GameService(
        store, ServiceConfig(timer_lease_ms=100, timer_interval_s=0.02, timer_role="turns")
    )
    slow = SlowTimers(service.records, service.timing, service.moves)
    slow.calls = []
    stop = asyncio.Event()
    runner = asyncio.create_task(slow.run_timers(stop))
    await asyncio.sleep(0.45)  # the claim came due four times while the fire ran
    stop.set()
    await asyncio.wait_for(runner, 5)  # (it waits for the fire in progress)
    assert [c.game_id for c in slow.calls] == ["g1"]
    # the renewals kept the lease: right after the fire another process finds it held
    # (or, since this fire never commits, claimable once the renewed lease runs out)
    later = await store.claim_due(int(time.time() * 1000) + 200, lease_ms=100)
    assert [c.game_id for c in later] == ["g1"]
