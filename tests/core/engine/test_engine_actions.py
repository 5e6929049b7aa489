"""Action cards of both editions, discards, the Saboteur 2 turn options, deck exhaustion."""

from __future__ import annotations

import pytest

from core.engine import IllegalMove, MoveFormatError, Reason, apply_move, legal_moves, view_for
from tests.core.engine.engine_builders import build, hand_ids, iid, tunnel


def refuse(state, seat, move) -> Reason:
    with pytest.raises(IllegalMove) as exc:
        apply_move(state, seat, move)
    return exc.value.reason


# ------------------------------------------------------------------ tools


def test_break_tool_on_others_only_and_once_per_tool() -> None:
    s = build(hands={0: ["BREAK_CART", "BREAK_LANTERN"]}, in_front={2: ["BREAK_CART"]})
    card = iid(s, 0, "BREAK_CART")
    assert refuse(s, 0, {"type": "break_tool", "card": card, "target_seat": 0}) == (
        Reason.BAD_TARGET
    )
    assert refuse(s, 0, {"type": "break_tool", "card": card, "target_seat": 9}) == (
        Reason.BAD_TARGET
    )
    assert refuse(s, 0, {"type": "break_tool", "card": card, "target_seat": 2}) == (
        Reason.ALREADY_BROKEN
    )
    targets = {m["target_seat"] for m in legal_moves(s, 0) if m.get("card") == card}
    assert targets == {1, 3}
    s2, ev = apply_move(s, 0, {"type": "break_tool", "card": card, "target_seat": 1})
    assert s2.rs.in_front[1] == ("BREAK_CART",)
    assert ev[0]["code"] == "tool_broken" and ev[0]["target_seat"] == 1
    assert view_for(s2, 3)["seats"][1]["in_front"] == ["BREAK_CART"]
    # a different tool on the same player is fine
    s3 = build(hands={0: ["BREAK_LANTERN"]}, in_front={2: ["BREAK_CART"]})
    s4, _ = apply_move(
        s3, 0, {"type": "break_tool", "card": iid(s3, 0, "BREAK_LANTERN"), "target_seat": 2}
    )
    assert set(s4.rs.in_front[2]) == {"BREAK_CART", "BREAK_LANTERN"}


def test_repair_any_player_including_self() -> None:
    s = build(
        hands={0: ["REPAIR_CART", "REPAIR_PICKAXE"]},
        in_front={0: ["BREAK_CART"], 2: ["BREAK_CART"]},
    )
    card = iid(s, 0, "REPAIR_CART")
    moves = [m for m in legal_moves(s, 0) if m["type"] == "repair_tool"]
    assert {(m["card"], m["target_seat"], m["tool"]) for m in moves} == {
        (card, 0, "cart"),
        (card, 2, "cart"),
    }
    pick = iid(s, 0, "REPAIR_PICKAXE")
    assert (
        refuse(s, 0, {"type": "repair_tool", "card": pick, "target_seat": 0, "tool": "pickaxe"})
        == Reason.NO_SUCH_TOOL_BROKEN
    )
    assert (
        refuse(s, 0, {"type": "repair_tool", "card": card, "target_seat": 0, "tool": "lantern"})
        == Reason.BAD_TOOL
    )
    s2, _ = apply_move(
        s, 0, {"type": "repair_tool", "card": card, "target_seat": 0, "tool": "cart"}
    )
    assert s2.rs.in_front[0] == ()
    assert len(s2.rs.discard) == 2  # the repair and the broken tool


def test_double_repair_fixes_one_chosen_tool() -> None:
    s = build(
        hands={0: ["REPAIR_PICKAXE_LANTERN"]}, in_front={1: ["BREAK_PICKAXE", "BREAK_LANTERN"]}
    )
    card = iid(s, 0, "REPAIR_PICKAXE_LANTERN")
    tools = {m["tool"] for m in legal_moves(s, 0) if m["type"] == "repair_tool"}
    assert tools == {"pickaxe", "lantern"}
    s2, _ = apply_move(
        s, 0, {"type": "repair_tool", "card": card, "target_seat": 1, "tool": "lantern"}
    )
    assert s2.rs.in_front[1] == ("BREAK_PICKAXE",)
    assert (
        refuse(s, 0, {"type": "repair_tool", "card": card, "target_seat": 1, "tool": "cart"})
        == Reason.BAD_TOOL
    )


