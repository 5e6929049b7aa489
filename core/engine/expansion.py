"""Saboteur 2 action cards and the discard-two-to-remove turn option (RULES §6)."""

from __future__ import annotations

from typing import Any

from .cards import CARD_LIST
from .reasons import IllegalMove, Reason
from .turn import REMOVABLE, Turn, drop, remove_from, take_cards, target


def _theft(t: Turn, m: dict[str, Any], idx: int) -> None:
    if "THEFT" in t.front(t.seat):
        raise IllegalMove(Reason.ALREADY_IN_FRONT)
    t.set_front(t.seat, (*t.front(t.seat), "THEFT"))
    laid = list(t.rs.theft_laid)
    laid[t.seat] = t.seq
    t.changes["theft_laid"] = tuple(laid)
    t.event("theft_laid", card="THEFT")


def _hands_off(t: Turn, m: dict[str, Any], idx: int) -> None:
    s = target(t.state, m)
    remove_from(t, s, "THEFT")
    t.event("hands_off", card=CARD_LIST[idx].id, target_seat=s)


def _free(t: Turn, m: dict[str, Any], idx: int) -> None:
    s = target(t.state, m)
    remove_from(t, s, "TRAPPED")
    t.event("freed", card=CARD_LIST[idx].id, target_seat=s)


def _trap(t: Turn, m: dict[str, Any], idx: int) -> None:
    s = target(t.state, m, other_than=t.seat)
    if "TRAPPED" in t.front(s):
        raise IllegalMove(Reason.ALREADY_IN_FRONT)
    t.set_front(s, (*t.front(s), "TRAPPED"))
    t.event("trapped", card=CARD_LIST[idx].id, target_seat=s)


def _swap_hand(t: Turn, m: dict[str, Any], idx: int) -> None:
    s = target(t.state, m, other_than=t.seat)
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
    s = target(t.state, m, other_than=t.seat)
    kr = list(t.rs.known_roles)
    mine = [e for e in kr[t.seat] if e[0] != s]
    mine.append((s, t.rs.roles[s], False))
    kr[t.seat] = tuple(sorted(mine))
    t.changes["known_roles"] = tuple(kr)
    t.event("inspected", card=CARD_LIST[idx].id, target_seat=s)


def _swap_hats(t: Turn, m: dict[str, Any], idx: int) -> None:
    s = target(t.state, m)
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


def discard_to_remove(t: Turn, m: dict[str, Any]) -> None:
    if not t.state.config.expansion:
        raise IllegalMove(Reason.NOT_IN_EDITION)
    cards = m["cards"]
    if len(cards) != 2:
        raise IllegalMove(Reason.BAD_DISCARD, "discard exactly 2 cards")
    kind = m["remove"]
    if kind not in REMOVABLE:
        raise IllegalMove(Reason.BAD_TARGET, f"{kind!r} cannot be removed")
    pos = take_cards(t.rs, t.seat, cards)
    remove_from(t, t.seat, kind)
    drop(t, pos)
    t.draws = 1
    t.event("discarded_to_remove", count=2, remove=kind)


HANDLERS = {
    "theft": _theft,
    "hands_off": _hands_off,
    "free": _free,
    "trap": _trap,
    "swap_hand": _swap_hand,
    "inspect": _inspect,
    "swap_hats": _swap_hats,
}
