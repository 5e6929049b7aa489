"""Words for views: lobby text, board caption, private panels, move labels, results.

Every function takes a view (API.md) and a Translator. Group texts are built from the
spectator view only (``seat=None``), so they cannot contain what a player may not know;
private texts take that player's own view.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from core.cells import cell_name
from core.engine import EVENT_SPECS, MOVE_SPECS
from core.engine.shapes import EventDict, MoveDict, SeatDict, ViewDict
from core.service.lobby_settings import LEVELS
from telegram_bot.i18n import Translator

GOAL_ROWS = {0: -2, 1: 0, 2: 2}
# a card played on a seat, said the same way whatever the card (the engine declares which
# events and moves these are, so a new card of that kind needs only its name in words)
ON_A_SEAT_EVENTS = frozenset(e.code for e in EVENT_SPECS if e.fields[:2] == ("card", "target_seat"))
ON_A_SEAT_MOVES = frozenset(s.type for s in MOVE_SPECS if s.field_names == ("card", "target_seat"))
TOOL_ICON = {"pickaxe": "⛏", "lantern": "🔦", "cart": "🛒"}
FRONT_ICON = {
    "BREAK_PICKAXE": "⛏✖",
    "BREAK_LANTERN": "🔦✖",
    "BREAK_CART": "🛒✖",
    "TRAPPED": "⛓",
    "THEFT": "💰",
}
LOBBY_LIMITS = {"classic": (3, 10), "expansion": (2, 12)}


def esc(text: object) -> str:
    return html.escape(str(text), quote=False)


def display_name(t: Translator, s: SeatDict) -> str:
    """A seat's name for this reader: a computer seat's in the reader's language (the view's
    ``computer_no``), anyone else's as they wrote it."""
    number = s.get("computer_no")
    if isinstance(number, int):
        return t.gettext("Computer {n}", n=number)
    return str(s.get("name") or f"#{int(s.get('seat') or 0) + 1}")


def seat_name(t: Translator, view: ViewDict, seat: int | None) -> str:
    if seat is None:
        return "—"
    for s in view.get("seats", []):
        if s.get("seat") == seat:
            return display_name(t, s)
    return f"#{seat + 1}"


def goal_name(t: Translator, goal: int) -> str:
    names = {0: t.gettext("top goal"), 1: t.gettext("middle goal"), 2: t.gettext("bottom goal")}
    return names.get(goal, t.gettext("goal {n}", n=goal + 1))


