"""Play again (GameService.rematch): the same table in a new lobby, once whoever presses
and whichever worker answers."""

from __future__ import annotations

import asyncio

import pytest

from core.service import ChatKey, GameService, ServiceError, UserRef
from core.store import GameStore
from tests.core.service.conftest import FAST
from tests.core.service.service_clock import Clock

ANN, BO, CY, DI = (
    UserRef(i, n, lang)
    for i, n, lang in [(1, "Ann", "en"), (2, "Bo", "zh-hans"), (3, "Cy", None), (4, "Di", "en")]
)
CHAT = ChatKey(-900)


async def finish(service: GameService, clock: Clock, game_id: str) -> None:
    """Everyone plays their first legal move (the computer its own) until the end."""
    for _ in range(2000):
        view = await service.view(game_id, None)
        if view["status"] == "finished":
            return
        for seat in await service.seats(game_id):
            if seat.user_id is None or seat.auto:
                continue
            mine = await service.view(game_id, seat.user_id)
            if mine["legal_moves"]:
                await service.submit(game_id, seat.user_id, mine["legal_moves"][0], mine["version"])
        clock.advance(5)
        await service.fire_due()
    raise AssertionError("the game did not finish")


async def finished_table(service: GameService, clock: Clock) -> str:
    view = await service.create_lobby(chat=CHAT, creator=ANN, title="Mine shaft")
    game_id = view["game_id"]
    for user in (BO, CY, DI):
        await service.join(game_id, user)
    await service.configure(
        game_id, ANN.user_id, rounds=1, turn_time=60, computer_level="hard", gold_per_digger=True
    )
    await service.add_computer(game_id, ANN.user_id)
    await service.start(game_id, ANN.user_id)
    await service.kick(game_id, ANN.user_id, DI.user_id)
    await service.leave(game_id, CY.user_id)
    await finish(service, clock, game_id)
    return str(game_id)


async def test_play_again_with_the_same_people(service: GameService, clock: Clock) -> None:
    game_id = await finished_table(service, clock)
    assert (await service.view(game_id, None))["rematch"] is None
    lobby = await service.rematch(game_id, BO.user_id)
    new_id = lobby["game_id"]
    assert new_id != game_id and lobby["status"] == "lobby"
    assert lobby["you"]["creator"] and lobby["you"]["seat"] is not None
    # Ann and Bo, and the computer; not Cy (left) nor Di (kicked)
    names = [(s["name"], s["computer"]) for s in lobby["seats"]]
    assert names == [("Ann", False), ("Bo", False), ("Computer 1", True)]
    assert lobby["rounds"] == 1 and lobby["options"]["gold_per_digger"] is True
    assert lobby["settings"]["turn_time"] == 60 and lobby["settings"]["computer_level"] == "hard"
    assert lobby["settings"]["countdown"] == 180 and lobby["autostart_at"] is not None
    assert lobby["title"] == "Mine shaft"
    assert await service.game_for_chat(CHAT) == new_id
    assert new_id in await service.games_for_user(ANN.user_id)
    seats = await service.seats(new_id)
    assert [s.language for s in seats if not s.computer] == ["en", "zh-hans"]
    # the finished game says where the table went
    assert (await service.view(game_id, CY.user_id))["rematch"] == new_id
    # Ann presses too: the same lobby, nothing changes
    again = await service.rematch(game_id, ANN.user_id)
    assert again["game_id"] == new_id and again["version"] == lobby["version"]
    # Cy (who left) asks to play again: seated now; Di (kicked) may not ask
    cy = await service.rematch(game_id, CY.user_id)
    assert cy["game_id"] == new_id and cy["you"]["seat"] == 3
    with pytest.raises(ServiceError) as err:
        await service.rematch(game_id, DI.user_id)
    assert err.value.code == "kicked"
    await service.join(new_id, DI)  # but Di may join the new lobby like anyone
    # one press to leave; the creator can start at once
    await service.leave(new_id, ANN.user_id)
    started = await service.start(new_id, BO.user_id)
    assert started["status"] == "playing"


