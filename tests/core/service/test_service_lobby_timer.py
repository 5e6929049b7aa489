"""The lobby's timer lives in the store like a turn deadline (principle 5): the auto-start
countdown and the idle expiry fire from whichever worker claims them, even when the worker
that created the lobby is gone; expiry is a commit every worker hears."""

from __future__ import annotations

import asyncio

import pytest

from core.service import ChatKey, GameService, ServiceConfig, ServiceError, UserRef
from core.store import GameStore, RedisStore
from tests.core.service.service_clock import Clock

ANN, BO, CY = (
    UserRef(i, n, lang) for i, n, lang in [(1, "Ann", "en"), (2, "Bo", "zh-hant"), (3, "Cy", None)]
)
CHAT = ChatKey(-300)
CONFIG = ServiceConfig(think_delay_s=0.0, bot_ready_delay_s=0.0, round_pause_s=0, lobby_ttl_s=600)


async def test_countdown_runs_with_enough_players_and_starts_the_game(
    store: GameStore, clock: Clock
) -> None:
    service = GameService(store, CONFIG, clock=clock)
    view = await service.create_lobby(chat=CHAT, creator=ANN, settings={"countdown": 30})
    game_id = view["game_id"]
    assert view["autostart_at"] is None and view["settings"]["countdown"] == 30
    await service.join(game_id, BO)
    view = await service.join(game_id, CY)  # three: classic can start
    assert view["autostart_at"] is not None
    record = await store.load(game_id)
    assert record is not None and record.deadline_ms == clock.ms + 30_000
    # someone leaves below the minimum: the countdown stops; back to three: a new one
    view = await service.leave(game_id, 3)
    assert view["autostart_at"] is None
    clock.advance(10)
    view = await service.join(game_id, CY)
    record = await store.load(game_id)
    assert record is not None and record.deadline_ms == clock.ms + 30_000
    # "+1 min" from a seated player; outsiders may not
    view = await service.extend(game_id, 2, 60)
    record = await store.load(game_id)
    assert record is not None and record.deadline_ms == clock.ms + 90_000
    with pytest.raises(ServiceError) as outsider:
        await service.extend(game_id, 99, 60)
    assert outsider.value.code == "not_seated"
    clock.advance(89)
    assert await service.fire_due() == 0
    clock.advance(1)
    assert await service.fire_due() == 1
    view = await service.view(game_id, 1)
    assert view["status"] == "playing" and view["you"]["role"] is not None
    # the lobby's timer is gone: the deadline is the first turn's (a group's 90 s clock)
    record = await store.load(game_id)
    assert record is not None and record.deadline_ms == clock.ms + 90_000


async def test_lobby_autostarts_when_its_worker_is_gone(
    redis_url: str, redis_prefix: str, redis_client: object
) -> None:
    """Two service instances (two workers) on one Redis: the one that created the lobby and
    ran its countdown is gone; the other fires the countdown and starts the game."""
    first = RedisStore.from_url(redis_url, prefix=redis_prefix)
    second = RedisStore.from_url(redis_url, prefix=redis_prefix)
    try:
        creator = GameService(first, CONFIG)
        view = await creator.create_lobby(chat=CHAT, creator=ANN, settings={"countdown": 1})
        game_id = view["game_id"]
        await creator.join(game_id, BO)
        await creator.join(game_id, CY)
        await first.close()  # the creating worker dies (it never ran timers)
        other = GameService(second, CONFIG)
        stop = asyncio.Event()
        runner = asyncio.create_task(other.run_timers(stop))
        try:
            for _ in range(100):
                if (await other.view(game_id, None))["status"] != "lobby":
                    break
                await asyncio.sleep(0.05)
        finally:
            stop.set()
            await runner
        assert (await other.view(game_id, 1))["status"] == "playing"
        assert other.fired == 1
    finally:
        await second.close()


async def test_idle_lobby_expires_by_a_commit_every_worker_hears(
    store: GameStore, clock: Clock
) -> None:
    service = GameService(store, CONFIG, clock=clock)
    view = await service.create_lobby(chat=CHAT, creator=ANN)
    game_id = view["game_id"]
    await store.set_adapter(game_id, "lobby_msg", "77")
    heard: list[int] = []

    async def listen() -> None:
        async for version in service.listen(game_id):
            heard.append(version)
            return

    listener = asyncio.create_task(listen())
    await asyncio.sleep(0.05)
    clock.advance(300)
    await service.join(game_id, BO)  # a change: the idle time starts again
    clock.advance(599)
    assert await service.fire_due() == 0
    clock.advance(1)
    assert await service.fire_due() == 1
    await asyncio.wait_for(listener, 2)
    assert heard == [2]  # the join; the expiry is version 3
    view = await service.view(game_id, None)
    assert view["status"] == "cancelled" and view["version"] == 3
    assert await service.game_for_chat(CHAT) is None
    assert await service.games_for_user(2) == []
    # the adapter data (the lobby message id) is still there for whoever closes it
    assert (await store.get_adapter(game_id))["lobby_msg"] == "77"
    assert await service.fire_due() == 0  # nothing armed any more


async def test_countdown_off_the_lobby_waits_then_expires(store: GameStore, clock: Clock) -> None:
    service = GameService(store, CONFIG, clock=clock)
    view = await service.create_lobby(chat=CHAT, creator=ANN, settings={"countdown": 5})
    game_id = view["game_id"]
    await service.join(game_id, BO)
    await service.join(game_id, CY)
    view = await service.configure(game_id, 1, countdown=None)
    assert view["autostart_at"] is None
    clock.advance(6)
    assert await service.fire_due() == 0
    assert (await service.view(game_id, None))["status"] == "lobby"
    clock.advance(600)
    assert await service.fire_due() == 1
    assert (await service.view(game_id, None))["status"] == "cancelled"


async def test_seat_info_carries_the_joiners_language(store: GameStore) -> None:
    service = GameService(store, CONFIG)
    view = await service.create_lobby(chat=CHAT, creator=ANN)
    await service.join(view["game_id"], BO)
    await service.join(view["game_id"], CY)
    infos = await service.seats(view["game_id"])
    assert [(s.user_id, s.language) for s in infos] == [(1, "en"), (2, "zh-hant"), (3, None)]


async def test_create_arms_the_countdown_when_computers_fill_the_minimum(
    store: GameStore, clock: Clock
) -> None:
    service = GameService(store, CONFIG, clock=clock)
    view = await service.create_lobby(
        chat=CHAT, creator=ANN, computers=2, autostart=False, settings={"countdown": 20}
    )
    game_id = view["game_id"]
    assert view["version"] == 1 and view["autostart_at"] is not None
    record = await store.load(game_id)
    assert record is not None and record.deadline_ms == clock.ms + 20_000  # in the create
    # with no countdown running, "+1 min" changes nothing
    await service.configure(game_id, 1, countdown=None)
    before = (await service.view(game_id, None))["version"]
    assert (await service.extend(game_id, 1, 60))["version"] == before
    clock.advance(21)
    assert await service.fire_due() == 0  # the idle expiry is 600 s away
    assert (await service.view(game_id, None))["status"] == "lobby"
