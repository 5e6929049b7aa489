"""The table around a game: removal that sticks, slow mode, the group's last settings and
its title."""

from __future__ import annotations

import json

import pytest

from core.service import ChatKey, GameService, ServiceError, UserRef
from core.service import lobby_settings as ls
from tests.core.service.service_clock import Clock

ANN, BO, CY, DI = (UserRef(i, n) for i, n in [(1, "Ann"), (2, "Bo"), (3, "Cy"), (4, "Di")])
CHAT = ChatKey(-800, 5)


async def started(service: GameService, *users: UserRef, **settings: object) -> str:
    view = await service.create_lobby(chat=CHAT, creator=ANN, settings=settings or None)
    for user in users:
        await service.join(view["game_id"], user)
    await service.start(view["game_id"], ANN.user_id)
    return str(view["game_id"])


# ------------------------------------------------------------------ removal that sticks
async def test_a_kicked_player_stays_out_and_the_computer_plays(service: GameService) -> None:
    game_id = await started(service, BO, CY)
    view = await service.kick(game_id, ANN.user_id, BO.user_id)
    seat = next(s["seat"] for s in view["seats"] if s["name"] == "Bo")
    assert view["seats"][seat]["kicked"] and view["seats"][seat]["computer"]
    assert view["seats"][seat]["away"] and view["seats"][seat]["left"]
    mine = await service.view(game_id, BO.user_id)
    assert mine["legal_moves"] == []  # no "take my seat back"
    with pytest.raises(ServiceError) as err:
        await service.take_seat_back(game_id, BO.user_id)
    assert err.value.code == "kicked"
    result = await service.submit(game_id, BO.user_id, {"type": "take_seat_back"}, 0)
    assert result.status == "forbidden" and result.reason == "kicked"
    assert (await service.seats(game_id))[seat].kicked
    # a player who left by themself takes the seat back as before
    await service.leave(game_id, CY.user_id)
    assert (await service.submit(game_id, CY.user_id, {"type": "take_seat_back"}, 0)).ok


async def test_kicking_someone_who_left_makes_it_stick(service: GameService) -> None:
    game_id = await started(service, BO, CY)
    await service.leave(game_id, BO.user_id)
    view = await service.kick(game_id, ANN.user_id, BO.user_id)
    assert any(s["kicked"] for s in view["seats"])
    again = await service.kick(game_id, ANN.user_id, BO.user_id)
    assert again["version"] == view["version"]  # nothing more to do
    with pytest.raises(ServiceError) as err:
        await service.take_seat_back(game_id, BO.user_id)
    assert err.value.code == "kicked"


async def test_a_player_kicked_from_the_lobby_cannot_join_it_again(
    service: GameService,
) -> None:
    view = await service.create_lobby(chat=CHAT, creator=ANN)
    game_id = view["game_id"]
    await service.join(game_id, BO)
    await service.kick(game_id, ANN.user_id, BO.user_id)
    with pytest.raises(ServiceError) as err:
        await service.join(game_id, BO)
    assert err.value.code == "kicked"
    await service.join(game_id, CY)
    await service.leave(game_id, CY.user_id)
    await service.join(game_id, CY)  # leaving by oneself is no ban


async def test_only_the_creator_or_an_admin_kicks(service: GameService) -> None:
    game_id = await started(service, BO, CY)
    with pytest.raises(ServiceError) as err:
        await service.kick(game_id, BO.user_id, CY.user_id)
    assert err.value.code == "not_creator"
    view = await service.kick(game_id, BO.user_id, CY.user_id, force=True)
    assert any(s["kicked"] for s in view["seats"])


# ---------------------------------------------------------------------- slow mode
async def test_slow_mode_brings_hours_and_one_round(service: GameService, clock: Clock) -> None:
    assert ls.setting("slow").describe("group")["offered"]
    assert not ls.setting("slow").describe("private")["offered"]
    assert ls.describe("group")["settings"][2]["choices_when"] == {"slow": list(ls.SLOW_TURN_TIMES)}
    assert ls.next_choice("turn_time", 4 * 3600, {"slow": True}) == 12 * 3600
    assert ls.next_choice("turn_time", 90, {"slow": True}) == 3600
    view = await service.create_lobby(chat=CHAT, creator=ANN)
    game_id = view["game_id"]
    view = await service.configure(game_id, ANN.user_id, slow=True)
    assert view["settings"]["slow"] is True
    assert view["settings"]["turn_time"] == 4 * 3600 and view["rounds"] == 1
    view = await service.configure(game_id, ANN.user_id, turn_time=12 * 3600, rounds=2)
    assert view["settings"]["turn_time"] == 12 * 3600 and view["rounds"] == 2
    view = await service.configure(game_id, ANN.user_id, slow=False)
    assert view["settings"]["turn_time"] == 90 and view["rounds"] == 3
    view = await service.configure(game_id, ANN.user_id, slow=True, turn_time=3600)
    assert view["settings"]["turn_time"] == 3600 and view["rounds"] == 1
    for user in (BO, CY):
        await service.join(game_id, user)
    await service.start(game_id, ANN.user_id)
    record = await service.store.load(game_id)
    assert record is not None and record.deadline_ms == clock.ms + 3600 * 1000
    game = await service.view(game_id, None)
    assert game["settings"]["slow"] is True and game["rounds"] == 1


