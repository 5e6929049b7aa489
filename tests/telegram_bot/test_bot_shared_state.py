"""Nothing the bot needs lives in one worker's memory (ARCHITECTURE principles 5 and 9).

Two bot workers (webhook mode, one Redis) behind the fake Bot API: a language chosen on one
is used by the other; a lobby's countdown started by one worker starts the game after that
worker is gone; an idle lobby whose message one worker drew is closed by the other; and a
group admin who did not open the lobby may /kick.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from typing import Any

from aiohttp import web

from core.service.models import ServiceConfig
from core.service.service import GameService
from core.store import RedisStore
from telegram_bot.app import BotOptions, attach_bot, build_application
from tests.telegram_bot.bot_driver import choose_language, join, open_lobby, wait_async
from tests.telegram_bot.conftest import BotEnv, make_settings, running_bot
from tests.telegram_bot.fake_bot_api import FakeBotAPI

CONFIG = ServiceConfig(
    think_delay_s=0.05, bot_ready_delay_s=0.05, round_pause_s=2, timer_interval_s=0.05
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.asynccontextmanager
async def worker(
    api: FakeBotAPI,
    redis_url: str,
    prefix: str,
    *,
    config: ServiceConfig = CONFIG,
    autostart_s: int = 3600,
    run_timers: bool = True,
) -> AsyncIterator[BotEnv]:
    """One worker process' worth: its own store client, service, timers, bot and webhook;
    leaving the block takes it out of the load balancer and stops it."""
    port = _free_port()
    settings = make_settings(
        api, webhook_url=f"http://127.0.0.1:{port}/hook", webhook_secret="shared-secret"
    )
    store = RedisStore.from_url(redis_url, prefix=prefix)
    service = GameService(store, config)
    application = build_application(
        settings, service, BotOptions(poll_timeout=1, autostart_s=autostart_s)
    )
    web_app = web.Application()

    async def timers(_app: web.Application) -> AsyncIterator[None]:
        await store.start()
        task = asyncio.create_task(service.run_timers() if run_timers else asyncio.sleep(0))
        yield
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await store.close()

    web_app.cleanup_ctx.append(timers)
    attach_bot(web_app, application, settings)
    runner = web.AppRunner(web_app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    target = settings.webhook_url or ""
    api.webhook_targets.append(target)
    try:
        yield BotEnv(api, service, application, settings)
    finally:
        api.webhook_targets.remove(target)
        await runner.cleanup()


async def test_language_preferences_are_shared_by_workers(
    fake_api: FakeBotAPI, redis_url: str, redis_prefix: str, redis_client: Any
) -> None:
    api = fake_api
    group = api.group(-5001, "Prefs", admins=[1])
    alice = api.user(1, "Alice")
    bob = api.user(2, "Bob", language_code="zh-hk")
    async with (
        worker(api, redis_url, redis_prefix) as one,
        worker(api, redis_url, redis_prefix) as two,
    ):
        bob.press_start()
        # his choice overrides his client's language (zh-hk)
        await choose_language(api, bob, bob.id, "English")
        await choose_language(api, alice, group.id, "简体中文")

        async def both_see_them() -> bool:
            langs = [
                (await env.deps.user_language_by_id(bob.id), await env.deps.chat_language(group.id))
                for env in (one, two)
            ]
            return langs == [("en", "zh_Hans")] * 2

        await wait_async(both_see_them)
        # the client language seen by one worker is known to the other (notifier messages)
        assert await two.deps.runtime.get_pref("lc:2") == "zh-hk"
        assert await one.deps.runtime.get_pref("lc:2") == "zh-hk"
    # and a restart loses nothing: a fresh worker on the same Redis
    async with worker(api, redis_url, redis_prefix) as fresh:
        assert await fresh.deps.user_language_by_id(bob.id) == "en"
        assert await fresh.deps.chat_language(group.id) == "zh_Hans"
        await fresh.service.delete_user_data(bob.id)  # a user's data includes their prefs
        assert await fresh.deps.runtime.get_pref("u:2") is None
        assert await fresh.deps.chat_language(group.id) == "zh_Hans"


async def test_countdown_fires_after_its_worker_is_gone(
    fake_api: FakeBotAPI, redis_url: str, redis_prefix: str, redis_client: Any
) -> None:
    api = fake_api
    group = api.group(-5002, "Countdown")
    users = [api.user(i + 1, n) for i, n in enumerate(["Ann", "Ben", "Cy"])]
    for u in users:
        u.press_start()
    stack = contextlib.AsyncExitStack()
    # the first worker opens the lobby and seats everybody; it never fires a timer (it may
    # be gone by the time the countdown ends: under load, even before we close it)
    first = await stack.enter_async_context(
        worker(api, redis_url, redis_prefix, autostart_s=2, run_timers=False)
    )
    try:
        async with worker(api, redis_url, redis_prefix, autostart_s=2) as second:
            game_id = await open_lobby(first, group, users[0])
            for u in users[1:]:
                await join(first, game_id, group, u)
            await stack.aclose()  # the worker that opened the lobby goes away

            async def started() -> bool:
                return (await second.service.view(game_id, None))["status"] == "playing"

            await wait_async(started, timeout=15)
            assert second.service.fired >= 1 and first.service.fired == 0
            # the survivor deals: every player gets their private panel
            for u in users:
                await api.wait_for(
                    lambda u=u: api.last_bot_message(u.id, lambda m: "🎲" in m.get("text", "")),
                    timeout=15,
                )
    finally:
        await stack.aclose()


async def test_expired_lobby_is_closed_by_another_worker(
    fake_api: FakeBotAPI, redis_url: str, redis_prefix: str, redis_client: Any
) -> None:
    api = fake_api
    group = api.group(-5003, "Idle")
    alice = api.user(1, "Alice")
    alice.press_start()
    config = ServiceConfig(lobby_ttl_s=3, timer_interval_s=0.05)
    stack = contextlib.AsyncExitStack()
    first = await stack.enter_async_context(
        worker(api, redis_url, redis_prefix, config=config, run_timers=False)
    )
    try:
        game_id = await open_lobby(first, group, alice)  # drawn by the only worker
        async with worker(api, redis_url, redis_prefix, config=config) as second:
            await stack.aclose()
            closed = await api.wait_for(
                lambda: api.last_bot_message(group.id, lambda m: "closed" in m.get("text", "")),
                timeout=15,
            )
            assert not closed.get("reply_markup")
            view = await second.service.view(game_id, None)
            assert view["status"] == "cancelled" and second.service.fired == 1
    finally:
        await stack.aclose()


async def test_admin_kicks_without_being_the_creator(fake_api: FakeBotAPI) -> None:
    api = fake_api
    group = api.group(-5004, "Kick", admins=[2])
    alice, bob, chen = (api.user(i + 1, n) for i, n in enumerate(["Alice", "Bob", "Chen"]))
    for u in (alice, bob, chen):
        u.press_start()
    async with running_bot(api) as env:
        game_id = await open_lobby(env, group, alice)
        for u in (bob, chen):
            await join(env, game_id, group, u)
        chen_msg = chen.message_update(group.id, "hi")["message"]
        bob.say(group.id, "/kick", reply_to=chen_msg)  # an admin, not the creator

        async def chen_gone() -> bool:
            return chen.id not in {s.user_id for s in await env.service.seats(game_id)}

        await wait_async(chen_gone)
        await api.wait_for(
            lambda: api.last_bot_message(group.id, lambda m: "👢" in m.get("text", ""))
        )