# ------------------------------------------------------------------ map


def test_map_knowledge_is_private_and_target_public() -> None:
    s = build(hands={0: ["MAP"]}, gold_at=2)
    card = iid(s, 0, "MAP")
    assert {m["goal"] for m in legal_moves(s, 0) if m["type"] == "map"} == {0, 1, 2}
    s2, ev = apply_move(s, 0, {"type": "map", "card": card, "goal": 2})
    assert ev[0] == {"seq": 1, "seat": 0, "code": "map_used", "card": "MAP", "goal": 2}
    mine = view_for(s2, 0)
    assert mine["you"]["known_goals"] == [{"goal": 2, "kind": "gold"}]
    assert mine["goals"][2]["kind"] == "gold"
    other = view_for(s2, 1)
    assert other["you"]["known_goals"] == []
    assert all(g["kind"] is None for g in other["goals"])
    assert all(g["kind"] is None for g in view_for(s2, None)["goals"])
    assert refuse(s, 0, {"type": "map", "card": card, "goal": 3}) == Reason.BAD_TARGET


def test_map_on_revealed_goal_refused() -> None:
    s = build(
        hands={0: ["MAP"]},
        revealed=(True, False, False),
        gold_at=2,
        cells=tunnel(range(1, 8), -2),
    )
    card = iid(s, 0, "MAP")
    assert refuse(s, 0, {"type": "map", "card": card, "goal": 0}) == (Reason.GOAL_ALREADY_REVEALED)
    assert {m["goal"] for m in legal_moves(s, 0) if m["type"] == "map"} == {1, 2}


# ------------------------------------------------------------------ turns and discards


def test_turn_order_draw_and_errors() -> None:
    s = build(hands={0: ["MAP", "S1_CROSS"]}, current=0)
    card = iid(s, 0, "MAP")
    assert refuse(s, 1, {"type": "discard", "cards": [card]}) == Reason.NOT_YOUR_TURN
    assert refuse(s, 0, {"type": "discard", "cards": ["zzzzz"]}) == Reason.CARD_NOT_IN_HAND
    assert refuse(s, 0, {"type": "discard", "cards": [card, iid(s, 0, "S1_CROSS")]}) == (
        Reason.BAD_DISCARD
    )
    assert refuse(s, 0, {"type": "break_tool", "card": card, "target_seat": 1}) == (
        Reason.WRONG_CARD_TYPE
    )
    assert refuse(s, 0, {"type": "steal", "target_seat": 1}) == Reason.WRONG_PHASE
    assert refuse(s, 0, {"type": "next_round"}) == Reason.WRONG_PHASE
    assert (
        refuse(s, 0, {"type": "discard_to_remove", "cards": [card, card], "remove": "BREAK_CART"})
        == Reason.NOT_IN_EDITION
    )
    deck = s.rs.deck_size()
    s2, ev = apply_move(s, 0, {"type": "discard", "cards": [card]})
    assert ev == [{"seq": 1, "seat": 0, "code": "passed", "count": 1}]
    assert len(s2.rs.hands[0]) == 2 and s2.rs.deck_size() == deck - 1
    assert s2.rs.current == 1 and s2.seq == 1
    assert view_for(s2, 0)["discard_size"] == 1


def test_classic_discard_moves_are_single_cards() -> None:
    s = build(hands={0: ["MAP", "S1_CROSS", "ROCKFALL"]})
    d = [m["cards"] for m in legal_moves(s, 0) if m["type"] == "discard"]
    assert d == [[c] for c in sorted(m[0] for m in d)] and len(d) == 3


