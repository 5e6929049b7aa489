"""The maze (RULES §2): cells, edge matching, reachability from sources, goal reveal.

Cells are integer keys ((x+128) << 8 | (y+128)) mapped to an orient (2 * card + rotated).
`conn` keeps, per cell, the mask of openings whose group is connected to a source; it is
updated incrementally on placement (a flood from the new card only) and recomputed only on
a removal, so legal-move queries never walk the maze.  The frontier (empty cells next to
the maze, with the set of edge masks each accepts) is computed once per board and cached.
"""

from __future__ import annotations

from .cards import (
    CARD_LIST,
    DOOR,
    GOLD,
    GROUP_OF,
    GROUPS,
    MASK,
    OPP,
    SIDES,
    SOURCE,
)
from .reasons import Reason

OFF = 128
DELTA = {1: -1, 2: 256, 4: 1, 8: -256}
LIMIT = 120
# per side: (side bit, key step to the neighbour, the neighbour's side facing back)
NEIGHBOURS = tuple((d, DELTA[d], OPP[d]) for d in SIDES)


def key(x: int, y: int) -> int:
    return ((x + OFF) << 8) | (y + OFF)


def unkey(k: int) -> tuple[int, int]:
    return (k >> 8) - OFF, (k & 255) - OFF


START_KEY = key(0, 0)
GOAL_CELLS = ((8, -2), (8, 0), (8, 2))
GOAL_KEYS = tuple(key(x, y) for x, y in GOAL_CELLS)
GOAL_SET = frozenset(GOAL_KEYS)


def in_bounds(x: int, y: int) -> bool:
    return 0 <= x <= 8 and -2 <= y <= 2


# ACCEPT[side_mask][open_bits]: 16-bit set of edge masks m with (m & side_mask) == open_bits.
ACCEPT = [[sum(1 << m for m in range(16) if m & sm == ob) for ob in range(16)] for sm in range(16)]
# TOUCH[conn_bits]: edge masks sharing an opening with conn_bits.
TOUCH = [sum(1 << m for m in range(16) if m & cb) for cb in range(16)]


def _flood(
    cells: dict[int, int],
    conn: dict[int, int],
    stack: list[tuple[int, int]],
    touched: set[int] | None = None,
) -> None:
    """Spread connection from the (cell, group) pairs on the stack (noting changed cells)."""
    get = cells.get
    while stack:
        k, g = stack.pop()
        for d in SIDES:
            if g & d:
                n = k + DELTA[d]
                o = get(n)
                if o is None:
                    continue
                od = OPP[d]
                gn = GROUP_OF[o][od]
                if gn:
                    have = conn.get(n, 0)
                    if not have & od:
                        conn[n] = have | gn
                        stack.append((n, gn))
                        if touched is not None:
                            touched.add(n)


def full_conn(cells: dict[int, int]) -> dict[int, int]:
    conn: dict[int, int] = {}
    stack: list[tuple[int, int]] = []
    for k, o in cells.items():
        if SOURCE[o]:
            for g in GROUPS[o]:
                conn[k] = conn.get(k, 0) | g
                stack.append((k, g))
    _flood(cells, conn, stack)
    return conn


