"""A small model of the maze, built from a view's `board` and `goals` only.

Why: the agents reason about "how many more cards until a source reaches goal g" and
about what a placement or a rockfall does to that number, for every team's passable
routes (Saboteur 2 doors). We compute this ourselves instead of borrowing engine
internals, so the agents see exactly what a player sees.

Distance: a 0-1 breadth-first search over nodes that are either an empty cell (cost 1 to
fill) or a group of a placed card (cost 0 to walk through, if its edges meet). Sources
are the start card and ladders. Edge compatibility of the cards still to be placed is
ignored: the number is an optimistic estimate of the cards needed, good for comparing
moves.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from functools import lru_cache

from core.ai.cards import DIRS, OPPOSITE, PATHS, PathInfo
from core.engine.shapes import ViewDict

INF = 99
GOAL_CELLS: tuple[tuple[int, int], ...] = ((8, -2), (8, 0), (8, 2))
Cell = tuple[int, int]
# what decides a maze's distances: its cards as (cell, card, rotated), its face-down goals
MazeKey = tuple[frozenset[tuple[Cell, str, bool]], frozenset[tuple[Cell, int]], bool]
# goal distances already searched, by maze and blocked door colour: one per decision
Memo = dict[tuple[MazeKey, str | None], dict[int, int]]


class Placed:
    """One card on the table: its catalogue id and its groups as placed."""

    __slots__ = ("card", "conduct", "doors", "enter", "groups", "info", "rotated")

    def __init__(self, card: str, rotated: bool) -> None:
        info = PATHS.get(card) or PathInfo("path", (15,))
        self.card = card
        self.rotated = rotated
        self.info = info
        self.groups: tuple[int, ...] = info.placed_groups(rotated)
        # a group conducts when it joins two edges, or on a source card (ladder/start)
        self.conduct = tuple(info.ladder or bin(g).count("1") >= 2 for g in self.groups)
        self.doors = tuple(
            info.door if (info.door and bin(g).count("1") >= 2) else None for g in self.groups
        )
        # the conducting group a walker moving N, E, S, W enters (through the S, W, N, E
        # edge), or -1: the search's inner loop reads this instead of calling entry()
        self.enter = tuple(self.entry(b) for b in (4, 8, 1, 2))

    def entry(self, edge: int) -> int:
        """The conducting group entered through `edge`, or -1 (wall or dead-end stub)."""
        for i, g in enumerate(self.groups):
            if g & edge:
                return i if self.conduct[i] else -1
        return -1

    def group_with(self, edge: int) -> int:
        for i, g in enumerate(self.groups):
            if g & edge:
                return i
        return -1

    @property
    def mask(self) -> int:
        m = 0
        for g in self.groups:
            m |= g
        return m


@lru_cache(maxsize=1024)
def placed(card: str, rotated: bool) -> Placed:
    """The one `Placed` of a card and its rotation (they are never changed): a decision's
    rollouts rebuild the maze from a view a few hundred times."""
    return Placed(card, rotated)


class Board:
    """Placed cards plus the cells of face-down goals; immutable by convention."""

    __slots__ = ("_key", "bounded", "cells", "hidden_goals", "memo")

    def __init__(
        self,
        cells: dict[Cell, Placed],
        hidden_goals: dict[Cell, int],
        bounded: bool = False,
        memo: Memo | None = None,
    ) -> None:
        self.cells = cells
        self.hidden_goals = hidden_goals  # cell -> goal index, face down only
        self.bounded = bounded
        # Why: one `hard` decision asks for the same maze's distances many times (every
        # sampled world's next seat weighs the same placements on the same public maze);
        # a memo shared by the boards of one decision answers most of them without a
        # search (docs/benchmarks/ai.md). None: search every time.
        self.memo = memo
        self._key: MazeKey | None = None

    def key(self) -> MazeKey:
        """What decides this maze's distances (a dictionary key)."""
        if self._key is None:
            self._key = (
                frozenset((c, p.card, p.rotated) for c, p in self.cells.items()),
                frozenset(self.hidden_goals.items()),
                self.bounded,
            )
        return self._key

    @classmethod
    def from_view(cls, view: ViewDict, memo: Memo | None = None) -> Board:
        cells: dict[Cell, Placed] = {}
        for c in view.get("board") or ():
            cells[(int(c["x"]), int(c["y"]))] = placed(str(c["card"]), bool(c.get("rotated")))
        hidden: dict[Cell, int] = {}
        for g in view.get("goals") or ():
            cell = (int(g["x"]), int(g["y"]))
            if not g.get("revealed") and cell not in cells:
                hidden[cell] = int(g["goal"])
        opts = view.get("options") or {}
        return cls(cells, hidden, bool(opts.get("bounded_board")), memo)

    # ---- edits (return new boards) ----
    def with_card(self, x: int, y: int, card: str, rotated: bool) -> Board:
        cells = dict(self.cells)
        cells[(x, y)] = placed(card, rotated)
        return Board(cells, self.hidden_goals, self.bounded, self.memo)

    def without(self, x: int, y: int) -> Board:
        cells = dict(self.cells)
        cells.pop((x, y), None)
        return Board(cells, self.hidden_goals, self.bounded, self.memo)

    def with_hidden_goal(self, cell: Cell, goal: int) -> Board:
        cells = dict(self.cells)
        cells.pop(cell, None)
        hidden = dict(self.hidden_goals)
        hidden[cell] = goal
        return Board(cells, hidden, self.bounded, self.memo)

    # ---- geometry ----
    def bounds(self) -> tuple[int, int, int, int]:
        if self.bounded:
            return 0, 8, -2, 2
        xs = [x for x, _ in self.cells] + [0, 8]
        ys = [y for _, y in self.cells] + [-2, 2]
        return min(xs) - 1, max(xs) + 1, min(ys) - 1, max(ys) + 1

    def sources(self) -> Iterable[tuple[int, int, int]]:
        for (x, y), p in self.cells.items():
            if p.info.ladder:
                for gi in range(len(p.groups)):
                    yield (x, y, gi)

    def connected(self) -> set[tuple[int, int, int]]:
        """Every (x, y, group) joined to a source through conducting groups."""
        seen: set[tuple[int, int, int]] = set()
        stack = list(self.sources())
        seen.update(stack)
        cells = self.cells
        while stack:
            x, y, gi = stack.pop()
            p = cells[(x, y)]
            if not p.conduct[gi] and not p.info.ladder:
                continue
            g = p.groups[gi]
            for bit, dx, dy in DIRS:
                if not g & bit:
                    continue
                q = cells.get((x + dx, y + dy))
                if q is None:
                    continue
                gj = q.group_with(OPPOSITE[bit])
                if gj < 0:
                    continue
                node = (x + dx, y + dy, gj)
                if node not in seen:
                    seen.add(node)
                    stack.append(node)
        return seen

    def frontier(self) -> set[Cell]:
        """Empty cells next to an opening of a connected conducting group."""
        out: set[Cell] = set()
        x0, x1, y0, y1 = self.bounds()
        for x, y, gi in self.connected():
            p = self.cells[(x, y)]
            if not (p.conduct[gi] or p.info.ladder):
                continue
            g = p.groups[gi]
            for bit, dx, dy in DIRS:
                c = (x + dx, y + dy)
                if (
                    g & bit
                    and c not in self.cells
                    and c not in self.hidden_goals
                    and x0 <= c[0] <= x1
                    and y0 <= c[1] <= y1
                ):
                    out.add(c)
        return out

    def goal_distances(self, blocked_door: str | None = None) -> dict[int, int]:
        """Cards still needed to reach each face-down goal (INF when impossible).

        `blocked_door`: a door colour that may not be walked through (a team's view of
        routes in Saboteur 2); None = every route (what reveals a goal). Distances past
        `limit` are not searched (reported as INF) - the agents cap them anyway.
        """
        if self.memo is None:
            return _search(self, blocked_door)
        k = (self.key(), blocked_door)
        found = self.memo.get(k)
        if found is None:
            found = self.memo[k] = _search(self, blocked_door)
        return dict(found)

    def crystals(self) -> int:
        return sum(p.info.crystals for p in self.cells.values())


