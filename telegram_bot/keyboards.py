"""Inline keyboards. Group keyboards hold only URL buttons and public callbacks.

``web_app`` buttons are refused in groups (400 BUTTON_TYPE_INVALID): the group opens the
Mini App through a ``t.me/<bot>/<app>?startapp=`` URL button; ``web_app`` appears in
private chats only. Callback strings come from ``callbacks.encode`` (≤ 64 bytes, no
private facts: indexes into the presser's own view).
"""

from __future__ import annotations

from typing import Any

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo
from telegram.helpers import create_deep_linked_url

from core.service.lobby_settings import EDITIONS, next_choice, options_for, setting
from telegram_bot import callbacks as cb
from telegram_bot.i18n import LANGUAGE_NAMES, LANGUAGES, Translator
from telegram_bot.texts import level_name, move_label, turn_time_text

PAGE = 8


def join_payload(game_id: str) -> str:
    return "j" + game_id


def deep_link(bot_username: str, payload: str) -> str:
    return create_deep_linked_url(bot_username, payload)


def miniapp_group_url(bot_username: str, short_name: str | None, game_id: str) -> str | None:
    if not short_name:
        return None
    return f"https://t.me/{bot_username}/{short_name}?startapp={game_id}"


def miniapp_private_url(public_url: str | None, game_id: str) -> str | None:
    if not public_url:
        return None
    return f"{public_url.rstrip('/')}/?game={game_id}"


def lobby_keyboard(t: Translator, game_id: str, bot_username: str) -> InlineKeyboardMarkup:
    def act(label: str, action: str) -> InlineKeyboardButton:
        return InlineKeyboardButton(label, callback_data=cb.encode(cb.LOBBY, game_id, 0, action))

    return InlineKeyboardMarkup(
        [
            # a press in the group proves membership (telegram_bot.join); a link would not
            [act("➕ " + t.gettext("Join"), "jn")],
            [act("🚪 " + t.gettext("Leave"), "lv"), act("▶ " + t.gettext("Start"), "st")],
            [act("⚙ " + t.gettext("Settings"), "se"), act("🤖 " + t.gettext("Add computer"), "ai")],
            [act("⏱ " + t.gettext("+1 min"), "ex"), act("✖ " + t.gettext("Cancel"), "cx")],
        ]
    )


def settings_keyboard(
    t: Translator, view: dict[str, Any], turn_time: int | None, group_language: str
) -> InlineKeyboardMarkup:
    """The lobby's settings page. Each button carries the value it sets (an index into
    the setting's choices, or 0/1), so a press is idempotent: two presses of a button the
    message has not redrawn yet set the same value rather than cancel each other."""
    game_id = str(view["game_id"])
    edition = str(view.get("edition", "classic"))
    opts = view.get("options") or {}
    settings = view.get("settings") or {}

    def act(label: str, *args: object) -> InlineKeyboardButton:
        return InlineKeyboardButton(label, callback_data=cb.encode(cb.LOBBY, game_id, 0, *args))

    rounds = view.get("rounds", opts.get("rounds", 3))
    level = str(settings.get("computer_level", "normal"))
    rows = [
        [
            act(
                t.gettext("Edition: {e}", e=t.pgettext("edition", edition)),
                "ed",
                next_index(EDITIONS, edition),
            )
        ],
        [
            act(t.gettext("Rounds: {n}", n=rounds), "rd", next_setting("rounds", rounds, settings)),
            act(
                t.gettext("Turn: {time}", time=turn_time_text(t, turn_time)),
                "tt",
                next_setting("turn_time", turn_time, settings),
            ),
        ],
        [
            act(
                "🌐 " + LANGUAGE_NAMES.get(group_language, group_language),
                "lg",
                next_index(LANGUAGES, group_language),
            )
        ],
        [
            act(
                "🤖 " + t.gettext("Computer players: {level}", level=level_name(t, level)),
                "cl",
                next_setting("computer_level", level, settings),
            )
        ],
    ]
    open_join = bool(settings.get("open_join"))
    rows.append(
        [
            act(
                "🔓 " + t.gettext("Anyone with the link may join")
                if open_join
                else "🔒 " + t.gettext("Only members of this group may join"),
                "oj",
                int(not open_join),
            )
        ]
    )
    for i, name in enumerate(options_for(edition)):
        mark = "☑" if opts.get(name) else "☐"
        rows.append([act(f"{mark} {t.pgettext('option', name)}", "op", i, int(not opts.get(name)))])
    rows.append([act("« " + t.gettext("Back"), "bk")])
    return InlineKeyboardMarkup(rows)


def next_index(choices: tuple[str, ...], current: object) -> int:
    """The index of the choice after ``current`` (the first after an unknown one)."""
    return (choices.index(str(current)) + 1) % len(choices) if current in choices else 0


def next_setting(name: str, current: object, flags: dict[str, Any]) -> int:
    """The index, in the setting's choices, of the value its cycling button sets next."""
    choices = setting(name).choices_for(flags)
    return choices.index(next_choice(name, current, flags))


