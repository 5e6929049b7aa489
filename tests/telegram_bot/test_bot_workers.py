"""Two workers behind a load balancer (webhook mode), one Redis: every side effect once.

Both workers hear every change (pub/sub); the claims in Redis decide which one sends the
deal, each turn prompt, the board edits and the results, and the token bucket in Redis
budgets the group for both (ARCHITECTURE principle 9).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import socket
from collections import Counter
from collections.abc import AsyncIterator
from typing import Any

from aiohttp import web

from core.service.models import ServiceConfig
from core.service.service import GameService
from core.store import RedisStore
from telegram_bot.app import BotOptions, attach_bot, build_application
from tests.telegram_bot.bot_driver import assert_no_leaks, join, open_lobby, play_game, wait_async
from tests.telegram_bot.conftest import BotEnv, make_settings
from tests.telegram_bot.fake_bot_api import FakeBotAPI


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.asynccontextmanager
async def _worker(api: FakeBotAPI, redis_url: str, prefix: str) -> AsyncIterator[BotEnv]:
    port = _free_port()
    settings = make_settings(
        api, webhook_url=f"http://127.0.0.1:{port}/hook", webhook_secret="shared-secret"
    )
    store = RedisStore.from_url(redis_url, prefix=prefix)
    service = GameService(
        store,
        ServiceConfig(
            think_delay_s=0.05, bot_ready_delay_s=0.05, round_pause_s=2, timer_interval_s=0.05
        ),
    )
    application = build_application(settings, service, BotOptions(poll_timeout=1))
    web_app = web.Application()

    async def timers(_app: web.Application) -> AsyncIterator[None]:
        await store.start()
        task = asyncio.create_task(service.run_timers())
        yield
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await store.close()

    web_app.cleanup_ctx.append(timers)
    attach_bot(web_app, application, settings)
    runner = web.AppRunner(web_app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    api.webhook_targets.append(settings.webhook_url or "")
    try:
        yield BotEnv(api, service, application, settings)
    finally:
        await runner.cleanup()


async def test_two_workers_send_everything_once(
    fake_api: FakeBotAPI, redis_url: str, redis_prefix: str, redis_client: Any
) -> None:
    api = fake_api
    async with (
        _worker(api, redis_url, redis_prefix) as env,
        _worker(api, redis_url, redis_prefix) as _other,
    ):
        group = api.group(-4001, "Two workers")
        users = [api.user(i + 1, n) for i, n in enumerate(["Ann", "Ben", "Cy"])]
        for u in users:
            u.press_start()
        game_id = await open_lobby(env, group, users[0])
        for u in users[1:]:
            await join(env, game_id, group, u)
        await env.service.configure(game_id, users[0].id, rounds=1)
        lobby = api.last_bot_message(group.id, lambda m: ":jn" in str(m.get("reply_markup")))
        assert lobby is not None
        users[0].press(lobby, "Start")

        async def started() -> bool:
            return (await env.service.view(game_id, None))["status"] != "lobby"

        await wait_async(started)
        turns = await play_game(env, game_id, {u.id: u for u in users}, random.Random(9))
        await api.wait_for(
            lambda: api.last_bot_message(group.id, lambda m: "🏆" in m.get("text", "")), timeout=30
        )
        # a fast game can end before the budget lets the first picture out; it still comes
        await api.wait_for(lambda: any(c.method == "sendPhoto" for c in api.calls), timeout=30)
        await asyncio.sleep(1.0)

    # each turn prompt went to its player once: no two panels for the same version
    prompts: Counter[tuple[int, str]] = Counter()
    for call in api.calls:
        if call.method != "sendMessage" or not call.ok or call.group:
            continue
        markup = call.params.get("reply_markup") or {}
        versions = {
            str(b.get("callback_data", "")).split(":")[2]
            for row in markup.get("inline_keyboard", [])
            for b in row
            if str(b.get("callback_data", "")).startswith("c:")
        }
        for v in versions:
            prompts[(int(call.chat_id or 0), v)] += 1
    assert prompts and max(prompts.values()) == 1, prompts.most_common(3)
    sends = Counter(c.method for c in api.calls if c.chat_id == group.id and c.ok)
    assert sends["sendPhoto"] == 1
    finals = [m for m in api.bot_messages(group.id) if "🏆" in m.get("text", "")]
    reveals = [m for m in api.bot_messages(group.id) if "🏁" in m.get("text", "")]
    assert len(finals) == 1 and len(reveals) == 1
    lobbies = [
        c
        for c in api.calls
        if c.chat_id == group.id
        and c.method == "sendMessage"
        and ":jn" in str(c.params.get("reply_markup"))
    ]
    assert len(lobbies) == 1
    assert len(api.group_calls()) <= turns + 10
    assert not api.rate_limited
    assert not api.unanswered_queries()
    reveal_at = min(
        c.at for c in api.group_calls() if any("🏁" in t or "🏆" in t for t in c.texts())
    )
    assert_no_leaks(env, reveal_at, set())
