"""One move in progress: the scratch object every handler fills (RULES §3, §6), and the
checks and helpers the handlers share.

Each move is checked completely before anything is built; the new round state is made
by copying only the fields the move changes.
"""

from __future__ import annotations

from typing import Any, Unpack

from .cards import CARD_INDEX, CARD_LIST
from .reasons import IllegalMove, Reason
from .shapes import EventDict, EventFields, MoveDict
from .state import GameState, RoundState, evolve_with

# the in-front cards that stand for a broken tool
BREAKS = frozenset(c.id for c in CARD_LIST if c.category == "action" and c.kind == "break")


class Turn:
    """Mutable scratch for one move; turned into a new RoundState at the end."""

    __slots__ = (
        "changes",
        "draws",
        "events",
        "gold_hit",
        "hands",
        "rs",
        "seat",
        "seq",
        "state",
        "timeout",
    )

    def __init__(self, state: GameState, seat: int, timeout: bool = False) -> None:
        self.state = state
        self.rs = state.rs
        self.seat = seat
        self.seq = state.seq + 1
        self.hands = list(state.rs.hands)
        self.changes: dict[str, Any] = {}
        self.events: list[EventDict] = []
        self.draws = 1
        self.gold_hit = False
        self.timeout = timeout  # the deadline made this move (RULES §7)

    def event(self, code: str, **data: Unpack[EventFields]) -> None:
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


def broken(in_front: tuple[str, ...]) -> bool:
    return any(c in BREAKS for c in in_front)


def can_place_path(rs: RoundState, seat: int) -> bool:
    front = rs.in_front[seat]
    return not front or (not broken(front) and "TRAPPED" not in front)


def target(state: GameState, m: MoveDict, *, other_than: int | None = None) -> int:
    s = m["target_seat"]  # an int: parse_move checked it (only "steal" may name None)
    if s is None or not 0 <= s < state.n or s == other_than:
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


def remove_from(t: Turn, s: int, kind: str) -> None:
    front = t.front(s)
    if kind not in front:
        raise IllegalMove(Reason.NOTHING_TO_REMOVE, f"no {kind} in front of seat {s}")
    t.set_front(s, tuple(x for x in front if x != kind))
    t.to_discard(CARD_INDEX[kind])
    if kind == "THEFT":
        laid = list(t.changes.get("theft_laid", t.rs.theft_laid))
        laid[s] = -1
        t.changes["theft_laid"] = tuple(laid)


def drop(t: Turn, pos: list[int]) -> None:
    """Take the cards at `pos` out of the mover's hand onto the discard pile."""
    hand = list(t.hands[t.seat])
    for p in pos:
        hand.remove(p)
    t.hands[t.seat] = tuple(hand)
    cards = t.rs.table.cards
    t.to_discard(*[cards[p] for p in pos])


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
