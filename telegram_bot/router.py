"""The group board's "my secrets" and "My cards" buttons, and the callback router.

An alert (``show_alert=True``) is seen only by the presser: the one place a group button
may answer with private facts. It holds at most 200 characters, so it is shortened and
points to the private chat for the rest. Every callback query is answered, malformed and
foreign ones included.
"""

from __future__ import annotations

import contextlib
import logging

from telegram import Update
from telegram.constants import ChatType
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from core.engine.shapes import ViewDict
from telegram_bot import callbacks as cb
from telegram_bot import texts
from telegram_bot.again import on_again
from telegram_bot.commands import chat_key, on_lang_button
from telegram_bot.deps import BotDeps, deps_of
from telegram_bot.i18n import Translator
from telegram_bot.kick import on_kick_button
from telegram_bot.lobby import on_lobby
from telegram_bot.private import on_private, show_my_cards

log = logging.getLogger(__name__)
ALERT_MAX = 200


def secrets_alert(t: Translator, view: ViewDict) -> str:
    text = texts.secrets_text(t, view)
    if len(text) <= ALERT_MAX:
        return text
    tail = "\n" + t.gettext("More in our private chat.")
    return text[: ALERT_MAX - len(tail) - 1] + "…" + tail


async def resolve_game(update: Update, deps: BotDeps, game_id: str) -> str | None:
    """The game a button's id names, if it is the chat's game in a group or one of the
    user's games in private (None otherwise)."""
    chat = update.effective_chat  # None for a press on an ephemeral message
    user = update.effective_user
    if user is None:
        return None
    if chat is not None and chat.type != ChatType.PRIVATE:
        chat_game = await deps.port.game_for_chat(chat_key(update))
        if chat_game is not None and cb.matches(chat_game, game_id):
            return chat_game
    for user_game in await deps.port.games_for_user(user.id):
        if cb.matches(user_game, game_id):
            return user_game
    return None


async def on_callback(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    query = update.callback_query
    if query is None:
        return
    deps = deps_of(context)
    try:
        await _route(update, context, deps)
    except Exception:
        # every callback query gets an answer, even when handling it failed
        with contextlib.suppress(TelegramError):
            await query.answer()
        raise


async def _route(update: Update, context: ContextTypes.DEFAULT_TYPE, deps: BotDeps) -> None:
    query = update.callback_query
    assert query is not None
    t = await deps.tr_user(query.from_user)
    data = cb.decode(query.data)
    if data is None or data.kind == cb.NOOP:
        await _answer(query)
        return
    if data.kind == "lang":
        await on_lang_button(update, context, data.game, data.arg(0))
        return
    if data.kind == cb.AGAIN:  # a finished game is no longer the chat's: by its own id
        await on_again(update, context, data, t)
        return
    game_id = await resolve_game(update, deps, data.game)
    if game_id is None:
        await _answer(query, t.reason("not_found"), alert=True)
        return
    if data.kind == cb.SECRETS:
        view = await deps.port.view(game_id, query.from_user.id)
        if view is None or (view.get("you") or {}).get("seat") is None:
            await _answer(query, t.gettext("You are not playing in this game."), alert=True)
            return
        await _answer(query, secrets_alert(t, view), alert=True)
        return
    if data.kind == cb.MY_CARDS:
        await show_my_cards(update, context, game_id, t)
        return
    if data.kind == cb.LOBBY:
        await on_lobby(update, context, game_id, data, t)
        return
    if data.kind == cb.KICK:
        await on_kick_button(update, context, game_id, data, t)
        return
    if data.kind in (cb.CARD, cb.MOVE, cb.HAND, cb.REFRESH, cb.PREVIEW, cb.DISCARD, cb.CLOSE):
        await on_private(update, context, game_id, data, t)
        return
    await _answer(query)


async def _answer(query: object, text: str | None = None, alert: bool = False) -> None:
    await query.answer(text, show_alert=alert)  # type: ignore[attr-defined]
