"""Saboteur 2 action cards and the discard-two-to-remove turn option (RULES §6): handler,
legal moves and declaration of each move type (registry.py)."""

from __future__ import annotations

from itertools import combinations

from .cards import CARD_LIST
from .codes import EventCode, FieldKind, MoveType, Phase
from .reasons import IllegalMove, Reason
from .registry import EventSpec, MoveSpec, Play, declare, front_ids
from .shapes import MoveDict
from .state import GameState, RoundState
from .turn import Turn, drop, remove_from, take_cards, target

# event codes as module constants (a class attribute costs a lookup per move)
EV_DISCARDED_TO_REMOVE = EventCode.DISCARDED_TO_REMOVE
EV_FREED = EventCode.FREED
EV_HANDS_OFF = EventCode.HANDS_OFF
EV_HANDS_SWAPPED = EventCode.HANDS_SWAPPED
EV_HATS_SWAPPED = EventCode.HATS_SWAPPED
EV_INSPECTED = EventCode.INSPECTED
EV_THEFT_LAID = EventCode.THEFT_LAID
EV_TRAPPED = EventCode.TRAPPED


Out = list[MoveDict]
CARD = ("card", FieldKind.TEXT)
SEAT = ("target_seat", FieldKind.INT)


def _on(code: str, number: int) -> tuple[EventSpec, ...]:
    """The event of an action card played on a seat: card and target seat."""
    return (EventSpec(code, ("card", "target_seat"), number),)


def _to_each_other(state: GameState, seat: int, type_: str, iid: str, out: Out) -> None:
    out += [{"type": type_, "card": iid, "target_seat": s} for s in range(state.n) if s != seat]


# ------------------------------------------------------------------ theft


def _theft(t: Turn, m: MoveDict, idx: int) -> None:
    if "THEFT" in t.front(t.seat):
        raise IllegalMove(Reason.ALREADY_IN_FRONT)
    t.set_front(t.seat, (*t.front(t.seat), "THEFT"))
    laid = list(t.rs.theft_laid)
    laid[t.seat] = t.seq
    t.changes["theft_laid"] = tuple(laid)
    t.event(EV_THEFT_LAID, card="THEFT")


def _theft_moves(state: GameState, rs: RoundState, seat: int, iid: str, idx: int, out: Out) -> None:
    if "THEFT" not in rs.in_front[seat]:
        out.append({"type": "theft", "card": iid})


declare(
    MoveSpec(
        type=MoveType.THEFT,
        number=5,
        phase=Phase.PLAYING,
        play=Play.CARD,
        fields=(CARD,),
        events=(EventSpec(EventCode.THEFT_LAID, ("card",), 8),),
        handler=_theft,
        legal=_theft_moves,
        effect="theft",
        stays_in_front=True,
    )
)


# ------------------------------------------------------------------ hands_off


def _hands_off(t: Turn, m: MoveDict, idx: int) -> None:
    s = target(t.state, m)
    remove_from(t, s, "THEFT")
    t.event(EV_HANDS_OFF, card=CARD_LIST[idx].id, target_seat=s)


def _hands_off_moves(
    state: GameState, rs: RoundState, seat: int, iid: str, idx: int, out: Out
) -> None:
    fronts = rs.in_front
    out += [
        {"type": "hands_off", "card": iid, "target_seat": s}
        for s in range(state.n)
        if "THEFT" in fronts[s]
    ]


declare(
    MoveSpec(
        type=MoveType.HANDS_OFF,
        number=6,
        phase=Phase.PLAYING,
        play=Play.CARD,
        fields=(CARD, SEAT),
        events=_on(EventCode.HANDS_OFF, 9),
        handler=_hands_off,
        legal=_hands_off_moves,
        effect="hands_off",
    )
)


# ------------------------------------------------------------------ swap_hand


def _swap_hand(t: Turn, m: MoveDict, idx: int) -> None:
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
    t.event(EV_HANDS_SWAPPED, card=CARD_LIST[idx].id, target_seat=s)


def _swap_hand_moves(
    state: GameState, rs: RoundState, seat: int, iid: str, idx: int, out: Out
) -> None:
    _to_each_other(state, seat, "swap_hand", iid, out)


declare(
    MoveSpec(
        type=MoveType.SWAP_HAND,
        number=7,
        phase=Phase.PLAYING,
        play=Play.CARD,
        fields=(CARD, SEAT),
        events=_on(EventCode.HANDS_SWAPPED, 12),
        handler=_swap_hand,
        legal=_swap_hand_moves,
        effect="swap_hand",
    )
)


# ------------------------------------------------------------------ inspect


def _inspect(t: Turn, m: MoveDict, idx: int) -> None:
    s = target(t.state, m, other_than=t.seat)
    kr = list(t.rs.known_roles)
    mine = [e for e in kr[t.seat] if e[0] != s]
    mine.append((s, t.rs.roles[s], False))
    kr[t.seat] = tuple(sorted(mine))
    t.changes["known_roles"] = tuple(kr)
    t.event(EV_INSPECTED, card=CARD_LIST[idx].id, target_seat=s)


