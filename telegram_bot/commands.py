"""Commands: /new, /start (deep links), /help, /rules, /lang, /leave, /stats, /cancel
(/kick: ``telegram_bot.kick``; /pause and /resume: ``telegram_bot.pause``).

Replies in groups spend the group's budget like everything else there (principle 8).
"""

from __future__ import annotations

import contextlib
import logging
from datetime import UTC, datetime
from typing import Any

from telegram import Message, Update, User
from telegram.constants import ChatMemberStatus, ChatType, ParseMode
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from telegram_bot import keyboards as kb
from telegram_bot import texts
from telegram_bot.deps import BotDeps, deps_of, topic_of
from telegram_bot.i18n import LANGUAGES, SERVICE_LANG, Translator, normalize_language
from telegram_bot.join import confirm_join
from telegram_bot.menus import set_chat_menu, set_member_menu
from telegram_bot.panels import send_panel
from telegram_bot.port import BotError, ChatKey, UserRef

log = logging.getLogger(__name__)


def user_ref(update: Update) -> UserRef:
    user = update.effective_user
    assert user is not None
    return UserRef(user.id, user.full_name or user.first_name, user.language_code)


async def reply(update: Update, deps: BotDeps, text: str, **kwargs: Any) -> Message | None:
    """Reply in the same chat and topic; group replies wait for the group's budget."""
    chat = update.effective_chat
    msg = update.effective_message
    if chat is None or msg is None:
        return None
    await deps.runtime.acquire(chat.id)
    try:
        return await msg.reply_text(
            text, parse_mode=ParseMode.HTML, disable_web_page_preview=True, do_quote=False, **kwargs
        )
    except TelegramError:
        log.exception("reply failed")
        return None


async def is_admin(update: Update, context: ContextTypes.DEFAULT_TYPE, user_id: int) -> bool:
    chat = update.effective_chat
    if chat is None or chat.type == ChatType.PRIVATE:
        return False
    try:
        member = await context.bot.get_chat_member(chat.id, user_id)
    except TelegramError:
        return False
    return member.status in (ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR)


def chat_key(update: Update) -> ChatKey:
    chat = update.effective_chat
    assert chat is not None
    return ChatKey(chat.id, topic_of(update))


