"""What every handler needs, kept in ``application.bot_data["deps"]``.

Handlers stay thin: decode the update, call the game service, render the returned view.
Game state, timers and dedupe markers live in the service/store (never in PTB's
per-process ``user_data``/``chat_data`` or JobQueue), so any worker can answer any update.
"""

from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from telegram import Update, User
from telegram.ext import ContextTypes

from core.engine.shapes import ViewDict
from core.settings import Settings
from telegram_bot.i18n import Translator, normalize_language
from telegram_bot.port import BotError, ServicePort
from telegram_bot.runtime import Runtime

if TYPE_CHECKING:
    from telegram_bot.notifier import Notifier

log = logging.getLogger(__name__)


@dataclass
class BotDeps:
    settings: Settings
    port: ServicePort
    runtime: Runtime
    bot_username: str = ""
    notifier: Notifier | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def autostart_s(self) -> int:
        """Length of a group lobby's auto-start countdown (the service runs it)."""
        return int(getattr(self.extra.get("options"), "autostart_s", 180))

    @property
    def default_language(self) -> str:
        return normalize_language(self.settings.default_language)

    async def user_language(self, user: User | None) -> str:
        if user is None:
            return self.default_language
        pref = await self.runtime.get_pref(f"u:{user.id}")
        return normalize_language(pref or user.language_code, self.default_language)

    async def user_language_by_id(self, user_id: int, fallback: str | None = None) -> str:
        pref = await self.runtime.get_pref(f"u:{user_id}")
        seen = await self.runtime.get_pref(f"lc:{user_id}")
        return normalize_language(pref or fallback or seen, self.default_language)

    async def remember_user(self, user: User | None) -> None:
        """Keep the client's language so that messages the notifier sends use it too."""
        if user is None or not user.language_code:
            return
        if await self.runtime.get_pref(f"lc:{user.id}") != user.language_code:
            await self.runtime.set_pref(f"lc:{user.id}", user.language_code)

    async def chat_language(self, chat_id: int, view: ViewDict | None = None) -> str:
        pref = await self.runtime.get_pref(f"c:{chat_id}")
        if pref:
            return normalize_language(pref)
        language = ((view or {}).get("settings") or {}).get("language")
        return normalize_language(language, self.default_language)

    async def tr_user(self, user: User | None) -> Translator:
        return Translator(await self.user_language(user))

    async def tr_chat(self, chat_id: int, view: ViewDict | None = None) -> Translator:
        return Translator(await self.chat_language(chat_id, view))

    async def tr_game(self, chat_id: int, game_id: str, view: ViewDict | None = None) -> Translator:
        """The words of a game's group message: the group's language, else the game's
        (its opener's; ``view`` saves reading it again)."""
        if view is None and not await self.runtime.get_pref(f"c:{chat_id}"):
            with contextlib.suppress(BotError):  # refused: the default language
                view = await self.port.view(game_id, None)
        return await self.tr_chat(chat_id, view)

    async def tr_update(self, update: Update) -> Translator:
        """The words of a reply: the group's language when someone chose it (/lang), else
        the language of whoever asked, who reads the reply first (as the command menu
        shows each reader their own language in such a group)."""
        chat = update.effective_chat
        if chat is not None and chat.type != "private":
            pref = await self.runtime.get_pref(f"c:{chat.id}")
            if pref:
                return Translator(normalize_language(pref))
        return await self.tr_user(update.effective_user)


def deps_of(context: ContextTypes.DEFAULT_TYPE) -> BotDeps:
    deps: BotDeps = context.application.bot_data["deps"]
    return deps


def topic_of(update: Update) -> int | None:
    """The forum topic of an update (games are keyed by chat and topic)."""
    msg = update.effective_message
    if msg is None:
        return None
    if msg.is_topic_message and msg.message_thread_id:
        return int(msg.message_thread_id)
    return None
