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
