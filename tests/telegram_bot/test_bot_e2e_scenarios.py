"""Scenarios around a game: forum topics, lobby settings, secrets alert, inline mode, stale
buttons, /leave, timeouts with warning and takeover, a player who never opened a private
chat. Every scenario ends with the same leak scan and "every callback answered"."""

from __future__ import annotations

import asyncio
import copy
import random
from typing import Any

from core.service.models import ChatKey
from tests.telegram_bot.bot_driver import (
    assert_no_leaks,
    callback_parts,
    join,
    open_lobby,
    panel_for,
    play_turn,
    wait_async,
)
from tests.telegram_bot.conftest import BotEnv
from tests.telegram_bot.fake_bot_api import FakeChat, FakeUser, buttons, find_button


async def _players(env: BotEnv, names: list[str], *, started: bool = True) -> list[FakeUser]:
    users = [env.api.user(i + 1, n) for i, n in enumerate(names)]
    for u in users:
        if started:
            u.press_start()
    return users


async def _start(
    env: BotEnv,
    group: FakeChat,
    users: list[FakeUser],
    *,
    thread_id: int | None = None,
    **settings: Any,
) -> str:
    game_id = await open_lobby(env, group, users[0], thread_id=thread_id)
    for u in users[1:]:
        await join(env, game_id, group, u)
    await env.service.configure(game_id, users[0].id, rounds=1, **settings)
    lobby = await env.api.wait_for(
        lambda: env.api.last_bot_message(group.id, lambda m: ":jn" in str(m.get("reply_markup")))
    )
    users[0].press(lobby, "Start")

    async def started() -> bool:
        return (await env.service.view(game_id, None))["status"] != "lobby"

    await wait_async(started)
    return game_id


async def _actor(env: BotEnv, game_id: str, users: list[FakeUser]) -> tuple[FakeUser, int]:
    sv = await env.service.view(game_id, None)
    seat = (await env.service.seats(game_id))[sv["current_seat"]]
    return next(u for u in users if u.id == seat.user_id), int(sv["version"])


def _board(env: BotEnv, chat_id: int) -> dict[str, Any] | None:
    return env.api.last_bot_message(chat_id, lambda m: "photo" in m)