# ---------------------------------------------------------------------- /new
async def cmd_new(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    deps = deps_of(context)
    chat = update.effective_chat
    if chat is None or update.effective_user is None:
        return
    t = await deps.tr_update(update)
    if chat.type == ChatType.PRIVATE:
        await reply(
            update, deps, t.gettext("Add me to a group and send /new there to open a game.")
        )
        return
    try:
        view = await deps.port.create_lobby(
            chat_key(update),
            user_ref(update),
            # named: /new 2 (or 1); else the service starts from the group's last game
            edition=edition_of(context.args),
            # the group's language, else its opener's
            settings={"countdown": deps.autostart_s, "language": SERVICE_LANG[t.language]},
            title=chat.title,
        )
    except BotError as exc:
        await reply(update, deps, "⚠ " + t.reason(exc.code))
        return
    # the group's title labels the game in inline results (inline queries carry no chat)
    await deps.runtime.set_game_data(str(view["game_id"]), "chat_title", chat.title or "")
    if deps.notifier is not None:
        deps.notifier.watch(str(view["game_id"]))
        deps.notifier.poke(str(view["game_id"]))


def edition_of(args: list[str] | None) -> str | None:
    """The edition /new names (``/new 2``, ``/new classic``...), or None for the group's
    last one."""
    word = args[0].lower() if args else ""
    if word in ("2", "expansion", "s2"):
        return "expansion"
    if word in ("1", "classic", "base"):
        return "classic"
    return None


# ---------------------------------------------------------------------- /start
async def cmd_start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    deps = deps_of(context)
    chat = update.effective_chat
    user = update.effective_user
    if chat is None or user is None:
        return
    t = await deps.tr_user(user)
    if chat.type != ChatType.PRIVATE:
        await cmd_help(update, context)
        return
    await deps.runtime.set_pref(f"reach:{user.id}", "1")
    await traditional_menu_once(context, user)
    payload = context.args[0] if context.args else ""
    if payload.startswith("j") and len(payload) > 1:
        await join_from_link(update, context, payload[1:], t)
        return
    if (
        payload.startswith("h")
        and len(payload) > 1
        and payload != "hello"
        and (
            await send_panel(context.bot, deps, payload[1:], user.id, language=user.language_code)
            is not None
        )
    ):
        return
    games = await deps.port.games_for_user(user.id)
    for game_id in games[:3]:
        await send_panel(context.bot, deps, game_id, user.id, language=user.language_code)
    if not games:
        await reply(update, deps, help_text(t, deps.bot_username))


async def traditional_menu_once(context: ContextTypes.DEFAULT_TYPE, user: User) -> None:
    """A zh-Hant/zh-TW/zh-HK reader's private chat gets the Traditional command menu on
    their first /start (Telegram's own "zh" list is Simplified; see telegram_bot.menus).
    Once: /lang changes it later."""
    deps = deps_of(context)
    if normalize_language(user.language_code) != "zh_Hant":
        return
    if await deps.runtime.get_pref(f"u:{user.id}") or await deps.runtime.get_pref(
        f"menu:{user.id}"
    ):
        return  # a language chosen with /lang set the menu; or done before
    await set_chat_menu(context.bot, user.id, "zh_Hant")
    await deps.runtime.set_pref(f"menu:{user.id}", "zh_Hant")


def member_menu_key(chat_id: int, user_id: int) -> str:
    """The preference recording a member's own menu in a group: named after the group and
    owned by the user (``<name>:<user id>``), so it goes with the user's data."""
    return f"gm{chat_id}:{user_id}"


async def traditional_member_menu(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A zh-Hant/zh-TW/zh-HK reader in a group whose language nobody chose gets the
    Traditional menu there for themself (Telegram would show them the Simplified "zh"
    list). Once /lang sets the group's language, the group's list is everyone's again: the
    member's own list goes on their next update in that group. Runs after the handlers."""
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None or chat.type not in (ChatType.GROUP, ChatType.SUPERGROUP):
        return
    if normalize_language(user.language_code) != "zh_Hant":
        return
    deps = deps_of(context)
    key = member_menu_key(chat.id, user.id)
    has = await deps.runtime.get_pref(key)
    if await deps.runtime.get_pref(f"c:{chat.id}"):
        if has == "zh_Hant":
            await set_member_menu(context.bot, chat.id, user.id, None)
            await deps.runtime.set_pref(key, "-")
    elif has is None:
        await set_member_menu(context.bot, chat.id, user.id, "zh_Hant")
        await deps.runtime.set_pref(key, "zh_Hant")


async def join_from_link(
    update: Update, context: ContextTypes.DEFAULT_TYPE, game_id: str, t: Translator
) -> None:
    """``/start j<game>``: seat the user, with the pass their press of Join left (a
    group's lobby refuses anyone who cannot show they are in the group, saying how)."""
    deps = deps_of(context)
    try:
        view = await deps.port.join(game_id, user_ref(update))
    except BotError as exc:
        await reply(update, deps, "⚠ " + t.reason(exc.code))
        return
    assert update.effective_user is not None
    user_id = update.effective_user.id
    await confirm_join(context, deps, game_id, user_id, len(view.get("seats", [])), t)


# ---------------------------------------------------------------------- help & rules
def help_text(t: Translator, bot: str) -> str:
    return "\n".join(
        [
            "⛏ <b>" + t.gettext("Saboteur") + "</b>",
            t.gettext(
                "Dig towards the gold with your fellow dwarves — but some of them are saboteurs."
            ),
            "",
            "/new — " + t.gettext("open a game in this group (/new 2 for Saboteur 2)"),
            "/leave — " + t.gettext("leave the game (the computer takes your seat)"),
            "/kick — "
            + t.gettext("remove a player: /kick and a name, or a button (creator or admin)"),
            "/pause, /resume — "
            + t.gettext("stop the turn clock and start it again (creator or admin)"),
            "/cancel — " + t.gettext("close the lobby (creator or admin)"),
            "/stats — " + t.gettext("leaderboard of this group and your own record"),
            "/lang — " + t.gettext("choose the language"),
            "/rules — " + t.gettext("the rules in short"),
            "",
            t.gettext(
                "Type @{bot} in the group to peek at your cards without leaving it.", bot=bot
            ),
        ]
    )


async def cmd_help(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    deps = deps_of(context)
    t = await deps.tr_update(update)
    await reply(update, deps, help_text(t, deps.bot_username))


def rules_text(t: Translator) -> str:
    return "\n".join(
        [
            "📜 <b>" + t.gettext("Rules in short") + "</b>",
            "• " + t.gettext("Everyone gets a secret role: gold-digger or saboteur."),
            "• "
            + t.gettext(
                "On your turn: place a path card, play an action card, or discard a card (pass)."
            ),
            "• " + t.gettext("Paths must fit their neighbours and connect to the start."),
            "• "
            + t.gettext("Broken tools in front of you stop you from placing paths until repaired."),
            "• " + t.gettext("A map lets you look at one goal card in secret."),
            "• "
            + t.gettext(
                "Diggers win when a path reaches the gold; saboteurs win when the "
                "cards run out first."
            ),
            "• " + t.gettext("Saboteur 2 adds teams, doors, ladders, crystals, theft and more."),
        ]
    )


async def cmd_rules(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    deps = deps_of(context)
    await reply(update, deps, rules_text(await deps.tr_update(update)))


# ---------------------------------------------------------------------- /lang
async def cmd_lang(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    deps = deps_of(context)
    chat = update.effective_chat
    user = update.effective_user
    if chat is None or user is None:
        return
    t = await deps.tr_update(update)
    scope = "u" if chat.type == ChatType.PRIVATE else "c"
    if scope == "c" and not await is_admin(update, context, user.id):
        await reply(
            update, deps, "⚠ " + t.gettext("Only a group admin may change the group's language.")
        )
        return
    await reply(
        update,
        deps,
        "🌐 " + t.gettext("Choose a language:"),
        reply_markup=kb.language_keyboard(t, scope),
    )


async def on_lang_button(
    update: Update, context: ContextTypes.DEFAULT_TYPE, scope: str, code: str
) -> None:
    deps = deps_of(context)
    query = update.callback_query
    chat = update.effective_chat
    user = update.effective_user
    assert query is not None and chat is not None and user is not None
    if code not in LANGUAGES:
        await query.answer()
        return
    if scope == "c":
        if not await is_admin(update, context, user.id):
            t = await deps.tr_user(user)
            await query.answer(
                t.gettext("Only a group admin may change the group's language."), show_alert=True
            )
            return
        await deps.runtime.set_pref(f"c:{chat.id}", code)
        await set_chat_menu(context.bot, chat.id, code)
    else:
        await deps.runtime.set_pref(f"u:{user.id}", code)
        await set_chat_menu(context.bot, user.id, code)  # the private chat's id is the user's
    t = Translator(code)
    await query.answer("✓")
    with contextlib.suppress(TelegramError):
        await deps.runtime.acquire(chat.id)
        await query.edit_message_text(
            "🌐 " + t.gettext("Language: {name}", name=t.gettext("English"))
        )


# ---------------------------------------------------------------------- leave, kick, cancel
async def current_game(update: Update, deps: BotDeps) -> str | None:
    chat = update.effective_chat
    user = update.effective_user
    if chat is None or user is None:
        return None
    if chat.type == ChatType.PRIVATE:
        games = await deps.port.games_for_user(user.id)  # newest first
        return games[0] if games else None
    return await deps.port.game_for_chat(chat_key(update))


async def cmd_leave(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    deps = deps_of(context)
    user = update.effective_user
    t = await deps.tr_update(update)
    game_id = await current_game(update, deps)
    if game_id is None or user is None:
        await reply(update, deps, "⚠ " + t.gettext("There is no game here."))
        return
    try:
        view = await deps.port.leave(game_id, user.id)
    except BotError as exc:
        await reply(update, deps, "⚠ " + t.reason(exc.code))
        return
    if view.get("status") not in ("lobby", None):
        await reply(
            update,
            deps,
            "🚪 "
            + t.gettext(
                "{name} left the game: the computer plays their seat.",
                name=texts.esc(user.full_name),
            ),
        )
    if deps.notifier is not None:
        deps.notifier.poke(game_id)


async def cancel_game(update: Update, context: ContextTypes.DEFAULT_TYPE, game_id: str) -> str:
    """Cancel a lobby as its creator or a group admin; returns a reason code or ''."""
    deps = deps_of(context)
    user = update.effective_user
    assert user is not None
    creator = await deps.port.creator_of(game_id)
    force = False
    if user.id != creator:
        if not await is_admin(update, context, user.id):
            return "not_creator"
        force = True
    try:
        await deps.port.cancel(game_id, user.id, force=force)
    except BotError as exc:
        return exc.code
    if deps.notifier is not None:
        deps.notifier.poke(game_id)
    return ""


async def cmd_cancel(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    deps = deps_of(context)
    t = await deps.tr_update(update)
    game_id = await current_game(update, deps)
    if game_id is None:
        await reply(update, deps, "⚠ " + t.gettext("There is no game here."))
        return
    code = await cancel_game(update, context, game_id)
    if code:
        await reply(update, deps, "⚠ " + t.reason(code))


# ---------------------------------------------------------------------- /stats
async def cmd_stats(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    deps = deps_of(context)
    chat = update.effective_chat
    user = update.effective_user
    if chat is None or user is None:
        return
    t = await deps.tr_update(update)
    lines = ["📊 <b>" + t.gettext("Statistics") + "</b>"]
    if chat.type != ChatType.PRIVATE:
        board = await deps.port.stats(chat_id=chat.id)
        lines.append(t.gettext("Games in this group: {n}", n=_games(board)))
        for i, row in enumerate(_rows(board)[:10]):
            lines.append(
                t.gettext(
                    "{i}. {name}: {wins} wins, {gold} gold in {games} games",
                    i=i + 1,
                    name=texts.esc(row.get("name", "?")),
                    wins=row.get("wins", 0),
                    gold=row.get("gold", 0),
                    games=row.get("games", 0),
                )
            )
    mine = await deps.port.stats(user_id=user.id)
    me = mine if isinstance(mine, dict) else {}
    lines.append(
        t.gettext(
            "You: {wins} wins, {gold} gold in {games} games",
            wins=me.get("wins", 0),
            gold=me.get("gold", 0),
            games=me.get("games", _games(mine)),
        )
    )
    await reply(update, deps, "\n".join(lines))


def _games(stats: object) -> int:
    if isinstance(stats, dict):
        return int(stats.get("games", 0))
    if isinstance(stats, list):
        return len(stats)
    return 0


def _rows(stats: object) -> list[dict]:
    if isinstance(stats, dict):
        return list(stats.get("leaderboard") or [])
    return []


async def cmd_history(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/history: the user's last finished games and a link to them in the Mini App (the
    list itself only in a private chat: a group sees the link)."""
    deps = deps_of(context)
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return
    t = await deps.tr_update(update)
    private = chat.type == ChatType.PRIVATE
    lines = ["🗂 <b>" + t.gettext("My games") + "</b>"]
    games = await deps.port.history(user.id) if private else []
    for g in games:
        lines.append(
            t.gettext(
                "{date} · {title} · {edition}: {result}, {gold} gold",
                date=datetime.fromtimestamp((g.get("finished_at") or 0) / 1000, UTC).strftime(
                    "%Y-%m-%d"
                ),
                title=texts.esc(g.get("title") or t.gettext("private table")),
                edition=t.pgettext("edition", str(g.get("edition") or "classic")),
                result=t.gettext("won") if g.get("result") == "won" else t.gettext("lost"),
                gold=g.get("gold", 0),
            )
        )
    if private and not games:
        lines.append(t.gettext("No finished games yet."))
    markup = kb.history_keyboard(
        t,
        deps.bot_username,
        deps.settings.miniapp_short_name,
        public_url=deps.settings.public_url if private else None,
    )
    await reply(update, deps, "\n".join(lines), reply_markup=markup)
