"""Playing from the private chat with inline buttons: card → one of its legal moves.

The panel's buttons carry the game id prefix, the version they were drawn for and an
index into the presser's own view (hand slot, legal move); the server rebuilds that view
when the button is pressed. A button of an older version is answered "the board changed"
and the panel is redrawn for the current version. Private results (a map's goal, an
inspected role) are shown right after the move, in the same private panel.
"""

from __future__ import annotations

from typing import Any

from telegram import Update
from telegram.ext import ContextTypes

from telegram_bot import callbacks as cb
from telegram_bot import keyboards as kb
from telegram_bot import texts
from telegram_bot.deps import deps_of
from telegram_bot.i18n import Translator
from telegram_bot.panels import edit_or_send, render_panel
from telegram_bot.port import BotError


async def on_private(
    update: Update,
    context: ContextTypes.DEFAULT_TYPE,
    game_id: str,
    data: cb.Callback,
    t: Translator,
) -> None:
    deps = deps_of(context)
    query = update.callback_query
    user = update.effective_user
    assert query is not None and user is not None
    view = await deps.port.view(game_id, user.id)
    if view is None or (view.get("you") or {}).get("seat") is None:
        await query.answer(t.reason("not_seated"), show_alert=True)
        return
    message = query.message if query.message is not None else None
    version = int(view.get("version", 0))
    if data.kind == cb.MOVE and data.version != version:
        sticky = still_meant(query, view, t)
        if sticky is not None:  # "Ready" / "Take my seat back": still what they mean
            await submit_move(update, context, game_id, view, sticky, t)
            return
        done = done_already(query, view, t)
        if done is not None:
            await query.answer(done)
            return
    if data.kind != cb.REFRESH and data.version != version:
        await query.answer("🔄 " + t.gettext("The board changed: here is the new one."))
        text, markup = render_panel(t, deps, view)
        await edit_or_send(context.bot, deps, message, user.id, text, markup)  # type: ignore[arg-type]
        return
    if data.kind in (cb.HAND, cb.REFRESH):
        await query.answer()
        text, markup = render_panel(t, deps, view)
        await edit_or_send(context.bot, deps, message, user.id, text, markup)  # type: ignore[arg-type]
        return
    if data.kind == cb.CARD:
        slot, page = data.int_arg(0, -1), data.int_arg(1, 0)
        markup_card = kb.card_keyboard(t, view, slot, page)
        if markup_card is None:
            await query.answer()
            return
        hand = (view.get("you") or {}).get("hand") or []
        name = t.card(str(hand[slot].get("card")))
        await query.answer()
        text = texts.panel_text(t, view) + "\n\n👉 <b>" + texts.esc(name) + "</b>"
        await edit_or_send(context.bot, deps, message, user.id, text, markup_card)  # type: ignore[arg-type]
        return
    if data.kind == cb.MOVE:
        moves = view.get("legal_moves") or []
        j = data.int_arg(0, -1)
        if not 0 <= j < len(moves):
            await query.answer(t.reason("bad_move"), show_alert=True)
            return
        await submit_move(update, context, game_id, view, moves[j], t)
        return
    await query.answer()


