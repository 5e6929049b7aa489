"""Complete games of both editions played through the private-chat buttons.

Simulated users open a lobby in a group, join with the deep link, start, receive roles
and hands privately and play by pressing inline buttons until the final scores; the
whole record of Bot API calls is then scanned for leaks and for the group budget.
"""

from __future__ import annotations

import asyncio
import functools
import random
import re
import time
from typing import Any

import opencc

from core.store import RedisStore
from telegram_bot.i18n import Translator
from tests.telegram_bot.bot_driver import (
    assert_no_leaks,
    hand_ids,
    join,
    open_lobby,
    play_game,
    wait_async,
)
from tests.telegram_bot.conftest import BotEnv, running_bot
from tests.telegram_bot.fake_bot_api import FakeBotAPI, buttons


async def _secrets_during(
    env: BotEnv, game_id: str, users: list[int], stop: asyncio.Event, found: set[str]
) -> None:
    """Collect every hand instance id seen while the game runs (they must never leak)."""
    while not stop.is_set():
        for uid in users:
            view = await env.service.view(game_id, uid)
            found.update(hand_ids(view))
        await asyncio.sleep(0.05)


async def _full_game(env: BotEnv, edition: str, humans: int, computers: int, seed: int) -> None:
    api: FakeBotAPI = env.api
    group = api.group(-1001, "Mine shaft", admins=[1])
    players = [
        api.user(i + 1, name, language_code=lang)
        for i, (name, lang) in enumerate(
            [("Alice", "en"), ("Bo", "zh-hans"), ("Chen", "zh-TW"), ("Dee", "en")][:humans]
        )
    ]
    creator = players[0]
    creator.press_start()
    game_id = await open_lobby(
        env, group, creator, command="/new 2" if edition == "expansion" else "/new"
    )
    for p in players[1:]:
        await join(env, game_id, group, p)
    await env.service.configure(game_id, creator.id, rounds=1)
    for _ in range(computers):
        await env.service.add_computer(game_id, creator.id)
    lobby = api.last_bot_message(group.id, lambda m: ":jn" in str(m.get("reply_markup")))
    assert lobby is not None
    creator.press(lobby, "Start")
    await wait_async(lambda: _status(env, game_id, "lobby", negate=True))

    # every human gets their role and hand privately, in their own language
    for p in players:
        msg = await api.wait_for(
            lambda p=p: api.last_bot_message(p.id, lambda m: "🎭" in m.get("text", ""))
        )
        view = await env.service.view(game_id, p.id)
        t = Translator(
            {"en": "en", "zh-hans": "zh_Hans", "zh-TW": "zh_Hant"}[p.language_code or "en"]
        )
        assert t.role(view["you"]["role"]) in msg["text"]
        assert t.card(view["you"]["hand"][0]["card"]) in msg["text"]

    secrets: set[str] = set()
    stop = asyncio.Event()
    collector = asyncio.create_task(
        _secrets_during(env, game_id, [p.id for p in players], stop, secrets)
    )
    started = time.monotonic()
    turns = await play_game(env, game_id, {p.id: p for p in players}, random.Random(seed))
    reveal_at = time.monotonic()
    stop.set()
    await collector
    sv = await env.service.view(game_id, None)
    assert sv["status"] == "finished"
    assert turns > 0

    # final scores reach the group and every player
    await api.wait_for(
        lambda: api.last_bot_message(
            group.id, lambda m: "🏆" in m.get("text", "") and "🪙" in m.get("text", "")
        ),
        timeout=30,
    )
    for p in players:
        await api.wait_for(
            lambda p=p: api.last_bot_message(p.id, lambda m: "🏆" in m.get("text", "")), timeout=10
        )

    # the reveal may reach the group before the driver polls the finished state
    reveal_at = min(
        [reveal_at]
        + [c.at for c in api.group_calls() if any("🏁" in x or "🏆" in x for x in c.texts())]
    )

    # one board message per game: a photo, then only edits
    await api.wait_for(
        lambda: [c for c in api.calls if c.chat_id == group.id and c.method == "sendPhoto"],
        timeout=30,
    )
    photos = [c for c in api.calls if c.chat_id == group.id and c.method == "sendPhoto"]
    assert len(photos) == 1
    board = [m for m in api.bot_messages(group.id) if "photo" in m]
    assert len(board) == 1
    assert not any(b.get("web_app") for b in buttons(board[0]))
    assert any("startapp=" in str(b.get("url")) for b in buttons(board[0]))

    # budget: never a 429, and on average at most one group call per turn
    assert not api.rate_limited
    group_calls = [c for c in api.group_calls() if c.at >= started]
    assert len(group_calls) <= max(turns, 6), (len(group_calls), turns)

    assert_no_leaks(env, reveal_at, secrets)
    assert not api.unanswered_queries()


