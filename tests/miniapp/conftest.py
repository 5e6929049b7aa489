"""Fixtures for the Mini App: a real GameService (memory or Redis store) behind the app.

``make_init_data(user_id, ...)`` signs initData as Telegram does, with the test bot token.
``service`` is parametrised over both stores where a test asks for ``any_service``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from core.service import GameService, ServiceConfig
from core.settings import Settings
from core.store import MemoryStore, RedisStore
from miniapp.auth import sign_init_data
from miniapp.server import create_app
from tests.conftest import delete_prefixed

BOT_TOKEN = "123456:TEST-bot-token"
SECRET = "test-session-secret"


def make_init_data(
    user_id: int | None,
    name: str = "Ann",
    *,
    token: str = BOT_TOKEN,
    auth_date: int | None = None,
    language: str = "en",
    start_param: str | None = None,
) -> str:
    fields: dict[str, str] = {
        "auth_date": str(int(time.time()) if auth_date is None else auth_date),
        "query_id": "AAE",
    }
    if user_id is not None:
        fields["user"] = json.dumps(
            {"id": user_id, "first_name": name, "language_code": language},
            separators=(",", ":"),
            ensure_ascii=False,
        )
    if start_param:
        fields["start_param"] = start_param
    return sign_init_data(fields, token)


def tma(user_id: int, name: str = "Ann", **kw: Any) -> dict[str, str]:
    return {"Authorization": f"tma {make_init_data(user_id, name, **kw)}"}


@pytest.fixture
def settings() -> Settings:
    return Settings(telegram_bot_token=BOT_TOKEN, session_secret=SECRET, initdata_max_age=86400)


def fast_config() -> ServiceConfig:
    return ServiceConfig(think_delay_s=0.05, bot_ready_delay_s=0.05, timer_interval_s=0.02)


@contextlib.asynccontextmanager
async def running_service(
    store: Any, config: ServiceConfig | None = None
) -> AsyncIterator[GameService]:
    service = GameService(store, config or fast_config())
    stop = asyncio.Event()
    timers = asyncio.create_task(service.run_timers(stop))
    try:
        yield service
    finally:
        stop.set()
        timers.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await timers
        with contextlib.suppress(Exception):
            await store.close()


@pytest.fixture(params=["memory", "redis"])
async def any_service(request: pytest.FixtureRequest) -> AsyncIterator[GameService]:
    if request.param == "memory":
        store: Any = MemoryStore()
    else:
        redis_url = request.getfixturevalue("redis_url")
        prefix = request.getfixturevalue("redis_prefix")
        store = RedisStore.from_url(redis_url, prefix=prefix)
    try:
        async with running_service(store) as service:
            yield service
    finally:
        if request.param == "redis":
            await delete_prefixed(redis_url, prefix)


@pytest.fixture
async def memory_service() -> AsyncIterator[GameService]:
    async with running_service(MemoryStore()) as service:
        yield service


ClientMaker = Callable[..., Any]


@pytest.fixture
def make_client(aiohttp_client: Any, settings: Settings) -> ClientMaker:
    async def make(service: GameService, **kw: Any) -> TestClient:
        return await aiohttp_client(create_app(service, kw.pop("settings", settings), **kw))

    return make


async def session_token(client: TestClient, user_id: int, name: str = "Ann") -> dict[str, str]:
    r = await client.post("/api/session", headers=tma(user_id, name))
    assert r.status == 200, await r.text()
    return {"Authorization": f"Bearer {(await r.json())['token']}"}
