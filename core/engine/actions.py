"""Path cards, the classic action cards and discards (RULES §2-§4): handler, legal moves
and declaration of each move type (registry.py)."""

from __future__ import annotations

from itertools import combinations

from .board import GOAL_CELLS, GOAL_SET, LIMIT, START_KEY, key
from .cards import CARD_INDEX, CARD_LIST, MASK, SYMMETRIC, TOOLS
from .codes import EventCode, FieldKind, MoveType, Phase
from .reasons import IllegalMove, Reason
from .registry import EventSpec, MoveSpec, Play, declare
from .shapes import MoveDict
from .state import GameState, RoundState
from .turn import Turn, can_place_path, drop, take_cards, target

# event codes as module constants (a class attribute costs a lookup per move)
EV_MAP_USED = EventCode.MAP_USED
EV_PASSED = EventCode.PASSED
EV_PATH_PLACED = EventCode.PATH_PLACED
EV_ROCKFALL = EventCode.ROCKFALL
EV_TOOL_BROKEN = EventCode.TOOL_BROKEN
EV_TOOL_REPAIRED = EventCode.TOOL_REPAIRED


Out = list[MoveDict]
CARD = ("card", FieldKind.TEXT)
SEAT = ("target_seat", FieldKind.INT)
X, Y = ("x", FieldKind.INT), ("y", FieldKind.INT)


# ------------------------------------------------------------------ place_path


def _path_bits(idx: int) -> tuple[tuple[int, bool], ...]:
    c = CARD_LIST[idx]
    if c.category != "path":
        return ()
    shift = 16 if c.ladder else 0
    rots = (0,) if SYMMETRIC[idx] else (0, 1)
    return tuple((1 << (MASK[2 * idx + r] + shift), bool(r)) for r in rots)


# per catalogue index: the frontier bits (board.spots) of each distinct turn of a path card
PATH_BITS = tuple(_path_bits(i) for i in range(len(CARD_LIST)))


def _place(t: Turn, m: MoveDict, idx: int) -> None:
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
    t.event(EV_PATH_PLACED, card=CARD_LIST[idx].id, x=x, y=y, rotated=rot)
    gold = board.gold_goal()
    for gi in newly:
        gx, gy = GOAL_CELLS[gi]
        go = board.cells[key(gx, gy)]
        t.event(
            EventCode.GOAL_REVEALED,
            goal=gi,
            x=gx,
            y=gy,
            card=CARD_LIST[go >> 1].id,
            rotated=bool(go & 1),
            kind="gold" if gi == gold else "stone",
        )
        if gi == gold:
            t.gold_hit = True


def _place_moves(state: GameState, rs: RoundState, seat: int, iid: str, idx: int, out: Out) -> None:
    if rs.in_front[seat] and not can_place_path(rs, seat):
        return
    spots = rs.board.spots
    for bit, rotated in PATH_BITS[idx]:
        out += [
            {"type": "place_path", "card": iid, "x": x, "y": y, "rotated": rotated}
            for x, y in spots(bit)
        ]


declare(
    MoveSpec(
        type=MoveType.PLACE_PATH,
        number=0,
        phase=Phase.PLAYING,
        play=Play.CARD,
        fields=(CARD, X, Y, ("rotated", FieldKind.BOOL)),
        events=(
            EventSpec(EventCode.PATH_PLACED, ("card", "x", "y", "rotated"), 0),
            EventSpec(EventCode.GOAL_REVEALED, ("goal", "x", "y", "card", "rotated", "kind"), 1),
        ),
        handler=_place,
        legal=_place_moves,
        path=True,
    )
)


# ------------------------------------------------------------------ break_tool


def _break(t: Turn, m: MoveDict, idx: int) -> None:
    s = target(t.state, m, other_than=t.seat)
    cid = CARD_LIST[idx].id
    if cid in t.front(s):
        raise IllegalMove(Reason.ALREADY_BROKEN)
    t.set_front(s, (*t.front(s), cid))
    t.event(EV_TOOL_BROKEN, card=cid, target_seat=s, tool=CARD_LIST[idx].tools[0])


def _break_moves(state: GameState, rs: RoundState, seat: int, iid: str, idx: int, out: Out) -> None:
    cid = CARD_LIST[idx].id
    fronts = rs.in_front
    out += [
        {"type": "break_tool", "card": iid, "target_seat": s}
        for s in range(state.n)
        if s != seat and cid not in fronts[s]
    ]


declare(
    MoveSpec(
        type=MoveType.BREAK_TOOL,
        number=1,
        phase=Phase.PLAYING,
        play=Play.CARD,
        fields=(CARD, SEAT),
        events=(EventSpec(EventCode.TOOL_BROKEN, ("card", "target_seat", "tool"), 2),),
        handler=_break,
        legal=_break_moves,
        effect="break",
        stays_in_front=True,
    )
)


# ------------------------------------------------------------------ repair_tool


