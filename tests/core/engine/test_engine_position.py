"""Position notation (docs/CONTRACTS.md §1): any position as a document, checked, and
played on exactly like the game it was taken from."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from core.engine import (
    CatalogueError,
    GameConfig,
    GameState,
    PositionError,
    StateError,
    apply_move,
    apply_timeout,
    legal_moves,
    new_game,
    position_of,
    state_from_json,
    state_from_position,
    state_to_json,
    view_for,
)
from core.sim import check_state, walk

CONTRACTS = Path(__file__).resolve().parents[3] / "docs" / "CONTRACTS.md"
GAMES = [
    ("classic", 5, {"selfish_dwarf": True}, 41),
    ("classic", 7, {"bounded_board": True, "rounds": 2}, 42),
    ("expansion", 6, {}, 43),
    ("expansion", 3, {"rounds": 2}, 44),
]


def problems(state: GameState) -> list[str]:
    """The simulator's invariants, but the role count it takes from the round's log (a
    position has no log)."""
    return [p for p in check_state(state) if p != "role cards are not conserved"]


def same_move(real: GameState, world: GameState, seat: int, move: dict[str, Any]) -> dict:
    """`move` with its instance ids replaced by the world's (hands keep their order)."""
    ids = real.rs.table.iids
    mine = [ids[p] for p in real.rs.hands[seat]]
    theirs = [world.rs.table.iids[p] for p in world.rs.hands[seat]]
    out = dict(move)
    if "card" in move:
        out["card"] = theirs[mine.index(move["card"])]
    if "cards" in move:
        out["cards"] = [theirs[mine.index(c)] for c in move["cards"]]
    return out


@pytest.mark.parametrize(("edition", "players", "options", "seed"), GAMES)
def test_a_position_plays_on_exactly_like_the_game_it_was_taken_from(
    edition: str, players: int, options: dict[str, Any], seed: int
) -> None:
    cfg = GameConfig.from_options(edition, players, options)
    steps = 0
    for before, entry, after in walk(cfg, seed, east_bias=0.8, timeouts=0.05):
        doc = json.loads(json.dumps(position_of(before)))
        world = state_from_position(doc)
        assert position_of(world) == doc
        assert problems(world) == [], (before.seq, problems(world))
        assert state_from_json(state_to_json(world)) == world
        if entry.get("timeout"):
            world, _ = apply_timeout(world)
        else:
            seat = entry["seat"]
            world, _ = apply_move(world, seat, same_move(before, world, seat, entry["move"]))
        assert position_of(world) == position_of(after), (before.seq, entry)
        steps += 1
    assert steps > 50 and after.phase == "finished"


def test_what_a_position_leaves_out_is_the_seeds_deal() -> None:
    for edition, players in (("classic", 4), ("expansion", 7)):
        cfg = GameConfig.from_options(edition, players, {})
        state = state_from_position({"edition": edition, "players": players, "seed": 12})
        assert state == new_game(cfg, 12)
        assert state.rs.table == new_game(cfg, 12).rs.table


def by_hand_index(state: GameState, seat: int) -> list[str]:
    """The seat's legal moves with each card named by its index in the hand."""
    ids = state.rs.table.iids
    index = {ids[p]: i for i, p in enumerate(state.rs.hands[seat])}
    out = []
    for move in legal_moves(state, seat):
        m: dict[str, Any] = dict(move)
        if "card" in m:
            m["card"] = index[m["card"]]
        if "cards" in m:
            m["cards"] = sorted(index[c] for c in m["cards"])
        out.append(json.dumps(m, sort_keys=True))
    return sorted(out)


def test_legal_moves_and_views_of_a_rebuilt_position_are_the_originals() -> None:
    cfg = GameConfig.from_options("expansion", 5, {})
    for before, _entry, _after in walk(cfg, 77, east_bias=0.8):
        if before.seq % 9 or before.phase != "playing":
            continue
        world = state_from_position(position_of(before))
        seat = before.rs.current
        assert seat is not None
        assert by_hand_index(world, seat) == by_hand_index(before, seat)
        for viewer in (None, seat):
            a, b = view_for(before, viewer, log_limit=0), view_for(world, viewer, log_limit=0)
            for v in (a, b):
                v["you"]["hand"] = [c["card"] for c in v["you"]["hand"]]
                v.pop("legal_moves")
            assert a == b


def test_the_example_in_contracts_md_is_a_position() -> None:
    text = CONTRACTS.read_text()
    block = re.search(r"<!-- position example -->\s*```json\n(.*?)```", text, re.S)
    assert block, "docs/CONTRACTS.md lost its position example"
    doc = json.loads(block.group(1))
    state = state_from_position(doc)
    assert problems(state) == []
    assert {m["type"] for m in legal_moves(state, state.rs.current)} >= {"place_path", "map"}
    back = position_of(state)
    assert {k: back[k] for k in doc} == doc


BASE: dict[str, Any] = {"edition": "classic", "players": 4, "seed": 3}


def refused(**fields: Any) -> str:
    with pytest.raises(PositionError) as exc:
        state_from_position({**BASE, **fields})
    return str(exc.value)


def test_card_conservation_is_checked() -> None:
    assert "S1_CROSS (6 of 5)" in refused(hands=[["S1_CROSS"] * 6, [], [], []])
    maze = [[x, 0, "S1_STRAIGHT_EW"] for x in range(1, 4)]
    assert "S1_STRAIGHT_EW (4 of 3)" in refused(
        maze=maze, hands=[["S1_STRAIGHT_EW"], ["MAP"], [], []]
    )
    fronts = [["BREAK_CART"], ["BREAK_CART"], ["BREAK_CART"], ["BREAK_CART"]]
    assert "BREAK_CART (4 of 3)" in refused(in_front=fronts)
    assert "MAP (7 of 6)" in refused(discard=["MAP"] * 7, hands=[[], [], [], []])
    # an explicit pile: every other card must be somewhere
    assert "nowhere: " in refused(hands=[["MAP"], [], [], []], pile=["S1_CROSS"])
    assert "set_aside: 10 cards in expansion, not 2" in refused(
        edition="expansion", set_aside=["MAP", "MAP"]
    )
    assert "set_aside: 0 cards in classic, not 1" in refused(set_aside=["MAP"])


