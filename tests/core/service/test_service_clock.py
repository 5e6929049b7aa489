"""The turn clock (core.service.clock): a group game's default clock, two warnings, the
skip and the takeover, the late prompt that forgives a strike, pause and resume."""

from __future__ import annotations

from typing import Any

import pytest

from core.service import ChatKey, GameService, ServiceError, TurnWarning, UserRef
from core.service import clock as turn_clock
from tests.core.service.service_clock import Clock

USERS = [UserRef(i, f"P{i}") for i in range(1, 5)]
CHAT = ChatKey(-700)


async def group_game(service: GameService, n: int = 3, **settings: Any) -> str:
    """A group game with the settings a group gets when nobody touches them."""
    view = await service.create_lobby(chat=CHAT, creator=USERS[0], settings=settings or None)
    for user in USERS[1:n]:
        await service.join(view["game_id"], user)
    await service.start(view["game_id"], USERS[0].user_id)
    return str(view["game_id"])


async def actor(service: GameService, game_id: str) -> tuple[int, int]:
    view = await service.view(game_id, None)
    seat = view["current_seat"]
    user_id = (await service.seats(game_id))[seat].user_id
    assert user_id is not None
    return seat, user_id


def collect(service: GameService) -> list[TurnWarning]:
    warnings: list[TurnWarning] = []

    async def on_warning(warning: TurnWarning) -> None:
        warnings.append(warning)

    service.on_turn_warning(on_warning)
    return warnings


def test_warnings_fit_the_turn() -> None:
    assert turn_clock.warnings(90) == (30, 10)
    assert turn_clock.warnings(60) == (30, 10)
    assert turn_clock.warnings(30) == (10,)  # not at the very start
    assert turn_clock.warnings(15) == (7,)
    assert turn_clock.warnings(5) == ()
    assert turn_clock.warnings(3600) == (900,)  # slow mode: sized for hours
    assert turn_clock.warnings(4 * 3600) == (3600, 900)
    assert turn_clock.warnings(24 * 3600) == (3 * 3600, 3600, 900)
    assert turn_clock.seconds_left(10_000, 0) == 10 and turn_clock.seconds_left(0, 5) == 0
    assert turn_clock.seconds_left(29_800, 0) == 30


async def test_a_group_game_has_a_clock_and_a_private_one_has_none(
    service: GameService, clock: Clock
) -> None:
    game_id = await group_game(service)
    view = await service.view(game_id, None)
    assert view["settings"]["turn_time"] == 90 and view["paused"] is False
    record = await service.store.load(game_id)
    assert record is not None and record.deadline_ms == clock.ms + 90_000
    private = await service.create_lobby(chat=None, creator=USERS[3])
    assert private["settings"]["turn_time"] is None


async def test_idle_player_is_warned_twice_skipped_then_replaced(
    service: GameService, clock: Clock
) -> None:
    """Default settings: 90 s turns, warnings at 30 s and 10 s left, a skip, and after two
    skips in a row the computer plays the seat."""
    warnings = collect(service)
    game_id = await group_game(service)
    idle_seat, idle = await actor(service, game_id)
    skips = 0
    while skips < 2:
        seat, user_id = await actor(service, game_id)
        version = (await service.view(game_id, None))["version"]
        if seat != idle_seat:  # the others play at once
            view = await service.view(game_id, user_id)
            result = await service.submit(game_id, user_id, view["legal_moves"][0], version)
            assert result.ok
            continue
        before = len(warnings)
        clock.advance(59.9)
        assert await service.fire_due() == 0
        clock.advance(0.1)
        assert await service.fire_due() == 1
        clock.advance(20)
        assert await service.fire_due() == 1
        assert [(w.user_id, w.seconds_left, w.version) for w in warnings[before:]] == [
            (idle, 30, version),
            (idle, 10, version),
        ]
        clock.advance(10)
        assert await service.fire_due() == 1  # the skip
        skips += 1
        after = await service.view(game_id, None)
        assert after["version"] == version + 1
        assert after["log"][-1].get("timeout") and after["log"][-1]["seat"] == idle_seat
    seats = await service.seats(game_id)
    assert seats[idle_seat].auto and not seats[idle_seat].left
    view = await service.view(game_id, idle)
    assert view["seats"][idle_seat]["away"] and view["legal_moves"] == [{"type": "take_seat_back"}]


