"""Clean-up that always runs: a game that ends, however it ends, leaves no key without a TTL.

Each test counts the keys under its own Redis prefix: after a group lobby is cancelled,
expires idle, or a started game expires idle, the chat binding, the players' game lists
and the timer index are gone, and what remains (the game's record and log, claims) has a
TTL. A finished game leaves its archive (kept for ``ARCHIVE_RETENTION_DAYS``, pruned by
the timers) and nothing else without a TTL. The idle expiry of a started game is a commit
(status cancelled, meta ``expired``) that every worker hears, never a key vanishing.
"""

from __future__ import annotations

import asyncio

import pytest

from core.service import ChatKey, GameService, UserRef
from core.store import RedisStore
from tests.core.service.service_clock import Clock
from tests.security.conftest import game_keys_without_ttl, keys_by_ttl, service_on

ANN, BO, CY = UserRef(1, "Ann"), UserRef(2, "Bo"), UserRef(3, "Cy")
GROUP = ChatKey(-555, 12)  # a forum topic: its binding is a key of its own


class Everyone:
    async def is_member(self, chat_id: int, user_id: int) -> bool | None:
        return True


async def group_lobby(service: GameService) -> str:
    service.use_membership(Everyone())
    view = await service.create_lobby(chat=GROUP, creator=ANN, settings={"countdown": None})
    game_id = str(view["game_id"])
    await service.join(game_id, BO)
    await service.join(game_id, CY)
    return game_id


async def settle(service: GameService, clock: Clock) -> None:
    """Let the repair timer of an ended game run (it redoes the clean-up, then is gone)."""
    clock.advance(2)
    await service.fire_due()


def no_ttl(keys: dict[str, list[str]]) -> list[str]:
    return game_keys_without_ttl(keys["no_ttl"])


async def test_cancelled_group_lobby_leaves_nothing_without_ttl(
    redis_store: RedisStore, redis_url: str, redis_prefix: str, clock: Clock
) -> None:
    service = service_on(redis_store, clock)
    game_id = await group_lobby(service)
    during = await keys_by_ttl(redis_url, redis_prefix)
    assert f"chat:{GROUP.chat_id}:{GROUP.topic_id}" in no_ttl(during)
    assert "user:2:games" in no_ttl(during)
    await service.cancel(game_id, ANN.user_id)
    assert await service.game_for_chat(GROUP) is None
    assert await redis_store.user_games(ANN.user_id) == []
    await settle(service, clock)
    assert no_ttl(await keys_by_ttl(redis_url, redis_prefix)) == []


async def test_last_player_leaving_a_group_lobby_cleans_up(
    redis_store: RedisStore, redis_url: str, redis_prefix: str, clock: Clock
) -> None:
    service = service_on(redis_store, clock)
    game_id = await group_lobby(service)
    for user in (BO, CY, ANN):
        await service.leave(game_id, user.user_id)
    await settle(service, clock)
    assert no_ttl(await keys_by_ttl(redis_url, redis_prefix)) == []


async def test_idle_lobby_expires_by_a_commit_and_cleans_up(
    redis_store: RedisStore, redis_url: str, redis_prefix: str, clock: Clock
) -> None:
    service = service_on(redis_store, clock, lobby_ttl_s=600)
    game_id = await group_lobby(service)
    clock.advance(601)
    assert await service.fire_due() == 1
    view = await service.view(game_id, None)
    assert view["status"] == "cancelled"
    await settle(service, clock)
    assert no_ttl(await keys_by_ttl(redis_url, redis_prefix)) == []


@pytest.mark.parametrize("turn_time", [None, 600])
async def test_idle_started_game_expires_by_a_commit_and_cleans_up(
    redis_store: RedisStore,
    redis_url: str,
    redis_prefix: str,
    clock: Clock,
    turn_time: int | None,
) -> None:
    """Nobody moves: without a turn time the game's own idle timer ends it after
    ``game_ttl_s`` (a commit, heard like any); with one, the turns time out and the
    computer plays on, so it is never idle in that sense."""
    service = service_on(redis_store, clock, game_ttl_s=3600, takeover_after=1)
    game_id = await group_lobby(service)
    await service.configure(game_id, ANN.user_id, turn_time=turn_time, rounds=1)
    started = await service.start(game_id, ANN.user_id)
    assert started["turn_deadline"] is None or turn_time is not None
    if turn_time is not None:
        assert started["turn_deadline"] is not None
        return
    heard = asyncio.ensure_future(service.listen(game_id).__aiter__().__anext__())
    await asyncio.sleep(0.1)  # subscribed
    clock.advance(3599)
    assert await service.fire_due() == 0
    clock.advance(2)
    assert await service.fire_due() == 1
    assert await asyncio.wait_for(heard, 5) > started["version"]  # a commit, heard like any
    view = await service.view(game_id, None)
    assert view["status"] == "cancelled"
    assert await service.game_for_chat(GROUP) is None
    await settle(service, clock)
    assert no_ttl(await keys_by_ttl(redis_url, redis_prefix)) == []


async def test_a_move_refreshes_a_started_games_idle_time(
    redis_store: RedisStore, clock: Clock
) -> None:
    service = service_on(redis_store, clock, game_ttl_s=3600)
    game_id = await group_lobby(service)
    await service.start(game_id, ANN.user_id)
    clock.advance(3000)
    for user in (ANN, BO, CY):
        view = await service.view(game_id, user.user_id)
        if view["legal_moves"]:
            break
    result = await service.submit(game_id, user.user_id, view["legal_moves"][0], view["version"])
    assert result.status == "ok"
    clock.advance(3000)  # 6,000 s after the start, 3,000 after the move: still going
    await service.fire_due()
    assert (await service.view(game_id, None))["status"] == "playing"


async def test_finished_game_leaves_only_its_archive(
    redis_store: RedisStore, redis_url: str, redis_prefix: str, clock: Clock
) -> None:
    service = service_on(redis_store, clock)
    service.use_membership(Everyone())
    view = await service.create_lobby(
        chat=GROUP, creator=ANN, seats=3, computers=2, autostart=False
    )
    game_id = view["game_id"]
    await service.configure(game_id, ANN.user_id, rounds=1, takeover_after=1, turn_time=5)
    await service.start(game_id, ANN.user_id)
    for _ in range(400):  # the human times out, then the computer plays every seat
        clock.advance(6)
        await service.fire_due()
        if (await service.view(game_id, None))["status"] == "finished":
            break
    assert (await service.view(game_id, None))["status"] == "finished"
    await settle(service, clock)
    left = no_ttl(await keys_by_ttl(redis_url, redis_prefix))
    assert left and all(k.startswith("arch:") for k in left), left
