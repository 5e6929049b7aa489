"""Joining a group's lobby: proof that the joiner is a member of that group.

A group's lobby seats only members of the group (``core.service.guards``). The bot gives
the service two kinds of proof:

- **The Join button** under the lobby's message is a callback button, and only members
  see the group's messages: its press records a short-lived *join pass* for that user and
  lobby. A user the bot can already write to is seated at once (one tap); anyone else is
  answered with the deep link into the private chat (``t.me/<bot>?start=j<game>``), whose
  ``/start`` completes the join with the pass — and lets the bot write to them.
- **The membership list** (``getChatMember``), through ``TelegramMembership``: the port
  the service asks when a join comes without a pass (a ``/start j<game>`` link shared
  elsewhere, the Mini App). Telegram guarantees it only when the bot is an admin, which
  it need not be: an answer it refuses is "cannot tell", and only a pass admits then.

The service and the Mini App never import this module: the port is installed into the
service (``GameService.use_membership``) when the bot is built.
"""

from __future__ import annotations

import contextlib
import logging

from telegram import Bot, Update
from telegram.constants import ChatMemberStatus
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from telegram_bot import keyboards as kb
from telegram_bot.deps import BotDeps, deps_of
from telegram_bot.i18n import Translator
from telegram_bot.panels import send_private
from telegram_bot.port import BotError, UserRef

log = logging.getLogger(__name__)

MEMBER_STATUSES = {ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.MEMBER}


class TelegramMembership:
    """``core.service.guards.Membership`` answered with ``getChatMember``."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot

    async def is_member(self, chat_id: int, user_id: int) -> bool | None:
        try:
            member = await self.bot.get_chat_member(chat_id, user_id)
        except TelegramError as exc:  # not an admin there, the chat is gone, Telegram down
            log.info("getChatMember in %s refused: %s", chat_id, exc)
            return None
        if member.status == ChatMemberStatus.RESTRICTED:
            return bool(getattr(member, "is_member", False))
        return member.status in MEMBER_STATUSES


def user_ref(update: Update) -> UserRef:
    user = update.effective_user
    assert user is not None
    return UserRef(user.id, user.full_name or user.first_name, user.language_code)


async def on_join_press(
    update: Update, context: ContextTypes.DEFAULT_TYPE, game_id: str, t: Translator
) -> None:
    """The lobby's Join button, pressed under the lobby's message in its group."""
    deps = deps_of(context)
    query = update.callback_query
    chat = update.effective_chat
    assert query is not None and chat is not None
    lobby_chat = await deps.port.chat_of(game_id)
    if lobby_chat is None or lobby_chat.chat_id != chat.id:
        # a Join button anywhere but in the lobby's own group proves nothing
        await query.answer(t.reason("membership_required"), show_alert=True)
        return
    await deps.port.grant_join_pass(game_id, query.from_user.id)
    if await deps.runtime.get_pref(f"reach:{query.from_user.id}") == "1":
        await _join_now(update, context, deps, game_id)
        return
    # the bot may not write first: the private chat's /start j<game> completes the join
    await query.answer(url=kb.deep_link(deps.bot_username, kb.join_payload(game_id)))


async def _join_now(
    update: Update, context: ContextTypes.DEFAULT_TYPE, deps: BotDeps, game_id: str
) -> None:
    query = update.callback_query
    assert query is not None
    t = await deps.tr_user(query.from_user)
    try:
        view = await deps.port.join(game_id, user_ref(update))
    except BotError as exc:
        await query.answer(t.reason(exc.code), show_alert=True)
        return
    await query.answer("✅ " + t.gettext("You joined the game."))
    await confirm_join(context, deps, game_id, query.from_user.id, len(view.get("seats", [])), t)


async def confirm_join(
    context: ContextTypes.DEFAULT_TYPE,
    deps: BotDeps,
    game_id: str,
    user_id: int,
    players: int,
    t: Translator,
) -> None:
    """Tell the joiner privately (their role and cards come there), and redraw the lobby."""
    text = "✅ " + t.ngettext(
        "You joined the game ({n} player so far). Your role and cards will come here when "
        "it starts.",
        "You joined the game ({n} players so far). Your role and cards will come here when "
        "it starts.",
        players,
    )
    with contextlib.suppress(TelegramError):
        await send_private(context.bot, deps, user_id, text)
    if deps.notifier is not None:
        deps.notifier.watch(game_id)
        deps.notifier.poke(game_id)
