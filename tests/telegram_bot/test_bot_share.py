"""The bot's ``Sharing`` port: a finished game's result prepared with
``savePreparedInlineMessage`` in the sharer's language, installed when the bot runs."""

from __future__ import annotations

import pytest
from telegram.error import BadRequest

from core.service import GameService, UserRef
from core.store import MemoryStore
from telegram_bot.share import TelegramSharing
from tests.miniapp.finished import PLAYERS, finished_game
from tests.telegram_bot.conftest import BotEnv


async def _finished_view(user_id: int) -> dict:
    store = MemoryStore()
    await store.start()
    try:
        service = GameService(store)
        game_id = await finished_game(service)
        return await service.view(game_id, user_id)
    finally:
        await store.close()


async def test_the_result_is_prepared_for_any_chat_in_the_readers_language(
    bot_env: BotEnv,
) -> None:
    api = bot_env.api
    uid, name = PLAYERS[0]
    api.user(uid, name, language_code="zh-hans")
    view = await _finished_view(uid)
    port = TelegramSharing(bot_env.application.bot)
    prepared_id = await port.prepare_result(UserRef(uid, name, "zh-hans"), view)
    saved = api.prepared[prepared_id]
    assert saved["user_id"] == uid
    assert saved["allow_user_chats"] and saved["allow_group_chats"]
    assert saved["allow_channel_chats"]
    result = saved["result"]
    assert result["type"] == "article" and result["title"] == "最终得分"
    text = result["input_message_content"]["message_text"]
    assert "最终得分" in text and "Ann" in text and "Carl" in text
    # the bot installs its port: the service (and the Mini App) may offer sharing
    assert bot_env.service.sharing_available()


async def test_telegram_refusing_is_a_clear_refusal(bot_env: BotEnv) -> None:
    view = await _finished_view(PLAYERS[0][0])
    port = TelegramSharing(bot_env.application.bot)
    with pytest.raises(BadRequest, match=r"(?i)user not found"):  # the service: unavailable
        await port.prepare_result(UserRef(424242, "Nobody"), view)  # unknown to Telegram
