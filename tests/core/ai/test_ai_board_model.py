"""Maze distances and connectivity computed from a view's board."""

from __future__ import annotations

from core.ai.board_model import INF, Board
from tests.core.ai.ai_views import START, make_view


def board(cells: dict[tuple[int, int], tuple[str, bool]]) -> Board:
    return Board.from_view(make_view({**START, **cells}, []))


def test_empty_maze_needs_seven_cards_to_the_middle_goal() -> None:
    d = board({}).goal_distances()
    assert d[1] == 7
    assert d[0] == d[2] == 9


def test_straight_card_brings_the_goals_nearer_and_a_dead_end_blocks() -> None:
    assert board({(1, 0): ("S1_STRAIGHT_EW", False)}).goal_distances()[1] == 6
    blocked = board({(1, 0): ("S1_DEAD_EW", False)}).goal_distances()
    assert blocked[1] == 9  # around the dead end


def test_rotation_turns_a_curve_away() -> None:
    up = board({(1, 0): ("S1_CURVE_NW", False)})  # W-N: enters from the start, turns north
    assert (1, -1) in up.frontier()
    down = board({(1, 0): ("S1_CURVE_NW", True)})  # E-S: does not touch the start's E edge
    assert (1, 1) not in down.frontier()


def test_bridge_groups_do_not_meet() -> None:
    b = board({(1, 0): ("S2_BRIDGE", False)})
    assert (2, 0) in b.frontier()
    assert (1, -1) not in b.frontier() and (1, 1) not in b.frontier()


def test_doors_block_only_the_other_team() -> None:
    cells = {(x, 0): ("S1_STRAIGHT_EW", False) for x in range(1, 7)}
    cells[(7, 0)] = ("S2_DOOR_BLUE_EW", False)
    b = board(cells)
    walled = {(x, y): ("S1_DEAD_CROSS", False) for x in range(1, 8) for y in (-1, 1)}
    b = board({**cells, **walled})
    assert b.goal_distances()[1] == 0
    assert b.goal_distances("green")[1] == 0  # blue team: green doors blocked, none here
    assert b.goal_distances("blue")[1] >= INF - 1 or b.goal_distances("blue")[1] > 0


def test_ladder_is_a_source() -> None:
    b = board({(5, 3): ("S2_LADDER_NE", False), (5, 4): ("S1_STRAIGHT_NS", False)})
    assert (5, 2) in b.frontier() and (6, 3) in b.frontier()


def _reference_distances(board: Board, blocked: str | None) -> dict[int, int]:
    """Dijkstra over (cell, group) nodes with dicts: slow and plain, for comparison."""
    import heapq

    from core.ai.board_model import SEARCH_LIMIT
    from core.ai.cards import DIRS, OPPOSITE

    x0, x1, y0, y1 = board.bounds()
    best = {g: INF for g in board.hidden_goals.values()}
    heap: list[tuple[int, tuple[int, int, int]]] = []
    for (x, y), p in board.cells.items():
        if p.info.ladder:
            for gi in range(len(p.groups)):
                if not (blocked and p.doors[gi] == blocked):
                    heap.append((0, (x, y, gi)))
    dist = {node: c for c, node in heap}
    while heap:
        c, (x, y, gi) = heapq.heappop(heap)
        if c > dist[(x, y, gi)] or c > SEARCH_LIMIT:
            continue
        here = board.cells.get((x, y))
        edges = here.groups[gi] if here is not None and gi >= 0 else 15
        for bit, dx, dy in DIRS:
            if not edges & bit:
                continue
            nxt = (x + dx, y + dy)
            if nxt in board.hidden_goals:
                g = board.hidden_goals[nxt]
                best[g] = min(best[g], c)
                continue
            q = board.cells.get(nxt)
            if q is not None:
                gj = q.entry(OPPOSITE[bit])
                if gj < 0 or (blocked and q.doors[gj] == blocked):
                    continue
                node, cost = (*nxt, gj), c
            elif x0 <= nxt[0] <= x1 and y0 <= nxt[1] <= y1:
                node, cost = (*nxt, -1), c + 1
            else:
                continue
            if cost < dist.get(node, INF):
                dist[node] = cost
                heapq.heappush(heap, (cost, node))
    return {g: (d if d <= SEARCH_LIMIT else INF) for g, d in best.items()}


def test_the_fast_search_agrees_with_a_plain_one_on_played_boards() -> None:
    """The hot-path search (padded grid, lists) against a plain Dijkstra, on the boards of
    random games of both editions, for every team's view of the doors."""
    import random

    from core import engine
    from core.engine import GameConfig

    rng = random.Random(11)
    checked = 0
    for edition, players, bounded in (("expansion", 10, False), ("classic", 6, True)):
        state = engine.new_game(GameConfig(edition, players, bounded_board=bounded), 3)
        for _ in range(150):
            if engine.phase(state) == "round_over":
                state, _ = engine.apply_timeout(state)
            seat = engine.actor(state)
            if engine.phase(state) == "finished" or seat is None:
                break
            view = engine.view_for(state, seat)
            board = Board.from_view(view)
            for blocked in (None, "green", "blue"):
                assert board.goal_distances(blocked) == _reference_distances(board, blocked)
                checked += 1
            state, _ = engine.apply_move(state, seat, rng.choice(view["legal_moves"]))
    assert checked > 300
