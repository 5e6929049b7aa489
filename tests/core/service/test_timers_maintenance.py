"""Only the process that fires turns repairs the timer index and prunes the archive: an API
worker in the ``fallback`` role never pays a sweep batch's stall between requests (issue 8,
p99)."""

from __future__ import annotations

import asyncio
from typing import Literal

import pytest

from core.service import GameService, ServiceConfig
from core.store import GameStore


@pytest.mark.parametrize(("role", "sweeps"), [("fallback", False), ("turns", True), ("all", True)])
async def test_only_the_timer_process_sweeps(
    store: GameStore,
    monkeypatch: pytest.MonkeyPatch,
    role: Literal["all", "turns", "fallback"],
    sweeps: bool,
) -> None:
    calls: list[str] = []

    async def sweep() -> int:
        calls.append("sweep")
        return 0

    async def prune(now_ms: int) -> int:
        calls.append("prune")
        return 0

    monkeypatch.setattr(store, "sweep_timers", sweep)
    monkeypatch.setattr(store, "prune_archive", prune)
    service = GameService(store, ServiceConfig(timer_interval_s=0.01, timer_role=role))
    stop = asyncio.Event()
    runner = asyncio.create_task(service.run_timers(stop))
    await asyncio.sleep(0.1)  # several polls; the first one is due for both chores
    stop.set()
    await asyncio.wait_for(runner, 5)
    assert sorted(set(calls)) == (["prune", "sweep"] if sweeps else [])