async def test_forum_topic_settings_secrets_inline_stale_and_leave(fast_env: BotEnv) -> None:
    env, api = fast_env, fast_env.api
    group = api.group(-1002, "Dwarf guild", forum=True)
    alice, bob, chen = await _players(env, ["Alice", "Bob", "Chen"])
    dan = api.user(9, "Dan")
    game_id = await open_lobby(env, group, alice, thread_id=77)

    # lobby settings through the buttons: quick one-round game, then back
    lobby = api.last_bot_message(group.id, lambda m: ":jn" in str(m.get("reply_markup")))
    assert lobby is not None
    alice.press(lobby, "Settings")
    settings_msg = await api.wait_for(
        lambda: api.last_bot_message(group.id, lambda m: "Rounds:" in str(m.get("reply_markup")))
    )
    bob.press(settings_msg, "Rounds:")  # not the creator: refused with an alert
    alice.press(settings_msg, "Rounds:")

    async def one_round() -> bool:
        return (await env.service.view(game_id, None))["rounds"] == 1

    await wait_async(one_round)
    settings_msg = await api.wait_for(
        lambda: api.last_bot_message(group.id, lambda m: "Rounds: 1" in str(m.get("reply_markup")))
    )
    # how strong the computer plays: normal -> hard, for the table's computer seats
    alice.press(settings_msg, "Computer players: Normal")
    settings_msg = await api.wait_for(
        lambda: api.last_bot_message(
            group.id, lambda m: "Computer players: Hard" in str(m.get("reply_markup"))
        )
    )
    assert (await env.service.view(game_id, None))["settings"]["computer_level"] == "hard"
    # the group's language: English -> 简体中文 -> 繁體中文 -> English, the settings follow
    for name, setting in (("简体中文", "zh-hans"), ("繁體中文", "zh-hant"), ("English", "en")):
        alice.press(settings_msg, "🌐")
        settings_msg = await api.wait_for(
            lambda name=name: api.last_bot_message(
                group.id, lambda m: f"🌐 {name}" in str(m.get("reply_markup"))
            )
        )
        assert (await env.service.view(game_id, None))["settings"]["language"] == setting
    alice.press(settings_msg, "Back")
    await api.wait_for(
        lambda: api.last_bot_message(group.id, lambda m: ":jn" in str(m.get("reply_markup")))
    )
    refused = [q for q in api.callback_queries.values() if q["user"] == bob.id]
    await api.wait_for(lambda: all(q["answered"] for q in refused))
    assert refused[0]["answer"].get("show_alert")

    for u in (bob, chen):
        await join(env, game_id, group, u)
    lobby = api.last_bot_message(group.id, lambda m: ":jn" in str(m.get("reply_markup")))
    alice.press(lobby, "Start")
    board = await api.wait_for(lambda: _board(env, group.id), timeout=20)
    assert board["message_thread_id"] == 77

    # "my secrets": an alert only the presser sees, ≤ 200 characters
    qid = bob.press(board, "My secrets")
    await api.wait_for(lambda: api.callback_queries[qid]["answered"])
    answer = api.callback_queries[qid]["answer"]
    bob_view = await env.service.view(game_id, bob.id)
    assert answer["show_alert"] is True and len(answer["text"]) <= 200
    assert env.deps and "Your role" in answer["text"]
    from telegram_bot.i18n import Translator

    assert Translator("en").role(bob_view["you"]["role"]) in answer["text"]
    qid = dan.press(board, "My secrets")
    await api.wait_for(lambda: api.callback_queries[qid]["answered"])
    assert "not playing" in api.callback_queries[qid]["answer"]["text"]

    # inline mode: personal, uncached; private facts only in title/description
    iq = bob.inline("")
    await api.wait_for(lambda: api.inline_queries[iq]["answered"])
    inline = api.inline_queries[iq]["answer"]
    assert inline["is_personal"] is True and inline["cache_time"] == 0
    result = inline["results"][0]
    role_name = Translator("en").role(bob_view["you"]["role"])
    assert role_name in result["title"] and "Dwarf guild" in result["title"]
    sent_text = result["input_message_content"]["message_text"]
    assert role_name not in sent_text
    assert not any(Translator("en").card(c["card"]) in sent_text for c in bob_view["you"]["hand"])

    # a stale button: the actor's panel from before their move, pressed afterwards
    actor, version = await _actor(env, game_id, [alice, bob, chen])
    panel = await api.wait_for(lambda: panel_for(env, actor.id, version))
    old = copy.deepcopy(panel)
    card = next(b for b in buttons(old) if callback_parts(b)[0] == "c")
    actor.press(old, lambda b: b == card)

    def shown(kind: str) -> list[dict]:
        return [
            b
            for b in buttons(api.messages[(actor.id, panel["message_id"])])
            if callback_parts(b)[0] == kind
        ]

    plays = await api.wait_for(lambda: shown("p"))  # a play asks for one confirming press
    actor.press(api.messages[(actor.id, panel["message_id"])], lambda b: b == plays[0])
    confirm = await api.wait_for(lambda: shown("m"))
    actor.press(api.messages[(actor.id, panel["message_id"])], lambda b: b == confirm[0])

    async def moved() -> bool:
        return int((await env.service.view(game_id, None))["version"]) > version

    await wait_async(moved)
    qid = actor.press(old, lambda b: b == card)
    await api.wait_for(lambda: api.callback_queries[qid]["answered"])
    assert "board changed" in api.callback_queries[qid]["answer"]["text"]

    # /leave in the topic: the computer takes the seat, the game goes on
    chen.say(group.id, "/leave", thread_id=77)

    async def chen_away() -> bool:
        seats = await env.service.seats(game_id)
        return any(s.user_id == chen.id and s.auto for s in seats)

    await wait_async(chen_away)
    await api.wait_for(
        lambda: api.last_bot_message(group.id, lambda m: "left the game" in m.get("text", ""))
    )
    # every group message went to the topic
    for call in api.group_calls():
        if call.method in ("sendMessage", "sendPhoto"):
            assert call.params.get("message_thread_id") == 77, call.params
    await api.wait_for(lambda: not api.unanswered_queries())
    assert_no_leaks(env, None, set())
    assert not api.rate_limited


