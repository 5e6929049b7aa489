"""Webhook mode: the secret header is checked, updates go to the application's queue, and
an update Telegram delivers twice (no 2xx the first time) is handled once."""

from __future__ import annotations

import asyncio
import socket

from aiohttp import web

from core.service.models import ChatKey, ServiceConfig
from core.service.service import GameService
from core.store import MemoryStore
from telegram_bot.app import BotOptions, attach_bot, build_application
from tests.telegram_bot.conftest import make_settings
from tests.telegram_bot.fake_bot_api import FakeBotAPI


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_webhook_secret_and_duplicates(fake_api: FakeBotAPI) -> None:
    api = fake_api
    port = _free_port()
    settings = make_settings(
        api, webhook_url=f"http://127.0.0.1:{port}/tg/hook", webhook_secret="s3cret-token"
    )
    service = GameService(MemoryStore(), ServiceConfig(timer_interval_s=0.05))
    application = build_application(settings, service, BotOptions(poll_timeout=1))
    web_app = web.Application()
    attach_bot(web_app, application, settings)
    runner = web.AppRunner(web_app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    try:
        assert api.webhook_url == settings.webhook_url
        assert api.webhook_secret == "s3cret-token"
        group = api.group(-2001, "Hooked")
        alice = api.user(1, "Alice")
        alice.started = True
        update = api.take_update(alice.message_update(group.id, "/new"))
        assert await api.deliver_webhook(update, secret="wrong") == 403
        assert await api.deliver_webhook(update) == 200
        assert await api.deliver_webhook(update) == 200  # Telegram's retry: same update_id
        await api.wait_for(lambda: api.bot_messages(group.id))
        assert await service.game_for_chat(ChatKey(group.id, None))
        await asyncio.sleep(0.5)
        assert len([c for c in api.calls_to(group.id) if c.method == "sendMessage"]) == 1
        # a second /new (a new update id) is answered "a game is already open here"
        again = api.take_update(alice.message_update(group.id, "/new"))
        assert await api.deliver_webhook(again) == 200
        await api.wait_for(
            lambda: api.last_bot_message(group.id, lambda m: "already" in m.get("text", ""))
        )
        # getUpdates is refused while a webhook is set (as Telegram does)
        assert not [c for c in api.calls if c.method == "getUpdates" and c.ok]
    finally:
        await runner.cleanup()
    assert api.webhook_url == settings.webhook_url  # workers restart; the hook stays