def board_keyboard(
    t: Translator, game_id: str, bot_username: str, short_name: str | None
) -> InlineKeyboardMarkup:
    rows = []
    url = miniapp_group_url(bot_username, short_name, game_id)
    if url:
        rows.append([InlineKeyboardButton("🗺 " + t.gettext("Open the board"), url=url)])
    rows.append(
        [
            InlineKeyboardButton(
                "🤫 " + t.gettext("My secrets"), callback_data=cb.encode(cb.SECRETS, game_id, 0)
            ),
            InlineKeyboardButton(
                "🂠 " + t.gettext("My cards"), url=deep_link(bot_username, "h" + game_id)
            ),
        ]
    )
    return InlineKeyboardMarkup(rows)


def start_keyboard(t: Translator, bot_username: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(
                    "💬 " + t.gettext("Open my private chat"), url=deep_link(bot_username, "hello")
                )
            ]
        ]
    )


def _card_moves(view: dict[str, Any], card_id: str) -> list[int]:
    moves = view.get("legal_moves") or []
    own = [
        j
        for j, m in enumerate(moves)
        if m.get("card") == card_id or card_id in (m.get("cards") or [])
    ]
    # Plays first, then discards (single before combinations): the short list is useful.
    return sorted(
        own,
        key=lambda j: (
            moves[j].get("type") in ("discard", "discard_to_remove"),
            len(moves[j].get("cards") or []),
            j,
        ),
    )


def panel_keyboard(
    t: Translator, view: dict[str, Any], public_url: str | None
) -> InlineKeyboardMarkup:
    """The private hand: one button per card with a legal move, plus card-less moves."""
    game_id = str(view["game_id"])
    version = int(view.get("version", 0))
    moves = view.get("legal_moves") or []
    hand = (view.get("you") or {}).get("hand") or []
    rows: list[list[InlineKeyboardButton]] = []
    pair: list[InlineKeyboardButton] = []
    for i, c in enumerate(hand):
        if not _card_moves(view, str(c.get("id"))):
            continue
        pair.append(
            InlineKeyboardButton(
                f"{i + 1}. {t.card(str(c.get('card')))}",
                callback_data=cb.encode(cb.CARD, game_id, version, i, 0),
            )
        )
        if len(pair) == 2:
            rows.append(pair)
            pair = []
    if pair:
        rows.append(pair)
    for j, m in enumerate(moves):
        if "card" not in m and "cards" not in m:
            rows.append(
                [
                    InlineKeyboardButton(
                        move_label(t, view, m),
                        callback_data=cb.encode(cb.MOVE, game_id, version, j),
                    )
                ]
            )
    tail = [InlineKeyboardButton("🔄", callback_data=cb.encode(cb.REFRESH, game_id, version))]
    url = miniapp_private_url(public_url, game_id)
    if url:
        tail.insert(0, InlineKeyboardButton("🗺 " + t.gettext("Board"), web_app=WebAppInfo(url)))
    rows.append(tail)
    return InlineKeyboardMarkup(rows)


def card_keyboard(
    t: Translator, view: dict[str, Any], slot: int, page: int
) -> InlineKeyboardMarkup | None:
    """The legal moves of one hand card, paginated; None when the slot is gone."""
    game_id = str(view["game_id"])
    version = int(view.get("version", 0))
    hand = (view.get("you") or {}).get("hand") or []
    if not 0 <= slot < len(hand):
        return None
    moves = view.get("legal_moves") or []
    own = _card_moves(view, str(hand[slot].get("id")))
    pages = max(1, (len(own) + PAGE - 1) // PAGE)
    page = min(max(0, page), pages - 1)
    chunk = own[page * PAGE : (page + 1) * PAGE]
    rows: list[list[InlineKeyboardButton]] = []
    pair: list[InlineKeyboardButton] = []
    for j in chunk:
        button = InlineKeyboardButton(
            move_label(t, view, moves[j])[:60],
            callback_data=cb.encode(cb.MOVE, game_id, version, j),
        )
        if moves[j].get("type") == "place_path":
            pair.append(button)
            if len(pair) == 2:
                rows.append(pair)
                pair = []
        else:
            if pair:
                rows.append(pair)
                pair = []
            rows.append([button])
    if pair:
        rows.append(pair)
    nav = []
    if page > 0:
        nav.append(
            InlineKeyboardButton(
                "‹", callback_data=cb.encode(cb.CARD, game_id, version, slot, page - 1)
            )
        )
    nav.append(
        InlineKeyboardButton(
            "↩ " + t.gettext("Hand"), callback_data=cb.encode(cb.HAND, game_id, version)
        )
    )
    if page + 1 < pages:
        nav.append(
            InlineKeyboardButton(
                "›", callback_data=cb.encode(cb.CARD, game_id, version, slot, page + 1)
            )
        )
    rows.append(nav)
    return InlineKeyboardMarkup(rows)


def language_keyboard(t: Translator, scope: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [
            [InlineKeyboardButton(name, callback_data=cb.encode("lang", scope, 0, code))]
            for code, name in LANGUAGE_NAMES.items()
        ]
    )