class Board:
    """An immutable maze; the caches are derived data and not part of equality."""

    __slots__ = (
        "_dirty",
        "_front",
        "_info",
        "_parent",
        "_rock",
        "_spots",
        "bounded",
        "cells",
        "conn",
        "goals",
        "revealed",
    )

    def __init__(
        self,
        cells: dict[int, int],
        goals: tuple[int, ...],
        revealed: tuple[bool, ...],
        bounded: bool,
        conn: dict[int, int] | None = None,
    ) -> None:
        self.cells = cells
        self.goals = goals  # catalogue index of the goal card at goal positions 0, 1, 2
        self.revealed = revealed
        self.bounded = bounded
        self.conn = conn if conn is not None else full_conn(cells)
        self._front: list[tuple[int, int]] | None = None
        self._info: dict[int, int] | None = None
        self._parent: Board | None = None
        self._dirty: set[int] | None = None
        self._spots: dict[int, list[tuple[int, int]]] | None = None
        self._rock: list[tuple[int, int]] | None = None

    @classmethod
    def initial(cls, start: int, goals: tuple[int, ...], bounded: bool) -> Board:
        return cls({START_KEY: 2 * start}, goals, (False, False, False), bounded)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Board)
            and self.cells == other.cells
            and self.goals == other.goals
            and self.revealed == other.revealed
            and self.bounded == other.bounded
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Board({len(self.cells)} cells, revealed={self.revealed})"

    # ----------------------------------------------------------------- queries
    def gold_goal(self) -> int:
        return self.goals.index(GOLD)

    def crystals(self) -> int:
        return sum(CARD_LIST[o >> 1].crystals for o in self.cells.values())

    def path_at(self, x: int, y: int) -> int | None:
        """Orient of a removable path card at (x, y), else None."""
        if not (-LIMIT < x < LIMIT and -LIMIT < y < LIMIT):
            return None
        k = key(x, y)
        if k == START_KEY or k in GOAL_SET:
            return None
        return self.cells.get(k)

    def _cell_info(self, k: int) -> tuple[int, int, int, bool, bool]:
        """Around empty cell k: sides with a card, sides with an opening towards k, those
        openings connected to a source, next to a path card, next to a goal."""
        side = opn = cb = 0
        adj_path = adj_goal = False
        get, cget = self.cells.get, self.conn.get
        for d, dk, od in NEIGHBOURS:
            n = k + dk
            o = get(n)
            if o is not None:
                side |= d
                if MASK[o] & od:
                    opn |= d
                    if cget(n, 0) & od:
                        cb |= d
                if n in GOAL_SET:
                    adj_goal = True
                else:
                    adj_path = True
            elif n in GOAL_SET:
                adj_goal = True
        return side, opn, cb, adj_path, adj_goal

    def check_place(self, o: int, x: int, y: int) -> Reason | None:
        """Why card orient `o` may not go at (x, y) (conditions 1-3 and ladders), or None."""
        if self.bounded and not in_bounds(x, y):
            return Reason.OUT_OF_BOUNDS
        if not (-LIMIT < x < LIMIT and -LIMIT < y < LIMIT):
            return Reason.OUT_OF_BOUNDS
        k = key(x, y)
        if k in self.cells or k in GOAL_SET:
            return Reason.CELL_TAKEN
        side, opn, cb, adj_path, adj_goal = self._cell_info(k)
        ladder = CARD_LIST[o >> 1].ladder
        if ladder:
            if adj_goal:
                return Reason.LADDER_NEXT_TO_GOAL
            if not adj_path:
                return Reason.NO_NEIGHBOUR
        elif not side and not adj_goal:
            return Reason.NO_NEIGHBOUR
        m = MASK[o]
        if m & side != opn:
            return Reason.EDGE_MISMATCH
        if not ladder and not m & cb:
            return Reason.NOT_CONNECTED
        return None

    def _frontier_info(self) -> dict[int, int]:
        """Empty cells that accept something, updated from the parent board when possible.

        Per empty cell: the edge masks it accepts, bit m for ordinary cards and bit 16+m for
        ladders (`_cell_info` written out, one call per cell saved): after a placement this
        runs for the few cells around what changed, the bulk of a legal-move query on a new
        board."""
        if self._info is not None:
            return self._info
        cells = self.cells
        parent = self._parent
        if parent is not None and parent._info is not None and self._dirty is not None:
            info = dict(parent._info)
            todo = self._dirty
        else:
            info = {}
            todo = {k + dk for k in cells for _, dk, _ in NEIGHBOURS}
        get, cget = cells.get, self.conn.get
        bounded = self.bounded
        lo, hi = OFF - LIMIT, OFF + LIMIT
        for k in todo:
            if k in cells or k in GOAL_SET:
                info.pop(k, None)
                continue
            x, y = k >> 8, k & 255
            if not (lo < x < hi and lo < y < hi) or (
                bounded and not (OFF <= x <= OFF + 8 and OFF - 2 <= y <= OFF + 2)
            ):
                info.pop(k, None)
                continue
            side = opn = cb = 0
            adj_path = adj_goal = False
            for d, dk, od in NEIGHBOURS:
                n = k + dk
                o = get(n)
                if o is not None:
                    side |= d
                    if MASK[o] & od:
                        opn |= d
                        if cget(n, 0) & od:
                            cb |= d
                    if n in GOAL_SET:
                        adj_goal = True
                    else:
                        adj_path = True
                elif n in GOAL_SET:
                    adj_goal = True
            acc = ACCEPT[side][opn]
            packed = acc & TOUCH[cb]
            if adj_path and not adj_goal:
                packed |= acc << 16
            if packed:
                info[k] = packed
            else:
                info.pop(k, None)
        self._info = info
        self._parent = None
        self._dirty = None
        return info

    def frontier(self) -> list[tuple[int, int]]:
        """Sorted (cell, accepted masks) of the empty cells next to the maze (cached)."""
        if self._front is None:
            self._front = sorted(self._frontier_info().items())
        return self._front

    def spots(self, bit: int) -> list[tuple[int, int]]:
        """Sorted (x, y) of the frontier cells accepting `bit` (an edge-mask bit of
        `_frontier_info`), cached per board: the board outlives many turns (discards and actions
        keep it), and every turn's legal moves ask for the same few bits again."""
        cache = self._spots
        if cache is None:
            cache = self._spots = {}
        got = cache.get(bit)
        if got is None:
            got = [
                ((k >> 8) - OFF, (k & 255) - OFF)
                for k, p in self._frontier_info().items()
                if p & bit
            ]
            got.sort()
            cache[bit] = got
        return got

    def rockfall_spots(self) -> list[tuple[int, int]]:
        """Sorted (x, y) of the removable path cards (not start, not goals), cached."""
        if self._rock is None:
            self._rock = [
                ((k >> 8) - OFF, (k & 255) - OFF)
                for k in sorted(self.cells)
                if k != START_KEY and k not in GOAL_SET
            ]
        return self._rock

    # ----------------------------------------------------------------- changes
    def place(self, o: int, x: int, y: int) -> tuple[Board, list[int]]:
        """The board after placing orient `o` (already checked) and the goals it revealed."""
        k = key(x, y)
        cells = dict(self.cells)
        conn = dict(self.conn)
        cells[k] = o
        stack: list[tuple[int, int]] = []
        touched = {k}
        _connect_new(cells, conn, k, o, stack)
        _flood(cells, conn, stack, touched)
        revealed = list(self.revealed)
        newly = _reveal(cells, conn, self.goals, revealed, touched)
        board = Board(cells, self.goals, tuple(revealed), self.bounded, conn)
        if self._info is not None:
            dirty = set(touched)
            for t in touched:
                for d in SIDES:
                    dirty.add(t + DELTA[d])
            board._parent = self
            board._dirty = dirty
        return board, newly

    def remove(self, x: int, y: int) -> Board:
        cells = dict(self.cells)
        del cells[key(x, y)]
        return Board(cells, self.goals, self.revealed, self.bounded)

    # ----------------------------------------------------------------- routes
    def route(self, target: int, blocked_door: str | None = None) -> list[tuple[int, int]] | None:
        """Cells of a shortest route from a source to the target cell (None if none).

        Groups behind a door of colour `blocked_door` cannot be entered (RULES §6 doors).
        """
        cells = self.cells
        parent: dict[tuple[int, int], tuple[int, int] | None] = {}
        queue: list[tuple[int, int]] = []
        for k, src in sorted(cells.items()):
            if SOURCE[src]:
                for g in GROUPS[src]:
                    parent[(k, g)] = None
                    queue.append((k, g))
        head = 0
        found: tuple[int, int] | None = None
        while head < len(queue):
            k, g = queue[head]
            head += 1
            if k == target:
                found = (k, g)
                break
            for d in SIDES:
                if g & d:
                    n = k + DELTA[d]
                    o = cells.get(n)
                    if o is None:
                        continue
                    gn = GROUP_OF[o][OPP[d]]
                    if not gn or (n, gn) in parent:
                        continue
                    if blocked_door and DOOR[o] & gn and CARD_LIST[o >> 1].door == blocked_door:
                        continue
                    parent[(n, gn)] = (k, g)
                    queue.append((n, gn))
        if found is None:
            return None
        out: list[tuple[int, int]] = []
        node: tuple[int, int] | None = found
        while node is not None:
            out.append(unkey(node[0]))
            node = parent[node]
        out.reverse()
        return out


