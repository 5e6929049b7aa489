"""Inline mode: ``@bot`` in a group shows the user's own secrets as personal results.

Only the person typing sees the result list, but tapping a result posts its message into
the chat: private facts therefore go only into titles and descriptions, and the message
a tap sends is neutral. Results are personal and never cached (``is_personal=True``,
``cache_time=0``). Inline queries carry no chat id, so there is one result per live game.
"""

from __future__ import annotations

from telegram import (
    InlineQueryResultArticle,
    InlineQueryResultsButton,
    InputTextMessageContent,
    Update,
)
from telegram.ext import ContextTypes

from telegram_bot import texts
from telegram_bot.deps import deps_of

MAX_RESULTS = 50


async def on_inline(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    query = update.inline_query
    if query is None:
        return
    deps = deps_of(context)
    t = await deps.tr_user(query.from_user)
    results = []
    for game_id in (await deps.port.games_for_user(query.from_user.id))[:MAX_RESULTS]:
        view = await deps.port.view(game_id, query.from_user.id)
        if view is None or (view.get("you") or {}).get("seat") is None:
            continue
        you = view.get("you") or {}
        hand = ", ".join(t.card(str(c.get("card"))) for c in you.get("hand") or [])
        title = "🎭 " + t.gettext("Your role: {role}", role=t.role(you.get("role")))
        if view.get("status") == "lobby":
            title = "⏳ " + t.gettext("Waiting for the game to start")
        group = (await deps.runtime.get_game_data(game_id)).get("chat_title")
        if group:
            title += f" · {group}"
        description = "\n".join(
            filter(
                None,
                [
                    ("🂠 " + hand) if hand else "",
                    texts.secrets_text(t, view).split("\n", 1)[1]
                    if "\n" in texts.secrets_text(t, view)
                    else "",
                    t.gettext("Round {r}/{n}", r=view.get("round", 1), n=view.get("rounds", 3)),
                ],
            )
        )
        results.append(
            InlineQueryResultArticle(
                id=f"{game_id[:40]}-{view.get('version', 0)}",
                title=title[:256],
                description=description[:512],
                input_message_content=InputTextMessageContent(
                    "🤫 " + t.gettext("I checked my cards.")
                ),
            )
        )
    button = InlineQueryResultsButton(
        text=t.gettext("Open my private chat"), start_parameter="hello"
    )
    await query.answer(results, cache_time=0, is_personal=True, button=button)