async def test_slow_mode_warns_before_the_deadline_in_hours(
    service: GameService, clock: Clock
) -> None:
    seen: list[int] = []

    async def on_warning(warning: object) -> None:
        seen.append(warning.seconds_left)  # type: ignore[attr-defined]

    service.on_turn_warning(on_warning)
    game_id = await started(service, BO, CY, slow=True)  # 4 h turns
    clock.advance(3 * 3600)
    assert await service.fire_due() == 1
    clock.advance(45 * 60)
    assert await service.fire_due() == 1
    assert seen == [3600, 900]
    clock.advance(15 * 60)
    assert await service.fire_due() == 1
    assert (await service.view(game_id, None))["log"][-1].get("timeout")


# ---------------------------------------------- the group's last settings and title
async def test_new_starts_from_the_groups_last_settings(service: GameService) -> None:
    view = await service.create_lobby(chat=CHAT, creator=ANN, title="  Mine\nshaft  ")
    assert view["title"] == "Mine shaft"
    game_id = view["game_id"]
    await service.configure(
        game_id,
        ANN.user_id,
        edition="expansion",
        rounds=2,
        turn_time=120,
        computer_level="hard",
        bounded_board=True,
    )
    await service.join(game_id, BO)
    await service.start(game_id, ANN.user_id)
    stored = json.loads(await service.get_pref(f"ls:{CHAT.chat_id}") or "{}")
    assert stored["edition"] == "expansion" and stored["turn_time"] == 120
    await service.cancel(game_id, ANN.user_id)
    nxt = await service.create_lobby(chat=CHAT, creator=BO)
    assert nxt["edition"] == "expansion" and nxt["rounds"] == 2
    assert nxt["options"]["bounded_board"] is True
    assert nxt["settings"]["turn_time"] == 120 and nxt["settings"]["computer_level"] == "hard"
    assert nxt["settings"]["countdown"] == 180  # what a group lobby always has
    await service.cancel(nxt["game_id"], BO.user_id)
    # an edition named by the opener wins; the variants that apply still come along
    classic = await service.create_lobby(chat=CHAT, creator=BO, edition="classic")
    assert classic["edition"] == "classic" and classic["rounds"] == 3
    assert classic["settings"]["turn_time"] == 90
    await service.cancel(classic["game_id"], BO.user_id)
    # another group, or a private table, starts from the defaults
    other = await service.create_lobby(chat=ChatKey(-801), creator=CY)
    assert other["edition"] == "classic" and other["settings"]["turn_time"] == 90
    private = await service.create_lobby(chat=None, creator=DI)
    assert private["settings"]["turn_time"] is None and private["title"] is None


async def test_last_settings_that_no_longer_fit_fall_back_to_the_defaults(
    service: GameService,
) -> None:
    await service.set_pref(f"ls:{CHAT.chat_id}", '{"edition":"classic","turn_time":3,"slow":1}')
    view = await service.create_lobby(chat=CHAT, creator=ANN)
    assert view["settings"]["turn_time"] == 90 and view["settings"]["slow"] is False
    await service.cancel(view["game_id"], ANN.user_id)
    await service.set_pref(f"ls:{CHAT.chat_id}", "not json")
    view = await service.create_lobby(chat=CHAT, creator=ANN)
    assert view["edition"] == "classic"


async def test_the_title_is_kept_in_the_archived_record(service: GameService, clock: Clock) -> None:
    view = await service.create_lobby(chat=CHAT, creator=ANN, title="x" * 300)
    assert view["title"] == "x" * 128  # Telegram's longest title
    await service.cancel(view["game_id"], ANN.user_id)
    view = await service.create_lobby(
        chat=CHAT, creator=ANN, computers=2, title="Mine shaft", settings={"rounds": 1}
    )
    game_id = view["game_id"]
    await service.start(game_id, ANN.user_id)
    for _ in range(400):
        current = await service.view(game_id, ANN.user_id)
        if current["status"] == "finished":
            break
        if current["legal_moves"]:
            move = current["legal_moves"][0]
            await service.submit(game_id, ANN.user_id, move, current["version"])
        clock.advance(100)
        await service.fire_due()
    assert (await service.view(game_id, None))["status"] == "finished"
    record = await service.store.archived(game_id)
    assert record is not None and record["title"] == "Mine shaft"