def _connect_new(
    cells: dict[int, int], conn: dict[int, int], k: int, o: int, stack: list[tuple[int, int]]
) -> None:
    """Mark the groups of the card just put at k that touch a connected opening."""
    for g in GROUPS[o]:
        ok = SOURCE[o]
        if not ok:
            for d in SIDES:
                if g & d and conn.get(k + DELTA[d], 0) & OPP[d]:
                    ok = True
                    break
        if ok:
            conn[k] = conn.get(k, 0) | g
            stack.append((k, g))


def stone_turn(cells: dict[int, int], card: int, gk: int, reach: int) -> int:
    """RULES §2: the turn of a revealed goal (fit, else towards the reacher, else upright)."""
    fits: list[int] = []
    towards: list[int] = []
    for r in (0, 1):
        m = MASK[2 * card + r]
        ok = True
        for d in SIDES:
            o = cells.get(gk + DELTA[d])
            if o is not None and bool(m & d) != bool(MASK[o] & OPP[d]):
                ok = False
                break
        if ok:
            fits.append(r)
        if m & reach:
            towards.append(r)
    if len(fits) == 1:
        return fits[0]
    if not fits and len(towards) == 1:
        return towards[0]
    return 0


def _reveal(
    cells: dict[int, int],
    conn: dict[int, int],
    goals: tuple[int, ...],
    revealed: list[bool],
    touched: set[int],
) -> list[int]:
    """Turn up every face-down goal next to a connected opening, repeatedly (mutates)."""
    newly: list[int] = []
    while True:
        hits: list[tuple[int, int]] = []
        for gi, gk in enumerate(GOAL_KEYS):
            if revealed[gi]:
                continue
            reach = 0
            for d in SIDES:
                if conn.get(gk + DELTA[d], 0) & OPP[d]:
                    reach |= d
            if reach:
                hits.append((gi, reach))
        if not hits:
            return newly
        stack: list[tuple[int, int]] = []
        for gi, reach in hits:
            gk = GOAL_KEYS[gi]
            card = goals[gi]
            o = 2 * card + stone_turn(cells, card, gk, reach)
            cells[gk] = o
            revealed[gi] = True
            newly.append(gi)
            touched.add(gk)
        for gi, _ in hits:
            gk = GOAL_KEYS[gi]
            _connect_new(cells, conn, gk, cells[gk], stack)
        _flood(cells, conn, stack, touched)
