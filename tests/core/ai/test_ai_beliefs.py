"""Beliefs follow the public log: who blocked, who broke whom, who repaired whom."""

from __future__ import annotations

from core.ai import beliefs, choose_move
from tests.core.ai.ai_views import START, make_view

ROAD = {(x, 0): ("S1_STRAIGHT_EW", False) for x in range(1, 4)}


def log(*entries: dict) -> list[dict]:
    head = [{"seq": 0, "seat": None, "code": "round_started", "round": 1}]
    return head + [{"seq": i + 1, **e} for i, e in enumerate(entries)]


def test_dead_end_on_the_road_and_breaking_me_raise_suspicion() -> None:
    entries = log(
        {
            "seat": 1,
            "code": "path_placed",
            "card": "S1_STRAIGHT_EW",
            "x": 1,
            "y": 0,
            "rotated": False,
        },
        {
            "seat": 2,
            "code": "path_placed",
            "card": "S1_STRAIGHT_EW",
            "x": 2,
            "y": 0,
            "rotated": False,
        },
        {
            "seat": 3,
            "code": "path_placed",
            "card": "S1_STRAIGHT_EW",
            "x": 3,
            "y": 0,
            "rotated": False,
        },
        {"seat": 4, "code": "path_placed", "card": "S1_DEAD_EW", "x": 4, "y": 0, "rotated": False},
        {"seat": 1, "code": "tool_broken", "card": "BREAK_CART", "target_seat": 0, "tool": "cart"},
    )
    board = {**START, **ROAD, (4, 0): ("S1_DEAD_EW", False)}
    view = make_view(board, ["S1_CROSS"], log=entries, in_front={0: ["BREAK_CART"]})
    b = beliefs(view)
    assert b[0] == 0.0
    assert b[4] > b[2] and b[4] > b[3]
    assert b[1] > b[2] and b[1] > b[3]


def test_repairing_me_builds_trust() -> None:
    entries = log(
        {
            "seat": 2,
            "code": "tool_repaired",
            "card": "REPAIR_CART",
            "target_seat": 0,
            "tool": "cart",
        }
    )
    b = beliefs(make_view({**START}, ["S1_CROSS"], log=entries))
    assert b[2] < b[1] and b[2] < b[3]


def test_rockfall_of_a_road_card_is_suspicious_and_history_is_rebuilt() -> None:
    entries = log(
        {
            "seat": 1,
            "code": "path_placed",
            "card": "S1_STRAIGHT_EW",
            "x": 1,
            "y": 0,
            "rotated": False,
        },
        {
            "seat": 2,
            "code": "path_placed",
            "card": "S1_STRAIGHT_EW",
            "x": 2,
            "y": 0,
            "rotated": False,
        },
        {
            "seat": 3,
            "code": "rockfall",
            "card": "ROCKFALL",
            "x": 2,
            "y": 0,
            "removed": "S1_STRAIGHT_EW",
        },
    )
    view = make_view({**START, (1, 0): ("S1_STRAIGHT_EW", False)}, ["S1_CROSS"], log=entries)
    b = beliefs(view)
    assert b[3] > b[1] and b[3] > b[2]


def test_digger_extends_the_road_towards_known_gold() -> None:
    board = {**START, **ROAD}
    view = make_view(
        board,
        ["S1_STRAIGHT_EW", "S1_DEAD_NS", "S1_CURVE_NW"],
        known_goals=[{"goal": 1, "kind": "gold"}],
    )
    move = choose_move(view, level="hard", seed=1)
    assert move["type"] == "place_path"
    assert (move["x"], move["y"]) == (4, 0) and move["card"] == "c0"


def test_saboteur_blocks_when_the_diggers_are_close() -> None:
    board = {**START, **{(x, 0): ("S1_STRAIGHT_EW", False) for x in range(1, 7)}}
    view = make_view(
        board,
        ["S1_DEAD_EW", "S1_CROSS"],
        role="SABOTEUR",
        known_goals=[{"goal": 1, "kind": "gold"}],
        deck_size=5,
    )
    move = choose_move(view, level="normal", seed=1)
    assert move["type"] == "place_path" and move["card"] == "c0", move


def test_digger_uses_a_map_early() -> None:
    view = make_view({**START}, ["MAP", "S1_DEAD_N", "S1_DEAD_E"])
    assert choose_move(view, level="hard", seed=2)["type"] == "map"


def test_digger_repairs_itself() -> None:
    view = make_view({**START, **ROAD}, ["REPAIR_CART", "S1_CROSS"], in_front={0: ["BREAK_CART"]})
    move = choose_move(view, level="hard", seed=2)
    assert move["type"] == "repair_tool" and move["target_seat"] == 0


def _placed(seat: int, x: int, card: str = "S1_STRAIGHT_EW") -> dict:
    return {"seat": seat, "code": "path_placed", "card": card, "x": x, "y": 0, "rotated": False}


def test_a_single_dead_end_is_forgiven_but_a_second_hostile_act_is_not() -> None:
    # seats 1-3 build the road, seat 4 caps it with a dead end, then a table round of
    # discards: a human table would frown at seat 4, not yet break its tools
    entries = log(
        _placed(1, 1),
        _placed(2, 2),
        _placed(3, 3),
        _placed(4, 4, "S1_DEAD_EW"),
        *({"seat": s, "code": "discard"} for s in (5, 1, 2, 3)),
    )
    board = {**START, **ROAD, (4, 0): ("S1_DEAD_EW", False)}
    view = make_view(board, ["BREAK_CART", "S1_DEAD_N"], log=entries, players=6)
    b = beliefs(view)
    assert max(b, key=lambda s: b[s] if s != 0 else -1.0) == 4  # still the top suspect
    assert b[4] < 0.5
    assert choose_move(view, level="normal", seed=1)["type"] == "discard"
    # hard's search may prefer a harmless placement to the discard; it breaks nobody yet
    assert choose_move(view, level="hard", seed=1)["type"] != "break_tool"
    # ... but when the same seat then breaks my cart, I break it back
    entries.append(
        {
            "seq": len(entries),
            "seat": 4,
            "code": "tool_broken",
            "card": "BREAK_CART",
            "target_seat": 0,
            "tool": "cart",
        }
    )
    view = make_view(
        board, ["BREAK_LANTERN", "S1_DEAD_N"], log=entries, players=6, in_front={0: ["BREAK_CART"]}
    )
    move = choose_move(view, level="hard", seed=1)
    assert move["type"] == "break_tool" and move["target_seat"] == 4, move