async def _status(env: BotEnv, game_id: str, status: str, negate: bool = False) -> bool:
    current = (await env.service.view(game_id, None))["status"]
    return (current != status) if negate else (current == status)


async def test_classic_game_three_humans(bot_env: BotEnv) -> None:
    await _full_game(bot_env, "classic", humans=3, computers=0, seed=1)


async def test_expansion_game_with_a_computer(bot_env: BotEnv) -> None:
    await _full_game(bot_env, "expansion", humans=2, computers=1, seed=2)


async def test_classic_game_on_redis(
    fake_api: FakeBotAPI, redis_url: str, redis_prefix: str, redis_client: Any
) -> None:
    """The same game with the Redis store: claims, the token bucket and the adapter data
    go through Redis (what several workers share)."""
    store = RedisStore.from_url(redis_url, prefix=redis_prefix)
    async with running_bot(fake_api, store=store) as env:
        await _full_game(env, "classic", humans=3, computers=0, seed=4)
    assert await redis_client.keys(redis_prefix + "*once:tg:*")
    assert await redis_client.keys(redis_prefix + "{send}:*")  # the shared send budget


def _latin_words(text: str) -> list[str]:
    """Words of three or more Latin letters, outside HTML tags, links, /commands and
    @usernames (which are the same in every language)."""
    return re.findall(r"[A-Za-z]{3,}", re.sub(r"<[^>]+>|https?://\S+|[/@]\w+", " ", text))


NAMES_AT_THE_TABLE = ("阿明", "小華", "矿坑")  # the players' and the group's, as they wrote them


@functools.cache
def _to_script(config: str) -> Any:
    return opencc.OpenCC(config).convert


def _assert_reads_as(config: str, piece: str, where: object) -> None:
    """No English in ``piece``, and nothing the OpenCC ``config`` (t2s: Simplified, s2tw:
    Traditional) would change, names aside."""
    assert not _latin_words(piece), (where, piece)
    words = piece
    for name in NAMES_AT_THE_TABLE:
        words = words.replace(name, "")
    assert _to_script(config)(words) == words, (where, piece)


async def test_a_chinese_table_reads_no_english(bot_env: BotEnv) -> None:
    """A whole Saboteur 2 game with two computers, opened by a Simplified reader in a group
    nobody chose a language for, with a Traditional reader: every text and button the bot
    sends to the group and to each player is in their script, computers included."""
    env, api = bot_env, bot_env.api
    group = api.group(-1002, "矿坑", admins=[1])
    ming = api.user(1, "阿明", language_code="zh-CN")
    hua = api.user(2, "小華", language_code="zh-TW")
    for p in (ming, hua):
        p.press_start()
    game_id = await open_lobby(env, group, ming, command="/new 2")
    await join(env, game_id, group, hua)
    await env.service.configure(game_id, ming.id, rounds=1)
    for _ in range(2):
        await env.service.add_computer(game_id, ming.id)
    lobby = await api.wait_for(
        lambda: api.last_bot_message(group.id, lambda m: "电脑 2" in m.get("text", ""))
    )
    ming.press(lobby, "开始")
    await wait_async(lambda: _status(env, game_id, "lobby", negate=True))
    iq = hua.inline("")  # peeking from the group: the results are hers, in her script
    await api.wait_for(lambda: api.inline_queries[iq]["answered"])
    results = api.inline_queries[iq]["answer"]["results"]
    assert results
    peek = [str(r.get(k, "")) for r in results for k in ("title", "description")]
    peek += [str(r["input_message_content"]["message_text"]) for r in results]
    await play_game(env, game_id, {p.id: p for p in (ming, hua)}, random.Random(5))
    await api.wait_for(
        lambda: api.last_bot_message(group.id, lambda m: "🏆" in m.get("text", "")), timeout=30
    )
    for piece in filter(None, peek):
        _assert_reads_as("s2tw", piece, "inline")
    checked = 0
    for chat, config in ((group.id, "t2s"), (ming.id, "t2s"), (hua.id, "s2tw")):
        for m in api.bot_messages(chat):
            pieces = [m.get("text") or m.get("caption") or ""]
            pieces += [str(b.get("text", "")) for b in buttons(m)]
            for piece in filter(None, pieces):
                _assert_reads_as(config, piece, chat)
                checked += 1
    assert checked > 30
