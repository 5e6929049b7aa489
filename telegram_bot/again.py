"""The "play again" button of a finished game: one press opens the same table's next lobby.

The service decides everything (who may, which lobby: the same one for every press on
any worker); the button carries the finished game's own id, since the game is no longer
the chat's once it is over. The new lobby's message is the notifier's, like any lobby's.
"""

from __future__ import annotations

from telegram import Update
from telegram.ext import ContextTypes

from telegram_bot.callbacks import Callback
from telegram_bot.deps import deps_of
from telegram_bot.i18n import Translator
from telegram_bot.port import BotError


async def on_again(
    update: Update, context: ContextTypes.DEFAULT_TYPE, data: Callback, t: Translator
) -> None:
    deps = deps_of(context)
    query = update.callback_query
    assert query is not None
    try:
        view = await deps.port.rematch(data.game, query.from_user.id)
    except BotError as exc:
        await query.answer(t.reason(exc.code), show_alert=True)
        return
    game_id = str(view["game_id"])
    if view.get("status") == "lobby":
        await query.answer(
            "🔁 "
            + t.gettext(
                "A new game is open with the same players. Press “Leave” there if you cannot play."
            )
        )
    else:
        await query.answer("🔁 " + t.gettext("The new game has begun."))
    # the group's title labels the game in inline results, as for /new
    await deps.runtime.set_game_data(game_id, "chat_title", str(view.get("title") or ""))
    if deps.notifier is not None:
        deps.notifier.watch(game_id)
        deps.notifier.poke(game_id)
