"""A game night that never stalls, played through the fake Bot API: the default turn clock
(warned, skipped, replaced), pause and resume, slow mode, play again with the same people,
removal that sticks, and /new from the group's last settings.

The service's clock is real time plus an offset the test moves on, so a 90 s turn or a
4 h one passes in a moment; the bot, Telegram and the timer loop run as they do in
production. Every scenario ends with the leak scan and "every callback answered".
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from core.service import TurnWarning
from telegram_bot import callbacks as cb
from telegram_bot.app import BotOptions
from tests.telegram_bot.bot_driver import (
    assert_no_leaks,
    is_lobby,
    join,
    open_lobby,
    play_game,
    play_turn,
    wait_async,
)
from tests.telegram_bot.conftest import BotEnv, running_bot
from tests.telegram_bot.fake_bot_api import FakeBotAPI, FakeChat, FakeUser, buttons

pytestmark = pytest.mark.timeout(240)


class JumpClock:
    """Real milliseconds plus an offset that only grows (the service's clock)."""

    def __init__(self) -> None:
        self.offset_ms = 0

    def __call__(self) -> int:
        return int(time.time() * 1000) + self.offset_ms

    def advance(self, seconds: float) -> None:
        self.offset_ms += int(seconds * 1000)


@pytest.fixture
async def table() -> AsyncIterator[tuple[BotEnv, JumpClock]]:
    """The bot with a movable service clock and a group budget ten times faster."""
    clock = JumpClock()
    api = FakeBotAPI(group_window=6.0)
    await api.start()
    try:
        async with running_bot(
            api,
            clock=clock,
            options=BotOptions(
                poll_timeout=1, autostart_s=3600, max_retries=2, group_burst=5, group_period_s=2.0
            ),
        ) as env:
            yield env, clock
    finally:
        await api.stop()


def players(env: BotEnv, names: list[str]) -> list[FakeUser]:
    users = [env.api.user(i + 1, n) for i, n in enumerate(names)]
    for u in users:
        u.press_start()
    return users


def lobby_message(env: BotEnv, group: FakeChat) -> dict[str, Any]:
    lobby = env.api.last_bot_message(group.id, is_lobby)
    assert lobby is not None
    return lobby


async def start_game(env: BotEnv, group: FakeChat, users: list[FakeUser]) -> str:
    """Open the lobby with /new, everyone joins by the deep link, the creator presses
    Start: no setting touched."""
    game_id = await open_lobby(env, group, users[0])
    for u in users[1:]:
        await join(env, game_id, group, u)
    users[0].press(lobby_message(env, group), "Start")
    await wait_async(lambda: status_is(env, game_id, "lobby", negate=True))
    return game_id


async def status_is(env: BotEnv, game_id: str, status: str, *, negate: bool = False) -> bool:
    return ((await env.service.view(game_id, None))["status"] == status) != negate


async def actor_of(env: BotEnv, game_id: str) -> tuple[int | None, int]:
    """(user id of the human to act, or None, version)."""
    sv = await env.service.view(game_id, None)
    current = sv.get("current_seat")
    if sv["status"] not in ("playing", "stealing") or current is None:
        return None, int(sv["version"])
    seat = (await env.service.seats(game_id))[current]
    return (None if seat.computer or seat.auto else seat.user_id), int(sv["version"])


async def moved_past(env: BotEnv, game_id: str, version: int) -> None:
    async def moved() -> bool:
        return int((await env.service.view(game_id, None))["version"]) > version

    await wait_async(moved)


def texts_to(env: BotEnv, chat_id: int, mark: str) -> list[str]:
    return [
        str(m.get("text") or m.get("caption") or "")
        for m in env.api.bot_messages(chat_id)
        if mark in str(m.get("text") or m.get("caption") or "")
    ]


def group_saw(env: BotEnv, chat_id: int, *parts: str) -> bool:
    """Some message or caption the group was shown holds every one of ``parts``."""
    return any(
        all(part in text for part in parts)
        for c in env.api.calls
        if c.ok and c.chat_id == chat_id
        for text in c.texts()
    )


def revealed_at(env: BotEnv, chat_id: int) -> float:
    """When the group was first shown the end (the roles may be named from then on): the
    round's result or the final board, which may go out before a driver notices the end."""
    shown = [
        c.at
        for c in env.api.calls
        if c.ok and c.chat_id == chat_id and any("🏁" in x or "🏆" in x for x in c.texts())
    ]
    return min([time.monotonic(), *shown])


async def finish_checks(env: BotEnv, reveal_at: float | None = None) -> None:
    """Every callback answered, no role in the group before the reveal, no 429."""
    await env.api.wait_for(lambda: not env.api.unanswered_queries())
    assert_no_leaks(env, reveal_at, set())
    assert not env.api.rate_limited


# ------------------------------------------------------------------ the turn clock
async def test_idle_player_is_warned_skipped_and_replaced_with_default_settings(
    table: tuple[BotEnv, JumpClock],
) -> None:
    env, clock = table
    api = env.api
    group = api.group(-2001, "Night shift")
    users = players(env, ["Ann", "Ben", "Cat"])
    by_id = {u.id: u for u in users}
    warnings: list[TurnWarning] = []

    async def seen(warning: TurnWarning) -> None:
        warnings.append(warning)

    env.service.on_turn_warning(seen)
    game_id = await start_game(env, group, users)
    sv = await env.service.view(game_id, None)
    assert sv["settings"]["turn_time"] == 90  # nobody touched a setting
    idle_id, _ = await actor_of(env, game_id)
    assert idle_id is not None
    idle = by_id[idle_id]
    idle_seat = next(s.seat for s in await env.service.seats(game_id) if s.user_id == idle_id)
    skips = 0
    rng = random.Random(7)
    while skips < 2:
        acting, version = await actor_of(env, game_id)
        if acting is None:  # a round pause, or a computer's move
            clock.advance(3)
            await moved_past(env, game_id, version)
            continue
        if acting != idle_id:
            await play_turn(env, by_id[acting], version, rng)
            await moved_past(env, game_id, version)
            continue
        before = len(warnings)
        hurried = len(texts_to(env, idle_id, "⏳"))
        clock.advance(60.2)  # 30 s left
        await wait_async(lambda n=before + 1: _count(warnings, n))
        await api.wait_for(lambda n=hurried: len(texts_to(env, idle_id, "⏳")) > n)
        clock.advance(20)  # 10 s left
        await wait_async(lambda n=before + 2: _count(warnings, n))
        assert [(w.user_id, w.seconds_left) for w in warnings[before:]] == [
            (idle_id, 30),
            (idle_id, 10),
        ]
        ran_out = len(texts_to(env, idle_id, "⌛"))
        clock.advance(10)  # the deadline: skipped
        await moved_past(env, game_id, version)
        skips += 1
        await api.wait_for(lambda n=ran_out: len(texts_to(env, idle_id, "⌛")) > n)
        # the group sees the skip: the board's last event is the idle player's timeout
        await api.wait_for(
            lambda: group_saw(env, group.id, f"{idle.first_name} passed", "⌛"), timeout=15
        )
    # after two skips in a row the computer plays the seat, and tells the player how to
    # take it back
    seats = await env.service.seats(game_id)
    assert seats[idle_seat].auto and not seats[idle_seat].left
    await api.wait_for(
        lambda: api.last_bot_message(idle_id, lambda m: "Take my seat back" in str(m))
    )
    # the game goes on without anyone touching anything: the computer plays the seat
    played_for = sum(1 for e in await env.service.move_log(game_id) if e.get("seat") == idle_seat)
    for _ in range(30):
        acting, version = await actor_of(env, game_id)
        if acting is not None:
            await play_turn(env, by_id[acting], version, rng)
        else:
            clock.advance(3)
        await moved_past(env, game_id, version)
        moves = await env.service.move_log(game_id)
        if sum(1 for e in moves if e.get("seat") == idle_seat) > played_for:
            break
    else:
        raise AssertionError("the computer never played the idle player's seat")
    board = await env.service.view(game_id, None)
    assert board["seats"][idle_seat]["computer"] and board["seats"][idle_seat]["away"]
    await finish_checks(env)


def _count(items: list[Any], n: int) -> Any:
    async def enough() -> bool:
        return len(items) >= n

    return enough()


async def test_pause_and_resume_in_the_group(table: tuple[BotEnv, JumpClock]) -> None:
    env, clock = table
    api = env.api
    group = api.group(-2002, "Tea break", admins=[3])
    ann, ben, cat = players(env, ["Ann", "Ben", "Cat"])
    game_id = await start_game(env, group, [ann, ben, cat])
    clock.advance(50)  # 40 s left for the first player
    ben.say(group.id, "/pause")
    await api.wait_for(
        lambda: api.last_bot_message(group.id, lambda m: "Only the creator" in m.get("text", ""))
    )
    ann.say(group.id, "/pause")
    await api.wait_for(lambda: texts_to(env, group.id, "Ann paused the game"))
    sv = await env.service.view(game_id, None)
    assert sv["paused"] is True and sv["turn_deadline"] is None
    ann.say(group.id, "/pause")
    await api.wait_for(lambda: texts_to(env, group.id, "already paused"))
    version = sv["version"]
    clock.advance(3600)  # an hour of tea: nothing runs out, nobody is warned
    await asyncio.sleep(0.5)  # (the timer loop polls every 0.05 s)
    assert (await env.service.view(game_id, None))["version"] == version
    assert not any(texts_to(env, u.id, "⏳") for u in (ann, ben, cat))
    cat.say(group.id, "/resume")  # an admin
    await api.wait_for(lambda: texts_to(env, group.id, "Cat resumed the game"))
    resumed = texts_to(env, group.id, "Cat resumed the game")[-1]
    assert "turn" in resumed
    sv = await env.service.view(game_id, None)
    assert sv["paused"] is False and sv["turn_deadline"] is not None
    record = await env.service.store.load(game_id)
    assert record is not None and record.deadline_ms is not None
    assert 35_000 <= record.deadline_ms - clock() <= 40_000  # the 40 s that were left
    ann.say(ann.id, "/pause")  # not in a private chat: the group must see it
    await api.wait_for(lambda: texts_to(env, ann.id, "in the group"))
    await finish_checks(env)


# ----------------------------------------------------------------------- slow mode
async def test_a_slow_mode_game(table: tuple[BotEnv, JumpClock]) -> None:
    env, clock = table
    api = env.api
    group = api.group(-2003, "Office")
    users = players(env, ["Ann", "Ben", "Cat"])
    by_id = {u.id: u for u in users}
    warnings: list[TurnWarning] = []

    async def seen(warning: TurnWarning) -> None:
        warnings.append(warning)

    env.service.on_turn_warning(seen)
    game_id = await open_lobby(env, group, users[0])
    for u in users[1:]:
        await join(env, game_id, group, u)
    view = await env.service.configure(game_id, users[0].id, slow=True)
    assert view["settings"]["turn_time"] == 4 * 3600 and view["rounds"] == 1
    users[0].press(lobby_message(env, group), "Start")
    await wait_async(lambda: status_is(env, game_id, "lobby", negate=True))
    sv = await env.service.view(game_id, None)
    assert sv["settings"]["slow"] is True
    # the first player is nudged privately: their turn's prompt; then warned at 1 h and
    # 15 min left; nobody plays for 4 hours: skipped
    first, version = await actor_of(env, game_id)
    assert first is not None
    await api.wait_for(lambda: texts_to(env, first, "🎭"))
    clock.advance(3 * 3600)
    await wait_async(lambda: _count(warnings, 1))
    await api.wait_for(lambda: texts_to(env, first, "⏳"))
    clock.advance(45 * 60)
    await wait_async(lambda: _count(warnings, 2))
    assert [w.seconds_left for w in warnings] == [3600, 900]
    clock.advance(15 * 60)
    await moved_past(env, game_id, version)
    await api.wait_for(lambda: texts_to(env, first, "⌛"))
    record = await env.service.store.load(game_id)
    assert record is not None and record.deadline_ms is not None
    assert record.deadline_ms - clock() > 3 * 3600 * 1000  # the next player has hours
    # the rest of the game is played through the private buttons, one round
    await play_game(env, game_id, by_id, random.Random(3))
    await api.wait_for(lambda: texts_to(env, group.id, "🏆"), timeout=30)
    reveal_at = revealed_at(env, group.id)
    assert (await env.service.view(game_id, None))["round"] == 1
    await finish_checks(env, reveal_at)


# ---------------------------------------------------------------------- play again
async def test_play_again_with_the_same_people(table: tuple[BotEnv, JumpClock]) -> None:
    env, _clock = table
    api = env.api
    group = api.group(-2004, "Mine shaft")
    alice, bob, chen, dee = players(env, ["Alice", "Bob", "Chen", "Dee"])
    game_id = await open_lobby(env, group, alice)
    for u in (bob, chen, dee):
        await join(env, game_id, group, u)
    await env.service.configure(game_id, alice.id, rounds=1, gold_per_digger=True)
    alice.press(lobby_message(env, group), "Add computer")
    await wait_async(lambda: _seated(env, game_id, 5))
    alice.press(lobby_message(env, group), "Start")
    await wait_async(lambda: status_is(env, game_id, "lobby", negate=True))
    alice.say(group.id, "/kick Dee")  # Dee is out for good: not in the next game either
    await api.wait_for(lambda: texts_to(env, group.id, "Dee was removed"))
    users = {u.id: u for u in (alice, bob, chen, dee)}
    await play_game(env, game_id, users, random.Random(11))
    final = await api.wait_for(
        lambda: api.last_bot_message(group.id, lambda m: "🏆" in m.get("text", "")), timeout=30
    )
    reveal_at = revealed_at(env, group.id)
    before = {m["message_id"] for m in api.bot_messages(group.id)}
    # "Play again" on the final message (the button's callback: the game's own id)
    again = cb.encode(cb.AGAIN, game_id, 0)
    qid = _press_data(bob, final, again)
    await api.wait_for(lambda: api.callback_queries[qid]["answered"])
    assert "same players" in str(api.callback_queries[qid]["answer"].get("text"))
    new_lobby = await api.wait_for(
        lambda: api.last_bot_message(
            group.id, lambda m: is_lobby(m) and m["message_id"] not in before
        ),
        timeout=15,
    )
    new_id = await env.service.game_for_chat(_chat(group))
    assert new_id is not None and new_id != game_id
    await api.wait_for(
        lambda: all(
            n in str(lobby_message(env, group).get("text")) for n in ("Alice", "Bob", "Chen")
        )
    )
    text = str(lobby_message(env, group).get("text"))
    assert "Dee" not in text and "Rounds: 1" in text
    view = await env.service.view(new_id, None)
    assert view["options"]["gold_per_digger"] is True and view["title"] == "Mine shaft"
    assert [s["computer"] for s in view["seats"]] == [False, False, False, True]
    # Chen presses too: the same lobby, no second one
    qid = _press_data(chen, final, again)
    await api.wait_for(lambda: api.callback_queries[qid]["answered"])
    assert await env.service.game_for_chat(_chat(group)) == new_id
    await asyncio.sleep(0.3)
    assert [m for m in api.bot_messages(group.id) if m["message_id"] not in before] == [
        lobby_message(env, group)
    ]
    # Dee, removed from the last game, may not open it; she may join like anyone else
    qid = _press_data(dee, final, again)
    await api.wait_for(lambda: api.callback_queries[qid]["answered"])
    assert "removed" in str(api.callback_queries[qid]["answer"].get("text"))
    # one press to leave; the presser is the creator and starts at once
    alice.press(new_lobby, "Leave")
    await wait_async(lambda: _seated(env, new_id, 3))
    bob.press(lobby_message(env, group), "Start")
    await wait_async(lambda: status_is(env, new_id, "lobby", negate=True))
    seated = {s.user_id for s in await env.service.seats(new_id)}
    assert seated == {bob.id, chen.id, None}
    # the old game's view says where the table went
    assert (await env.service.view(game_id, None))["rematch"] == new_id
    # /new after this game starts from its settings (one round, the variant)
    bob.say(group.id, "/cancel")
    await wait_async(lambda: status_is(env, new_id, "cancelled"))
    chen.say(group.id, "/new")
    await wait_async(lambda: _chat_game_is_new(env, group, new_id))
    latest = await env.service.game_for_chat(_chat(group))
    assert latest is not None
    fresh = await env.service.view(latest, None)
    assert fresh["rounds"] == 1 and fresh["options"]["gold_per_digger"] is True
    assert fresh["title"] == "Mine shaft" and fresh["settings"]["turn_time"] == 90
    await finish_checks(env, reveal_at)


def _press_data(user: FakeUser, message: dict[str, Any], data: str) -> str:
    update = user.callback_update(message, data)
    user.api.push_update(update)
    return str(update["callback_query"]["id"])


def _chat(group: FakeChat) -> Any:
    from core.service import ChatKey

    return ChatKey(group.id, None)


async def _seated(env: BotEnv, game_id: str, n: int) -> bool:
    return len(await env.service.seats(game_id)) == n


async def _chat_game_is_new(env: BotEnv, group: FakeChat, old: str) -> bool:
    game_id = await env.service.game_for_chat(_chat(group))
    return game_id is not None and game_id != old


# ------------------------------------------------------------ removal that sticks
async def test_a_kicked_player_stays_out(table: tuple[BotEnv, JumpClock]) -> None:
    env, _clock = table
    api = env.api
    group = api.group(-2005, "矿井", admins=[5])
    alice = api.user(1, "Alice")
    bob = api.user(2, "Bob")
    ming = api.user(3, "王小明", language_code="zh-hans")
    hong = api.user(4, "王小红", language_code="zh-hans")
    admin = api.user(5, "Eve")
    users = [alice, bob, ming, hong]
    for u in (*users, admin):
        u.press_start()
    game_id = await start_game(env, group, users)

    # not the creator, not an admin: refused
    bob.say(group.id, "/kick 王小明")
    await api.wait_for(lambda: texts_to(env, group.id, "Only the creator"))
    # an ambiguous name: one button per player it may mean
    alice.say(group.id, "/kick 王小")
    choice = await api.wait_for(
        lambda: api.last_bot_message(group.id, lambda m: "Several players" in m.get("text", ""))
    )
    labels = [b["text"] for b in buttons(choice)]
    assert len(labels) == 2 and any("王小明" in x for x in labels)
    qid = bob.press(choice, "王小明")  # a button of the creator's list, pressed by another
    await api.wait_for(lambda: api.callback_queries[qid]["answered"])
    assert "creator" in str(api.callback_queries[qid]["answer"].get("text"))
    qid = alice.press(choice, "王小明")
    await api.wait_for(lambda: api.callback_queries[qid]["answered"])
    await api.wait_for(lambda: texts_to(env, group.id, "王小明 was removed"))

    async def kicked(user_id: int) -> bool:
        return any(s.user_id == user_id and s.kicked for s in await env.service.seats(game_id))

    await wait_async(lambda: kicked(ming.id))
    # he cannot take the seat back: no such button in his chat, and the move is refused
    sent = len(api.bot_messages(ming.id))
    ming.press_start("h" + game_id)
    await api.wait_for(lambda: len(api.bot_messages(ming.id)) > sent)
    assert not any(
        "Take my seat back" in b.get("text", "")
        for m in api.bot_messages(ming.id)
        for b in buttons(m)
    )
    back = await env.service.submit(game_id, ming.id, {"type": "take_seat_back"}, 0)
    assert back.status == "forbidden" and back.reason == "kicked"
    view = await env.service.view(game_id, None)
    seat = next(s for s in view["seats"] if s["name"] == "王小明")
    assert seat["kicked"] and seat["computer"]
    # /kick alone: a button per player still in, the kicked one and the creator aside
    alice.say(group.id, "/kick")
    menu = await api.wait_for(
        lambda: api.last_bot_message(
            group.id, lambda m: "Whom should I remove" in m.get("text", "")
        )
    )
    labels = [b["text"] for b in buttons(menu)]
    assert len(labels) == 2 and any("Bob" in x for x in labels)
    assert not any("王小明" in x or "Alice" in x for x in labels)
    # an admin removes by a mention; a full name that is nobody's offers the list
    admin.say(group.id, "/kick", mention=hong)
    await api.wait_for(lambda: texts_to(env, group.id, "王小红 was removed"))
    alice.say(group.id, "/kick Zed")
    await api.wait_for(lambda: texts_to(env, group.id, "Nobody here is called"))
    # the old list's button for a player already removed: out of date, nobody removed
    qid = alice.press(menu, "王小红")
    await api.wait_for(lambda: api.callback_queries[qid]["answered"])
    assert "out of date" in str(api.callback_queries[qid]["answer"].get("text"))
    await finish_checks(env)
