"""Commands and lobby life: /help, /rules, /lang, /kick, /cancel, auto-start, a two-round
game with the round-end reveal and "Ready" buttons, and /stats afterwards."""

from __future__ import annotations

import random
from datetime import datetime
from typing import Any

from core.service.models import ServiceConfig
from telegram_bot.app import BotOptions
from tests.telegram_bot.bot_driver import (
    assert_no_leaks,
    choose_language,
    is_lobby,
    join,
    open_lobby,
    play_game,
    wait_async,
)
from tests.telegram_bot.conftest import BotEnv, running_bot
from tests.telegram_bot.fake_bot_api import FakeBotAPI, buttons

# the first entry of the command menu in each language
MENU_EN = "open a game in this group"
MENU_HANS, MENU_HANT = "在本群开一局游戏", "在本群組開一局遊戲"


def menu_readers(api: FakeBotAPI, group_id: int, first: int) -> tuple[Any, ...]:
    """A group whose admin Ann reads English, with Li (Simplified), Wen (zh-Hant) and Ho
    (zh-HK): the group, then the four users."""
    group = api.group(group_id, f"Menus {first}", admins=[first])
    codes = {"Ann": "en", "Li": "zh-hans", "Wen": "zh-hant", "Ho": "zh-hk"}
    users = [
        api.user(first + i, name, language_code=code)
        for i, (name, code) in enumerate(codes.items())
    ]
    return (group, *users)


async def test_command_menus_follow_each_readers_language(fast_env: BotEnv) -> None:
    """The "/" menu as each member would see it (Telegram's documented order of scopes and
    two-letter languages): English by default, Simplified for any "zh" reader, and
    Traditional where the bot knows better - a zh-Hant reader's private chat from their
    first /start, and a group whose admin chose Traditional with /lang."""
    api = fast_env.api
    group, ann, li, wen, hk = menu_readers(api, -3101, 11)
    en, hans, hant = MENU_EN, MENU_HANS, MENU_HANT
    await api.wait_for(lambda: api.menu_for(ann.id, ann.id))  # set at start
    assert api.menu_for(ann.id, ann.id)[0] == en
    assert api.menu_for(li.id, li.id)[0] == hans
    assert api.menu_for(group.id, wen.id)[0] == hans  # "zh" is one list for both scripts
    for u in (ann, li, wen):
        u.press_start()
    await api.wait_for(lambda: api.menu_for(wen.id, wen.id)[0] == hant)
    hk.press_start()
    await api.wait_for(lambda: api.menu_for(hk.id, hk.id)[0] == hant)
    await api.wait_for(lambda: len(api.bot_messages(li.id)) > 0)
    assert api.menu_for(li.id, li.id)[0] == hans and api.menu_for(ann.id, ann.id)[0] == en
    # Wen prefers English after all: their private chat follows the choice
    await choose_language(api, wen, wen.id, "English")
    await api.wait_for(lambda: api.menu_for(wen.id, wen.id)[0] == en)
    wen.press_start()  # a later /start does not undo the choice
    await api.wait_for(lambda: len(api.bot_messages(wen.id)) > 2)
    assert api.menu_for(wen.id, wen.id)[0] == en
    # the group's admin chooses Traditional: everyone there reads the group's language
    await choose_language(api, ann, group.id, "繁體中文")
    await api.wait_for(lambda: api.menu_for(group.id, ann.id)[0] == hant)
    assert api.menu_for(group.id, li.id)[0] == hant
    assert api.menu_for(li.id, li.id)[0] == hans  # private chats keep their own
    assert not [c for c in api.calls if "MyCommands" in c.method and not c.ok]