async def test_a_move_in_between_resets_the_strikes(service: GameService, clock: Clock) -> None:
    game_id = await group_game(service, takeover_after=2)
    idle_seat, _ = await actor(service, game_id)
    played = 0
    while played < 4:
        seat, user_id = await actor(service, game_id)
        version = (await service.view(game_id, None))["version"]
        if seat == idle_seat and played % 2 == 0:
            clock.advance(91)
            await service.fire_due()
            await service.fire_due()
            await service.fire_due()  # two warnings and the skip, whatever the order
        else:
            view = await service.view(game_id, user_id)
            assert (await service.submit(game_id, user_id, view["legal_moves"][0], version)).ok
        if seat == idle_seat:
            played += 1
    assert not (await service.seats(game_id))[idle_seat].auto  # skip, move, skip, move


async def test_a_late_prompt_forgives_the_strike_once(service: GameService, clock: Clock) -> None:
    game_id = await group_game(service)
    seat, user_id = await actor(service, game_id)
    version = (await service.view(game_id, None))["version"]
    clock.advance(8)  # the bot's prompt went out 8 s after the turn began
    await service.prompt_delivered(game_id, version)
    clock.advance(2)
    await service.prompt_delivered(game_id, version)  # a second report: the first counts
    clock.advance(80)
    assert await service.fire_due() >= 1
    while await service.fire_due():
        pass  # warnings
    view = await service.view(game_id, None)
    assert view["current_seat"] == seat and not any(e.get("timeout") for e in view["log"])
    assert view["version"] == version + 1  # one commit: the extension
    record = await service.store.load(game_id)
    assert record is not None and record.deadline_ms == clock.ms + 15_000  # at least 15 s
    assert (await service.seats(game_id))[seat].user_id == user_id
    clock.advance(15)
    while await service.fire_due():
        pass
    after = await service.view(game_id, None)
    assert after["log"][-1].get("timeout") and after["current_seat"] != seat  # once only


async def test_a_prompt_on_time_or_for_another_turn_forgives_nothing(
    service: GameService, clock: Clock
) -> None:
    game_id = await group_game(service)
    seat, _ = await actor(service, game_id)
    version = (await service.view(game_id, None))["version"]
    clock.advance(3)
    await service.prompt_delivered(game_id, version)  # on time
    await service.prompt_delivered(game_id, version + 5)  # a version not yet reached
    await service.prompt_delivered("no-such-game", 1)  # gone: ignored
    await service.prompt_delivered(game_id, "1")  # type: ignore[arg-type]
    clock.advance(88)
    while await service.fire_due():
        pass
    view = await service.view(game_id, None)
    assert view["log"][-1].get("timeout") and view["log"][-1]["seat"] == seat
    # the next turn: a prompt for the previous turn's version is not this turn's prompt
    clock.advance(20)
    await service.prompt_delivered(game_id, version)
    clock.advance(70)
    while await service.fire_due():
        pass
    assert sum(1 for e in (await service.view(game_id, None))["log"] if e.get("timeout")) == 2


