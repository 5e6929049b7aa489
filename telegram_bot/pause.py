"""/pause and /resume in the group: the creator or a group admin stops the turn clock and
starts it again (the service stops every timer meanwhile); the reply tells the group."""

from __future__ import annotations

from telegram import Update
from telegram.constants import ChatType
from telegram.ext import ContextTypes

from telegram_bot import texts
from telegram_bot.commands import current_game, is_admin, reply
from telegram_bot.deps import deps_of
from telegram_bot.port import BotError


async def cmd_pause(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    await _clock(update, context, pause=True)


async def cmd_resume(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    await _clock(update, context, pause=False)


async def _clock(update: Update, context: ContextTypes.DEFAULT_TYPE, *, pause: bool) -> None:
    deps = deps_of(context)
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return
    t = await deps.tr_update(update)
    if chat.type == ChatType.PRIVATE:  # the group must see who stopped its clock
        await reply(update, deps, t.gettext("Send this in the group where the game is."))
        return
    game_id = await current_game(update, deps)
    if game_id is None:
        await reply(update, deps, "⚠ " + t.gettext("There is no game here."))
        return
    force = user.id != await deps.port.creator_of(game_id)
    if force and not await is_admin(update, context, user.id):
        await reply(update, deps, "⚠ " + t.reason("not_creator"))
        return
    before = await deps.port.view(game_id, None)
    if (
        before is not None
        and before.get("status") != "lobby"
        and bool(before.get("paused")) == pause
    ):
        already = (
            t.gettext("The game is already paused.")
            if pause
            else t.gettext("The game is not paused.")
        )
        await reply(update, deps, already)
        return
    try:
        if pause:
            view = await deps.port.pause(game_id, user.id, force=force)
        else:
            view = await deps.port.resume(game_id, user.id, force=force)
    except BotError as exc:
        await reply(update, deps, "⚠ " + t.reason(exc.code))
        return
    name = texts.esc(user.full_name)
    if pause:
        text = "⏸ " + t.gettext("{name} paused the game. /resume goes on.", name=name)
    else:
        text = "▶ " + t.gettext("{name} resumed the game.", name=name)
        current = view.get("current_seat")
        if current is not None and view.get("status") in ("playing", "stealing"):
            who = texts.esc(texts.seat_name(t, view, current))
            text += " " + t.gettext("It is {name}'s turn.", name=who)
    await reply(update, deps, text)
    if deps.notifier is not None:
        deps.notifier.poke(game_id)
