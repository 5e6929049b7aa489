"""Fixtures of the bot's tests: the fake Bot API on loopback and the bot wired to a real
GameService (in-memory store), python-telegram-bot polling the fake with ``base_url``."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from core.service.models import ServiceConfig
from core.service.service import GameService
from core.settings import Settings
from core.store import MemoryStore
from telegram_bot.app import BotOptions, build_application, start_bot, stop_bot
from telegram_bot.deps import BotDeps
from tests.telegram_bot.fake_bot_api import TOKEN, FakeBotAPI


@pytest.fixture
async def fake_api() -> AsyncIterator[FakeBotAPI]:
    api = FakeBotAPI()
    await api.start()
    try:
        yield api
    finally:
        await api.stop()


@dataclass
class BotEnv:
    api: FakeBotAPI
    service: GameService
    application: Any
    settings: Settings
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def deps(self) -> BotDeps:
        deps: BotDeps = self.application.bot_data["deps"]
        return deps


def make_settings(api: FakeBotAPI, **kw: Any) -> Settings:
    base = {
        "telegram_bot_token": TOKEN,
        "telegram_api_base_url": api.base_url,
        "public_url": "https://saboteur.example.org",
        "miniapp_short_name": "board",
        "default_language": "en",
    }
    base.update(kw)
    return Settings(**base)


@contextlib.asynccontextmanager
async def running_bot(
    api: FakeBotAPI,
    *,
    service_config: ServiceConfig | None = None,
    options: BotOptions | None = None,
    store: Any = None,
    clock: Callable[[], int] | None = None,
    **settings_kw: Any,
) -> AsyncIterator[BotEnv]:
    store = store if store is not None else MemoryStore()
    await store.start()
    service = GameService(
        store,
        service_config
        or ServiceConfig(
            think_delay_s=0.05, bot_ready_delay_s=0.05, round_pause_s=2, timer_interval_s=0.05
        ),
        clock=clock,  # the service's time (a test may move it on), in ms
    )
    settings = make_settings(api, **settings_kw)
    application = build_application(
        settings, service, options or BotOptions(poll_timeout=1, autostart_s=3600, max_retries=2)
    )
    timers = asyncio.create_task(service.run_timers())
    await start_bot(application, settings)
    try:
        yield BotEnv(api, service, application, settings)
    finally:
        await stop_bot(application)
        timers.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await timers
        with contextlib.suppress(Exception):
            await store.close()


@pytest.fixture
async def bot_env(fake_api: FakeBotAPI) -> AsyncIterator[BotEnv]:
    async with running_bot(fake_api) as env:
        yield env


@pytest.fixture
async def fast_env() -> AsyncIterator[BotEnv]:
    """The same bot with Telegram's group limit and the bot's budget both ten times faster
    (20 per 6 s; bucket of 5 refilled every 2 s), so scenarios need not wait minutes."""
    api = FakeBotAPI(group_window=6.0)
    await api.start()
    try:
        async with running_bot(
            api,
            options=BotOptions(
                poll_timeout=1, autostart_s=3600, max_retries=2, group_burst=5, group_period_s=2.0
            ),
        ) as env:
            yield env
    finally:
        await api.stop()
