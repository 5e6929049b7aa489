"""The fake Bot API itself behaves like Telegram where the bot's design depends on it."""

from __future__ import annotations

import pytest
from fake_bot_api import BOT_USERNAME, TOKEN, FakeBotAPI
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo
from telegram.error import BadRequest, Forbidden, RetryAfter


async def test_semantics(fake_api: FakeBotAPI) -> None:
    alice = fake_api.user(1, "Alice")
    fake_api.group(-100, "Mine")
    async with Bot(TOKEN, base_url=fake_api.base_url) as bot:
        assert bot.username == BOT_USERNAME
        with pytest.raises(Forbidden, match="initiate conversation"):
            await bot.send_message(alice.id, "hi")
        alice.press_start()
        msg = await bot.send_message(alice.id, "hi", reply_markup=InlineKeyboardMarkup(
            [[InlineKeyboardButton("x", callback_data="a:1")]]))
        with pytest.raises(BadRequest, match="not modified"):
            await bot.edit_message_text("hi", alice.id, msg.message_id, reply_markup=
                                        InlineKeyboardMarkup([[InlineKeyboardButton(
                                            "x", callback_data="a:1")]]))
        web = InlineKeyboardMarkup([[InlineKeyboardButton("app", web_app=WebAppInfo(
            "https://example.org/"))]])
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