async def submit_move(
    update: Update,
    context: ContextTypes.DEFAULT_TYPE,
    game_id: str,
    before: dict[str, Any],
    move: dict[str, Any],
    t: Translator,
    *,
    retried: bool = False,
) -> None:
    deps = deps_of(context)
    query = update.callback_query
    user = update.effective_user
    assert query is not None and user is not None
    try:
        result = await deps.port.submit(game_id, user.id, move, int(before["version"]))
    except BotError as exc:
        await query.answer(t.reason(exc.code), show_alert=True)
        return
    after = result.view or before
    message = query.message
    if result.status == "stale" and move.get("type") in STICKY and not retried:
        again = next((m for m in after.get("legal_moves") or [] if m == move), None)
        if again is not None:  # someone else acted meanwhile: it still makes sense
            await submit_move(update, context, game_id, after, again, t, retried=True)
            return
    if result.status == "stale":
        await query.answer("🔄 " + t.gettext("The board changed: here is the new one."))
        text, markup = render_panel(t, deps, after)
        await edit_or_send(context.bot, deps, message, user.id, text, markup)  # type: ignore[arg-type]
        return
    if result.status != "ok":
        await query.answer(t.reason(str(result.reason or "bad_move"))[:200], show_alert=True)
        text, markup = render_panel(t, deps, after)
        await edit_or_send(context.bot, deps, message, user.id, text, markup)  # type: ignore[arg-type]
        return
    await query.answer("✔")
    lines = [texts.esc(texts.played_text(t, before, move))]
    lines.extend(private_results(t, before, after))
    text, markup = render_panel(t, deps, after, title="\n".join(lines))
    await edit_or_send(context.bot, deps, message, user.id, text, markup)  # type: ignore[arg-type]
    if deps.notifier is not None:
        deps.notifier.poke(game_id)


# Moves that mean the same whatever happened since their button was drawn: a stale press
# of one still makes sense, so it simply succeeds (no "the board changed" bounce).
STICKY = ("next_round", "take_seat_back")


def pressed_label(query: Any) -> str | None:
    """The text of the button that was pressed (from the message it sits under)."""
    markup = getattr(query.message, "reply_markup", None)
    for row in getattr(markup, "inline_keyboard", None) or ():
        for button in row:
            if button.callback_data == query.data:
                return str(button.text)
    return None


def still_meant(query: Any, view: dict[str, Any], t: Translator) -> dict[str, Any] | None:
    """The current legal move a stale "Ready"/"Take my seat back" press stands for."""
    label = pressed_label(query)
    if label is None:
        return None
    return next(
        (
            m
            for m in view.get("legal_moves") or []
            if m.get("type") in STICKY and texts.move_label(t, view, m) == label
        ),
        None,
    )


def done_already(query: Any, view: dict[str, Any], t: Translator) -> str | None:
    """One clear answer to a repeated press of a "Ready"/"Take my seat back" button whose
    move is already made."""
    label = pressed_label(query)
    if label == texts.move_label(t, view, {"type": "next_round"}):
        if view.get("status") == "round_over":
            return "✅ " + t.gettext("You are ready: the next round starts when everyone is.")
        return "✅ " + t.gettext("The next round has begun.")
    if label == texts.move_label(t, view, {"type": "take_seat_back"}):
        mine = (view.get("you") or {}).get("seat")
        seat: dict[str, Any] = next(
            (s for s in view.get("seats") or [] if s.get("seat") == mine), {}
        )
        if seat and not seat.get("away"):
            return "🙋 " + t.gettext("You have your seat back.")
    return None


def private_results(t: Translator, before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """What the move taught this player alone: a goal seen with a map, a role inspected."""
    out = []
    old_goals = {g.get("goal") for g in (before.get("you") or {}).get("known_goals") or []}
    for g in (after.get("you") or {}).get("known_goals") or []:
        if g.get("goal") not in old_goals:
            kind = (
                "🪙 " + t.gettext("gold") if g.get("kind") == "gold" else "🪨 " + t.gettext("stone")
            )
            out.append(
                "🗺 "
                + t.gettext(
                    "The {goal} is: {kind}",
                    goal=texts.goal_name(t, int(g.get("goal", 0))),
                    kind=kind,
                )
            )
    old_roles = {
        (r.get("seat"), r.get("role"))
        for r in (before.get("you") or {}).get("known_roles") or []
        if not r.get("stale")
    }
    for r in (after.get("you") or {}).get("known_roles") or []:
        if (r.get("seat"), r.get("role")) not in old_roles and not r.get("stale"):
            out.append(
                "🔍 "
                + t.gettext(
                    "{name} is: {role}",
                    name=texts.esc(texts.seat_name(t, after, r.get("seat"))),
                    role=t.role(r.get("role")),
                )
            )
    return out
