"""Fit-aware route length: how many cards a route needs when card shapes count.

Why: the maze model (`board_model`) charges one card per empty cell, whatever the cell
demands. Late in a round that is too optimistic: a cell whose placed neighbours and
route leave only a rare shape (an east-west straight between two walls) may never be
filled before the pile runs out. Here crossing an empty cell from side a to side b
costs 1 plus a penalty that grows as the supply of cards that could do it falls: the
seat's own cards that fit count as certain, cards nobody has seen yet (catalogue minus
maze minus own hand minus cards removed by rockfalls) at a discount. A crossing no
card can make is impassable.

It is a Dijkstra search on (cell, entry side), several times the cost of the 0-1 search,
so the policy uses it only to re-rank its few best placements (like the lookahead).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping
from heapq import heappop, heappush

from core.ai.beliefs import CAP
from core.ai.board_model import _BIT, INF, Board
from core.ai.cards import PATHS
from core.engine import CATALOGUE

# cells as integer keys; sides N E S W indexed 0-3 as board_model's _BIT and Placed.enter
_OFF = 128  # keeps x + _OFF, y + _OFF positive
_STEP = (-1, 512, 1, -512)  # N E S W on key = (x + _OFF) * 512 + (y + _OFF)
_OPP = (4, 8, 1, 2)  # the edge bit facing back, per direction
_OTHER = ((1, 2, 3), (0, 2, 3), (0, 1, 3), (0, 1, 2))  # exits other than the entry side
_ANY = 12  # node slot of an empty cell whose crossings all cost the same
_UNIFORM = 0  # index in a cost tuple (no side pair has mask 0): 1.0 when all pairs cost alike
_PAIRS = (3, 5, 9, 6, 10, 12)
_ENTRY_SLOT = (8 + 2, 8 + 3, 8 + 0, 8 + 1)  # moving N enters the next cell by its S side
FIT_LIMIT = float(CAP)  # the objective caps every distance there

# every conducting orientation of a plain tunnel card: (card, mask, joined side pairs)
_ORIENT: list[tuple[str, int, frozenset[int]]] = []
for _cid, _info in PATHS.items():
    if _info.kind not in ("path", "bridge", "doublecurve") or _info.ladder or _info.door:
        continue
    for _rot in (False, True):
        _groups = _info.placed_groups(_rot)
        _pairs = frozenset(
            a | b for g in _groups for a in _BIT for b in _BIT if a < b and g & a and g & b
        )
        _m = 0
        for _g in _groups:
            _m |= _g
        _ORIENT.append((_cid, _m, _pairs))
        if _info.symmetric:
            break


def deck_counts(edition: str) -> Counter[str]:
    """Copies of each tunnel card in the edition's deck."""
    return Counter(
        {
            c.id: c.count
            for c in CATALOGUE.values()
            if c.category == "path" and (edition == "expansion" or c.edition == "classic")
        }
    )


class Supply:
    """Fitting-card counts per (cell constraint, side pair), for one hand and one maze."""

    __slots__ = ("_memo", "k", "own", "t", "unseen", "w_unseen")

    def __init__(
        self,
        own: Mapping[str, int],
        unseen: Mapping[str, int],
        *,
        k: float,
        t: float,
        w_unseen: float,
    ) -> None:
        self.own = own
        self.unseen = unseen
        self.k, self.t, self.w_unseen = k, t, w_unseen
        self._memo: dict[tuple[int, int], tuple[float, ...]] = {}

    def without(self, card: str) -> Supply:
        own = dict(self.own)
        own[card] = own.get(card, 0) - 1
        return Supply(own, self.unseen, k=self.k, t=self.t, w_unseen=self.w_unseen)

    def without_own(self) -> Supply:
        """The same supply as another seat counts it: my own cards left out."""
        return Supply({}, self.unseen, k=self.k, t=self.t, w_unseen=self.w_unseen)

    def costs(self, need: int, wall: int) -> tuple[float, ...]:
        """Cost (>= 1, INF impossible) of crossing a cell by each side pair, by mask."""
        key = (need, wall)
        got = self._memo.get(key)
        if got is not None:
            return got
        n = [0.0] * 16
        for card, m, pairs in _ORIENT:
            if m & need != need or m & wall:
                continue
            supply = self.own.get(card, 0) + self.w_unseen * self.unseen.get(card, 0)
            if supply <= 0:
                continue
            for p in pairs:
                n[p] += supply
        cost = [(1.0 + self.k * max(0.0, self.t - v) / self.t) if v > 0 else float(INF) for v in n]
        cost[_UNIFORM] = 1.0 if len({cost[p] for p in _PAIRS}) == 1 else 0.0
        out = tuple(cost)
        self._memo[key] = out
        return out


