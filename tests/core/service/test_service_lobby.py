"""Lobby rules: one lobby per chat key, seats per edition, creator rights, settings."""

from __future__ import annotations

import json

import pytest

from core.service import ChatKey, GameService, ServiceError, UserRef
from tests.core.service.service_clock import Clock

ANN, BO, CY, DI = (UserRef(i, n) for i, n in [(1, "Ann"), (2, "Bo"), (3, "Cy"), (4, "Di")])
CHAT = ChatKey(-100)


async def test_lobby_lifecycle(service: GameService) -> None:
    view = await service.create_lobby(chat=CHAT, creator=ANN)
    game_id = view["game_id"]
    assert view["status"] == "lobby" and view["version"] == 1
    assert 12 <= len(game_id) <= 16
    assert view["you"]["seat"] == 0 and view["you"]["creator"]
    assert await service.game_for_chat(CHAT) == game_id
    with pytest.raises(ServiceError) as busy:
        await service.create_lobby(chat=CHAT, creator=BO)
    assert busy.value.code == "chat_busy" and busy.value.details["game_id"] == game_id
    topic = await service.create_lobby(chat=ChatKey(-100, 7), creator=BO)  # a forum topic
    assert topic["game_id"] != game_id

    view = await service.join(game_id, BO)
    assert [s["name"] for s in view["seats"]] == ["Ann", "Bo"] and view["version"] == 2
    assert (await service.join(game_id, BO))["version"] == 2  # joining twice changes nothing
    assert set(await service.games_for_user(2)) == {game_id, topic["game_id"]}

    with pytest.raises(ServiceError) as few:
        await service.start(game_id, 1)
    assert few.value.code == "not_enough_players"
    await service.join(game_id, CY)
    with pytest.raises(ServiceError) as not_creator:
        await service.start(game_id, 2)
    assert not_creator.value.code == "not_creator"
    view = await service.start(game_id, 2, force=True)  # a group admin
    assert view["status"] == "playing" and view["you"]["seat"] == 1
    assert len(view["you"]["hand"]) > 0
    with pytest.raises(ServiceError) as late:
        await service.join(game_id, DI)
    assert late.value.code == "already_started"
    spectator = await service.view(game_id, 99)
    assert spectator["you"]["seat"] is None and spectator["legal_moves"] == []
    assert "user_id" not in json.dumps(spectator) and "seed" not in json.dumps(spectator)


async def test_seat_limits_per_edition(service: GameService) -> None:
    view = await service.create_lobby(chat=None, creator=ANN, edition="expansion")
    game_id = view["game_id"]
    assert view["settings"]["max_players"] == 12
    await service.join(game_id, BO)
    view = await service.start(game_id, 1)  # expansion plays from 2
    assert view["status"] == "playing" and view["edition"] == "expansion"

    view = await service.create_lobby(chat=None, creator=ANN, seats=3)
    game_id = view["game_id"]
    await service.join(game_id, BO)
    await service.join(game_id, CY)
    with pytest.raises(ServiceError) as full:
        await service.join(game_id, DI)
    assert full.value.code == "lobby_full"
    with pytest.raises(ServiceError) as bad:
        await service.configure(game_id, 1, seats=2)  # classic needs 3
    assert bad.value.code == "bad_setting"
    view = await service.create_lobby(chat=None, creator=ANN)
    for _ in range(9):
        view = await service.add_computer(view["game_id"], 1)
    assert len(view["seats"]) == 10
    with pytest.raises(ServiceError) as ten:
        await service.add_computer(view["game_id"], 1)
    assert ten.value.code == "lobby_full"
    with pytest.raises(ServiceError) as shrink:
        await service.configure(view["game_id"], 1, edition="classic", seats=5)
    assert shrink.value.code == "too_many_players"


async def test_configure_and_computers(service: GameService) -> None:
    view = await service.create_lobby(chat=CHAT, creator=ANN)
    game_id = view["game_id"]
    view = await service.configure(
        game_id, 1, rounds=1, turn_time=60, language="zh-hans", think_delay=0.5
    )
    assert view["rounds"] == 1 and view["options"]["rounds"] == 1
    assert view["settings"]["turn_time"] == 60 and view["settings"]["language"] == "zh-hans"
    for bad in (
        {"turn_time": 1},
        {"language": "xx"},
        {"colour": "red"},
        {"rounds": 4},
        {"edition": "chess"},
        {"options": {"old_mine": "yes"}},
    ):
        with pytest.raises(ServiceError) as err:
            await service.configure(game_id, 1, **bad)
        assert err.value.code in {"bad_setting", "invalid_config"}
    with pytest.raises(ServiceError) as expansion_only:
        await service.configure(game_id, 1, edition="expansion", options={"old_mine": True})
    assert expansion_only.value.code == "invalid_config"
    with pytest.raises(ServiceError) as not_creator:
        await service.configure(game_id, 2, rounds=2)
    assert not_creator.value.code == "not_creator"
    view = await service.add_computer(game_id, 1, "hard")
    view = await service.add_computer(game_id, 1)
    assert [s["computer"] for s in view["seats"]] == [False, True, True]
    # readers name computer seats in their own language: the view says which one it is
    assert [s["name"] for s in view["seats"]] == ["Ann", "Computer 1", "Computer 2"]
    assert [s.get("computer_no") for s in view["seats"]] == [None, 1, 2]
    view = await service.remove_computer(game_id, 1)
    assert len(view["seats"]) == 2
    await service.add_computer(game_id, 1)
    view = await service.start(game_id, 1)
    assert view["status"] == "playing" and view["rounds"] == 1