def turn_time_text(t: Translator, seconds: int | None) -> str:
    if not seconds:
        return t.gettext("no limit")
    if seconds % 60 == 0 and seconds >= 60:
        return t.gettext("{m} min", m=seconds // 60)
    return t.gettext("{s} s", s=seconds)


def level_name(t: Translator, level: str) -> str:
    """How strong the computer plays, in words (its setting is ``computer_level``)."""
    return t.pgettext("level", level) if level in LEVELS else level


def options_summary(t: Translator, view: ViewDict) -> str:
    opts = view.get("options") or {}
    on = [t.pgettext("option", k) for k, v in sorted(opts.items()) if v is True and k != "rounds"]
    return ", ".join(on) if on else t.gettext("standard rules")


# ---------------------------------------------------------------- lobby (group)
def lobby_text(
    t: Translator,
    view: ViewDict,
    *,
    autostart_in: int | None = None,
    turn_time: int | None = None,
) -> str:
    edition = str(view.get("edition", "classic"))
    low, high = LOBBY_LIMITS.get(edition, (2, 12))
    settings = view.get("settings") or {}
    low = int(settings.get("min_players", low))
    high = int(settings.get("max_players", high))
    seats = view.get("seats", [])
    names = [esc(display_name(t, s)) + (" 🤖" if s.get("computer") else "") for s in seats]
    lines = [
        "⛏ <b>" + t.gettext("Saboteur — new game") + "</b>",
        t.gettext("Edition: {edition}", edition=t.pgettext("edition", edition)),
        t.gettext("Rounds: {n}", n=view.get("rounds", 3))
        + " · "
        + t.gettext("Turn time: {time}", time=turn_time_text(t, turn_time)),
        t.gettext("Options: {options}", options=options_summary(t, view)),
    ]
    if any(s.get("computer") for s in seats):
        lines.append(
            t.gettext(
                "Computer players: {level}",
                level=level_name(t, str(settings.get("computer_level", "normal"))),
            )
        )
    lines += [
        "",
        t.gettext("Players ({n}/{max}):", n=len(seats), max=high),
        *(f"{i + 1}. {n}" for i, n in enumerate(names)),
        "",
    ]
    if len(seats) < low:
        lines.append(
            t.ngettext("At least {n} player is needed.", "At least {n} players are needed.", low)
        )
    lines.append(
        t.gettext("Press “Join”: I open our private chat, where your role and cards will come.")
    )
    if autostart_in is not None and autostart_in > -3600 and len(seats) >= low:
        left = max(0, autostart_in)
        when = t.gettext("{m} min", m=-(-left // 60)) if left >= 60 else t.gettext("{s} s", s=left)
        lines.append("⏱ " + t.gettext("Starts by itself in {time}.", time=when))
    return "\n".join(lines)


def lobby_closed_text(t: Translator, started: bool) -> str:
    if started:
        return "⛏ " + t.gettext("The game has started: the board is below.")
    return "⛏ " + t.gettext("This lobby was closed.")


# ---------------------------------------------------------------- board (group)
def picture_labels(t: Translator) -> dict[str, str]:
    """The group picture's words in the group's language (keys of
    ``board_picture.LABELS_EN``; the picture fills in the ``{placeholders}``)."""
    return {
        "round": t.gettext("Round {r}/{n}", r="{round}", n="{rounds}"),
        "deck": t.gettext("Deck {deck}", deck="{deck}"),
        "stealing": t.gettext("Stealing gold"),
        "round_over": t.gettext("Round over"),
        "finished": t.gettext("Game over"),
        "lobby": t.gettext("Waiting for players"),
        "computer": t.gettext("Computer {n}", n="{n}"),
    }


def front_icons(seat: SeatDict) -> str:
    return "".join(FRONT_ICON.get(str(c), "") for c in seat.get("in_front") or [])


def board_caption(t: Translator, view: ViewDict) -> str:
    """The group caption: public facts only (the spectator view holds nothing else)."""
    status = view.get("status")
    edition = t.pgettext("edition", str(view.get("edition", "classic")))
    head = (
        "⛏ <b>"
        + t.gettext("Round {r}/{n}", r=view.get("round", 1), n=view.get("rounds", 3))
        + f"</b> · {esc(edition)}"
    )
    turn_time = (view.get("settings") or {}).get("turn_time")
    if turn_time and status in ("playing", "stealing"):
        head += f" · ⏱ {turn_time_text(t, int(turn_time))}"
    lines = [head]
    current = view.get("current_seat")
    if status in ("playing", "stealing") and current is not None:
        who = esc(seat_name(t, view, current))
        if status == "stealing":
            lines.append("💰 " + t.gettext("{name} is stealing.", name=who))
        else:
            lines.append("▶ " + t.gettext("{name}'s turn.", name=who))
    elif status == "round_over":
        lines.append("🏁 " + t.gettext("The round is over."))
    elif status == "finished":
        lines.append("🏆 " + t.gettext("The game is over."))
    elif status == "cancelled":
        lines.append("✖ " + t.gettext("The game was cancelled."))
    rows = []
    for s in view.get("seats", []):
        mark = "▶" if s.get("seat") == current and status in ("playing", "stealing") else "·"
        extra = front_icons(s)
        if s.get("has_gold"):
            extra += "🪙"
        if s.get("computer"):
            extra += "🤖"
        role = s.get("role")
        role_text = f" ({esc(t.role(role))})" if role else ""
        gold = s.get("gold")
        gold_text = f" — {gold} 🪙" if gold is not None else ""
        parts = [f"{mark} {esc(display_name(t, s))}{role_text}", f"🂠{s.get('hand_size', 0)}", extra]
        rows.append(" ".join(p for p in parts if p) + gold_text)
    lines.extend(rows)
    lines.append(
        t.gettext(
            "Deck: {deck} · Discarded: {discard}",
            deck=view.get("deck_size", 0),
            discard=view.get("discard_size", 0),
        )
    )
    last = last_event(t, view)
    if last:
        lines.append("📝 " + last)
    return _fit_lines(lines, 1000)


def _fit_lines(lines: list[str], limit: int) -> str:
    """Join whole lines up to ``limit`` characters (never cutting an HTML entity or tag)."""
    out: list[str] = []
    size = 0
    for line in lines:
        if size + len(line) + 1 > limit:
            out.append("…")
            break
        out.append(line)
        size += len(line) + 1
    return "\n".join(out)


def last_event(t: Translator, view: ViewDict) -> str | None:
    log = view.get("log") or []
    for entry in reversed(log):
        text = event_text(t, view, entry)
        if text:
            return text
    return None


def event_text(t: Translator, view: ViewDict, e: EventDict) -> str | None:
    """One public log entry in words (unknown codes are skipped, never guessed)."""
    who = esc(seat_name(t, view, e.get("seat")))
    target = esc(seat_name(t, view, e.get("target_seat")))
    card = esc(t.card(str(e.get("card", "")))) if e.get("card") else ""
    code = str(e.get("code") or "")
    timeout = " ⌛" if e.get("timeout") else ""
    if code == "path_placed":
        return t.gettext("{who} placed {card} at {cell}.", who=who, card=card, cell=_cell(e))
    if code in ON_A_SEAT_EVENTS:
        return t.gettext("{who} played {card} on {target}.", who=who, card=card, target=target)
    if code == "rockfall":
        return t.gettext("{who} caused a rockfall at {cell}.", who=who, cell=_cell(e))
    if code == "map_used":
        return t.gettext(
            "{who} looked at the {goal}.", who=who, goal=goal_name(t, int(e.get("goal", 1)))
        )
    if code == "theft_laid":
        return t.gettext("{who} laid a theft card.", who=who)
    if code in ("passed", "discarded_to_remove"):
        n = int(e.get("count") or 1)
        return (
            t.ngettext(
                "{who} passed (discarded {n} card).",
                "{who} passed (discarded {n} cards).",
                n,
                who=who,
            )
            + timeout
        )
    if code == "stole":
        if e.get("target_seat") is None:
            return t.gettext("{who} found nobody to steal from.", who=who) + timeout
        return t.gettext("{who} stole from {target}.", who=who, target=target) + timeout
    if code == "round_started":
        return t.gettext("Round {r} started.", r=e.get("round", view.get("round", 1)))
    if code == "round_ended":
        return t.gettext("The round is over.")
    if code == "game_finished":
        return t.gettext("The game is over.")
    return None


def _cell(e: EventDict | MoveDict) -> str:
    """The cell name of an entry's x, y (the picture's rim labels use the same names)."""
    x, y = e.get("x"), e.get("y")
    return cell_name(x, y) if isinstance(x, int) and isinstance(y, int) else "?"


def round_result_text(t: Translator, view: ViewDict) -> str:
    """Round-end reveal for the group (public at round end: RULES §8)."""
    rr = view.get("round_result") or {}
    winners = str(rr.get("winners") or "nobody")
    lines = [
        "🏁 <b>" + t.gettext("Round {r} is over.", r=view.get("round", 1)) + "</b>",
        t.gettext("Winners: {side}.", side=t.pgettext("side", winners)),
    ]
    gold_goal = rr.get("gold_goal")
    if gold_goal is not None:
        lines.append(t.gettext("The gold was under the {goal}.", goal=goal_name(t, int(gold_goal))))
    roles: Sequence[str | None] = rr.get("roles") or [s.get("role") for s in view.get("seats", [])]
    for s in view.get("seats", []):
        i = s.get("seat", 0)
        role = roles[i] if isinstance(roles, list) and i < len(roles) else s.get("role")
        if isinstance(role, dict):
            role = role.get("role")
        lines.append(f"• {esc(display_name(t, s))}: {esc(t.role(role))}")
    return "\n".join(lines)


def final_text(t: Translator, view: ViewDict) -> str:
    seats = view.get("seats", [])
    final = view.get("final")
    gold = final.get("gold") if isinstance(final, dict) else None
    totals = [
        (
            s.get("gold")
            if s.get("gold") is not None
            else (gold[s["seat"]] if isinstance(gold, list) else 0)
        )
        or 0
        for s in seats
    ]
    best = max(totals) if totals else 0
    lines = ["🏆 <b>" + t.gettext("Final scores") + "</b>"]
    order = sorted(range(len(seats)), key=lambda i: -totals[i])
    for i in order:
        crown = "👑 " if totals[i] == best else ""
        lines.append(f"{crown}{esc(display_name(t, seats[i]))}: {totals[i]} 🪙")
    return "\n".join(lines)


# ---------------------------------------------------------------- private
def hand_lines(t: Translator, view: ViewDict) -> list[str]:
    you = view.get("you") or {}
    return [f"{i + 1}. {t.card(str(c.get('card')))}" for i, c in enumerate(you.get("hand") or [])]


def secrets_text(t: Translator, view: ViewDict) -> str:
    """What only this player knows: role, peeked goals, inspected roles."""
    you = view.get("you") or {}
    parts = [t.gettext("Your role: {role}", role=t.role(you.get("role")))]
    for g in you.get("known_goals") or []:
        kind = t.gettext("gold") if g.get("kind") == "gold" else t.gettext("stone")
        parts.append(
            t.gettext("{goal}: {kind}", goal=goal_name(t, int(g.get("goal", 0))), kind=kind)
        )
    for r in you.get("known_roles") or []:
        stale = " (?)" if r.get("stale") else ""
        parts.append(f"{seat_name(t, view, r.get('seat'))}: {t.role(r.get('role'))}{stale}")
    if you.get("gold") is not None:
        parts.append(t.gettext("Your gold: {n}", n=you.get("gold")))
    return "\n".join(parts)


def panel_text(t: Translator, view: ViewDict, title: str | None = None) -> str:
    you = view.get("you") or {}
    lines = []
    if title:
        lines.append(title)
    lines.append("⛏ " + t.gettext("Round {r}/{n}", r=view.get("round", 1), n=view.get("rounds", 3)))
    lines.append("🎭 " + esc(t.gettext("Your role: {role}", role=t.role(you.get("role")))))
    for g in you.get("known_goals") or []:
        kind = "🪙 " + t.gettext("gold") if g.get("kind") == "gold" else "🪨 " + t.gettext("stone")
        lines.append(
            "🗺 " + t.gettext("{goal}: {kind}", goal=goal_name(t, int(g.get("goal", 0))), kind=kind)
        )
    for r in you.get("known_roles") or []:
        lines.append("🔍 " + esc(f"{seat_name(t, view, r.get('seat'))}: {t.role(r.get('role'))}"))
    hand = hand_lines(t, view)
    if hand:
        lines.append("🂠 " + t.gettext("Your hand:"))
        lines.extend(esc(h) for h in hand)
    status = view.get("status")
    current = view.get("current_seat")
    seat = you.get("seat")
    rr = view.get("round_result") or {}
    if status in ("round_over", "finished") and rr.get("your_winnings") is not None:
        lines.append("🪙 " + t.gettext("Your winnings this round: {n}", n=rr["your_winnings"]))
    if you.get("gold"):
        lines.append("💰 " + t.gettext("Your gold: {n}", n=you.get("gold")))
    if view.get("legal_moves"):
        if status == "round_over":
            lines.append("🏁 " + t.gettext("The round is over. Ready for the next one?"))
        elif status == "stealing":
            lines.append("💰 " + t.gettext("Choose whom to steal from."))
        elif current == seat:
            lines.append("▶ <b>" + t.gettext("Your turn!") + "</b> " + t.gettext("Choose a card."))
    elif status in ("playing", "stealing") and current is not None:
        lines.append(t.gettext("Waiting for {name}.", name=esc(seat_name(t, view, current))))
    return "\n".join(lines)


def move_label(t: Translator, view: ViewDict, move: MoveDict) -> str:
    """A short button label for one legal move of this player."""
    kind = move.get("type")
    hand = {c.get("id"): c.get("card") for c in (view.get("you") or {}).get("hand") or []}
    card = t.card(str(hand.get(move.get("card") or "", ""))) if move.get("card") else ""
    target = seat_name(t, view, move.get("target_seat"))
    if kind == "place_path":
        turn = " ↻" if move.get("rotated") else ""
        return t.gettext("at {cell}", cell=_cell(move)) + turn
    if kind == "repair_tool":
        return (
            f"→ {target} ({TOOL_ICON.get(str(move.get('tool')), '')} "
            f"{t.tool(str(move.get('tool')))})"
        )
    if kind in ON_A_SEAT_MOVES:
        return f"→ {target}"
    if kind == "rockfall":
        return t.gettext("remove {cell}", cell=_cell(move))
    if kind == "map":
        return "🗺 " + goal_name(t, int(move.get("goal", 1)))
    if kind == "theft":
        return t.gettext("Lay in front of me")
    if kind == "discard":
        names = [t.card(str(hand.get(c, ""))) for c in move.get("cards") or []]
        return "🗑 " + t.gettext("Discard {cards}", cards=" + ".join(names))
    if kind == "discard_to_remove":
        names = [t.card(str(hand.get(c, ""))) for c in move.get("cards") or []]
        return "🗑 " + t.gettext(
            "Discard {cards}, remove {what}",
            cards=" + ".join(names),
            what=t.card(str(move.get("remove"))),
        )
    if kind == "steal":
        if move.get("target_seat") is None:
            return t.gettext("Steal nothing")
        return "💰 " + t.gettext("Steal from {name}", name=target)
    if kind == "next_round":
        return "✅ " + t.gettext("Ready for the next round")
    if kind == "take_seat_back":
        return "🙋 " + t.gettext("Take my seat back")
    return card or str(kind)


def played_text(t: Translator, view: ViewDict, move: MoveDict) -> str:
    hand = {c.get("id"): c.get("card") for c in (view.get("you") or {}).get("hand") or []}
    card = t.card(str(hand.get(move.get("card") or "", ""))) if move.get("card") else ""
    label = move_label(t, view, move)
    return "✔ " + (
        f"{card} {label}"
        if card and move.get("type") not in ("discard", "discard_to_remove")
        else label
    )


def confirm_text(t: Translator, view: ViewDict, move: MoveDict) -> str:
    """The question of the confirm step: the whole move in words, card included."""
    move_text = "<b>" + esc(played_text(t, view, move).removeprefix("✔ ")) + "</b>"
    return "👉 " + t.gettext("{move}?", move=move_text)


def discard_prompt(t: Translator, view: ViewDict) -> str:
    moves = view.get("legal_moves") or []
    several = any(len(m.get("cards") or []) > 1 for m in moves if m.get("type") in ("discard",))
    if several:
        return "🗑 " + t.gettext(
            "Pass: choose 1 to 3 cards to discard (or 2 to remove a card in front of you), "
            "then confirm."
        )
    return "🗑 " + t.gettext("Pass: choose the card to discard, then confirm.")