@pytest.mark.parametrize(
    "move",
    [
        None,
        [],
        {"type": "fly"},
        {"type": "place_path", "card": "x", "x": 1, "y": 0},
        {"type": "place_path", "card": "x", "x": "1", "y": 0, "rotated": False},
        {"type": "place_path", "card": "x", "x": True, "y": 0, "rotated": False},
        {"type": "place_path", "card": 3, "x": 1, "y": 0, "rotated": False},
        {"type": "place_path", "card": "x", "x": 1, "y": 0, "rotated": 0},
        {"type": "discard", "cards": "abc"},
        {"type": "discard", "cards": [1]},
        {"type": "steal", "target_seat": "2"},
        {"type": "map", "card": "x"},
    ],
)
def test_malformed_moves(move) -> None:
    s = build()
    with pytest.raises(MoveFormatError):
        apply_move(s, 0, move)


def test_bad_seat() -> None:
    s = build()
    assert refuse(s, 7, {"type": "next_round"}) == Reason.BAD_SEAT


def test_deck_exhaustion_skips_empty_hands_and_ends_round() -> None:
    roles = ["GOLD_DIGGER", "SABOTEUR", "GOLD_DIGGER", "GOLD_DIGGER"]
    s = build(hands={0: ["MAP"], 1: [], 2: ["MAP"], 3: []}, deck_left=0, roles=roles)
    s2, _ = apply_move(s, 0, {"type": "discard", "cards": [iid(s, 0, "MAP")]})
    assert s2.rs.hands[0] == () and s2.rs.current == 2  # 1 has no cards: skipped
    s3, ev = apply_move(s2, 2, {"type": "discard", "cards": [iid(s2, 2, "MAP")]})
    assert ev[-1]["code"] == "round_ended" and ev[-1]["winners"] == "saboteurs"
    assert s3.phase == "round_over"


# ------------------------------------------------------------------ Saboteur 2 actions

X = "expansion"


def test_theft_and_hands_off() -> None:
    s = build(X, 3, hands={0: ["THEFT", "THEFT", "HANDS_OFF"]}, in_front={2: ["THEFT"]})
    t1 = iid(s, 0, "THEFT")
    s2, ev = apply_move(s, 0, {"type": "theft", "card": t1})
    assert s2.rs.in_front[0] == ("THEFT",) and ev[0]["code"] == "theft_laid"
    assert s2.rs.theft_laid[0] == 1
    s2 = build(X, 3, hands={0: ["THEFT", "HANDS_OFF"]}, in_front={0: ["THEFT"], 2: ["THEFT"]})
    assert refuse(s2, 0, {"type": "theft", "card": iid(s2, 0, "THEFT")}) == (
        Reason.ALREADY_IN_FRONT
    )
    ho = iid(s2, 0, "HANDS_OFF")
    assert {m["target_seat"] for m in legal_moves(s2, 0) if m["type"] == "hands_off"} == {0, 2}
    assert refuse(s2, 0, {"type": "hands_off", "card": ho, "target_seat": 1}) == (
        Reason.NOTHING_TO_REMOVE
    )
    s3, _ = apply_move(s2, 0, {"type": "hands_off", "card": ho, "target_seat": 2})
    assert s3.rs.in_front[2] == () and len(s3.rs.discard) == 2


def test_trap_and_free() -> None:
    s = build(X, 3, hands={0: ["TRAPPED", "FREE_AT_LAST"]}, in_front={2: ["TRAPPED"]})
    tr = iid(s, 0, "TRAPPED")
    assert refuse(s, 0, {"type": "trap", "card": tr, "target_seat": 0}) == Reason.BAD_TARGET
    assert refuse(s, 0, {"type": "trap", "card": tr, "target_seat": 2}) == (Reason.ALREADY_IN_FRONT)
    assert {m["target_seat"] for m in legal_moves(s, 0) if m["type"] == "trap"} == {1}
    s2, _ = apply_move(s, 0, {"type": "trap", "card": tr, "target_seat": 1})
    assert s2.rs.in_front[1] == ("TRAPPED",)
    fr = iid(s, 0, "FREE_AT_LAST")
    assert refuse(s, 0, {"type": "free", "card": fr, "target_seat": 1}) == (
        Reason.NOTHING_TO_REMOVE
    )
    s3, _ = apply_move(s, 0, {"type": "free", "card": fr, "target_seat": 2})
    assert s3.rs.in_front[2] == ()


