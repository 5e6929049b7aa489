"""Playing with inline buttons: card → one of its plays → confirm; Pass → select → confirm.

The panel lives in the private chat (the reliable record) or, on demand, as an ephemeral
message in the group that only its player sees ("My cards"). Its buttons carry the game's
id, the version they were drawn for and an index into the presser's own view (hand
slot, legal move, a bit mask of selected slots); the server rebuilds that view when the
button is pressed. A button of an older version is answered "the board changed" and the
panel is redrawn. A press on an ephemeral panel may arrive without ``message``: the panel
is then found from the game's adapter data (``eph:<user>``). Private results (a map's
goal, an inspected role) are shown right after the move, in the same panel.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from telegram import InlineKeyboardMarkup, Message, Update
from telegram.constants import ChatType, ParseMode
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from core.engine.shapes import MoveDict, ViewDict
from telegram_bot import callbacks as cb
from telegram_bot import keyboards as kb
from telegram_bot import texts
from telegram_bot.deps import BotDeps, deps_of
from telegram_bot.ephemeral import (
    EphemeralRef,
    EphemeralUnavailable,
    channel_of,
    from_ephemeral,
)
from telegram_bot.i18n import Translator
from telegram_bot.panels import edit_or_send, hand_key, render_panel, send_panel
from telegram_bot.port import BotError

log = logging.getLogger(__name__)
CHANGED = "The board changed: here is the new one."
# a screen drawn for the group (True: an ephemeral panel) or for the private chat
Screen = Callable[[bool], tuple[str, InlineKeyboardMarkup]]


@dataclass(frozen=True, slots=True)
class Surface:
    """Where the pressed panel is: a private message, or an ephemeral one in the group."""

    message: Message | None = None
    ref: EphemeralRef | None = None


async def surface_of(update: Update, deps: BotDeps, game_id: str, user_id: int) -> Surface:
    query = update.callback_query
    assert query is not None
    message = query.message if isinstance(query.message, Message) else None
    if message is not None and message.chat.type == ChatType.PRIVATE:
        return Surface(message=message)
    data = await deps.runtime.get_game_data(game_id)
    ref = EphemeralRef.decode(data.get(hand_key(user_id)))
    pressed = from_ephemeral(query)
    if pressed is not None:
        chat_id = ref.chat_id if ref is not None else None
        if chat_id is None:
            chat = await deps.port.chat_of(game_id)
            chat_id = chat.chat_id if chat is not None else None
        if chat_id is not None:
            ref = EphemeralRef(chat_id, user_id, pressed)
    return Surface(ref=ref)


async def show(
    context: ContextTypes.DEFAULT_TYPE,
    deps: BotDeps,
    surface: Surface,
    user_id: int,
    screen: Screen,
) -> None:
    """Draw ``screen`` where the press came from; the private chat when the group cannot."""
    if surface.ref is not None:
        text, markup = screen(True)
        try:
            await channel_of(deps.extra, deps.runtime).edit(context.bot, surface.ref, text, markup)
            return
        except EphemeralUnavailable as exc:
            log.info("ephemeral panel not updated (%s); private chat instead", exc)
    text, markup = screen(False)
    await edit_or_send(context.bot, deps, surface.message, user_id, text, markup)


async def show_my_cards(
    update: Update, context: ContextTypes.DEFAULT_TYPE, game_id: str, t: Translator
) -> None:
    """ "My cards" pressed under the board: the hand, role and peeks shown in the group to
    the presser alone; where the server refuses, the same panel in the private chat."""
    deps = deps_of(context)
    query = update.callback_query
    user = update.effective_user
    chat = update.effective_chat
    assert query is not None and user is not None
    view = await deps.port.view(game_id, user.id)
    if view is None or (view.get("you") or {}).get("seat") is None:
        await query.answer(t.gettext("You are not playing in this game."), show_alert=True)
        return
    if chat is not None and chat.type != ChatType.PRIVATE:
        channel = channel_of(deps.extra, deps.runtime)
        text, markup = render_panel(t, deps, view, in_group=True)
        topic = (
            query.message.message_thread_id
            if isinstance(query.message, Message) and query.message.is_topic_message
            else None
        )
        try:
            ref = await channel.send(
                context.bot,
                chat.id,
                text,
                markup,
                callback_query_id=query.id,
                receiver_user_id=user.id,
                thread_id=topic,
            )
        except EphemeralUnavailable as exc:
            log.info("no ephemeral hand in %s (%s): private chat", chat.id, exc)
        else:
            data = await deps.runtime.get_game_data(game_id)
            old = EphemeralRef.decode(data.get(hand_key(user.id)))
            await deps.runtime.set_game_data(game_id, hand_key(user.id), ref.encode())
            await query.answer()
            if old is not None and old != ref:  # one hand on screen at a time
                await channel.delete(context.bot, old)
            return
    sent = await send_panel(context.bot, deps, game_id, user.id, name=user.first_name, view=view)
    if sent is not None:
        await query.answer("🂠 " + t.gettext("Your cards are in our private chat."))
        return
    link = kb.deep_link(deps.bot_username, "h" + game_id)
    try:
        await query.answer(url=link)
    except TelegramError:
        await query.answer(t.gettext("More in our private chat."), show_alert=True)


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
    surface = await surface_of(update, deps, game_id, user.id)
    version = int(view.get("version", 0))

    def panel(in_group: bool) -> tuple[str, InlineKeyboardMarkup]:
        return render_panel(t, deps, view, in_group=in_group)

    if data.kind == cb.CLOSE:
        await query.answer()
        if surface.ref is not None:
            await channel_of(deps.extra, deps.runtime).delete(context.bot, surface.ref)
            await deps.runtime.set_game_data(game_id, hand_key(user.id), "")
        return
    if data.kind == cb.MOVE and data.version != version:
        sticky = still_meant(query, view, t)
        if sticky is not None:  # "Ready" / "Take my seat back": still what they mean
            await submit_move(update, context, game_id, view, sticky, t, surface)
            return
        done = done_already(query, view, t)
        if done is not None:
            await query.answer(done)
            return
    if data.kind != cb.REFRESH and data.version != version:
        await query.answer("🔄 " + t.gettext(CHANGED))
        await show(context, deps, surface, user.id, panel)
        return
    if data.kind in (cb.HAND, cb.REFRESH):
        await query.answer()
        await show(context, deps, surface, user.id, panel)
        return
    moves = view.get("legal_moves") or []
    if data.kind == cb.CARD:
        slot, page = data.int_arg(0, -1), data.int_arg(1, 0)
        markup_card = kb.card_keyboard(t, view, slot, page)
        await query.answer()
        if markup_card is None:
            return
        hand = (view.get("you") or {}).get("hand") or []
        name = t.card(str(hand[slot].get("card")))
        text = texts.panel_text(t, view) + "\n\n👉 <b>" + texts.esc(name) + "</b>"
        await show(context, deps, surface, user.id, lambda _g: (text, markup_card))
        return
    if data.kind == cb.DISCARD:
        await query.answer()
        if not kb.discard_moves(view):
            return
        text = texts.panel_text(t, view) + "\n\n" + texts.discard_prompt(t, view)
        markup = kb.discard_keyboard(t, view, max(0, data.int_arg(0, 0)) & 0xFFFF)
        await show(context, deps, surface, user.id, lambda _g: (text, markup))
        return
    j = data.int_arg(0, -1)
    if data.kind in (cb.PREVIEW, cb.MOVE) and not 0 <= j < len(moves):
        await query.answer(t.reason("bad_move"), show_alert=True)
        return
    if data.kind == cb.PREVIEW:
        await query.answer()
        text = texts.panel_text(t, view) + "\n\n" + texts.confirm_text(t, view, moves[j])
        markup = kb.confirm_keyboard(t, view, j)
        await show(context, deps, surface, user.id, lambda _g: (text, markup))
        return
    if data.kind == cb.MOVE:
        await submit_move(update, context, game_id, view, moves[j], t, surface)
        return
    await query.answer()


async def submit_move(
    update: Update,
    context: ContextTypes.DEFAULT_TYPE,
    game_id: str,
    before: ViewDict,
    move: MoveDict,
    t: Translator,
    surface: Surface | None = None,
    *,
    retried: bool = False,
) -> None:
    deps = deps_of(context)
    query = update.callback_query
    user = update.effective_user
    assert query is not None and user is not None
    where = surface or Surface(
        message=query.message if isinstance(query.message, Message) else None
    )
    try:
        result = await deps.port.submit(game_id, user.id, move, int(before["version"]))
    except BotError as exc:
        await query.answer(t.reason(exc.code), show_alert=True)
        return
    after = result.view or before

    def panel(title: str | None = None) -> Screen:
        return lambda in_group: render_panel(t, deps, after, title, in_group=in_group)

    if result.status == "stale" and move.get("type") in STICKY and not retried:
        legal = after.get("legal_moves")
        again = next((m for m in legal if m == move), None) if isinstance(legal, list) else None
        if again is not None:  # someone else acted meanwhile: it still makes sense
            await submit_move(update, context, game_id, after, again, t, surface, retried=True)
            return
    if result.status == "stale":
        await query.answer("🔄 " + t.gettext(CHANGED))
        await show(context, deps, where, user.id, panel())
        return
    if result.status != "ok":
        await query.answer(t.reason(str(result.reason or "bad_move"))[:200], show_alert=True)
        await show(context, deps, where, user.id, panel())
        return
    await query.answer("✔")
    lines = [texts.esc(texts.played_text(t, before, move))]
    lines.extend(private_results(t, before, after))
    await show(context, deps, where, user.id, panel("\n".join(lines)))
    if where.ref is not None:  # played in the group: the private record follows
        await refresh_private_panel(context, deps, game_id, user.id, panel("\n".join(lines)))
    if deps.notifier is not None:
        deps.notifier.poke(game_id)


async def refresh_private_panel(
    context: ContextTypes.DEFAULT_TYPE, deps: BotDeps, game_id: str, user_id: int, screen: Screen
) -> None:
    """Redraw the player's last private panel in place (an edit does not notify), so the
    private chat stays the record of a move made in the group."""
    stored = (await deps.runtime.get_game_data(game_id)).get(f"panel:{user_id}")
    if not stored or not stored.isdigit():
        return
    text, markup = screen(False)
    try:
        await context.bot.edit_message_text(
            text,
            chat_id=user_id,
            message_id=int(stored),
            parse_mode=ParseMode.HTML,
            reply_markup=markup,
            disable_web_page_preview=True,
        )
    except TelegramError as exc:  # gone, or not modified: the next prompt brings a new one
        log.info("private panel not refreshed: %s", exc)


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


def still_meant(query: Any, view: ViewDict, t: Translator) -> MoveDict | None:
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


def done_already(query: Any, view: ViewDict, t: Translator) -> str | None:
    """One clear answer to a repeated press of a "Ready"/"Take my seat back" button whose
    move is already made."""
    label = pressed_label(query)
    if label == texts.move_label(t, view, {"type": "next_round"}):
        if view.get("status") == "round_over":
            return "✅ " + t.gettext("You are ready: the next round starts when everyone is.")
        return "✅ " + t.gettext("The next round has begun.")
    if label == texts.move_label(t, view, {"type": "take_seat_back"}):
        mine = (view.get("you") or {}).get("seat")
        seat = next((s for s in view.get("seats") or [] if s.get("seat") == mine), None)
        if seat and not seat.get("away"):
            return "🙋 " + t.gettext("You have your seat back.")
    return None


def private_results(t: Translator, before: ViewDict, after: ViewDict) -> list[str]:
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
