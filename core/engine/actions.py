"""Playing-phase moves of both editions (RULES §2-§4, §6 actions and turn options).

Each move is checked completely before anything is built; the new round state is made
with `dataclasses.replace` touching only the fields the move changes.
"""

from __future__ import annotations

from typing import Any

from .board import GOAL_SET, GOAL_XY, LIMIT, START_KEY, key
from .cards import CARD_INDEX, CARD_LIST, SYMMETRIC, TOOLS
from .moves import BREAKS, EFFECT_MOVE, can_place_path
from .reasons import IllegalMove, Reason
from .state import GameState, RoundState, evolve

REMOVABLE = (*BREAKS, "TRAPPED", "THEFT")


class Turn:
    """Mutable scratch for one move; turned into a new RoundState at the end."""

    __slots__ = ("changes", "draws", "events", "gold_hit", "hands", "rs", "seat", "seq", "state")

    def __init__(self, state: GameState, seat: int) -> None:
        self.state = state
        self.rs = state.rs
        self.seat = seat
        self.seq = state.seq + 1
        self.hands = list(state.rs.hands)
        self.changes: dict[str, Any] = {}
        self.events: list[dict[str, Any]] = []
        self.draws = 1
        self.gold_hit = False

    def event(self, code: str, **data: Any) -> None:
        self.events.append({"seq": self.seq, "seat": self.seat, "code": code, **data})

    def front(self, s: int) -> tuple[str, ...]:
        fr: tuple[tuple[str, ...], ...] = self.changes.get("in_front", self.rs.in_front)
        return fr[s]

    def set_front(self, s: int, items: tuple[str, ...]) -> None:
        fr = list(self.changes.get("in_front", self.rs.in_front))
        fr[s] = items
        self.changes["in_front"] = tuple(fr)

    def to_discard(self, *idx: int) -> None:
        self.changes["discard"] = self.changes.get("discard", self.rs.discard) + idx


def _target(state: GameState, m: dict[str, Any], *, other_than: int | None = None) -> int:
    s: int = m["target_seat"]
    if not 0 <= s < state.n or s == other_than:
        raise IllegalMove(Reason.BAD_TARGET, f"seat {s} is not a valid target")
    return s


def take_cards(rs: RoundState, seat: int, iids: list[str]) -> list[int]:
    """Positions of the named hand cards (refuses unknown or repeated ids)."""
    hand = rs.hands[seat]
    pos_of = rs.table.pos_of
    out: list[int] = []
    for iid in iids:
        p = pos_of.get(iid)
        if p is None or p not in hand or p in out:
            raise IllegalMove(Reason.CARD_NOT_IN_HAND, f"card {iid} is not in your hand")
        out.append(p)
    return out


# --------------------------------------------------------------------- path and classic


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
    s = _target(t.state, m, other_than=t.seat)
    cid = CARD_LIST[idx].id
    if cid in t.front(s):
        raise IllegalMove(Reason.ALREADY_BROKEN)
    t.set_front(s, (*t.front(s), cid))
    t.event("tool_broken", card=cid, target_seat=s, tool=CARD_LIST[idx].tools[0])


def _repair(t: Turn, m: dict[str, Any], idx: int) -> None:
    s = _target(t.state, m)
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


# --------------------------------------------------------------------- Saboteur 2 actions


def _theft(t: Turn, m: dict[str, Any], idx: int) -> None:
    if "THEFT" in t.front(t.seat):
        raise IllegalMove(Reason.ALREADY_IN_FRONT)
    t.set_front(t.seat, (*t.front(t.seat), "THEFT"))
    laid = list(t.rs.theft_laid)
    laid[t.seat] = t.seq
    t.changes["theft_laid"] = tuple(laid)
    t.event("theft_laid", card="THEFT")


def _remove_from(t: Turn, s: int, kind: str) -> None:
    front = t.front(s)
    if kind not in front:
        raise IllegalMove(Reason.NOTHING_TO_REMOVE, f"no {kind} in front of seat {s}")
    t.set_front(s, tuple(x for x in front if x != kind))
    t.to_discard(CARD_INDEX[kind])
    if kind == "THEFT":
        laid = list(t.changes.get("theft_laid", t.rs.theft_laid))
        laid[s] = -1
        t.changes["theft_laid"] = tuple(laid)


def _hands_off(t: Turn, m: dict[str, Any], idx: int) -> None:
    s = _target(t.state, m)
    _remove_from(t, s, "THEFT")
    t.event("hands_off", card=CARD_LIST[idx].id, target_seat=s)


def _free(t: Turn, m: dict[str, Any], idx: int) -> None:
    s = _target(t.state, m)
    _remove_from(t, s, "TRAPPED")
    t.event("freed", card=CARD_LIST[idx].id, target_seat=s)


def _trap(t: Turn, m: dict[str, Any], idx: int) -> None:
    s = _target(t.state, m, other_than=t.seat)
    if "TRAPPED" in t.front(s):
        raise IllegalMove(Reason.ALREADY_IN_FRONT)
    t.set_front(s, (*t.front(s), "TRAPPED"))
    t.event("trapped", card=CARD_LIST[idx].id, target_seat=s)