def _repair(t: Turn, m: MoveDict, idx: int) -> None:
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
    t.event(EV_TOOL_REPAIRED, card=c.id, target_seat=s, tool=tool)


# per catalogue index: (tool, the break card it lifts) of a repair card
REPAIRS = tuple(tuple((t, f"BREAK_{t.upper()}") for t in c.tools) for c in CARD_LIST)


def _repair_moves(
    state: GameState, rs: RoundState, seat: int, iid: str, idx: int, out: Out
) -> None:
    fronts = rs.in_front
    for s in range(state.n):
        front = fronts[s]
        if front:
            for tool, bid in REPAIRS[idx]:
                if bid in front:
                    out.append({"type": "repair_tool", "card": iid, "target_seat": s, "tool": tool})


declare(
    MoveSpec(
        type=MoveType.REPAIR_TOOL,
        number=2,
        phase=Phase.PLAYING,
        play=Play.CARD,
        fields=(CARD, SEAT, ("tool", FieldKind.TEXT)),
        events=(EventSpec(EventCode.TOOL_REPAIRED, ("card", "target_seat", "tool"), 3),),
        handler=_repair,
        legal=_repair_moves,
        effect="repair",
    )
)


# ------------------------------------------------------------------ rockfall


def _rockfall(t: Turn, m: MoveDict, idx: int) -> None:
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
    t.event(EV_ROCKFALL, card=CARD_LIST[idx].id, x=x, y=y, removed=CARD_LIST[o >> 1].id)


def _rockfall_moves(
    state: GameState, rs: RoundState, seat: int, iid: str, idx: int, out: Out
) -> None:
    out += [{"type": "rockfall", "card": iid, "x": x, "y": y} for x, y in rs.board.rockfall_spots()]


declare(
    MoveSpec(
        type=MoveType.ROCKFALL,
        number=3,
        phase=Phase.PLAYING,
        play=Play.CARD,
        fields=(CARD, X, Y),
        events=(EventSpec(EventCode.ROCKFALL, ("card", "x", "y", "removed"), 4),),
        handler=_rockfall,
        legal=_rockfall_moves,
        effect="rockfall",
    )
)


# ------------------------------------------------------------------ map


def _map(t: Turn, m: MoveDict, idx: int) -> None:
    g = m["goal"]
    if not 0 <= g <= 2:
        raise IllegalMove(Reason.BAD_TARGET, "goal is 0, 1 or 2")
    if t.rs.board.revealed[g]:
        raise IllegalMove(Reason.GOAL_ALREADY_REVEALED)
    kg = list(t.rs.known_goals)
    kg[t.seat] = tuple(sorted({*kg[t.seat], g}))
    t.changes["known_goals"] = tuple(kg)
    t.event(EV_MAP_USED, card=CARD_LIST[idx].id, goal=g)


def _map_moves(state: GameState, rs: RoundState, seat: int, iid: str, idx: int, out: Out) -> None:
    revealed = rs.board.revealed
    out += [{"type": "map", "card": iid, "goal": g} for g in range(3) if not revealed[g]]


declare(
    MoveSpec(
        type=MoveType.MAP,
        number=4,
        phase=Phase.PLAYING,
        play=Play.CARD,
        fields=(CARD, ("goal", FieldKind.INT)),
        events=(EventSpec(EventCode.MAP_USED, ("card", "goal"), 5),),
        handler=_map,
        legal=_map_moves,
        effect="map",
    )
)


# ------------------------------------------------------------------ discard


def _discard(t: Turn, m: MoveDict) -> None:
    cards = m["cards"]
    allowed = (1, 2, 3) if t.state.config.expansion else (1,)
    if len(cards) not in allowed:
        raise IllegalMove(
            Reason.BAD_DISCARD, "discard 1 to 3 cards" if len(allowed) > 1 else "discard 1 card"
        )
    pos = take_cards(t.rs, t.seat, cards)
    drop(t, pos)
    t.draws = len(pos)
    if t.timeout:
        t.event(EV_PASSED, count=len(pos), timeout=True)
    else:
        t.event(EV_PASSED, count=len(pos))


def _discard_moves(state: GameState, rs: RoundState, seat: int, iids: list[str], out: Out) -> None:
    """One card (classic); one, two or three (Saboteur 2); card ids sorted."""
    if not state.config.expansion:
        out += [{"type": "discard", "cards": [i]} for i in iids]
        return
    for k in (1, 2, 3):
        out += [{"type": "discard", "cards": list(cs)} for cs in combinations(iids, k)]


declare(
    MoveSpec(
        type=MoveType.DISCARD,
        number=12,
        phase=Phase.PLAYING,
        play=Play.HAND,
        fields=(("cards", FieldKind.TEXTS),),
        events=(EventSpec(EventCode.PASSED, ("count",), 6),),
        handler=_discard,
        legal=_discard_moves,
    )
)