def _inspect_moves(
    state: GameState, rs: RoundState, seat: int, iid: str, idx: int, out: Out
) -> None:
    _to_each_other(state, seat, "inspect", iid, out)


declare(
    MoveSpec(
        type=MoveType.INSPECT,
        number=8,
        phase=Phase.PLAYING,
        play=Play.CARD,
        fields=(CARD, SEAT),
        events=_on(EventCode.INSPECTED, 13),
        handler=_inspect,
        legal=_inspect_moves,
        effect="inspection",
    )
)


# ------------------------------------------------------------------ swap_hats


def _swap_hats(t: Turn, m: MoveDict, idx: int) -> None:
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
    t.event(EV_HATS_SWAPPED, card=CARD_LIST[idx].id, target_seat=s)


def _swap_hats_moves(
    state: GameState, rs: RoundState, seat: int, iid: str, idx: int, out: Out
) -> None:
    if rs.role_pool:
        out += [{"type": "swap_hats", "card": iid, "target_seat": s} for s in range(state.n)]


declare(
    MoveSpec(
        type=MoveType.SWAP_HATS,
        number=9,
        phase=Phase.PLAYING,
        play=Play.CARD,
        fields=(CARD, SEAT),
        events=_on(EventCode.HATS_SWAPPED, 14),
        handler=_swap_hats,
        legal=_swap_hats_moves,
        effect="swap_hats",
    )
)


# ------------------------------------------------------------------ trap


def _trap(t: Turn, m: MoveDict, idx: int) -> None:
    s = target(t.state, m, other_than=t.seat)
    if "TRAPPED" in t.front(s):
        raise IllegalMove(Reason.ALREADY_IN_FRONT)
    t.set_front(s, (*t.front(s), "TRAPPED"))
    t.event(EV_TRAPPED, card=CARD_LIST[idx].id, target_seat=s)


def _trap_moves(state: GameState, rs: RoundState, seat: int, iid: str, idx: int, out: Out) -> None:
    fronts = rs.in_front
    out += [
        {"type": "trap", "card": iid, "target_seat": s}
        for s in range(state.n)
        if s != seat and "TRAPPED" not in fronts[s]
    ]


declare(
    MoveSpec(
        type=MoveType.TRAP,
        number=10,
        phase=Phase.PLAYING,
        play=Play.CARD,
        fields=(CARD, SEAT),
        events=_on(EventCode.TRAPPED, 11),
        handler=_trap,
        legal=_trap_moves,
        effect="trapped",
        stays_in_front=True,
    )
)


# ------------------------------------------------------------------ free


def _free(t: Turn, m: MoveDict, idx: int) -> None:
    s = target(t.state, m)
    remove_from(t, s, "TRAPPED")
    t.event(EV_FREED, card=CARD_LIST[idx].id, target_seat=s)


def _free_moves(state: GameState, rs: RoundState, seat: int, iid: str, idx: int, out: Out) -> None:
    fronts = rs.in_front
    out += [
        {"type": "free", "card": iid, "target_seat": s}
        for s in range(state.n)
        if "TRAPPED" in fronts[s]
    ]


declare(
    MoveSpec(
        type=MoveType.FREE,
        number=11,
        phase=Phase.PLAYING,
        play=Play.CARD,
        fields=(CARD, SEAT),
        events=_on(EventCode.FREED, 10),
        handler=_free,
        legal=_free_moves,
        effect="free",
    )
)


# ------------------------------------------------------------------ discard_to_remove


def _discard_to_remove(t: Turn, m: MoveDict) -> None:
    if not t.state.config.expansion:
        raise IllegalMove(Reason.NOT_IN_EDITION)
    cards = m["cards"]
    if len(cards) != 2:
        raise IllegalMove(Reason.BAD_DISCARD, "discard exactly 2 cards")
    kind = m["remove"]
    if kind not in front_ids():
        raise IllegalMove(Reason.BAD_TARGET, f"{kind!r} cannot be removed")
    pos = take_cards(t.rs, t.seat, cards)
    remove_from(t, t.seat, kind)
    drop(t, pos)
    t.draws = 1
    t.event(EV_DISCARDED_TO_REMOVE, count=2, remove=kind)


def _discard_to_remove_moves(
    state: GameState, rs: RoundState, seat: int, iids: list[str], out: Out
) -> None:
    """Saboteur 2: two cards for each kind of card lying in front of the mover."""
    if not state.config.expansion:
        return
    kinds = sorted(set(rs.in_front[seat]))
    if kinds and len(iids) >= 2:
        for cs in combinations(iids, 2):
            for kd in kinds:
                out.append({"type": "discard_to_remove", "cards": list(cs), "remove": kd})


declare(
    MoveSpec(
        type=MoveType.DISCARD_TO_REMOVE,
        number=13,
        phase=Phase.PLAYING,
        play=Play.HAND,
        fields=(("cards", FieldKind.TEXTS), ("remove", FieldKind.TEXT)),
        events=(EventSpec(EventCode.DISCARDED_TO_REMOVE, ("count", "remove"), 7),),
        handler=_discard_to_remove,
        legal=_discard_to_remove_moves,
    )
)
