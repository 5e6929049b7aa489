"""/kick: the creator or a group admin removes a player — by name, by a reply, by a
mention, or with one button per seated player — and the removal sticks (the service).

A button carries the seat and a short hash of the name it was drawn for (no user id: the
whole group receives callback data), so a press on a list that went out of date (a lobby
whose seats moved) removes nobody by mistake.
"""

from __future__ import annotations

import contextlib
import hashlib
import unicodedata

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, MessageEntity, Update
from telegram.constants import ParseMode
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from telegram_bot import callbacks as cb
from telegram_bot import texts
from telegram_bot.callbacks import Callback
from telegram_bot.commands import current_game, is_admin, reply
from telegram_bot.deps import BotDeps, deps_of
from telegram_bot.i18n import Translator
from telegram_bot.port import BotError, SeatInfo

HTML = ParseMode.HTML


def name_key(name: str) -> str:
    """A name as typed or shown compares equal: width, case and spaces aside (NFKC folds
    full-width letters; Chinese names compare character by character)."""
    return "".join(unicodedata.normalize("NFKC", name).casefold().split()).lstrip("@")


def name_tag(name: str) -> str:
    return hashlib.sha1(name.encode()).hexdigest()[:6]


def removable(seats: list[SeatInfo], by_user: int) -> list[SeatInfo]:
    """The players a kick may remove: humans still in the game, the remover aside."""
    return [
        s
        for s in seats
        if s.user_id is not None and not s.computer and not s.kicked and s.user_id != by_user
    ]


def matching(query: str, seats: list[SeatInfo]) -> list[SeatInfo]:
    """The seats a typed name means: the same name, else names that start with it, else
    names that contain it; a number is a seat number as the lobby lists them."""
    key = name_key(query)
    if not key:
        return []
    for test in (
        lambda n: n == key,
        lambda n: n.startswith(key),
        lambda n: key in n,
    ):
        found = [s for s in seats if test(name_key(s.name))]
        if found:
            return found
    if key.isdigit():
        return [s for s in seats if s.seat == int(key) - 1]
    return []


def kick_keyboard(game_id: str, seats: list[SeatInfo]) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(
                    f"👢 {s.seat + 1}. {s.name}",
                    callback_data=cb.encode(cb.KICK, game_id, 0, s.seat, name_tag(s.name)),
                )
            ]
            for s in seats
        ]
    )


async def _may_kick(
    update: Update, context: ContextTypes.DEFAULT_TYPE, deps: BotDeps, game_id: str, user_id: int
) -> bool | None:
    """False: the creator; True: a group admin (``force``); None: neither."""
    if user_id == await deps.port.creator_of(game_id):
        return False
    if await is_admin(update, context, user_id):
        return True
    return None


async def cmd_kick(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    deps = deps_of(context)
    user = update.effective_user
    msg = update.effective_message
    t = await deps.tr_update(update)
    game_id = await current_game(update, deps)
    if game_id is None or user is None or msg is None:
        await reply(update, deps, "⚠ " + t.gettext("There is no game here."))
        return
    force = await _may_kick(update, context, deps, game_id, user.id)
    if force is None:
        await reply(update, deps, "⚠ " + t.reason("not_creator"))
        return
    seats = removable(await deps.port.seats(game_id), user.id)
    target = msg.reply_to_message.from_user if msg.reply_to_message else None
    mentioned = [e.user for e in msg.parse_entities([MessageEntity.TEXT_MENTION]) if e.user]
    target = target or (mentioned[0] if mentioned else None)
    if target is not None:
        seat = next((s for s in seats if s.user_id == target.id), None)
        if seat is None:
            name = texts.esc(target.full_name)
            await reply(update, deps, "⚠ " + t.gettext("{name} is not playing here.", name=name))
            return
        await _kick(update, deps, game_id, user.id, seat, force, t)
        return
    if not seats:
        await reply(update, deps, t.gettext("Nobody here can be removed."))
        return
    query = " ".join(context.args or [])
    found = matching(query, seats) if query else []
    if len(found) == 1:
        await _kick(update, deps, game_id, user.id, found[0], force, t)
        return
    if len(found) > 1:
        text = t.gettext("Several players are called “{name}”: whom should I remove?", name=query)
    elif query:
        text = t.gettext("Nobody here is called “{name}”. Whom should I remove?", name=query)
    else:
        text = t.gettext("Whom should I remove? (Creator or admin.)")
    await reply(
        update, deps, "👢 " + texts.esc(text), reply_markup=kick_keyboard(game_id, found or seats)
    )


async def _kick(
    update: Update,
    deps: BotDeps,
    game_id: str,
    by_user: int,
    seat: SeatInfo,
    force: bool,
    t: Translator,
) -> bool:
    assert seat.user_id is not None
    try:
        await deps.port.kick(game_id, by_user, seat.user_id, force=force)
    except BotError as exc:
        await reply(update, deps, "⚠ " + t.reason(exc.code))
        return False
    await reply(update, deps, removed_text(t, seat.name))
    if deps.notifier is not None:
        deps.notifier.poke(game_id)
    return True


def removed_text(t: Translator, name: str) -> str:
    return "👢 " + t.gettext("{name} was removed from the game.", name=texts.esc(name))


async def on_kick_button(
    update: Update, context: ContextTypes.DEFAULT_TYPE, game_id: str, data: Callback, t: Translator
) -> None:
    """A press on one of /kick's buttons: the presser must be the creator or an admin."""
    deps = deps_of(context)
    query = update.callback_query
    assert query is not None
    force = await _may_kick(update, context, deps, game_id, query.from_user.id)
    if force is None:
        await query.answer(t.reason("not_creator"), show_alert=True)
        return
    seats = removable(await deps.port.seats(game_id), query.from_user.id)
    seat = next(
        (s for s in seats if s.seat == data.int_arg(0, -1) and name_tag(s.name) == data.arg(1)),
        None,
    )
    if seat is None or seat.user_id is None:
        await query.answer(
            t.gettext("That list is out of date: send /kick again."), show_alert=True
        )
        return
    try:
        await deps.port.kick(game_id, query.from_user.id, seat.user_id, force=force)
    except BotError as exc:
        await query.answer(t.reason(exc.code), show_alert=True)
        return
    await query.answer("✓")
    if query.message is not None:
        chat_id = query.message.chat.id
        group_t = await deps.tr_game(chat_id, game_id)  # the list's message is the group's
        with contextlib.suppress(TelegramError):
            await deps.runtime.acquire(chat_id)
            await query.edit_message_text(removed_text(group_t, seat.name), parse_mode=HTML)
    if deps.notifier is not None:
        deps.notifier.poke(game_id)
