"""``hard`` computer decisions run in a process pool (issue 21): the same move as inline,
an event loop that keeps ticking meanwhile, a lease no second worker can take while the
search runs, and a game of ``hard`` seats played to the end through it."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from core import engine
from core.service import GameService, UserRef
from core.service.agents import choose, move_seed
from core.service.ai_pool import AiPool
from core.store import GameStore, MemoryStore
from tests.core.service.conftest import FAST

ANN, BO = UserRef(1, "Ann"), UserRef(2, "Bo")
POOLED = dataclasses.replace(FAST, ai_pool_workers=1)


@pytest.fixture
async def memory() -> AsyncIterator[GameStore]:
    store = MemoryStore()
    yield store
    await store.close()


async def hard_table(service: GameService, seats: int = 5) -> str:
    """A started one-round table of ``hard`` computers and Ann (Bo left: his is taken)."""
    lobby = await service.create_lobby(
        chat=None, creator=ANN, seats=seats, computers=seats - 2, level="hard", autostart=False
    )
    game_id = str(lobby["game_id"])
    await service.join(game_id, BO)
    await service.configure(game_id, ANN.user_id, rounds=1)
    await service.start(game_id, ANN.user_id)
    await service.leave(game_id, BO.user_id)
    return game_id


async def to_computer_turn(service: GameService, game_id: str) -> None:
    """Ann plays until a computer seat is to move."""
    while (mine := await service.view(game_id, ANN.user_id))["legal_moves"]:
        await service.submit(game_id, ANN.user_id, mine["legal_moves"][0], mine["version"])


async def step(service: GameService, game_id: str) -> None:
    """Ann plays her first legal move when it is hers; the computer's are fired."""
    mine = await service.view(game_id, ANN.user_id)
    if mine["legal_moves"]:
        await service.submit(game_id, ANN.user_id, mine["legal_moves"][0], mine["version"])
    await service.fire_due()


async def actor_view(service: GameService, game_id: str) -> tuple[dict[str, Any], int]:
    loaded = await service.records.load(game_id)
    assert loaded.state is not None
    seat = engine.actor(loaded.state)
    assert seat is not None
    return engine.view_for(loaded.state, seat), move_seed(game_id, loaded.version)


async def test_the_pool_plays_the_inline_move(memory: GameStore) -> None:
    service = GameService(memory, POOLED)
    game_id = await hard_table(service)
    view, seed = await actor_view(service, game_id)
    pool = AiPool(1)
    try:
        pooled = await pool.choose(view, level="hard", seed=seed)
        again = await pool.choose(view, level="hard", seed=seed)
    finally:
        pool.close()
    assert pooled == again == choose(view, level="hard", seed=seed)
    assert pooled in view["legal_moves"]


async def test_a_pool_whose_process_died_is_replaced(memory: GameStore) -> None:
    service = GameService(memory, POOLED)
    view, seed = await actor_view(service, await hard_table(service))
    pool = AiPool(1)
    try:
        first = await pool.choose(view, level="hard", seed=seed)
        executor = pool._pool()
        for process in list(executor._processes.values()):
            process.kill()
        await asyncio.to_thread(process.join)
        assert await pool.choose(view, level="hard", seed=seed) == first  # (in a thread)
        assert pool._executor is None
        assert await pool.choose(view, level="hard", seed=seed) == first  # a new pool
        assert pool._executor is not None and pool._executor is not executor
    finally:
        pool.close()


async def ticks_while(work: Callable[[], Any]) -> tuple[float, float]:
    """(the longest gap between 2 ms ticks of the loop, the work's wall time) in seconds."""
    gaps: list[float] = []
    done = asyncio.Event()

    async def tick() -> None:
        last = time.perf_counter()
        while not done.is_set():
            await asyncio.sleep(0.002)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    ticker = asyncio.create_task(tick())
    await asyncio.sleep(0.01)
    start = time.perf_counter()
    await work()
    took = time.perf_counter() - start
    done.set()
    await ticker
    return max(gaps), took


async def test_a_hard_move_does_not_stall_the_event_loop(memory: GameStore) -> None:
    service = GameService(memory, POOLED)
    game_id = await hard_table(service)
    try:
        await step(service, game_id)  # the pool's cold start, outside the measure
        version = (await service.records.load(game_id)).version

        async def six_moves() -> None:
            for _ in range(6):
                await step(service, game_id)

        stall, took = await ticks_while(six_moves)
    finally:
        service.timers.ai_pool.close()
    assert (await service.records.load(game_id)).version >= version + 6
    assert took > 0.2  # six searches of ~120 ms of CPU each...
    assert stall < 0.08, stall  # ...while the loop kept ticking


async def test_the_lease_outlasts_the_search(memory: GameStore) -> None:
    """Two workers fire the same due computer turn: the search runs once, though it lasts
    longer than the configured lease, because the pool's lease covers it."""
    calls: list[int] = []

    def slow(view: dict[str, Any], *, level: str, seed: int) -> dict[str, object]:
        calls.append(threading.get_ident())
        time.sleep(0.5)  # a slow search, five configured leases long
        return dict(view["legal_moves"][0])

    config = dataclasses.replace(POOLED, timer_lease_ms=100)
    first = GameService(memory, config, ai=slow)
    second = GameService(memory, config, ai=slow)
    game_id = await hard_table(first)
    await to_computer_turn(first, game_id)
    version = (await first.records.load(game_id)).version
    running = asyncio.create_task(first.fire_due())
    for _ in range(2):  # past the configured lease, before the search ends
        await asyncio.sleep(0.15)
        assert await second.fire_due() == 0
    assert await running == 1
    assert len(calls) == 1
    assert (await first.records.load(game_id)).version == version + 1


async def test_without_the_pool_a_short_lease_is_taken_over(memory: GameStore) -> None:
    """The contrast: inline, the configured lease alone runs out mid-search."""
    calls: list[int] = []

    def slow(view: dict[str, Any], *, level: str, seed: int) -> dict[str, object]:
        calls.append(1)
        time.sleep(0.3)
        return dict(view["legal_moves"][0])

    config = dataclasses.replace(FAST, timer_lease_ms=100)
    first = GameService(memory, config, ai=slow)
    second = GameService(memory, config, ai=slow)
    await to_computer_turn(first, await hard_table(first))
    running = asyncio.create_task(first.fire_due())
    await asyncio.sleep(0.2)
    assert await second.fire_due() == 1
    await running
    assert len(calls) == 2


async def test_a_game_of_hard_seats_plays_to_the_end_through_the_pool(
    memory: GameStore,
) -> None:
    service = GameService(memory, POOLED)
    game_id = await hard_table(service, seats=4)
    try:
        for _ in range(400):
            if (await service.view(game_id, None))["status"] == "finished":
                break
            await step(service, game_id)
        else:
            raise AssertionError("the game did not finish")
    finally:
        service.timers.ai_pool.close()
    assert service.timers.ai_pool.workers == 1
