"""The fake Bot API itself behaves like Telegram where the bot's design depends on it."""

from __future__ import annotations

import asyncio

import pytest
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo
from telegram.error import BadRequest, Forbidden, RetryAfter

from tests.telegram_bot.fake_bot_api import BOT_USERNAME, TOKEN, FakeBotAPI


async def test_semantics(fake_api: FakeBotAPI) -> None:
    alice = fake_api.user(1, "Alice")
    fake_api.group(-100, "Mine")
    async with Bot(TOKEN, base_url=fake_api.base_url) as bot:
        assert bot.username == BOT_USERNAME
        with pytest.raises(Forbidden, match="initiate conversation"):
            await bot.send_message(alice.id, "hi")
        alice.press_start()
        msg = await bot.send_message(
            alice.id,
            "hi",
            reply_markup=InlineKeyboardMarkup([[InlineKeyboardButton("x", callback_data="a:1")]]),
        )
        with pytest.raises(BadRequest, match="not modified"):
            await bot.edit_message_text(
                "hi",
                alice.id,
                msg.message_id,
                reply_markup=InlineKeyboardMarkup(
                    [[InlineKeyboardButton("x", callback_data="a:1")]]
                ),
            )
        web = InlineKeyboardMarkup(
            [[InlineKeyboardButton("app", web_app=WebAppInfo("https://example.org/"))]]
        )
        with pytest.raises(BadRequest, match=r"(?i)button_type_invalid"):
            await bot.send_message(-100, "board", reply_markup=web)
        await bot.send_message(alice.id, "board", reply_markup=web)
        photo = await bot.send_photo(-100, b"\x89PNG fake", caption="c")
        assert photo.photo
        for _ in range(fake_api.group_limit - 1):
            await bot.send_message(-100, "spam")
        with pytest.raises(RetryAfter):
            await bot.send_message(-100, "one too many")
    assert fake_api.rate_limited
    assert any(c.method == "sendPhoto" and c.files for c in fake_api.calls)


async def test_limits_and_expiry() -> None:
    api = FakeBotAPI(query_ttl=0.2)
    await api.start()
    try:
        alice = api.user(1, "Alice")
        alice.press_start()
        async with Bot(TOKEN, base_url=api.base_url) as bot:
            with pytest.raises(BadRequest, match=r"(?i)button_data_invalid"):
                await bot.send_message(
                    1,
                    "x",
                    reply_markup=InlineKeyboardMarkup(
                        [[InlineKeyboardButton("x", callback_data="y" * 65)]]
                    ),
                )
            with pytest.raises(BadRequest, match=r"(?i)too long"):
                await bot.send_message(1, "x" * 4097)
            with pytest.raises(BadRequest, match=r"(?i)caption is too long"):
                await bot.send_photo(1, b"png", caption="x" * 1025)
            msg = await bot.send_message(
                1,
                "x",
                reply_markup=InlineKeyboardMarkup(
                    [[InlineKeyboardButton("x", callback_data="a:b:1")]]
                ),
            )
            alice.press(msg.to_dict(), "x")
            qid = next(iter(api.callback_queries))
            with pytest.raises(BadRequest, match=r"(?i)message_too_long"):
                await bot.answer_callback_query(qid, "x" * 201)
            await bot.answer_callback_query(qid, "ok")
            with pytest.raises(BadRequest, match=r"(?i)query is too old"):
                await bot.answer_callback_query(qid, "twice")
            alice.press(msg.to_dict(), "x")
            late = list(api.callback_queries)[-1]
            await asyncio.sleep(0.3)
            with pytest.raises(BadRequest, match=r"(?i)query is too old"):
                await bot.answer_callback_query(late)
    finally:
        await api.stop()
