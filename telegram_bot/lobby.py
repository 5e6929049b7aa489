"""Lobby buttons on the group's lobby message: leave, start, settings, computers, cancel.

The lobby message itself is drawn only by the notifier (one writer, budgeted); a button
changes the lobby through the service (or flips the message's mode) and pokes it.
Creator-only actions are also allowed to group admins (``force``).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from telegram import CallbackQuery, Update
from telegram.ext import ContextTypes

from core.engine.config import EDITIONS
from core.service.lobby_settings import next_choice, options_for, setting
from telegram_bot.callbacks import Callback
from telegram_bot.commands import cancel_game, is_admin
from telegram_bot.deps import BotDeps, deps_of
from telegram_bot.i18n import LANGUAGES, SERVICE_LANG, Translator
from telegram_bot.join import on_join_press
from telegram_bot.port import BotError

EXTEND_S = 60
T = TypeVar("T")


async def on_lobby(
    update: Update, context: ContextTypes.DEFAULT_TYPE, game_id: str, data: Callback, t: Translator
) -> None:
    deps = deps_of(context)
    query = update.callback_query
    user = update.effective_user
    assert query is not None and user is not None
    action = data.arg(0)
    notifier = deps.notifier
    if action == "jn":
        await on_join_press(update, context, game_id, t)
        return
    if action == "lv":
        try:
            await deps.port.leave(game_id, user.id)
        except BotError as exc:
            await query.answer(t.reason(exc.code), show_alert=True)
            return
        await query.answer("🚪 " + t.gettext("You left the lobby."))
    elif action == "cx":
        code = await cancel_game(update, context, game_id)
        await query.answer(t.reason(code) if code else "✖", show_alert=bool(code))
    elif action == "ex":
        try:
            await deps.port.extend(game_id, user.id, EXTEND_S)
        except BotError as exc:
            await query.answer(t.reason(exc.code), show_alert=True)
            return
        await query.answer("⏱ +" + t.gettext("{s} s", s=EXTEND_S))
    elif action in ("se", "bk"):
        if not await _may_configure(update, context, deps, game_id, user.id):
            await query.answer(t.reason("not_creator"), show_alert=True)
            return
        await deps.runtime.set_game_data(
            game_id, "lobby_mode", "settings" if action == "se" else "main"
        )
        await deps.runtime.set_game_data(game_id, "lobby_mode_at", str(time.time()))
        await query.answer()
        if notifier is not None:
            notifier.redraw(game_id)  # no commit: the change feed does not carry it
        return
    elif action == "st":
        await _creator_action(
            query,
            update,
            context,
            deps,
            game_id,
            t,
            lambda uid, force: deps.port.start(game_id, uid, force=force),
        )
        return
    elif action == "ai":
        await _creator_action(
            query,
            update,
            context,
            deps,
            game_id,
            t,
            lambda uid, force: deps.port.add_computer(game_id, uid, force=force),
        )
        return
    elif action in ("ed", "rd", "tt", "lg", "op", "cl", "oj"):
        await _setting(query, update, context, deps, game_id, t, action, data)
        return
    else:
        await query.answer()
        return
    if notifier is not None:
        notifier.poke(game_id)


async def _may_configure(
    update: Update, context: ContextTypes.DEFAULT_TYPE, deps: BotDeps, game_id: str, user_id: int
) -> bool:
    return user_id == await deps.port.creator_of(game_id) or await is_admin(
        update, context, user_id
    )


async def _creator_action(
    query: CallbackQuery,
    update: Update,
    context: ContextTypes.DEFAULT_TYPE,
    deps: BotDeps,
    game_id: str,
    t: Translator,
    act: Callable[[int, bool], Awaitable[object]],
) -> bool:
    """Run a creator-only service action ``act(user_id, force)``; group admins may too
    (``force``)."""
    user = update.effective_user
    assert user is not None
    try:
        await act(user.id, False)
    except BotError as exc:
        if exc.code != "not_creator" or not await is_admin(update, context, user.id):
            await query.answer(t.reason(exc.code), show_alert=True)
            return False
        try:
            await act(user.id, True)
        except BotError as exc2:
            await query.answer(t.reason(exc2.code), show_alert=True)
            return False
    await query.answer("✓")
    if deps.notifier is not None:
        deps.notifier.poke(game_id)
    return True


def _after(choices: tuple[str, ...], current: object) -> str:
    """The next of a setting's choices, round and round (the first after an unknown one)."""
    return (
        choices[(choices.index(current) + 1) % len(choices)] if current in choices else choices[0]
    )


def _pick(choices: tuple[T, ...], data: Callback, i: int, fallback: T) -> T:
    """The value a button carries (an index into ``choices``; see
    ``keyboards.settings_keyboard``), or ``fallback`` for a button drawn before buttons
    carried their value."""
    if data.arg(i) == "":
        return fallback
    index = data.int_arg(i, -1)
    return choices[index] if 0 <= index < len(choices) else fallback


async def _setting(
    query: CallbackQuery,
    update: Update,
    context: ContextTypes.DEFAULT_TYPE,
    deps: BotDeps,
    game_id: str,
    t: Translator,
    action: str,
    data: Callback,
) -> None:
    """Set what the pressed button says. The button carries the value, so presses are
    idempotent: two quick presses on a message not redrawn yet set it twice, not back."""
    view = await deps.port.view(game_id, None)
    if view is None:
        await query.answer(t.reason("not_found"), show_alert=True)
        return
    edition = str(view.get("edition", "classic"))
    options = dict(view.get("options") or {})
    settings = view.get("settings") or {}
    change: dict[str, object] = {}

    def cycled(name: str, current: object) -> object:
        choices = setting(name).choices_for(settings)
        return _pick(choices, data, 1, next_choice(name, current, settings))

    if action == "ed":
        change["edition"] = _pick(EDITIONS, data, 1, _after(EDITIONS, edition))
    elif action == "rd":
        change["rounds"] = cycled("rounds", options.get("rounds", 3))
    elif action == "cl":
        change["computer_level"] = cycled("computer_level", settings.get("computer_level"))
    elif action == "oj":
        change["open_join"] = _pick((False, True), data, 1, not settings.get("open_join", False))
    elif action == "tt":
        change["turn_time"] = cycled("turn_time", settings.get("turn_time"))
    elif action == "lg":
        current = await deps.chat_language(query.message.chat.id, view) if query.message else "en"
        nxt_lang = _pick(LANGUAGES, data, 1, _after(LANGUAGES, current))
        change["language"] = SERVICE_LANG[nxt_lang]
        if query.message is not None and await _may_configure(
            update, context, deps, game_id, query.from_user.id
        ):
            await deps.runtime.set_pref(f"c:{query.message.chat.id}", nxt_lang)
    elif action == "op":
        names = options_for(edition)
        i = data.int_arg(1, -1)
        if not 0 <= i < len(names):
            await query.answer()
            return
        name = names[i]
        change["options"] = {name: _pick((False, True), data, 2, not options.get(name, False))}
    await _creator_action(
        query,
        update,
        context,
        deps,
        game_id,
        t,
        lambda uid, force: deps.port.configure(game_id, uid, force=force, **change),
    )
