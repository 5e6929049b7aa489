"""Private output: the player's panel (role, hand, turn prompt, buttons) and safe sends.

Everything private goes to the player's own chat. A user who never pressed Start cannot
be messaged (403): the group gets one clear notice per game with a button to open the
private chat, and the game goes on (their turns time out, or the Mini App is used).
"""

from __future__ import annotations

import contextlib
import logging

from telegram import Bot, InlineKeyboardMarkup, Message
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden, TelegramError

from core.engine.shapes import ViewDict
from telegram_bot import keyboards as kb
from telegram_bot import texts
from telegram_bot.deps import BotDeps
from telegram_bot.ephemeral import EphemeralRef, EphemeralUnavailable, channel_of
from telegram_bot.i18n import Translator

log = logging.getLogger(__name__)


def hand_key(user_id: int) -> str:
    """Adapter data: the hand a player has open in the group (an ``EphemeralRef``)."""
    return f"eph:{user_id}"


async def send_private(
    bot: Bot,
    deps: BotDeps,
    user_id: int,
    text: str,
    markup: InlineKeyboardMarkup | None = None,
    *,
    game_id: str | None = None,
    name: str = "",
) -> Message | None:
    """Send to a user's private chat; on 403 tell the game's group once, return None."""
    try:
        return await bot.send_message(
            user_id,
            text,
            parse_mode=ParseMode.HTML,
            reply_markup=markup,
            disable_web_page_preview=True,
        )
    except Forbidden:
        await deps.runtime.set_pref(f"reach:{user_id}", "0")
        if game_id is not None:
            await notify_unreachable(bot, deps, game_id, user_id, name)
        return None
    except TelegramError:
        log.exception("private message to %s failed", user_id)
        return None


async def notify_unreachable(
    bot: Bot, deps: BotDeps, game_id: str, user_id: int, name: str
) -> None:
    if not await deps.runtime.claim(f"nostart:{game_id}:{user_id}"):
        return
    chat = await deps.port.chat_of(game_id)
    if chat is None:
        return
    t = await deps.tr_game(chat.chat_id, game_id)
    mention = f'<a href="tg://user?id={user_id}">{texts.esc(name or user_id)}</a>'
    text = "⚠ " + t.gettext(
        "{name}, I cannot write to you: press “Open my private chat” "
        "and then Start, so that I can send you your role and cards. "
        "The game goes on meanwhile.",
        name=mention,
    )
    await deps.runtime.acquire(chat.chat_id)
    with contextlib.suppress(TelegramError):
        await bot.send_message(
            chat.chat_id,
            text,
            parse_mode=ParseMode.HTML,
            message_thread_id=chat.topic_id,
            reply_markup=kb.start_keyboard(t, deps.bot_username),
        )


def render_panel(
    t: Translator,
    deps: BotDeps,
    view: ViewDict,
    title: str | None = None,
    *,
    in_group: bool = False,
) -> tuple[str, InlineKeyboardMarkup]:
    """The hand panel; ``in_group``: shown as an ephemeral message in the group."""
    group_url = kb.miniapp_group_url(
        deps.bot_username, deps.settings.miniapp_short_name, str(view["game_id"])
    )
    markup = kb.panel_keyboard(
        t, view, deps.settings.public_url, group_url=group_url, in_group=in_group
    )
    return texts.panel_text(t, view, title), markup


async def send_panel(
    bot: Bot,
    deps: BotDeps,
    game_id: str,
    user_id: int,
    *,
    title: str | None = None,
    name: str = "",
    language: str | None = None,
    view: ViewDict | None = None,
) -> Message | None:
    """A fresh panel message (a new message notifies the player; edits do not).
    ``view``: the player's view when the caller already read it (one read per send)."""
    if view is None:
        view = await deps.port.view(game_id, user_id)
    if view is None or (view.get("you") or {}).get("seat") is None:
        return None
    t = Translator(await deps.user_language_by_id(user_id, language))
    text, markup = render_panel(t, deps, view, title)
    msg = await send_private(bot, deps, user_id, text, markup, game_id=game_id, name=name)
    if msg is not None:
        await deps.runtime.set_game_data(game_id, f"panel:{user_id}", str(msg.message_id))
    return msg


async def edit_or_send(
    bot: Bot,
    deps: BotDeps,
    message: Message | None,
    user_id: int,
    text: str,
    markup: InlineKeyboardMarkup | None,
) -> None:
    """Edit a private message in place; ignore "not modified"; send anew if it is gone."""
    if message is not None:
        try:
            await bot.edit_message_text(
                text,
                chat_id=message.chat_id,
                message_id=message.message_id,
                parse_mode=ParseMode.HTML,
                reply_markup=markup,
                disable_web_page_preview=True,
            )
            return
        except BadRequest as exc:
            if "not modified" in str(exc).lower():
                return
            log.info("panel edit failed (%s); sending anew", exc)
    await send_private(bot, deps, user_id, text, markup)


async def redraw_open_hand(
    bot: Bot, deps: BotDeps, game_id: str, user_id: int, t: Translator
) -> bool:
    """The player's turn began: a hand they keep open in the group shows it (its buttons
    were drawn for an older version). A bulk write of the group's budget: the turn's
    prompt in the private chat goes first and stays the reliable record."""
    data = await deps.runtime.get_game_data(game_id)
    ref = EphemeralRef.decode(data.get(hand_key(user_id)))
    if ref is None:
        return False
    channel = channel_of(deps.extra, deps.runtime)
    try:
        await channel.pay(ref.chat_id, bulk=True)  # no token: nothing read, nothing drawn
        view = await deps.port.view(game_id, user_id)
        if view is None or (view.get("you") or {}).get("seat") is None:
            return False
        text, markup = render_panel(t, deps, view, in_group=True)
        await channel.edit(bot, ref, text, markup, paid=True)
    except EphemeralUnavailable as exc:
        log.info("open hand in the group not redrawn (%s)", exc)
        return False
    return True
