"""Path cards, classic action cards and discards (RULES §2-§4); the move dispatcher."""

from __future__ import annotations

from typing import Any

from . import expansion
from .board import GOAL_SET, GOAL_XY, LIMIT, START_KEY, key
from .cards import CARD_INDEX, CARD_LIST, SYMMETRIC, TOOLS
from .moves import EFFECT_MOVE, can_place_path
from .reasons import IllegalMove, Reason
from .state import GameState, RoundState, evolve_with
from .turn import Turn, drop, take_cards, target


def _place(t: Turn, m: dict[str, Any], idx: int) -> None:
    rs = t.rs
    if not can_place_path(rs, t.seat):
        front = rs.in_front[t.seat]
        raise IllegalMove(Reason.TRAPPED if "TRAPPED" in front else Reason.TOOL_BROKEN)
    x, y, rot = m["x"], m["y"], m["rotated"]
    if SYMMETRIC[idx]:
        rot = False  # the same placement either way: stored upright
    o = 2 * idx + (1 if rot else 0)
    why = rs.board.check_place(o, x, y)
    if why is not None:
        raise IllegalMove(why, f"cannot place at ({x}, {y})")
    board, newly = rs.board.place(o, x, y)
    t.changes["board"] = board
    t.event("path_placed", card=CARD_LIST[idx].id, x=x, y=y, rotated=rot)
    gold = board.gold_goal()
    for gi in newly:
        gx, gy = GOAL_XY[gi]
        go = board.cells[key(gx, gy)]
        t.event(
            "goal_revealed",
            goal=gi,
            x=gx,
            y=gy,
            card=CARD_LIST[go >> 1].id,
            rotated=bool(go & 1),
            kind="gold" if gi == gold else "stone",
        )
        if gi == gold:
            t.gold_hit = True


def _break(t: Turn, m: dict[str, Any], idx: int) -> None:
    s = target(t.state, m, other_than=t.seat)
    cid = CARD_LIST[idx].id
    if cid in t.front(s):
        raise IllegalMove(Reason.ALREADY_BROKEN)
    t.set_front(s, (*t.front(s), cid))
    t.event("tool_broken", card=cid, target_seat=s, tool=CARD_LIST[idx].tools[0])


def _repair(t: Turn, m: dict[str, Any], idx: int) -> None:
    s = target(t.state, m)
    tool = m["tool"]
    c = CARD_LIST[idx]
    if tool not in TOOLS or tool not in c.tools:
        raise IllegalMove(Reason.BAD_TOOL, f"{c.id} does not repair {tool!r}")
    bid = f"BREAK_{tool.upper()}"
    front = t.front(s)
    if bid not in front:
        raise IllegalMove(Reason.NO_SUCH_TOOL_BROKEN)
    t.set_front(s, tuple(x for x in front if x != bid))
    t.to_discard(CARD_INDEX[bid])
    t.event("tool_repaired", card=c.id, target_seat=s, tool=tool)


def _rockfall(t: Turn, m: dict[str, Any], idx: int) -> None:
    x, y = m["x"], m["y"]
    board = t.rs.board
    o = board.path_at(x, y)
    if o is None:
        if (
            -LIMIT < x < LIMIT
            and -LIMIT < y < LIMIT
            and (key(x, y) == START_KEY or key(x, y) in GOAL_SET)
        ):
            raise IllegalMove(Reason.BAD_TARGET, "start and goal cards cannot be removed")
        raise IllegalMove(Reason.NOTHING_TO_REMOVE, f"no path card at ({x}, {y})")
    t.changes["board"] = board.remove(x, y)
    t.to_discard(o >> 1)
    t.event("rockfall", card=CARD_LIST[idx].id, x=x, y=y, removed=CARD_LIST[o >> 1].id)


def _map(t: Turn, m: dict[str, Any], idx: int) -> None:
    g = m["goal"]
    if not 0 <= g <= 2:
        raise IllegalMove(Reason.BAD_TARGET, "goal is 0, 1 or 2")
    if t.rs.board.revealed[g]:
        raise IllegalMove(Reason.GOAL_ALREADY_REVEALED)
    kg = list(t.rs.known_goals)
    kg[t.seat] = tuple(sorted({*kg[t.seat], g}))
    t.changes["known_goals"] = tuple(kg)
    t.event("map_used", card=CARD_LIST[idx].id, goal=g)


HANDLERS = {
    "place_path": _place,
    "break_tool": _break,
    "repair_tool": _repair,
    "rockfall": _rockfall,
    "map": _map,
    **expansion.HANDLERS,
}


def _discard(t: Turn, m: dict[str, Any], timeout: bool) -> None:
    cards = m["cards"]
    allowed = (1, 2, 3) if t.state.config.expansion else (1,)
    if len(cards) not in allowed:
        raise IllegalMove(
            Reason.BAD_DISCARD, "discard 1 to 3 cards" if len(allowed) > 1 else "discard 1 card"
        )
    pos = take_cards(t.rs, t.seat, cards)
    drop(t, pos)
    t.draws = len(pos)
    extra = {"timeout": True} if timeout else {}
    t.event("passed", count=len(pos), **extra)


def play(state: GameState, seat: int, m: dict[str, Any], timeout: bool = False) -> Turn:
    """Check and perform a playing-phase move; the caller finishes the turn."""
    t = Turn(state, seat)
    kind = m["type"]
    if kind == "discard":
        _discard(t, m, timeout)
        return t
    if kind == "discard_to_remove":
        expansion.discard_to_remove(t, m)
        return t
    rs = state.rs
    pos = take_cards(rs, seat, [m["card"]])[0]
    idx = rs.table.cards[pos]
    expected = PLAYED_WITH[idx]
    if kind != expected:
        raise IllegalMove(Reason.WRONG_CARD_TYPE, f"{CARD_LIST[idx].id} is played with {expected}")
    hand = list(t.hands[seat])
    hand.remove(pos)
    t.hands[seat] = tuple(hand)
    HANDLERS[kind](t, m, idx)
    if kind in TO_DISCARD:
        t.to_discard(idx)
    return t


# the move type that plays each catalogue card (None: start and goal cards)
PLAYED_WITH = tuple(
    "place_path" if c.category == "path" else EFFECT_MOVE.get(c.kind) for c in CARD_LIST
)
# action moves whose card goes to the discard pile (the others stay in front of a seat)
TO_DISCARD = frozenset(EFFECT_MOVE.values()) - {"break_tool", "theft", "trap"}


def finish(t: Turn) -> RoundState:
    """Draw, pass the turn to the next seat with cards, and build the new round state."""
    rs = t.rs
    drawn = t.changes.get("drawn", rs.drawn)
    total = len(rs.table.cards)
    if t.draws and not t.gold_hit and drawn < total:
        k = min(t.draws, total - drawn)
        t.hands[t.seat] = (*t.hands[t.seat], *range(drawn, drawn + k))
        drawn += k
        t.changes["drawn"] = drawn
    t.changes["hands"] = tuple(t.hands)
    t.changes["last_mover"] = t.seat
    # the next seat holding cards (None: nobody holds a card, the round is over)
    hands = t.hands
    n = len(hands)
    current = None
    for i in range(t.seat + 1, t.seat + n + 1):
        if hands[i % n]:
            current = i % n
            break
    t.changes["current"] = current
    return evolve_with(rs, t.changes)
