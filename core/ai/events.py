"""The public log, normalised into the few facts the belief model uses.

The entries' codes and fields are the engine's (each event is declared with its move:
core/engine/registry.py); an entry of a code the model does not use is "other".
Only entries of the current round are used (roles are dealt again every round).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from core.ai.board_model import GOAL_CELLS, Board
from core.ai.cards import PATHS
from core.engine import EventCode
from core.engine.shapes import EventDict, ViewDict


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
    removed: str | None = None  # rockfall: the card taken away
    removed_rotated: bool = False


# the belief model's kind of each engine event it uses
KINDS: dict[str, str] = {
    EventCode.PATH_PLACED: "path",
    EventCode.GOAL_REVEALED: "reveal",
    EventCode.ROCKFALL: "rockfall",
    EventCode.TOOL_BROKEN: "break",
    EventCode.TOOL_REPAIRED: "repair",
    EventCode.MAP_USED: "map",
    EventCode.PASSED: "discard",
    EventCode.DISCARDED_TO_REMOVE: "discard_remove",
    EventCode.THEFT_LAID: "theft",
    EventCode.HANDS_OFF: "hands_off",
    EventCode.FREED: "free",
    EventCode.TRAPPED: "trap",
    EventCode.HANDS_SWAPPED: "swap_hand",
    EventCode.INSPECTED: "inspect",
    EventCode.HATS_SWAPPED: "swap_hats",
}


def _int(v: object) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _str(v: object) -> str | None:
    return v if isinstance(v, str) else None


def normalise(e: Mapping[str, object]) -> Event:
    kind = KINDS.get(str(e.get("code")), "other")
    seat = _int(e.get("seat"))
    card = _str(e.get("card"))
    x, y = _int(e.get("x")), _int(e.get("y"))
    if kind == "reveal":
        return Event("reveal", seat, card, x, y, bool(e.get("rotated")), goal=_int(e.get("goal")))
    if kind == "rockfall":
        return Event("rockfall", seat, card, x, y, removed=_str(e.get("removed")))
    if kind == "path":
        if card in PATHS and x is not None:
            return Event("path", seat, card, x, y, bool(e.get("rotated")))
        return Event("other", seat)
    if kind in ("discard", "discard_remove", "other"):
        return Event(kind, seat)
    return Event(kind, seat, card, target=_int(e.get("target_seat")), goal=_int(e.get("goal")))


def round_entries(view: ViewDict) -> list[EventDict]:
    """Log entries of the current round, oldest first (from its round_started entry on)."""
    log = [e for e in (view.get("log") or ()) if isinstance(e, Mapping)]
    start = 0
    for i, e in enumerate(log):
        code = e.get("code")
        if code == EventCode.ROUND_STARTED:
            start = i
        elif code == EventCode.ROUND_ENDED:
            start = i + 1
    return log[start:]


def round_events(view: ViewDict) -> list[Event]:
    return [normalise(e) for e in round_entries(view)]


def board_history(view: ViewDict, events: list[Event]) -> list[Board]:
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
