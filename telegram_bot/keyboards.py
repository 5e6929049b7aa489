"""Inline keyboards. Group keyboards hold only URL buttons and public callbacks.

``web_app`` buttons are refused in groups (400 BUTTON_TYPE_INVALID): the group opens the
Mini App through a ``t.me/<bot>/<app>?startapp=`` URL button; ``web_app`` appears in
private chats only. Callback strings come from ``callbacks.encode`` (≤ 64 bytes, no
private facts: indexes into the presser's own view).
"""

from __future__ import annotations

from collections.abc import Mapping

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo
from telegram.helpers import create_deep_linked_url

from core.engine.shapes import MoveDict, ViewDict
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


# the Mini App's start parameter (and ?view=) that opens "My games" instead of a game
HISTORY = "history"


def history_keyboard(
    t: Translator,
    bot_username: str,
    short_name: str | None,
    *,
    game_id: str | None = None,
    public_url: str | None = None,
) -> InlineKeyboardMarkup | None:
    """Links to a finished game (``game_id``) and to "My games" in the Mini App: a
    ``t.me`` link anywhere, or a ``web_app`` button (private chats only) from
    ``public_url``. None when the Mini App has no address."""
    rows = []
    if game_id and (url := miniapp_group_url(bot_username, short_name, game_id)):
        rows.append([InlineKeyboardButton("🎬 " + t.gettext("Replay the game"), url=url)])
    if url := miniapp_group_url(bot_username, short_name, HISTORY):
        rows.append([InlineKeyboardButton("🗂 " + t.gettext("My games"), url=url)])
    elif public_url:
        page = WebAppInfo(f"{public_url.rstrip('/')}/?view={HISTORY}")
        rows.append([InlineKeyboardButton("🗂 " + t.gettext("My games"), web_app=page)])
    return InlineKeyboardMarkup(rows) if rows else None


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
    t: Translator, view: ViewDict, turn_time: int | None, group_language: str
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


def next_setting(name: str, current: object, flags: Mapping[str, object]) -> int:
    """The index, in the setting's choices, of the value its cycling button sets next."""
    choices = setting(name).choices_for(flags)
    return choices.index(next_choice(name, current, flags))


def board_keyboard(
    t: Translator, game_id: str, bot_username: str, short_name: str | None
) -> InlineKeyboardMarkup:
    """The group board's buttons: the Mini App link, the secrets alert and "My cards"
    (answered in the group to its presser alone, else in the private chat)."""
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
                "🂠 " + t.gettext("My cards"), callback_data=cb.encode(cb.MY_CARDS, game_id, 0)
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


DISCARDS = ("discard", "discard_to_remove")
NO_CONFIRM = ("next_round", "take_seat_back", *DISCARDS)


def needs_confirm(move: MoveDict) -> bool:
    """A placement or an action on a player waits for one more press (a mis-press can go
    back); passing is confirmed on its own screen, a Ready needs no second thought."""
    return move.get("type") not in NO_CONFIRM


def _card_moves(view: ViewDict, card_id: str) -> list[int]:
    """The plays of one hand card (its discards are chosen on the Pass screen)."""
    moves = view.get("legal_moves") or []
    return [
        j for j, m in enumerate(moves) if m.get("card") == card_id and m.get("type") not in DISCARDS
    ]


def discard_moves(view: ViewDict) -> list[int]:
    return [j for j, m in enumerate(view.get("legal_moves") or []) if m.get("type") in DISCARDS]


def _move_button(
    t: Translator, view: ViewDict, j: int, text: str | None = None
) -> InlineKeyboardButton:
    moves = view.get("legal_moves") or []
    kind = cb.PREVIEW if needs_confirm(moves[j]) else cb.MOVE
    return InlineKeyboardButton(
        (text or move_label(t, view, moves[j]))[:60],
        callback_data=cb.encode(kind, str(view["game_id"]), int(view.get("version", 0)), j),
    )


def panel_keyboard(
    t: Translator,
    view: ViewDict,
    public_url: str | None,
    *,
    group_url: str | None = None,
    in_group: bool = False,
) -> InlineKeyboardMarkup:
    """The hand: one button per card with a play, "Pass / discard", card-less moves.

    ``in_group``: the panel is an ephemeral message in the group, where ``web_app``
    buttons are refused (the group's Mini App link instead) and it can be closed.
    """
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
    if discard_moves(view):
        rows.append(
            [
                InlineKeyboardButton(
                    "🗑 " + t.gettext("Pass / discard"),
                    callback_data=cb.encode(cb.DISCARD, game_id, version, 0),
                )
            ]
        )
    for j, m in enumerate(moves):
        if "card" not in m and "cards" not in m:
            rows.append([_move_button(t, view, j)])
    tail = [InlineKeyboardButton("🔄", callback_data=cb.encode(cb.REFRESH, game_id, version))]
    if in_group:
        if group_url:
            tail.insert(0, InlineKeyboardButton("🗺 " + t.gettext("Board"), url=group_url))
        tail.append(InlineKeyboardButton("✖", callback_data=cb.encode(cb.CLOSE, game_id, version)))
    else:
        url = miniapp_private_url(public_url, game_id)
        if url:
            tail.insert(0, InlineKeyboardButton("🗺 " + t.gettext("Board"), web_app=WebAppInfo(url)))
    rows.append(tail)
    return InlineKeyboardMarkup(rows)


