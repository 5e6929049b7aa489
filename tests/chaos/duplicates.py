"""Duplicate deliveries: each side effect happens once whatever the number of copies.

1. The same Telegram update POSTed to the webhook many times at once (Telegram redelivers
   when it got no 2xx in time; SO_REUSEPORT spreads the copies over the workers): the bot
   must answer it once. The server runs in bot mode (token, ``WEBHOOK_URL``,
   ``WEBHOOK_SECRET``) against the fake Bot API of ``tests/telegram_bot/fake_bot_api.py``,
   started here, which records every reply.
2. The same move POSTed many times at once by the acting player: exactly one 200, the
   others refused (409 stale, or 429 when one worker's per-user budget runs out), and the
   log holds the move once.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from typing import Any

import aiohttp

from core.store import RedisStore
from tests.load.client import Api
from tests.load.driver import Driver
from tests.load.harness import ServerGroup
from tests.telegram_bot.fake_bot_api import FakeBotAPI

SECRET = "dup-webhook-secret"
WEBHOOK_PATH = "/telegram/webhook"


async def _replies(fake: FakeBotAPI, chat_id: int, settle: float = 2.0) -> int:
    """Messages the bot sent to ``chat_id``, once nothing new arrived for ``settle`` s."""
    last, since = -1, time.monotonic()
    while time.monotonic() - since < settle:
        count = sum(1 for c in fake.calls_to(chat_id, ok=None) if c.method.startswith("send"))
        if count != last:
            last, since = count, time.monotonic()
        await asyncio.sleep(0.1)
    return last


async def webhook_duplicates(
    fake: FakeBotAPI,
    server: ServerGroup,
    http: aiohttp.ClientSession,
    updates: int,
    deliveries: int,
) -> dict[str, Any]:
    url = server.base_url + WEBHOOK_PATH
    headers = {"X-Telegram-Bot-Api-Secret-Token": SECRET}

    async def post(update: dict[str, Any]) -> int:
        # a fresh connection per copy, so SO_REUSEPORT spreads the copies over workers
        async with (
            aiohttp.ClientSession() as one,
            one.post(url, json=update, headers=headers) as resp,
        ):
            return resp.status

    # baseline: how many messages one delivery of /help produces
    solo = fake.user(7_700_000, "Solo")
    solo.started = True
    status = await post(fake.take_update(solo.message_update(solo.id, "/help")))
    baseline = await _replies(fake, solo.id)
    statuses: Counter[str] = Counter()
    extra = []
    for i in range(updates):
        user = fake.user(7_700_001 + i, f"Dup{i}")
        user.started = True
        update = fake.take_update(user.message_update(user.id, "/help"))
        results = await asyncio.gather(*(post(update) for _ in range(deliveries)))
        statuses.update(str(s) for s in results)
        extra.append(await _replies(fake, user.id, settle=1.0) - baseline)
    return {
        "updates": updates,
        "copies_each": deliveries,
        "baseline_status": status,
        "replies_per_single_delivery": baseline,
        "webhook_statuses": dict(statuses),
        "extra_replies_per_update": extra,
        "processed_once": baseline >= 1 and all(e == 0 for e in extra),
    }


async def move_duplicates(
    server: ServerGroup, http: aiohttp.ClientSession, redis_url: str, copies: int
) -> dict[str, Any]:
    api = Api(server.base_url, http)
    driver = Driver(api)
    game = await driver.new_human_game()
    seat = game.current_seat
    assert seat is not None and seat in game.tokens
    view = (await api.view(game.tokens[seat], game.game_id)).body
    move = view["legal_moves"][0]
    body = {"version": view["version"], "move": move}

    async def post() -> int:
        async with aiohttp.ClientSession() as one:
            reply = await Api(server.base_url, one).call(
                "POST", f"/api/games/{game.game_id}/moves", token=game.tokens[seat], body=body
            )
            return reply.status

    results = await asyncio.gather(*(post() for _ in range(copies)))
    statuses = Counter(str(s) for s in results)
    store = RedisStore.from_url(redis_url, prefix=server.prefix)
    try:
        log = await store.read_log(game.game_id)
    finally:
        await store.close()
    return {
        "copies": copies,
        "statuses": dict(statuses),
        "log_entries": len(log),
        "applied_once": statuses.get("200") == 1 and len(log) == 1,
        "only_refusals_otherwise": set(statuses) <= {"200", "409", "422", "429"},
    }


async def run_duplicates(
    redis_url: str, *, workers: int = 2, updates: int = 5, deliveries: int = 20, copies: int = 100
) -> dict[str, Any]:
    fake = FakeBotAPI()
    await fake.start()
    server = ServerGroup(
        redis_url,
        workers=workers,
        prefix="dup:",
        api_only=False,
        extra_env={
            "TELEGRAM_API_BASE_URL": fake.base_url,
            "WEBHOOK_URL": "https://bot.example.invalid" + WEBHOOK_PATH,
            "WEBHOOK_SECRET": SECRET,
            "BOT_USERNAME": "SaboteurTestBot",
        },
    )
    try:
        await asyncio.to_thread(server.start)
        async with aiohttp.ClientSession() as http:
            hooks = await webhook_duplicates(fake, server, http, updates, deliveries)
            moves = await move_duplicates(server, http, redis_url, copies)
        errors = server.log_errors()
    finally:
        await asyncio.to_thread(server.close)
        await fake.stop()
    return {
        "webhook": hooks,
        "move": moves,
        "server_error_log_lines": len(errors),
        "server_error_examples": errors[:5],
        "ok": hooks["processed_once"] and moves["applied_once"],
    }