async def test_traditional_readers_get_their_own_menu_in_a_group(fast_env: BotEnv) -> None:
    """In a group whose language nobody chose, a zh-Hant / zh-HK reader gets the
    Traditional menu there for themself once they use the bot in it; others keep their
    language's list. When the admin then sets the group's language, the group's list is
    everyone's again: the member's own list goes with their next command there."""
    api = fast_env.api
    group, ann, li, wen, hk = menu_readers(api, -3102, 21)
    en, hans, hant = MENU_EN, MENU_HANS, MENU_HANT
    await api.wait_for(lambda: api.menu_for(ann.id, ann.id))  # the global lists, at start
    assert api.menu_for(group.id, wen.id)[0] == hans  # before Wen uses the bot there
    for u in (ann, li, wen, hk):
        u.say(group.id, "/help")
    await api.wait_for(lambda: api.menu_for(group.id, wen.id)[0] == hant)
    await api.wait_for(lambda: api.menu_for(group.id, hk.id)[0] == hant)
    await api.wait_for(lambda: len(api.bot_messages(group.id)) >= 4)
    assert api.menu_for(group.id, li.id)[0] == hans
    assert api.menu_for(group.id, ann.id)[0] == en
    assert api.menu_for(wen.id, wen.id)[0] == hans  # the private chat: not until /start there
    # the admin sets the group's language to English: everyone there reads English
    await choose_language(api, ann, group.id, "English")
    await api.wait_for(lambda: api.menu_for(group.id, li.id)[0] == en)
    wen.say(group.id, "/rules")
    await api.wait_for(lambda: api.menu_for(group.id, wen.id)[0] == en)
    assert api.menu_for(group.id, hk.id)[0] == hant  # Ho has not used the bot there since
    hk.say(group.id, "/help")
    await api.wait_for(lambda: api.menu_for(group.id, hk.id)[0] == en)
    member_calls = [
        c for c in api.calls if "MyCommands" in c.method and "chat_member" in str(c.params)
    ]
    assert len(member_calls) == 4  # set once for each, removed once for each
    assert all(c.ok for c in api.calls if "MyCommands" in c.method)


async def test_a_group_nobody_chose_a_language_for_follows_who_speaks(fast_env: BotEnv) -> None:
    """Before anyone runs /lang in a group, a command's reply is in the asker's language
    and a game speaks its opener's; once /lang chooses, the group's language is everyone's."""
    env, api = fast_env, fast_env.api
    group = api.group(-3101, "Mixed", admins=[1])
    mei = api.user(1, "Mei", language_code="zh-TW")
    wen = api.user(2, "Wen", language_code="en")
    for u in (mei, wen):
        u.press_start()
    wen.say(group.id, "/help")
    await api.wait_for(
        lambda: api.last_bot_message(group.id, lambda m: "open a game" in m.get("text", ""))
    )
    mei.say(group.id, "/help")
    await api.wait_for(
        lambda: api.last_bot_message(group.id, lambda m: "在本群組開一局遊戲" in m.get("text", ""))
    )
    game_id = await open_lobby(env, group, mei)
    lobby = await api.wait_for(lambda: api.last_bot_message(group.id, is_lobby))
    assert "矮人礦坑" in lobby["text"] and "加入" in buttons(lobby)[0]["text"]
    assert (await env.service.view(game_id, None))["settings"]["language"] == "zh-hant"
    await join(env, game_id, group, wen)  # a joiner does not change the game's language
    joined = await api.wait_for(
        lambda: api.last_bot_message(group.id, lambda m: is_lobby(m) and "Wen" in m.get("text", ""))
    )
    assert "矮人礦坑" in joined["text"]
    await choose_language(api, mei, group.id, "English")  # the admin chooses for the group
    await api.wait_for(
        lambda: api.last_bot_message(group.id, lambda m: "Language" in m.get("text", ""))
    )
    mei.say(group.id, "/rules")
    await api.wait_for(
        lambda: api.last_bot_message(group.id, lambda m: "Rules" in m.get("text", ""))
    )