def _hand_button(t: Translator, game_id: str, version: int) -> InlineKeyboardButton:
    return InlineKeyboardButton(
        "↩ " + t.gettext("Hand"), callback_data=cb.encode(cb.HAND, game_id, version)
    )


def card_keyboard(
    t: Translator, view: ViewDict, slot: int, page: int
) -> InlineKeyboardMarkup | None:
    """The plays of one hand card, paginated; None when the slot is gone."""
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
        button = _move_button(t, view, j)
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
    nav.append(_hand_button(t, game_id, version))
    if page + 1 < pages:
        nav.append(
            InlineKeyboardButton(
                "›", callback_data=cb.encode(cb.CARD, game_id, version, slot, page + 1)
            )
        )
    rows.append(nav)
    return InlineKeyboardMarkup(rows)


def back_target(view: ViewDict, j: int) -> tuple[int, int] | None:
    """(hand slot, page) whose move list holds move ``j``; None for a card-less move."""
    moves = view.get("legal_moves") or []
    hand = (view.get("you") or {}).get("hand") or []
    card = moves[j].get("card") if 0 <= j < len(moves) else None
    for slot, c in enumerate(hand):
        if c.get("id") == card:
            own = _card_moves(view, str(card))
            return slot, (own.index(j) // PAGE if j in own else 0)
    return None


def confirm_keyboard(t: Translator, view: ViewDict, j: int) -> InlineKeyboardMarkup:
    """One more press commits move ``j``; Back returns to where it was chosen."""
    game_id = str(view["game_id"])
    version = int(view.get("version", 0))
    target = back_target(view, j)
    back = (
        cb.encode(cb.CARD, game_id, version, target[0], target[1])
        if target is not None
        else cb.encode(cb.HAND, game_id, version)
    )
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(
                    "✔ " + t.gettext("Confirm"),
                    callback_data=cb.encode(cb.MOVE, game_id, version, j),
                ),
                InlineKeyboardButton("« " + t.gettext("Back"), callback_data=back),
            ]
        ]
    )


def selected_slots(mask: int, hand_size: int) -> list[int]:
    return [i for i in range(hand_size) if mask >> i & 1]


def discard_keyboard(t: Translator, view: ViewDict, mask: int) -> InlineKeyboardMarkup:
    """Pass: toggle the cards to discard, then one button commits exactly that choice
    (Saboteur 2: 1–3 cards, or 2 cards to remove a card lying in front of you)."""
    game_id = str(view["game_id"])
    version = int(view.get("version", 0))
    moves = view.get("legal_moves") or []
    hand = (view.get("you") or {}).get("hand") or []
    several = any(len(moves[j].get("cards") or []) > 1 for j in discard_moves(view))
    rows: list[list[InlineKeyboardButton]] = []
    pair: list[InlineKeyboardButton] = []
    for i, c in enumerate(hand):
        on = bool(mask >> i & 1)
        toggled = (mask ^ (1 << i)) if several else (0 if on else 1 << i)
        pair.append(
            InlineKeyboardButton(
                f"{'☑' if on else '☐'} {t.card(str(c.get('card')))}",
                callback_data=cb.encode(cb.DISCARD, game_id, version, toggled),
            )
        )
        if len(pair) == 2:
            rows.append(pair)
            pair = []
    if pair:
        rows.append(pair)
    chosen = sorted(str(hand[i].get("id")) for i in selected_slots(mask, len(hand)))
    for j in discard_moves(view):
        if chosen and sorted(str(c) for c in moves[j].get("cards") or []) == chosen:
            if moves[j].get("type") == "discard":
                label = "✔ " + t.ngettext("Discard {n} card", "Discard {n} cards", len(chosen))
            else:
                label = "✔ " + t.gettext(
                    "Discard 2, remove {what}", what=t.card(str(moves[j].get("remove")))
                )
            rows.append(
                [InlineKeyboardButton(label, callback_data=cb.encode(cb.MOVE, game_id, version, j))]
            )
    rows.append([_hand_button(t, game_id, version)])
    return InlineKeyboardMarkup(rows)


def language_keyboard(t: Translator, scope: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [
            [InlineKeyboardButton(name, callback_data=cb.encode("lang", scope, 0, code))]
            for code, name in LANGUAGE_NAMES.items()
        ]
    )