async def test_play_again_is_refused_before_the_end_and_to_outsiders(
    service: GameService, clock: Clock
) -> None:
    view = await service.create_lobby(chat=CHAT, creator=ANN)
    with pytest.raises(ServiceError) as err:
        await service.rematch(view["game_id"], ANN.user_id)
    assert err.value.code == "not_finished"
    await service.cancel(view["game_id"], ANN.user_id)
    game_id = await finished_table(service, clock)
    with pytest.raises(ServiceError) as err:
        await service.rematch(game_id, 99)
    assert err.value.code == "not_seated"
    with pytest.raises(ServiceError) as err:
        await service.rematch("no-such-game", ANN.user_id)
    assert err.value.code == "not_found"


async def test_a_group_that_opened_another_game_keeps_it(
    service: GameService, clock: Clock
) -> None:
    game_id = await finished_table(service, clock)
    other = await service.create_lobby(chat=CHAT, creator=CY)
    with pytest.raises(ServiceError) as err:
        await service.rematch(game_id, ANN.user_id)
    assert err.value.code == "chat_busy" and err.value.details["game_id"] == other["game_id"]
    await service.cancel(other["game_id"], CY.user_id)
    lobby = await service.rematch(game_id, ANN.user_id)
    assert await service.game_for_chat(CHAT) == lobby["game_id"]


async def test_a_cancelled_rematch_is_replaced_and_a_started_one_entered(
    service: GameService, clock: Clock
) -> None:
    game_id = await finished_table(service, clock)
    first = await service.rematch(game_id, ANN.user_id)
    await service.cancel(first["game_id"], ANN.user_id)
    second = await service.rematch(game_id, BO.user_id)
    assert second["game_id"] != first["game_id"] and second["you"]["creator"]
    await service.start(second["game_id"], BO.user_id)
    entered = await service.rematch(game_id, ANN.user_id)
    assert entered["game_id"] == second["game_id"] and entered["status"] == "playing"
    with pytest.raises(ServiceError) as err:
        await service.rematch(game_id, CY.user_id)  # not in it, and it has begun
    assert err.value.code == "already_started"


async def test_two_workers_pressing_at_once_open_one_lobby(store: GameStore, clock: Clock) -> None:
    here, there = GameService(store, FAST, clock=clock), GameService(store, FAST, clock=clock)
    game_id = await finished_table(here, clock)
    views = await asyncio.gather(
        here.rematch(game_id, ANN.user_id),
        there.rematch(game_id, BO.user_id),
        here.rematch(game_id, BO.user_id),
        there.rematch(game_id, ANN.user_id),
    )
    assert len({v["game_id"] for v in views}) == 1
    new_id = views[0]["game_id"]
    assert (await here.view(game_id, None))["rematch"] == new_id
    assert await here.game_for_chat(CHAT) == new_id
    assert len((await here.view(new_id, None))["seats"]) == 3


async def test_a_game_against_the_computer_starts_again_at_once(
    service: GameService, clock: Clock
) -> None:
    view = await service.create_lobby(
        chat=None, creator=ANN, seats=3, computers=2, settings={"rounds": 1}
    )
    game_id = view["game_id"]
    assert view["status"] == "playing"
    await finish(service, clock, game_id)
    again = await service.rematch(game_id, ANN.user_id)
    assert again["status"] == "playing" and again["game_id"] != game_id
    assert [s["computer"] for s in again["seats"]] == [False, True, True]


async def test_the_new_lobbys_countdown_starts_it(service: GameService, clock: Clock) -> None:
    game_id = await finished_table(service, clock)
    lobby = await service.rematch(game_id, ANN.user_id)
    clock.advance(179)
    await service.fire_due()
    assert (await service.view(lobby["game_id"], None))["status"] == "lobby"
    clock.advance(1)
    await service.fire_due()
    assert (await service.view(lobby["game_id"], None))["status"] == "playing"