async def test_pause_stops_the_clock_and_resume_gives_the_time_back(
    service: GameService, clock: Clock
) -> None:
    warnings = collect(service)
    game_id = await group_game(service)
    seat, user_id = await actor(service, game_id)
    clock.advance(50)  # 40 s left
    view = await service.pause(game_id, USERS[0].user_id)
    assert view["paused"] is True and view["turn_deadline"] is None
    assert view["legal_moves"] == []
    assert (await service.view(game_id, user_id))["legal_moves"] == []
    assert (await service.pause(game_id, USERS[0].user_id))["version"] == view["version"]
    clock.advance(3600)
    assert await service.fire_due() == 0  # no deadline, no warning while paused
    assert warnings == []
    move = {"type": "discard", "cards": []}
    refused = await service.submit(game_id, user_id, move, view["version"])
    assert refused.status == "illegal" and refused.reason == "game_paused"
    view = await service.resume(game_id, USERS[0].user_id)
    assert view["paused"] is False and view["current_seat"] == seat
    record = await service.store.load(game_id)
    assert record is not None and record.deadline_ms == clock.ms + 40_000
    clock.advance(10)  # 30 s left: the warning
    assert await service.fire_due() == 1 and [w.seconds_left for w in warnings] == [30]
    played = await service.view(game_id, user_id)
    assert played["legal_moves"]
    assert (await service.submit(game_id, user_id, played["legal_moves"][0], played["version"])).ok


async def test_resume_never_drops_a_player_into_an_instant_skip(
    service: GameService, clock: Clock
) -> None:
    game_id = await group_game(service)
    clock.advance(89)
    await service.pause(game_id, USERS[0].user_id)
    await service.resume(game_id, USERS[0].user_id)
    record = await service.store.load(game_id)
    assert record is not None and record.deadline_ms == clock.ms + 15_000


async def test_pause_and_resume_are_the_creators_or_an_admins(service: GameService) -> None:
    lobby = await service.create_lobby(chat=CHAT, creator=USERS[0])
    with pytest.raises(ServiceError) as early:
        await service.pause(lobby["game_id"], USERS[0].user_id)
    assert early.value.code == "not_started"
    for user in USERS[1:3]:
        await service.join(lobby["game_id"], user)
    game_id = lobby["game_id"]
    await service.start(game_id, USERS[0].user_id)
    with pytest.raises(ServiceError) as other:
        await service.pause(game_id, USERS[1].user_id)
    assert other.value.code == "not_creator"
    assert (await service.pause(game_id, USERS[1].user_id, force=True))["paused"]
    with pytest.raises(ServiceError) as other:
        await service.resume(game_id, USERS[2].user_id)
    assert other.value.code == "not_creator"
    assert not (await service.resume(game_id, USERS[0].user_id))["paused"]


async def test_paused_computer_seats_wait(service: GameService, clock: Clock) -> None:
    view = await service.create_lobby(chat=CHAT, creator=USERS[0], computers=2)
    game_id = view["game_id"]
    await service.start(game_id, USERS[0].user_id)
    await service.pause(game_id, USERS[0].user_id)
    version = (await service.view(game_id, None))["version"]
    clock.advance(600)
    assert await service.fire_due() == 0
    assert (await service.view(game_id, None))["version"] == version
    await service.resume(game_id, USERS[0].user_id)
    view = await service.view(game_id, None)
    seats = await service.seats(game_id)
    if seats[view["current_seat"]].computer:  # its think delay runs again
        assert await service.fire_due() == 1


async def test_the_turn_after_a_takeover_is_forgiven_too(
    service: GameService, clock: Clock
) -> None:
    """The commit that hands a seat to the computer starts the next human's turn: a late
    prompt for that turn counts like any other."""
    game_id = await group_game(service, takeover_after=1)
    idle_seat, _ = await actor(service, game_id)
    clock.advance(90)
    while await service.fire_due():
        pass  # warnings, the skip, the takeover
    assert (await service.seats(game_id))[idle_seat].auto
    seat, _ = await actor(service, game_id)
    version = (await service.view(game_id, None))["version"]
    clock.advance(6)
    await service.prompt_delivered(game_id, version)
    clock.advance(84)
    while await service.fire_due():
        pass
    view = await service.view(game_id, None)
    assert view["current_seat"] == seat and view["version"] == version + 1