# ---- the search (hot path: a few hundred calls per decision) ----

_BIT = (1, 2, 4, 8)  # the edge bits of the directions N E S W
SEARCH_LIMIT = 16
# the directions (0 N, 1 E, 2 S, 3 W) an edge mask opens, for each of the 16 masks
_WAYS: tuple[tuple[int, ...], ...] = tuple(
    tuple(d for d in range(4) if m & _BIT[d]) for m in range(16)
)
_ALL_WAYS = _WAYS[15]


def _search(board: Board, blocked: str | None) -> dict[int, int]:
    """0-1 breadth-first search on a padded grid of the board's bounds, lists for arrays.

    Why lists and not dicts keyed by cell: this runs a few hundred times per decision and
    most of its time was dictionary lookups (a 10-player Saboteur 2 decision at `hard`
    spent 90% here). A one-cell border of blocked cells replaces the bounds checks.
    """
    x0, x1, y0, y1 = board.bounds()
    h = y1 - y0 + 3
    size = (x1 - x0 + 3) * h
    step = (-1, h, 1, -h)  # N E S W
    free = bytearray(size)  # 1: an empty cell inside the bounds
    row = b"\x01" * (h - 2)
    for col in range(1, x1 - x0 + 2):
        free[col * h + 1 : col * h + h - 1] = row
    grid: list[Placed | None] = [None] * size
    goal = [-1] * size
    best: dict[int, int] = {}
    for (x, y), g in board.hidden_goals.items():
        i = (x - x0 + 1) * h + (y - y0 + 1)
        goal[i] = g
        free[i] = 0
        best[g] = INF
    todo = len(best)
    dist = [INF] * (size * 8)
    dq: deque[tuple[int, int]] = deque()
    for (x, y), p in board.cells.items():
        i = (x - x0 + 1) * h + (y - y0 + 1)
        grid[i] = p
        free[i] = 0
        if p.info.ladder:
            for gi in range(len(p.groups)):
                if blocked and p.doors[gi] == blocked:
                    continue
                node = i * 8 + gi + 1
                dist[node] = 0
                dq.append((0, node))
    found_max = -1
    while dq:
        c, node = dq.popleft()
        if dist[node] < c:
            continue
        if c > SEARCH_LIMIT or (todo == 0 and c >= found_max):
            break
        i, gi = node >> 3, (node & 7) - 1
        if gi >= 0:
            here = grid[i]
            assert here is not None
            ways = _WAYS[here.groups[gi]]
        else:
            ways = _ALL_WAYS
        for d in ways:
            ni = i + step[d]
            g = goal[ni]
            if g >= 0:
                if c < best[g]:
                    if best[g] == INF:
                        todo -= 1
                    best[g] = c
                    found_max = max(best.values())
                continue
            q = grid[ni]
            if q is not None:
                gj = q.enter[d]
                if gj < 0 or (blocked and q.doors[gj] == blocked):
                    continue
                nn = ni * 8 + gj + 1
                if c < dist[nn]:
                    dist[nn] = c
                    dq.appendleft((c, nn))
            elif free[ni]:
                nn = ni * 8
                if c + 1 < dist[nn]:
                    dist[nn] = c + 1
                    dq.append((c + 1, nn))
    return best