async def test_the_computer_level_is_the_tables(service: GameService) -> None:
    """One strength per table (the lobby's ``computer_level``): the computer seats there,
    those added later, and a human's seat the computer takes over."""
    view = await service.create_lobby(chat=CHAT, creator=ANN)
    game_id = view["game_id"]
    await service.join(game_id, BO)
    await service.add_computer(game_id, 1)
    assert view["settings"]["computer_level"] == "normal"
    view = await service.configure(game_id, 1, computer_level="hard")
    assert view["settings"]["computer_level"] == "hard"
    await service.add_computer(game_id, 1)
    meta = (await service.records.load(game_id)).meta
    assert [s.level for s in meta.seats if s.computer] == ["hard", "hard"]
    assert meta.level_of(1) == "hard"  # Bo's seat, should the computer play it
    await service.add_computer(game_id, 1, "easy")  # one seat may still differ
    assert (await service.records.load(game_id)).meta.level_of(4) == "easy"
    for bad in ("expert", None, 3):
        with pytest.raises(ServiceError) as err:
            await service.configure(game_id, 1, computer_level=bad)
        assert err.value.code == "bad_setting"
    local = await service.create_lobby(chat=None, creator=CY, seats=3, computers=2, level="easy")
    meta = (await service.records.load(local["game_id"])).meta
    assert meta.computer_level == "easy" and [s.level for s in meta.seats] == [
        "normal",
        "easy",
        "easy",
    ]  # (a human seat's own level is never used)


async def test_leave_lobby_and_cancel(service: GameService) -> None:
    view = await service.create_lobby(chat=CHAT, creator=ANN)
    game_id = view["game_id"]
    await service.join(game_id, BO)
    view = await service.leave(game_id, 1)  # the creator leaves: Bo now runs the lobby
    assert [s["name"] for s in view["seats"]] == ["Bo"]
    assert (await service.view(game_id, 2))["you"]["creator"]
    assert await service.games_for_user(1) == []
    view = await service.leave(game_id, 2)  # the last human: the lobby is gone
    assert view["status"] == "cancelled"
    assert await service.game_for_chat(CHAT) is None
    again = await service.create_lobby(chat=CHAT, creator=CY)  # the chat is free again
    with pytest.raises(ServiceError) as not_creator:
        await service.cancel(again["game_id"], 1)
    assert not_creator.value.code == "not_creator"
    view = await service.cancel(again["game_id"], 3)
    assert view["status"] == "cancelled"
    assert await service.game_for_chat(CHAT) is None
    with pytest.raises(ServiceError) as missing:
        await service.view("doesnotexist", 1)
    assert missing.value.code == "not_found"
    with pytest.raises(ServiceError):
        await service.view("bad id with spaces", 1)


async def test_play_against_computers_starts_at_once(service: GameService) -> None:
    view = await service.create_lobby(chat=None, creator=ANN, seats=4, computers=3)
    assert view["status"] == "playing"
    assert [s["computer"] for s in view["seats"]] == [False, True, True, True]
    assert sum(1 for s in view["seats"] if s["online"]) >= 3


async def test_online_flag_from_touch(service: GameService, clock: Clock) -> None:
    view = await service.create_lobby(chat=None, creator=ANN)
    await service.join(view["game_id"], BO)
    view = await service.view(view["game_id"], 1)
    assert [s["online"] for s in view["seats"]] == [True, True]  # both acted just now
    clock.advance(121)
    await service.touch(view["game_id"], 2)  # e.g. the Mini App's websocket heartbeat
    view = await service.view(view["game_id"], 1)
    assert [s["online"] for s in view["seats"]] == [False, True]


async def test_kick_by_creator_only(service: GameService) -> None:
    view = await service.create_lobby(chat=None, creator=ANN)
    game_id = view["game_id"]
    await service.join(game_id, BO)
    await service.join(game_id, CY)
    with pytest.raises(ServiceError) as not_creator:
        await service.kick(game_id, 2, 3)
    assert not_creator.value.code == "not_creator"
    view = await service.kick(game_id, 1, 3)
    assert [s["name"] for s in view["seats"]] == ["Ann", "Bo"]
    view = await service.kick(game_id, 99, 2, force=True)  # a group admin
    assert [s["name"] for s in view["seats"]] == ["Ann"]
