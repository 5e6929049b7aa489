"""/history and the final group message's links to the finished game and "My games"."""

from __future__ import annotations

from core.service import ChatKey
from tests.miniapp.test_api_history import finished_game
from tests.telegram_bot.bot_driver import is_lobby, open_lobby
from tests.telegram_bot.conftest import BotEnv


def _urls(message: dict) -> list[str]:
    markup = message.get("reply_markup") or {}
    return [
        b.get("url") or (b.get("web_app") or {}).get("url")
        for row in markup.get("inline_keyboard", [])
        for b in row
    ]


async def test_history_and_the_final_message_link_to_the_mini_app(fast_env: BotEnv) -> None:
    api = fast_env.api
    group = api.group(-3301, "Cave")
    ann = api.user(31, "Ann")
    ann.press_start()
    game_id = await finished_game(fast_env.service, rounds=1, user=ann.id, chat=ChatKey(group.id))
    final = await api.wait_for(
        lambda: api.last_bot_message(group.id, lambda m: "🏆" in m.get("text", "")), timeout=20
    )
    urls = _urls(final)
    assert f"https://t.me/{fast_env.deps.bot_username}/board?startapp={game_id}" in urls
    assert any(u.endswith("startapp=history") for u in urls)
    # in a private chat: the list, and the link
    ann.say(ann.id, "/history")
    mine = await api.wait_for(
        lambda: api.last_bot_message(ann.id, lambda m: "My games" in m.get("text", "")),
        timeout=15,
    )
    assert "Cave · Classic: " in mine["text"] and " gold" in mine["text"]
    assert any(u.endswith("startapp=history") for u in _urls(mine))
    # in the group: the link only (nobody's games listed there)
    ann.say(group.id, "/history")
    there = await api.wait_for(
        lambda: api.last_bot_message(group.id, lambda m: "My games" in m.get("text", "")),
        timeout=15,
    )
    assert "Cave ·" not in there["text"] and _urls(there)
    # a user without finished games
    ben = api.user(32, "Ben", language_code="zh-hans")
    ben.press_start()
    ben.say(ben.id, "/history")
    none = await api.wait_for(
        lambda: api.last_bot_message(ben.id, lambda m: "我的对局" in m.get("text", "")),
        timeout=15,
    )
    assert "还没有已结束的对局" in none["text"]


async def test_a_change_in_the_mini_app_redraws_the_bots_lobby(fast_env: BotEnv) -> None:
    """The lobby sheet's one commit (GameService.set_lobby, what PATCH .../settings calls)
    reaches the group's lobby message through the change feed the notifier follows."""
    api = fast_env.api
    group = api.group(-3302, "Cave")
    ann = api.user(33, "Ann")
    ann.press_start()
    game_id = await open_lobby(fast_env, group, ann)
    await fast_env.service.set_lobby(
        game_id,
        ann.id,
        {"edition": "expansion", "rounds": 1, "turn_time": 60, "bounded_board": True},
        computers=2,
    )

    def redrawn() -> dict | None:
        return api.last_bot_message(
            group.id,
            lambda m: (
                is_lobby(m) and "Rounds: 1" in m.get("text", "") and "Saboteur 2" in m["text"]
            ),
        )

    lobby = await api.wait_for(redrawn, timeout=15)
    assert "1 min" in lobby["text"] and lobby["text"].count("🤖") == 2
