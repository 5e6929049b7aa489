"""The public log, normalised into the few facts the belief model uses.

Why tolerant parsing: the log entry fields are the engine's (API.md only fixes `seat`,
`code` and a version/seq); we accept the plausible spellings and ignore what we do not
understand, so a renamed field weakens the beliefs instead of crashing a live table.
Only entries of the current round are used (roles are dealt again every round).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core.ai.board_model import GOAL_CELLS, Board
from core.ai.cards import ACTIONS, PATHS


@dataclass(frozen=True, slots=True)
class Event:
    kind: str  # path rockfall break repair map discard reveal trap free inspect theft
    #            hands_off swap_hand swap_hats discard_remove other
    seat: int | None
    card: str | None = None
    x: int | None = None
    y: int | None = None
    rotated: bool = False
    target: int | None = None
    goal: int | None = None
    removed: str | None = None  # rockfall: the card taken away (if logged)
    removed_rotated: bool = False


_ROUND_MARKERS = (
    "round_start",
    "round_begin",
    "round_dealt",
    "new_round",
    "round_end",
    "round_over",
    "round_result",
)


def _int(v: object) -> int | None:
    try:
        return int(v)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return None


def _card(e: Mapping[str, Any]) -> str | None:
    for key in ("card", "card_id", "catalogue", "kind_card"):
        v = e.get(key)
        if isinstance(v, str) and (v in PATHS or v in ACTIONS):
            return v
        if isinstance(v, dict):
            c = v.get("card")
            if isinstance(c, str):
                return c
    return None


def _target(e: Mapping[str, Any]) -> int | None:
    for key in ("target_seat", "target", "to_seat", "victim"):
        if key in e:
            return _int(e[key])
    return None


def normalise(e: Mapping[str, Any]) -> Event:
    code = str(e.get("code") or e.get("type") or "").lower()
    seat = _int(e.get("seat"))
    card = _card(e)
    x, y = _int(e.get("x")), _int(e.get("y"))
    rot = bool(e.get("rotated"))
    target = _target(e)
    effect = ACTIONS[card][0] if card in ACTIONS else ""
    if "reveal" in code:
        return Event("reveal", seat, card, x, y, rot, goal=_int(e.get("goal")))
    if "rockfall" in code or effect == "rockfall":
        removed = e.get("removed") or e.get("removed_card")
        if isinstance(removed, dict):
            rr = bool(removed.get("rotated"))
            removed = removed.get("card")
        else:
            rr = bool(e.get("removed_rotated"))
        return Event(
            "rockfall",
            seat,
            card,
            x,
            y,
            target=None,
            removed=str(removed) if removed else None,
            removed_rotated=rr,
        )
    if ("path" in code or "placed" in code) and card in PATHS and x is not None:
        return Event("path", seat, card, x, y, rot)
    if "discard" in code and ("remove" in code or e.get("remove")):
        return Event("discard_remove", seat)
    if "discard" in code or "pass" in code:
        return Event("discard", seat)
    table = {
        "break": "break",
        "repair": "repair",
        "map": "map",
        "trapped": "trap",
        "free": "free",
        "inspection": "inspect",
        "theft": "theft",
        "hands_off": "hands_off",
        "swap_hand": "swap_hand",
        "swap_hats": "swap_hats",
    }
    if effect in table:
        kind = table[effect]
        return Event(kind, seat, card, target=target, goal=_int(e.get("goal")))
    for word, kind in (
        ("break", "break"),
        ("repair", "repair"),
        ("map", "map"),
        ("peek", "map"),
        ("trap", "trap"),
        ("free", "free"),
        ("inspect", "inspect"),
        ("hands_off", "hands_off"),
        ("theft", "theft"),
        ("hat", "swap_hats"),
        ("swap", "swap_hand"),
    ):
        if word in code:
            return Event(kind, seat, card, target=target, goal=_int(e.get("goal")))
    return Event("other", seat)


def round_entries(view: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """Log entries of the current round, oldest first (after the last round marker)."""
    log = [e for e in (view.get("log") or ()) if isinstance(e, Mapping)]
    start = 0
    for i, e in enumerate(log):
        code = str(e.get("code") or "").lower()
        if any(m in code for m in _ROUND_MARKERS):
            start = i + 1 if ("end" in code or "over" in code or "result" in code) else i
    return log[start:]


def round_events(view: Mapping[str, Any]) -> list[Event]:
    return [normalise(e) for e in round_entries(view)]


def board_history(view: Mapping[str, Any], events: list[Event]) -> list[Board]:
    """The maze before each event (list of len(events) + 1; the last is the current one).

    Rebuilt backwards from the current maze: a placed card is lifted, a rockfall puts
    back the card it removed (when the log names it), a revealed goal is turned down.
    """
    boards = [Board.from_view(view)]
    b = boards[0]
    # the rockfall entry names the removed card but not its turn: take the turn from
    # the entry that placed it, when that entry is still in the log window
    placed_turn: dict[int, bool] = {}
    last_at: dict[tuple[int, int], Event] = {}
    for i, ev in enumerate(events):
        if ev.kind == "path" and ev.x is not None and ev.y is not None:
            last_at[(ev.x, ev.y)] = ev
        elif ev.kind == "rockfall" and ev.x is not None and ev.y is not None:
            prev = last_at.get((ev.x, ev.y))
            if prev is not None and prev.card == ev.removed:
                placed_turn[i] = prev.rotated
    for i in range(len(events) - 1, -1, -1):
        ev = events[i]
        if ev.kind == "path" and ev.x is not None and ev.y is not None:
            if (ev.x, ev.y) in b.cells and b.cells[(ev.x, ev.y)].card == ev.card:
                b = b.without(ev.x, ev.y)
        elif ev.kind == "rockfall" and ev.removed and ev.x is not None and ev.y is not None:
            if (ev.x, ev.y) not in b.cells:
                b = b.with_card(ev.x, ev.y, ev.removed, placed_turn.get(i, ev.removed_rotated))
        elif ev.kind == "reveal":
            cell = (ev.x, ev.y) if ev.x is not None and ev.y is not None else None
            if cell is None and ev.goal is not None and 0 <= ev.goal < 3:
                cell = GOAL_CELLS[ev.goal]
            goal = ev.goal
            if goal is None and cell in GOAL_CELLS:
                goal = GOAL_CELLS.index(cell)
            if cell is not None and cell in b.cells and goal is not None:
                b = b.with_hidden_goal(cell, goal)
        boards.append(b)
    boards.reverse()
    return boards
