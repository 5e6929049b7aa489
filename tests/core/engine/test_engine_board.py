"""Placement (RULES §2 conditions 1-4), dead ends, bridges, ladders, goal reveal, rockfall."""

from __future__ import annotations

import pytest

from core.engine import IllegalMove, Reason, apply_move, legal_moves, phase, view_for
from core.engine.board import key, stone_turn
from core.engine.cards import CARD_INDEX
from tests.core.engine.engine_builders import alter, build, iid, make_board, tunnel

EW = "S1_STRAIGHT_EW"
ROW = tunnel(range(1, 7), keep={EW: 1})  # the tests hold a straight


def place(state, seat, cid, x, y, rotated=False, nth=0):
    move = {
        "type": "place_path",
        "card": iid(state, seat, cid, nth),
        "x": x,
        "y": y,
        "rotated": rotated,
    }
    return apply_move(state, seat, move)


def refused(state, seat, cid, x, y, rotated=False) -> Reason:
    with pytest.raises(IllegalMove) as exc:
        place(state, seat, cid, x, y, rotated)
    return exc.value.reason


def listed(state, seat, cid, x, y, rotated=False) -> bool:
    card = iid(state, seat, cid)
    return {"type": "place_path", "card": card, "x": x, "y": y, "rotated": rotated} in (
        legal_moves(state, seat)
    )


def test_condition_1_cell_empty_and_adjacent() -> None:
    s = build(hands={0: ["S1_CROSS"]}, cells=[(1, 0, EW, False)])
    assert refused(s, 0, "S1_CROSS", 0, 0) == Reason.CELL_TAKEN  # start
    assert refused(s, 0, "S1_CROSS", 1, 0) == Reason.CELL_TAKEN  # a path card
    assert refused(s, 0, "S1_CROSS", 8, 0) == Reason.CELL_TAKEN  # face-down goal
    assert refused(s, 0, "S1_CROSS", 4, 4) == Reason.NO_NEIGHBOUR
    assert not listed(s, 0, "S1_CROSS", 4, 4)


def test_condition_2_edges_match() -> None:
    s = build(hands={0: ["S1_STRAIGHT_NS", "S1_CURVE_NE"]})
    # East of the start (open E): a N-S straight shows a wall to the start's opening.
    assert refused(s, 0, "S1_STRAIGHT_NS", 1, 0) == Reason.EDGE_MISMATCH
    # The curve NE turned (S-W) opens W towards the start: fits.
    assert listed(s, 0, "S1_CURVE_NE", 1, 0, True)
    assert not listed(s, 0, "S1_CURVE_NE", 1, 0, False)
    s2, _ = place(s, 0, "S1_CURVE_NE", 1, 0, True)
    assert {"x": 1, "y": 0, "card": "S1_CURVE_NE", "rotated": True} in view_for(s2, 1)["board"]


def test_condition_2_wall_meets_wall_next_to_other_cards() -> None:
    # (1,-1) lies above an E-W straight (N wall) and right of a N-S straight (E wall).
    s = build(
        hands={0: ["S1_CROSS", "S1_T_NEW"]},
        cells=[(1, 0, EW, False), (0, -1, "S1_STRAIGHT_NS", False)],
    )
    # A cross at (1,-1) opens S onto the EW card's wall.
    assert refused(s, 0, "S1_CROSS", 1, -1) == Reason.EDGE_MISMATCH
    # T_NEW turned = E-S-W: S opens onto the wall too; upright N-E-W has a S wall and W
    # opening towards (0,-1) whose E side is a wall -> mismatch as well.
    assert refused(s, 0, "S1_T_NEW", 1, -1) == Reason.EDGE_MISMATCH


def test_condition_3_dead_end_stub_does_not_conduct() -> None:
    s = build(hands={0: [EW]}, cells=[(1, 0, "S1_DEAD_EW", False)])
    # The E stub of the dead end fits an opening but is not connected to the start.
    assert refused(s, 0, EW, 2, 0) == Reason.NOT_CONNECTED
    assert not listed(s, 0, EW, 2, 0)


def test_condition_3_face_down_goal_imposes_nothing_and_connects_nothing() -> None:
    s = build(hands={0: ["S1_CROSS"]})
    assert refused(s, 0, "S1_CROSS", 7, 0) == Reason.NOT_CONNECTED
    s = build(
        hands={0: ["S1_STRAIGHT_NS"]},
        cells=[*ROW, (7, 0, "S1_CROSS", False), (7, -1, "S1_STRAIGHT_NS", False)],
    )
    # (8,-1) touches goal 0 (N) and goal 1 (S) face down, and (7,-1)'s E wall.
    assert refused(s, 0, "S1_STRAIGHT_NS", 8, -1) == Reason.NOT_CONNECTED