def test_swap_hand_actor_draws_nothing_target_draws_one() -> None:
    s = build(X, 3, hands={0: ["SWAP_YOUR_HAND", "MAP", "MAP"], 1: ["S1_CROSS", "ROCKFALL"]})
    deck = s.rs.deck_size()
    card = iid(s, 0, "SWAP_YOUR_HAND")
    assert refuse(s, 0, {"type": "swap_hand", "card": card, "target_seat": 0}) == (
        Reason.BAD_TARGET
    )
    s2, ev = apply_move(s, 0, {"type": "swap_hand", "card": card, "target_seat": 1})
    assert hand_ids(s2, 0) == ["S1_CROSS", "ROCKFALL"]
    assert hand_ids(s2, 1)[:2] == ["MAP", "MAP"] and len(s2.rs.hands[1]) == 3
    assert s2.rs.deck_size() == deck - 1
    assert ev[0] == {
        "seq": 1,
        "seat": 0,
        "code": "hands_swapped",
        "card": "SWAP_YOUR_HAND",
        "target_seat": 1,
    }


def test_inspection_private_and_stale_after_swap_hats() -> None:
    roles = ["SABOTEUR", "BOSS", "GEOLOGIST"]
    s = build(
        X,
        3,
        hands={0: ["INSPECTION"], 1: ["SWAP_YOUR_HATS"]},
        roles=roles,
        pool=["PROFITEER", "GOLD_DIGGER_BLUE"],
    )
    card = iid(s, 0, "INSPECTION")
    assert refuse(s, 0, {"type": "inspect", "card": card, "target_seat": 0}) == (Reason.BAD_TARGET)
    s2, ev = apply_move(s, 0, {"type": "inspect", "card": card, "target_seat": 1})
    assert ev[0]["code"] == "inspected" and "role" not in ev[0]
    assert view_for(s2, 0)["you"]["known_roles"] == [{"seat": 1, "role": "BOSS", "stale": False}]
    assert view_for(s2, 2)["you"]["known_roles"] == []
    assert "BOSS" not in str(view_for(s2, 2)) and "BOSS" not in str(view_for(s2, None))
    # seat 1 swaps its own hat: a new role from the set-aside cards; 0's knowledge is stale
    hats = iid(s2, 1, "SWAP_YOUR_HATS")
    assert {m["target_seat"] for m in legal_moves(s2, 1) if m["type"] == "swap_hats"} == {0, 1, 2}
    s3, _ = apply_move(s2, 1, {"type": "swap_hats", "card": hats, "target_seat": 1})
    assert s3.rs.roles[1] == "PROFITEER" and s3.rs.role_pool == ("GOLD_DIGGER_BLUE",)
    assert view_for(s3, 1)["you"]["role"] == "PROFITEER"
    assert view_for(s3, 0)["you"]["known_roles"] == [{"seat": 1, "role": "BOSS", "stale": True}]


def test_s2_discard_one_to_three_and_draw_as_many() -> None:
    s = build(X, 3, hands={0: ["MAP", "MAP", "ROCKFALL", "S1_CROSS", "THEFT", "TRAPPED"]})
    d = [m for m in legal_moves(s, 0) if m["type"] == "discard"]
    assert len(d) == 41
    assert all(m["cards"] == sorted(m["cards"]) for m in d)
    ids = [iid(s, 0, "MAP", 0), iid(s, 0, "MAP", 1), iid(s, 0, "ROCKFALL")]
    s2, ev = apply_move(s, 0, {"type": "discard", "cards": ids})
    assert ev[0] == {"seq": 1, "seat": 0, "code": "passed", "count": 3}
    assert len(s2.rs.hands[0]) == 6
    four = [*ids, iid(s, 0, "S1_CROSS")]
    assert refuse(s, 0, {"type": "discard", "cards": four}) == Reason.BAD_DISCARD
    assert refuse(s, 0, {"type": "discard", "cards": [ids[0], ids[0]]}) == (Reason.CARD_NOT_IN_HAND)
    # the pile has one card: discarding 3 draws 1
    s = build(X, 3, hands={0: ["MAP", "MAP", "ROCKFALL", "S1_CROSS"]}, deck_left=1)
    ids = [iid(s, 0, "MAP", 0), iid(s, 0, "MAP", 1), iid(s, 0, "ROCKFALL")]
    s2, _ = apply_move(s, 0, {"type": "discard", "cards": ids})
    assert len(s2.rs.hands[0]) == 2 and s2.rs.deck_size() == 0