def supply_for(
    edition: str,
    board: Board,
    hand: Mapping[str, str],
    removed: list[str],
    *,
    k: float,
    t: float,
    w_unseen: float,
) -> Supply:
    unseen = deck_counts(edition)
    own: Counter[str] = Counter(c for c in hand.values() if c in PATHS)
    unseen.subtract(p.card for p in board.cells.values())
    unseen.subtract(own)
    unseen.subtract(removed)
    left = {c: v for c, v in unseen.items() if v > 0}
    return Supply(dict(own), left, k=k, t=t, w_unseen=w_unseen)


def _key(x: int, y: int) -> int:
    return (x + _OFF) * 512 + (y + _OFF)


def fit_distances(
    board: Board, supply: Supply, goals: Collection[int] | None = None
) -> dict[int, float]:
    """Fit-aware cards still needed to reach each face-down goal (classic, no doors).

    `goals`: only these need an answer (the search stops once they have one; the others
    may come back INF). Distances past `FIT_LIMIT` come back INF.
    """
    x0, x1, y0, y1 = board.bounds()
    kx0, kx1, ky0, ky1 = x0 + _OFF, x1 + _OFF, y0 + _OFF, y1 + _OFF
    cells = {_key(x, y): p for (x, y), p in board.cells.items()}
    hidden = {_key(x, y): g for (x, y), g in board.hidden_goals.items()}
    best: dict[int, float] = {g: float(INF) for g in board.hidden_goals.values()}
    want = set(best) if goals is None else set(best) & set(goals)
    todo = len(want)
    dist: dict[int, float] = {}
    heap: list[tuple[float, int]] = []
    for k, p in cells.items():
        if p.info.ladder:
            for gi in range(len(p.groups)):
                node = k * 16 + gi + 1
                dist[node] = 0.0
                heap.append((0.0, node))
    cons: dict[int, tuple[float, ...]] = {}
    links: dict[int, tuple[int | None, ...]] = {}

    def link(k: int) -> tuple[int | None, ...]:
        """Per side of cell k: the node entered next door (goal g as -1 - g), or None."""
        out: list[int | None] = []
        for d in range(4):
            nk = k + _STEP[d]
            g = hidden.get(nk)
            if g is not None:
                out.append(-1 - g)
                continue
            q = cells.get(nk)
            if q is not None:
                gj = q.enter[d]
                out.append(nk * 16 + gj + 1 if gj >= 0 else None)
            elif kx0 <= nk >> 9 <= kx1 and ky0 <= nk & 511 <= ky1:
                # a cell every way through costs the same: one node, whatever the entry
                costs = cons.get(nk) or cell_costs(nk)
                out.append(nk * 16 + (_ANY if costs[_UNIFORM] else _ENTRY_SLOT[d]))
            else:
                out.append(None)
        got = tuple(out)
        links[k] = got
        return got

    def cell_costs(k: int) -> tuple[float, ...]:
        need = wall = 0
        for d in range(4):
            q = cells.get(k + _STEP[d])
            if q is not None:
                if q.mask & _OPP[d]:
                    need |= _BIT[d]
                else:
                    wall |= _BIT[d]
        got = cons[k] = supply.costs(need, wall)
        return got

    get = dist.get
    while heap:
        c, node = heappop(heap)
        if get(node, INF) < c:
            continue
        if c > FIT_LIMIT or (todo == 0 and c >= max(best[g] for g in want)):
            break
        k, slot = node >> 4, node & 15
        nbr = links.get(k) or link(k)
        if slot == _ANY:
            u = c + cons[k][3]
            steps = [(nbr[d], u) for d in range(4)]
        elif slot >= 8:  # an empty cell entered through side _BIT[slot - 8]
            entry = _BIT[slot - 8]
            costs = cons.get(k) or cell_costs(k)
            steps = [(nbr[d], c + costs[entry | _BIT[d]]) for d in _OTHER[slot - 8]]
        else:
            edges = cells[k].groups[slot - 1]
            steps = [(nbr[d], c) for d in range(4) if edges & _BIT[d]]
        for nn, nc in steps:
            if nn is None or nc >= INF:
                continue
            if nn < 0:
                g = -1 - nn
                if nc < best[g]:
                    if best[g] >= INF and g in want:
                        todo -= 1
                    best[g] = nc
            elif nc < get(nn, INF):
                dist[nn] = nc
                heappush(heap, (nc, nn))
    return best