def test_condition_4_broken_tool_blocks_paths_only() -> None:
    s = build(hands={0: [EW, "MAP"]}, in_front={0: ["BREAK_CART"]})
    assert refused(s, 0, EW, 1, 0) == Reason.TOOL_BROKEN
    types = {m["type"] for m in legal_moves(s, 0)}
    assert types == {"map", "discard"}


def test_condition_4_trapped_blocks_paths() -> None:
    s = build("expansion", 3, hands={0: [EW]}, in_front={0: ["TRAPPED"]})
    assert refused(s, 0, EW, 1, 0) == Reason.TRAPPED
    assert all(m["type"] != "place_path" for m in legal_moves(s, 0))


def test_symmetric_cards_listed_once_upright() -> None:
    s = build(hands={0: ["S1_CROSS"]})
    moves = [m for m in legal_moves(s, 0) if m["type"] == "place_path"]
    assert moves and all(m["rotated"] is False for m in moves)
    assert {(m["x"], m["y"]) for m in moves} == {(1, 0), (-1, 0), (0, 1), (0, -1)}
    # posting the turned placement is the same placement, stored upright
    s2, _ = place(s, 0, "S1_CROSS", 1, 0, True)
    assert s2.rs.board.cells[key(1, 0)] == 2 * CARD_INDEX["S1_CROSS"]


def test_bridge_has_two_separate_paths() -> None:
    s = build("expansion", 3, hands={0: ["S1_STRAIGHT_NS", EW]}, cells=[(1, 0, "S2_BRIDGE", False)])
    # the E-W path of the bridge is connected; its N-S path is not
    assert listed(s, 0, EW, 2, 0)
    assert refused(s, 0, "S1_STRAIGHT_NS", 1, -1) == Reason.NOT_CONNECTED
    assert refused(s, 0, "S1_STRAIGHT_NS", 1, 1) == Reason.NOT_CONNECTED


def test_double_curves_join_their_own_pairs_only() -> None:
    # A: N-W and E-S. Entered from W (start), only N continues.
    s = build(
        "expansion",
        3,
        hands={0: ["S1_STRAIGHT_NS", EW, "S1_CROSS"]},
        cells=[(1, 0, "S2_DOUBLE_CURVE_A", False)],
    )
    assert listed(s, 0, "S1_CROSS", 1, -1)
    assert refused(s, 0, EW, 2, 0) == Reason.NOT_CONNECTED
    assert refused(s, 0, "S1_STRAIGHT_NS", 1, 1) == Reason.NOT_CONNECTED
    # B: N-E and S-W. Entered from W, only S continues.
    s = build(
        "expansion",
        3,
        hands={0: ["S1_STRAIGHT_NS", EW]},
        cells=[(1, 0, "S2_DOUBLE_CURVE_B", False)],
    )
    assert listed(s, 0, "S1_STRAIGHT_NS", 1, 1)
    assert refused(s, 0, EW, 2, 0) == Reason.NOT_CONNECTED


def test_ladder_rules() -> None:
    cells = [(1, 0, "S1_DEAD_EW", False), (2, 0, EW, False), (2, 2, "S1_DEAD_N", False)]
    s = build("expansion", 3, hands={0: ["S2_LADDER_E", "S2_LADDER_S", EW]}, cells=cells)
    # next to a disconnected path card: fine (condition 3 does not apply to ladders)
    assert listed(s, 0, "S2_LADDER_S", 2, 1)
    assert listed(s, 0, "S2_LADDER_E", 3, 0, True)
    # condition 2 still applies: the dead end's N stub at (2,2) needs an opening
    assert refused(s, 0, "S2_LADDER_E", 2, 1, True) == Reason.EDGE_MISMATCH
    # no ladder next to a goal cell, face down or revealed
    assert refused(s, 0, "S2_LADDER_S", 7, 0) == Reason.LADDER_NEXT_TO_GOAL
    assert refused(s, 0, "S2_LADDER_S", 8, 1) == Reason.LADDER_NEXT_TO_GOAL
    # it must touch a placed path card
    assert refused(s, 0, "S2_LADDER_S", 5, 5) == Reason.NO_NEIGHBOUR
    assert refused(s, 0, "S2_LADDER_E", 3, 1) == Reason.NO_NEIGHBOUR
    _, ev = place(s, 0, "S2_LADDER_S", 2, 1)
    assert ev[0]["card"] == "S2_LADDER_S"