def _swap_hand(t: Turn, m: dict[str, Any], idx: int) -> None:
    s = _target(t.state, m, other_than=t.seat)
    mine = t.hands[t.seat]
    t.hands[t.seat] = t.hands[s]
    rs = t.rs
    drawn = t.changes.get("drawn", rs.drawn)
    if drawn < len(rs.table.cards):
        mine = (*mine, drawn)
        t.changes["drawn"] = drawn + 1
    t.hands[s] = mine
    t.draws = 0
    t.event("hands_swapped", card=CARD_LIST[idx].id, target_seat=s)


def _inspect(t: Turn, m: dict[str, Any], idx: int) -> None:
    s = _target(t.state, m, other_than=t.seat)
    kr = list(t.rs.known_roles)
    mine = [e for e in kr[t.seat] if e[0] != s]
    mine.append((s, t.rs.roles[s], False))
    kr[t.seat] = tuple(sorted(mine))
    t.changes["known_roles"] = tuple(kr)
    t.event("inspected", card=CARD_LIST[idx].id, target_seat=s)


def _swap_hats(t: Turn, m: dict[str, Any], idx: int) -> None:
    s = _target(t.state, m)
    rs = t.rs
    if not rs.role_pool:
        raise IllegalMove(Reason.NOTHING_TO_REMOVE, "no role card left to take")
    roles = list(rs.roles)
    # The set-aside roles were shuffled at setup: the new role is the top one.
    roles[s] = rs.role_pool[0]
    t.changes["roles"] = tuple(roles)
    t.changes["role_pool"] = rs.role_pool[1:]
    kr = []
    for seat, known in enumerate(rs.known_roles):
        if seat == s:
            kr.append(known)
        else:
            kr.append(tuple((q, r, True) if q == s else (q, r, st) for q, r, st in known))
    t.changes["known_roles"] = tuple(kr)
    t.event("hats_swapped", card=CARD_LIST[idx].id, target_seat=s)


HANDLERS = {
    "place_path": _place,
    "break_tool": _break,
    "repair_tool": _repair,
    "rockfall": _rockfall,
    "map": _map,
    "theft": _theft,
    "hands_off": _hands_off,
    "free": _free,
    "trap": _trap,
    "swap_hand": _swap_hand,
    "inspect": _inspect,
    "swap_hats": _swap_hats,
}


# --------------------------------------------------------------------- discards


def _discard(t: Turn, m: dict[str, Any], timeout: bool) -> None:
    cards = m["cards"]
    allowed = (1, 2, 3) if t.state.config.expansion else (1,)
    if len(cards) not in allowed:
        raise IllegalMove(Reason.BAD_DISCARD, f"discard {allowed} card(s)")
    pos = take_cards(t.rs, t.seat, cards)
    _drop(t, pos)
    t.draws = len(pos)
    extra = {"timeout": True} if timeout else {}
    t.event("passed", count=len(pos), **extra)


def _discard_to_remove(t: Turn, m: dict[str, Any]) -> None:
    if not t.state.config.expansion:
        raise IllegalMove(Reason.NOT_IN_EDITION)
    cards = m["cards"]
    if len(cards) != 2:
        raise IllegalMove(Reason.BAD_DISCARD, "discard exactly 2 cards")
    kind = m["remove"]
    if kind not in REMOVABLE:
        raise IllegalMove(Reason.BAD_TARGET, f"{kind!r} cannot be removed")
    pos = take_cards(t.rs, t.seat, cards)
    _remove_from(t, t.seat, kind)
    _drop(t, pos)
    t.draws = 1
    t.event("discarded_to_remove", count=2, remove=kind)


def _drop(t: Turn, pos: list[int]) -> None:
    t.hands[t.seat] = tuple(p for p in t.hands[t.seat] if p not in pos)
    t.to_discard(*(t.rs.table.cards[p] for p in pos))


def play(state: GameState, seat: int, m: dict[str, Any], timeout: bool = False) -> Turn:
    """Check and perform a playing-phase move; the caller finishes the turn."""
    t = Turn(state, seat)
    kind = m["type"]
    if kind == "discard":
        _discard(t, m, timeout)
        return t
    if kind == "discard_to_remove":
        _discard_to_remove(t, m)
        return t
    rs = state.rs
    pos = take_cards(rs, seat, [m["card"]])[0]
    idx = rs.table.cards[pos]
    c = CARD_LIST[idx]
    expected = "place_path" if c.category == "path" else EFFECT_MOVE[c.kind]
    if kind != expected:
        raise IllegalMove(Reason.WRONG_CARD_TYPE, f"{c.id} is played with {expected}")
    t.hands[seat] = tuple(p for p in t.hands[seat] if p != pos)
    HANDLERS[kind](t, m, idx)
    if c.category == "action" and kind not in ("break_tool", "theft", "trap"):
        t.to_discard(idx)
    return t


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
    n = len(t.hands)
    t.changes["current"] = next(
        (s for s in ((t.seat + i) % n for i in range(1, n + 1)) if t.hands[s]), None
    )
    return evolve(rs, **t.changes)