async def test_help_rules_lang_kick_cancel(fast_env: BotEnv) -> None:
    env, api = fast_env, fast_env.api
    group = api.group(-3001, "Commands", admins=[1])
    alice, bob, chen = (api.user(i + 1, n) for i, n in enumerate(["Alice", "Bob", "Chen"]))
    for u in (alice, bob, chen):
        u.press_start()
    bob.say(group.id, "/help")
    await api.wait_for(
        lambda: api.last_bot_message(group.id, lambda m: "/new" in m.get("text", ""))
    )
    bob.say(group.id, "/rules")
    await api.wait_for(
        lambda: api.last_bot_message(group.id, lambda m: "Rules" in m.get("text", ""))
    )

    # /lang in private: the user's own language from now on
    await choose_language(api, bob, bob.id, "繁體中文")
    await api.wait_for(lambda: api.last_bot_message(bob.id, lambda m: "語言" in m.get("text", "")))
    # /lang in the group: admins only
    bob.say(group.id, "/lang")
    await api.wait_for(
        lambda: api.last_bot_message(group.id, lambda m: "admin" in m.get("text", ""))
    )
    qid = await choose_language(api, alice, group.id, "简体中文")
    await api.wait_for(lambda: api.callback_queries[qid]["answered"])

    game_id = await open_lobby(env, group, alice)
    lobby = await api.wait_for(
        lambda: api.last_bot_message(
            group.id,
            lambda m: ":jn" in str(m.get("reply_markup")) and "矮人矿坑" in m.get("text", ""),
        )
    )
    assert "加入" in buttons(lobby)[0]["text"]  # the group's language
    for u in (bob, chen):
        await join(env, game_id, group, u)
    joined = api.last_bot_message(bob.id, lambda m: "✅" in m.get("text", ""))
    assert joined is not None and "你已加入遊戲" in joined["text"]  # Bob's own language

    # the countdown runs once enough players sit; "+1 min" extends it; a computer joins
    async def countdown() -> float:  # the service's lobby timer, as the view shows it
        at = (await env.service.view(game_id, None)).get("autostart_at")
        return 0.0 if at is None else datetime.fromisoformat(at).timestamp()

    before = await wait_async(countdown)
    lobby = api.last_bot_message(group.id, lambda m: ":jn" in str(m.get("reply_markup")))
    qid = bob.press(lobby, "+1")
    await api.wait_for(lambda: api.callback_queries[qid]["answered"])
    assert await countdown() >= before + 60
    alice.press(lobby, "🤖")

    async def computer_seated() -> bool:
        return any(s.computer for s in await env.service.seats(game_id))

    await wait_async(computer_seated)

    # /kick: reply to the player's message; creator or admin only
    chen_msg = chen.message_update(group.id, "hello")["message"]
    bob.say(group.id, "/kick", reply_to=chen_msg)
    alice.say(group.id, "/kick", reply_to=chen_msg)

    async def chen_gone() -> bool:
        return chen.id not in {s.user_id for s in await env.service.seats(game_id)}

    await wait_async(chen_gone)
    assert bob.id in {s.user_id for s in await env.service.seats(game_id)}

    # cancel from the lobby button: the lobby message says it is closed
    lobby = api.last_bot_message(group.id, lambda m: ":jn" in str(m.get("reply_markup")))
    bob.press(lobby, "取消")  # not the creator nor an admin: refused
    alice.press(lobby, "取消")
    await api.wait_for(
        lambda: api.last_bot_message(group.id, lambda m: "已关闭" in m.get("text", ""))
    )
    assert (await env.service.view(game_id, None))["status"] == "cancelled"
    assert (
        await env.service.game_for_chat(
            __import__("core.service.models", fromlist=["ChatKey"]).ChatKey(group.id, None)
        )
        is None
    )
    await api.wait_for(lambda: not api.unanswered_queries())
    assert_no_leaks(env, None, set())


async def test_autostart_two_rounds_and_stats() -> None:
    api = FakeBotAPI(group_window=6.0)
    await api.start()
    try:
        async with running_bot(
            api,
            options=BotOptions(poll_timeout=1, autostart_s=2, group_burst=5, group_period_s=2.0),
        ) as env:
            group = api.group(-3002, "Quick")
            users = [api.user(i + 1, n) for i, n in enumerate(["Ann", "Ben"])]
            for u in users:
                u.press_start()
            game_id = await open_lobby(env, group, users[0])
            await join(env, game_id, group, users[1])
            await env.service.configure(game_id, users[0].id, rounds=2)
            await env.service.add_computer(game_id, users[0].id)

            async def started() -> bool:
                return (await env.service.view(game_id, None))["status"] != "lobby"

            await wait_async(started, timeout=10)  # nobody pressed Start
            await play_game(env, game_id, {u.id: u for u in users}, random.Random(3))

            def reveals() -> list:
                return [m for m in api.bot_messages(group.id) if "🏁" in m.get("text", "")]

            await api.wait_for(lambda: len(reveals()) >= 2, timeout=20)
            assert len(reveals()) == 2
            await api.wait_for(
                lambda: api.last_bot_message(group.id, lambda m: "🏆" in m.get("text", "")),
                timeout=20,
            )

            async def archived() -> bool:
                return bool((await env.service.stats_for_chat(group.id))["games"])

            await wait_async(archived, timeout=10)
            users[0].say(group.id, "/stats")
            stats = await api.wait_for(
                lambda: api.last_bot_message(
                    group.id, lambda m: "Games in this group: 1" in m.get("text", "")
                ),
                timeout=15,
            )
            assert "Ann" in stats["text"] and "You:" in stats["text"]
            assert not api.rate_limited
            await api.wait_for(lambda: not api.unanswered_queries())
    finally:
        await api.stop()


async def test_expired_lobby_message_is_closed(fake_api: FakeBotAPI) -> None:
    api = fake_api
    config = ServiceConfig(lobby_ttl_s=2, timer_interval_s=0.05)
    async with running_bot(api, service_config=config) as env:
        group = api.group(-3003, "Idle")
        alice = api.user(1, "Alice")
        alice.press_start()
        await open_lobby(env, group, alice)
        closed = await api.wait_for(
            lambda: api.last_bot_message(group.id, lambda m: "closed" in m.get("text", "")),
            timeout=15,
        )
        assert not closed.get("reply_markup")
