"""One move in progress: the scratch object every action handler fills (RULES §3, §6).

Each move is checked completely before anything is built; the new round state is made
by copying only the fields the move changes.
"""

from __future__ import annotations

from typing import Any

from .cards import CARD_INDEX
from .moves import BREAKS
from .reasons import IllegalMove, Reason
from .state import GameState, RoundState

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


def target(state: GameState, m: dict[str, Any], *, other_than: int | None = None) -> int:
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
