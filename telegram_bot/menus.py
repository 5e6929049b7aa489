"""The bot's command menu (the "/" list), in the reader's language.

Bot-wide lists follow each reader's Telegram language, but Telegram keys them by a
two-letter ISO 639-1 code: one "zh" list serves both scripts, and we fill it with
Simplified. So a chat gets a list of its own (scoped to that chat, which Telegram ranks
above every wider scope's language list) when its language is known better: chosen with
/lang (a group's language is everyone's there), or a private chat with a
zh-Hant/zh-TW/zh-HK reader. In a group whose language nobody chose, such a reader gets a
list for themself there (a chat-member scope, ranked above the chat's).
"""

from __future__ import annotations

import contextlib

from telegram import Bot, BotCommand, BotCommandScopeChat, BotCommandScopeChatMember
from telegram.error import TelegramError

from telegram_bot.i18n import Translator

# the languages with a bot-wide list, and their Telegram language_code (None: default)
GLOBAL_MENUS = {"en": None, "zh_Hans": "zh"}


def command_list(language: str) -> list[BotCommand]:
    t = Translator(language)
    return [
        BotCommand("new", t.gettext("open a game in this group")),
        BotCommand("help", t.gettext("how to play")),
        BotCommand("rules", t.gettext("the rules in short")),
        BotCommand("lang", t.gettext("choose the language")),
        BotCommand("leave", t.gettext("leave the game")),
        BotCommand("stats", t.gettext("statistics")),
        BotCommand("history", t.gettext("my finished games")),
    ]


async def set_global_menus(bot: Bot) -> None:
    """The default list (English) and the "zh" list (Simplified), once at start."""
    for language, code in GLOBAL_MENUS.items():
        with contextlib.suppress(TelegramError):
            await bot.set_my_commands(command_list(language), language_code=code)


async def set_chat_menu(bot: Bot, chat_id: int, language: str) -> None:
    """The menu of one chat in `language`: what /lang chose for a group (everyone there
    reads the group's language) or for a private chat, and a zh-Hant reader's private
    chat on first contact."""
    with contextlib.suppress(TelegramError):
        await bot.set_my_commands(command_list(language), scope=BotCommandScopeChat(chat_id))


async def set_member_menu(bot: Bot, chat_id: int, user_id: int, language: str | None) -> None:
    """One member's menu in one group, in `language`; None removes it (the group's list,
    or the reader's language list, applies again)."""
    scope = BotCommandScopeChatMember(chat_id, user_id)
    with contextlib.suppress(TelegramError):
        if language is None:
            await bot.delete_my_commands(scope=scope)
        else:
            await bot.set_my_commands(command_list(language), scope=scope)