def test_unknown_cards_seats_and_fields_are_refused() -> None:
    assert "'S1_SUPER_CROSS' is not a card of catalogue" in refused(
        hands=[["S1_SUPER_CROSS"], [], [], []]
    )
    assert "'S2_BRIDGE' is not a card" not in refused(hands=[["S2_BRIDGE"], [], [], []])
    assert "S2_BRIDGE (1 of 0)" in refused(hands=[["S2_BRIDGE"], [], [], []])
    assert "no seat 4" in refused(current=4)
    assert "no seat -1" in refused(start_seat=-1)
    assert "known_roles[0]: no seat 9" in refused(
        known_roles=[[[9, "SABOTEUR", False]], [], [], []]
    )
    assert "one entry per seat (4)" in refused(hands=[[], []])
    assert "one entry per seat (4)" in refused(gold=[0, 0, 0])
    assert "unknown field(s): hand" in refused(hand=[])
    assert "'BOSS' is not a role of classic" in refused(roles=["BOSS", "SABOTEUR", "X", "Y"])
    assert "more role cards than this game has: SABOTEUR x2" in refused(
        roles=["SABOTEUR", "SABOTEUR", "SABOTEUR", "GOLD_DIGGER"]
    )
    assert "edition/players/options" in refused(players=11)
    assert "format 2 is not 1" in refused(position=2)
    with pytest.raises(CatalogueError):
        state_from_position({**BASE, "catalogue": "0123456789ab"})
    assert issubclass(PositionError, StateError)
    with pytest.raises(PositionError):
        state_from_position([])  # type: ignore[arg-type]


def test_the_maze_and_goals_are_checked() -> None:
    gold_middle = ["S1_GOAL_STONE_NE", "S1_GOAL_GOLD", "S1_GOAL_STONE_NW"]
    assert "holds the start card" in refused(maze=[[0, 0, "S1_CROSS"]])
    assert "(1, 0) holds two cards" in refused(maze=[[1, 0, "S1_CROSS"], [1, 0, "S1_T_NES"]])
    assert "is a goal card" in refused(maze=[[3, 0, "S1_GOAL_GOLD"]])
    assert "is a path card" in refused(goals=gold_middle, maze=[[8, 0, "S1_CROSS"]])
    assert "goal 0 is S1_GOAL_STONE_NE, not S1_GOAL_GOLD" in refused(
        goals=gold_middle, maze=[[8, -2, "S1_GOAL_GOLD"]]
    )
    assert "each goal card of the catalogue once" in refused(goals=["S1_GOAL_GOLD"] * 3)
    assert "outside the bounded board" in refused(
        options={"bounded_board": True}, maze=[[-1, 0, "S1_CROSS"]]
    )
    assert "turned is true or false" in refused(maze=[[1, 0, "S1_CROSS", 1]])
    # a revealed goal is a maze cell at its place, turned as it lies
    state = state_from_position(
        {**BASE, "goals": gold_middle, "maze": [[8, -2, "S1_GOAL_STONE_NE", True]]}
    )
    assert state.rs.board.revealed == (True, False, False)
    # a symmetric card lies the same either way: written upright
    doc = position_of(state_from_position({**BASE, "maze": [[1, 0, "S1_CROSS", True]]}))
    assert doc["maze"] == [[1, 0, "S1_CROSS"]]


def test_hands_fronts_phases_and_the_rest_are_checked() -> None:
    assert "7 cards, a hand holds at most 6" in refused(
        hands=[["MAP"] * 6 + ["ROCKFALL"], [], [], []]
    )
    assert "S1_START is a start card" in refused(hands=[["S1_START"], [], [], []])
    assert "MAP does not stay in front" in refused(in_front=[["MAP"], [], [], []])
    assert "in_front[1]: a card twice" in refused(
        in_front=[[], ["BREAK_CART", "BREAK_CART"], [], []]
    )
    assert "the seat to act holds a card" in refused(hands=[[], ["MAP"], [], []], current=0)
    assert "thieves and the round's result are needed" in refused(phase="stealing")
    assert "phase round_over: the round's result is needed" in refused(phase="round_over")
    assert "phase: 'lunch'" in refused(phase="lunch")
    assert "nuggets: a string" in refused(nuggets="33333")
    assert "known_goals[0]" in refused(known_goals=[[3], [], [], []])
    assert "round: 4 is not an integer 1..3" in refused(round=4)
    assert "seed: 'x' is not an integer" in refused(seed="x")


def test_a_position_names_its_catalogue_and_plays_a_finished_round() -> None:
    cfg = GameConfig.from_options("classic", 4, {"rounds": 2})
    for _before, _entry, after in walk(cfg, 5, east_bias=0.8):
        if after.phase == "round_over":
            break
    doc = position_of(after)
    assert doc["catalogue"] == after.catalogue.version and doc["result"] is not None
    world = state_from_position(doc)
    for seat in range(4):
        world, _ = apply_move(world, seat, {"type": "next_round"})
    assert world.round == 2 and world.phase == "playing"
    again = after
    for seat in range(4):
        again, _ = apply_move(again, seat, {"type": "next_round"})
    assert position_of(world) == position_of(again)
