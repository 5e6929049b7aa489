"""The ``core.service.sharing.Sharing`` port: a finished game's result prepared as a message
the player can share into any chat (``savePreparedInlineMessage``, Bot API 8.0); the Mini
App then calls ``Telegram.WebApp.shareMessage`` with its id.

The service and the Mini App never import this module: the port is installed into the
service (``GameService.use_sharing``) when the bot is built.
"""

from __future__ import annotations

from telegram import Bot, InlineQueryResultArticle, InputTextMessageContent
from telegram.constants import ParseMode

from core.engine.shapes import ViewDict
from core.service import UserRef
from telegram_bot import texts
from telegram_bot.i18n import translator


class TelegramSharing:
    """Prepared messages with the result text in the sharing player's language."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot

    async def prepare_result(self, user: UserRef, view: ViewDict) -> str:
        t = translator(user.language)
        game_id = str(view.get("game_id", ""))
        article = InlineQueryResultArticle(
            id=f"result-{game_id[:50]}",
            title=t.gettext("Final scores"),
            input_message_content=InputTextMessageContent(
                texts.final_text(t, view), parse_mode=ParseMode.HTML
            ),
        )
        prepared = await self.bot.save_prepared_inline_message(
            user.user_id,
            article,
            allow_user_chats=True,
            allow_group_chats=True,
            allow_channel_chats=True,
        )
        return prepared.id