async def test_timeout_warning_and_takeover(fast_env: BotEnv) -> None:
    env, api = fast_env, fast_env.api
    group = api.group(-1003, "Slow table")
    users = await _players(env, ["Ann", "Ben", "Cat"])
    game_id = await _start(env, group, users, turn_time=10, takeover_after=1)
    actor, version = await _actor(env, game_id, users)
    await api.wait_for(lambda: panel_for(env, actor.id, version))
    warning = await api.wait_for(
        lambda: api.last_bot_message(actor.id, lambda m: m.get("text", "").startswith("⏳")),
        timeout=12,
    )
    assert "s left" in warning["text"]
    await api.wait_for(
        lambda: api.last_bot_message(actor.id, lambda m: m.get("text", "").startswith("⌛")),
        timeout=12,
    )
    takeover = await api.wait_for(
        lambda: api.last_bot_message(
            actor.id, lambda m: "Take my seat back" in str(m.get("reply_markup"))
        ),
        timeout=12,
    )

    async def is_auto(value: bool) -> bool:
        seats = await env.service.seats(game_id)
        return any(s.user_id == actor.id and s.auto == value for s in seats)

    assert await is_auto(True)
    actor.press(takeover, "Take my seat back")
    await wait_async(lambda: is_auto(False))
    await api.wait_for(lambda: not api.unanswered_queries())
    assert_no_leaks(env, None, set())


async def test_player_without_private_chat_gets_a_group_notice(fast_env: BotEnv) -> None:
    env, api = fast_env, fast_env.api
    group = api.group(-1004, "New folks")
    alice, bob, chen = await _players(env, ["Alice", "Bob", "Chen"], started=False)
    bob.press_start()
    chen.press_start()
    await _start(env, group, [alice, bob, chen])
    notice = await api.wait_for(
        lambda: api.last_bot_message(
            group.id, lambda m: "cannot write to you" in m.get("text", "")
        ),
        timeout=15,
    )
    assert "Alice" in notice["text"]
    button = find_button(notice, "Open my private chat")
    assert button["url"].startswith("https://t.me/")
    for u in (bob, chen):
        await api.wait_for(
            lambda u=u: api.last_bot_message(u.id, lambda m: "🎭" in m.get("text", ""))
        )
    # one notice per game, however many messages could not be delivered
    await asyncio.sleep(0.3)
    notices = [m for m in api.bot_messages(group.id) if "cannot write" in m.get("text", "")]
    assert len(notices) == 1
    # Alice follows the button: her role and hand arrive, and she can play her turns
    alice.press_start(button["url"].split("?start=", 1)[1])
    await api.wait_for(lambda: api.last_bot_message(alice.id, lambda m: "🎭" in m.get("text", "")))
    game_id = await env.service.game_for_chat(ChatKey(group.id, None))
    assert game_id
    for _ in range(4):  # a few turns, whoever's they are, all through private buttons
        actor, version = await _actor(env, game_id, [alice, bob, chen])
        await play_turn(env, actor, version, random.Random(version))

        async def moved(v: int = version) -> bool:
            return int((await env.service.view(game_id, None))["version"]) > v

        await wait_async(moved)
    assert_no_leaks(env, None, set())