def test_ladder_next_to_revealed_goal_refused() -> None:
    s = build(
        "expansion",
        3,
        hands={0: ["S2_LADDER_S"]},
        cells=[*ROW, (7, 0, EW, False)],
        revealed=(False, True, False),
        gold_at=0,
    )
    assert refused(s, 0, "S2_LADDER_S", 8, -1) == Reason.LADDER_NEXT_TO_GOAL
    near_goal = {(8, -1), (8, 1), (7, -2), (7, 2), (9, 0)}
    cells = {(m["x"], m["y"]) for m in legal_moves(s, 0) if m["type"] == "place_path"}
    assert cells and not cells & near_goal


def test_ladder_source_connects_path() -> None:
    cells = [(1, 0, "S1_DEAD_EW", False), (2, 0, EW, False), (3, 0, "S1_T_NEW", True)]
    # (3,0) turned T_NEW = E-S-W: open S towards (3,1)
    s = build("expansion", 3, hands={0: [EW, EW], 1: ["S2_LADDER_NE"]}, cells=cells, current=1)
    assert refused(build("expansion", 3, hands={0: [EW]}, cells=cells), 0, EW, 4, 0) == (
        Reason.NOT_CONNECTED
    )
    s, _ = place(s, 1, "S2_LADDER_NE", 3, 1)  # N meets (3,0)'s S; E opening to (4,1)
    # now (3,0) is connected through the ladder: the path can grow east of it, and from the
    # ladder's own E opening
    s = alter(s, current=0)
    assert listed(s, 0, EW, 4, 0)
    assert listed(s, 0, EW, 4, 1)


def test_bounded_board() -> None:
    s = build(hands={0: [EW, "S1_CROSS"]}, options={"bounded_board": True})
    assert refused(s, 0, EW, -1, 0) == Reason.OUT_OF_BOUNDS
    moves = [m for m in legal_moves(s, 0) if m["type"] == "place_path"]
    assert all(0 <= m["x"] <= 8 and -2 <= m["y"] <= 2 for m in moves)
    assert {(m["x"], m["y"]) for m in moves if m["card"] == iid(s, 0, "S1_CROSS")} == {
        (1, 0),
        (0, 1),
        (0, -1),
    }
    s = build(hands={0: [EW]}, options={"bounded_board": False})
    assert listed(s, 0, EW, -1, 0)


def test_reaching_gold_ends_round_diggers_win() -> None:
    roles = ["GOLD_DIGGER", "SABOTEUR", "GOLD_DIGGER", "GOLD_DIGGER"]
    s = build(hands={0: [EW, "MAP"]}, cells=ROW, gold_at=1, roles=roles)
    s2, ev = place(s, 0, EW, 7, 0)
    codes = [e["code"] for e in ev]
    assert codes == ["path_placed", "goal_revealed", "round_ended"]
    assert ev[1]["kind"] == "gold" and ev[1]["goal"] == 1
    assert phase(s2) == "round_over"
    res = view_for(s2, 0)["round_result"]
    assert res["winners"] == "diggers" and res["gold_goal"] == 1
    assert res["route"] == [[x, 0] for x in range(9)]
    assert res["reached_by"] == 0


def test_reaching_stone_turns_it_to_fit_and_play_goes_on() -> None:
    s = build(hands={0: [EW, "MAP"]}, cells=ROW, gold_at=0)
    s2, ev = place(s, 0, EW, 7, 0)
    assert phase(s2) == "playing"
    rev = ev[1]
    assert rev["code"] == "goal_revealed" and rev["kind"] == "stone" and rev["goal"] == 1
    # the stone at goal 1 must open W towards (7,0)
    card = s2.rs.board.cells[key(8, 0)]
    from core.engine.cards import MASK

    assert MASK[card] & 8
    view = view_for(s2, 2)
    assert {"goal": 1, "x": 8, "y": 0, "revealed": True, "kind": "stone"} in view["goals"]
    assert any(c["x"] == 8 and c["y"] == 0 for c in view["board"])


def test_stone_turn_preferences() -> None:
    ne = CARD_INDEX["S1_GOAL_STONE_NE"]
    gk = key(8, 0)
    board = make_board([(7, 0, EW, False)])
    assert stone_turn(board.cells, ne, gk, 8) == 1  # fits only turned (S-W)
    # nothing fits (W open needed by (7,0), N open needed by... a card above showing S wall)
    board = make_board([(7, 0, EW, False), (8, -1, EW, False)])
    # turned S-W: W ok, N closed vs (8,-1) S wall -> ok; upright N-E: W closed -> bad.
    assert stone_turn(board.cells, ne, gk, 8) == 1
    board = make_board([(7, 0, EW, False), (8, 1, "S1_STRAIGHT_NS", False)])
    # W needs open (only turned), S needs open... turned S-W opens S: fits
    assert stone_turn(board.cells, ne, gk, 8) == 1
    board = make_board([(7, 0, EW, False), (8, -1, "S1_STRAIGHT_NS", False)])
    # needs W and N open: neither turn fits -> towards the reacher (W): turned
    assert stone_turn(board.cells, ne, gk, 8) == 1
    # reached from both W and N: tie -> upright
    assert stone_turn(board.cells, ne, gk, 8 | 1) == 0