def test_s2_discard_to_remove() -> None:
    s = build(
        X,
        3,
        hands={0: ["MAP", "MAP", "ROCKFALL", "S1_CROSS"]},
        in_front={0: ["BREAK_CART", "TRAPPED", "THEFT"], 1: ["BREAK_LANTERN"]},
    )
    moves = [m for m in legal_moves(s, 0) if m["type"] == "discard_to_remove"]
    assert len(moves) == 6 * 3
    assert {m["remove"] for m in moves} == {"BREAK_CART", "TRAPPED", "THEFT"}
    two = [iid(s, 0, "MAP", 0), iid(s, 0, "ROCKFALL")]
    assert (
        refuse(s, 0, {"type": "discard_to_remove", "cards": two, "remove": "BREAK_LANTERN"})
        == Reason.NOTHING_TO_REMOVE
    )
    assert (
        refuse(s, 0, {"type": "discard_to_remove", "cards": two[:1], "remove": "TRAPPED"})
        == Reason.BAD_DISCARD
    )
    assert (
        refuse(s, 0, {"type": "discard_to_remove", "cards": two, "remove": "MAP"})
        == Reason.BAD_TARGET
    )
    deck = s.rs.deck_size()
    s2, ev = apply_move(s, 0, {"type": "discard_to_remove", "cards": two, "remove": "TRAPPED"})
    assert set(s2.rs.in_front[0]) == {"BREAK_CART", "THEFT"}
    assert len(s2.rs.hands[0]) == 3 and s2.rs.deck_size() == deck - 1  # hand shrinks by one
    assert len(s2.rs.discard) == 3
    assert ev[0] == {
        "seq": 1,
        "seat": 0,
        "code": "discarded_to_remove",
        "count": 2,
        "remove": "TRAPPED",
    }
    s3, _ = apply_move(s, 0, {"type": "discard_to_remove", "cards": two, "remove": "THEFT"})
    assert s3.rs.theft_laid[0] == -1


def test_s2_path_then_draw_and_action_then_draw() -> None:
    s = build(X, 3, hands={0: ["S1_CROSS", "MAP"]})
    deck = s.rs.deck_size()
    s2, _ = apply_move(
        s,
        0,
        {"type": "place_path", "card": iid(s, 0, "S1_CROSS"), "x": 1, "y": 0, "rotated": False},
    )
    assert len(s2.rs.hands[0]) == 2 and s2.rs.deck_size() == deck - 1
    s3, _ = apply_move(s, 0, {"type": "map", "card": iid(s, 0, "MAP"), "goal": 0})
    assert len(s3.rs.hands[0]) == 2


def test_swap_hats_on_another_player() -> None:
    roles = ["SABOTEUR", "GOLD_DIGGER_GREEN", "GEOLOGIST"]
    s = build(X, 3, hands={0: ["SWAP_YOUR_HATS"]}, roles=roles, pool=["BOSS", "SABOTEUR"])
    s2, ev = apply_move(
        s, 0, {"type": "swap_hats", "card": iid(s, 0, "SWAP_YOUR_HATS"), "target_seat": 2}
    )
    assert s2.rs.roles == ("SABOTEUR", "GOLD_DIGGER_GREEN", "BOSS")
    assert ev[0] == {
        "seq": 1,
        "seat": 0,
        "code": "hats_swapped",
        "card": "SWAP_YOUR_HATS",
        "target_seat": 2,
    }
    assert view_for(s2, 2)["you"]["role"] == "BOSS"
    assert "BOSS" not in str(view_for(s2, 0)) and "GEOLOGIST" not in str(view_for(s2, 1))
    assert (
        refuse(s, 0, {"type": "swap_hats", "card": iid(s, 0, "SWAP_YOUR_HATS"), "target_seat": 5})
        == Reason.BAD_TARGET
    )