def test_two_goals_revealed_at_once_gold_takes_precedence() -> None:
    cells = [*tunnel(range(1, 8), -1, keep={"S1_CROSS": 1}), (0, -1, "S1_CURVE_NW", True)]
    s = build(hands={0: ["S1_CROSS"]}, cells=cells, gold_at=0)
    s2, ev = place(s, 0, "S1_CROSS", 8, -1)
    revealed = [e["goal"] for e in ev if e["code"] == "goal_revealed"]
    assert sorted(revealed) == [0, 1]
    assert phase(s2) == "round_over"
    assert view_for(s2, 0)["round_result"]["winners"] == "diggers"


def test_reveal_through_reconnection() -> None:
    # a gap at (3,0): the E end at (7,0) touches the gold but is not connected
    cells = [c for c in [*ROW, (7, 0, EW, False)] if c[0] != 3]
    s = build(hands={0: [EW]}, cells=cells, gold_at=1, current=0)
    assert s.rs.board.revealed == (False, False, False)
    s2, ev = place(s, 0, EW, 3, 0)
    assert [e["code"] for e in ev][:2] == ["path_placed", "goal_revealed"]
    assert view_for(s2, 1)["round_result"]["reached_by"] == 0


def test_revealed_stone_conducts() -> None:
    # goal 1 turned: S-W (opens W and S). Upright: N-E. Use turned.
    s = build(
        hands={0: ["S1_STRAIGHT_NS"]},
        cells=[*ROW, (7, 0, EW, False)],
        revealed=(False, True, False),
        goal_turns=(False, True, False),
        gold_at=0,
    )
    assert listed(s, 0, "S1_STRAIGHT_NS", 8, 1)


def test_rockfall() -> None:
    s = build(
        hands={0: ["ROCKFALL", "ROCKFALL", "ROCKFALL", "ROCKFALL"][:3], 1: [EW]},
        cells=[(1, 0, EW, False), (2, 0, EW, False)],
    )
    card = iid(s, 0, "ROCKFALL")
    for x, y, why in (
        (0, 0, Reason.BAD_TARGET),
        (8, 0, Reason.BAD_TARGET),
        (5, 5, Reason.NOTHING_TO_REMOVE),
    ):
        with pytest.raises(IllegalMove) as exc:
            apply_move(s, 0, {"type": "rockfall", "card": card, "x": x, "y": y})
        assert exc.value.reason == why
    rock = {m["x"] for m in legal_moves(s, 0) if m["type"] == "rockfall" and m["card"] == card}
    assert rock == {1, 2}
    s2, ev = apply_move(s, 0, {"type": "rockfall", "card": card, "x": 1, "y": 0})
    assert ev[0] == {
        "seq": 1,
        "seat": 0,
        "code": "rockfall",
        "card": "ROCKFALL",
        "x": 1,
        "y": 0,
        "removed": EW,
    }
    assert len(s2.rs.discard) == 2
    assert key(1, 0) not in s2.rs.board.cells
    # (2,0) is now cut off: nothing may be added east of it; (1,0) can be filled again
    assert not listed(s2, 1, EW, 3, 0)
    assert listed(s2, 1, EW, 1, 0)


def test_ladder_placement_can_reveal_a_goal_through_reconnection() -> None:
    # a disconnected segment (5,0)..(7,0) touches the gold; a ladder at (5,1) feeds it
    cells = [(5, 0, "S1_T_NEW", True), (6, 0, EW, False), (7, 0, EW, False)]
    # (5,0) turned T_NEW = E-S-W: its S opening faces (5,1)
    s = build(
        "expansion",
        3,
        hands={0: ["S2_LADDER_NE"]},
        cells=cells,
        gold_at=1,
        roles=["GOLD_DIGGER_BLUE", "SABOTEUR", "GOLD_DIGGER_GREEN"],
    )
    s2, ev = place(s, 0, "S2_LADDER_NE", 5, 1)
    assert [e["code"] for e in ev] == ["path_placed", "goal_revealed", "round_ended"]
    res = view_for(s2, 0)["round_result"]
    assert res["reached_by"] == 0 and res["winners"] == "blue"
    assert res["route"][0] == [5, 1] and res["route"][-1] == [8, 0]
