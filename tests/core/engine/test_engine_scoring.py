"""Round end and scoring: every row of RULES §5 (classic and options) and §6 (Saboteur 2)."""

from __future__ import annotations

import pytest

from core.engine import (
    ConfigError,
    GameConfig,
    IllegalMove,
    Reason,
    apply_move,
    apply_timeout,
    legal_moves,
    new_game,
    view_for,
)
from tests.core.engine.engine_builders import alter, build, iid, tunnel

EW = "S1_STRAIGHT_EW"
ROW7 = tunnel(range(1, 8), keep={"S1_CROSS": 1})  # the reacher holds a cross
D, S, SD = "GOLD_DIGGER", "SABOTEUR", "SELFISH_DWARF"
BLUE, GREEN, BOSS, PROF, GEO = (
    "GOLD_DIGGER_BLUE",
    "GOLD_DIGGER_GREEN",
    "BOSS",
    "PROFITEER",
    "GEOLOGIST",
)


def gold_round(edition, roles, *, reacher=0, cells=ROW7, **kw):
    """The reacher's placement turns up the gold (already touching a connected opening)."""
    s = build(
        edition,
        len(roles),
        hands={reacher: ["S1_CROSS"]},
        cells=cells,
        roles=roles,
        current=reacher,
        **kw,
    )
    move = {
        "type": "place_path",
        "card": iid(s, reacher, "S1_CROSS"),
        "x": -1,
        "y": 0,
        "rotated": False,
    }
    s2, ev = apply_move(s, reacher, move)
    assert any(e["code"] == "goal_revealed" and e["kind"] == "gold" for e in ev)
    return s2


def dry_round(edition, roles, **kw):
    """The last card is discarded with an empty pile: the round runs out."""
    hands = {i: [] for i in range(len(roles))}
    hands[0] = ["MAP"]
    s = build(edition, len(roles), hands=hands, roles=roles, deck_left=0, current=0, **kw)
    s2, _ = apply_move(s, 0, {"type": "discard", "cards": [iid(s, 0, "MAP")]})
    return s2


def won(s) -> list[int]:
    return s.rs.result["winnings"]


# ------------------------------------------------------------------ classic saboteurs


@pytest.mark.parametrize(("players", "sabs", "each"), [(4, 1, 4), (5, 2, 3), (7, 3, 3), (10, 4, 2)])
def test_saboteur_payout_rows(players: int, sabs: int, each: int) -> None:
    roles = [S] * sabs + [D] * (players - sabs)
    s = dry_round("classic", roles, nuggets="3" * 4 + "2" * 8 + "1" * 16)
    assert won(s) == [each] * sabs + [0] * (players - sabs)
    assert s.rs.result["winners"] == "saboteurs"
    assert s.gold == tuple(won(s))


def test_no_saboteur_in_play_nobody_scores() -> None:
    s = dry_round("classic", [D, D, D, D])
    assert won(s) == [0, 0, 0, 0]


def test_value_payment_from_pile() -> None:
    # owed 4: largest card not worth more (3), then 1
    s = dry_round("classic", [S, D, D, D], nuggets="3311")
    assert s.rs.result["nuggets"][0] == [3, 1] and s.nuggets == "31"
    # owed 3 with only 2s and 1s: 2 then 1
    s = dry_round("classic", [S, S, D, D, D], nuggets="2211")
    assert s.rs.result["nuggets"][:2] == [[2, 1], [2, 1]]
    # owed 2 with only 3s left: the smallest card left (a slight overpay)
    s = dry_round("classic", [S, S, S, S, D, D, D, D, D, D], nuggets="3333")
    assert won(s)[:4] == [3, 3, 3, 3]


# ------------------------------------------------------------------ classic diggers


def test_digger_deal_against_turn_order_highest_first() -> None:
    roles = [D, D, S, D]
    s = gold_round("classic", roles, reacher=1, nuggets="1213" + "1" * 14)
    # 4 cards drawn (players): sorted 3,2,1,1; order from the reacher (1) counter-clockwise:
    # 1, 0, 3 (2 is a saboteur), then 1 again
    assert s.rs.result["nuggets"] == [[2], [3, 1], [], [1]]
    assert s.rs.result["winners"] == "diggers"
    assert s.nuggets == "1" * 14
    v = view_for(s, 1)["round_result"]
    assert v["your_winnings"] == 4 and v["your_nuggets"] == [3, 1]
    assert "winnings" not in v and view_for(s, 0)["round_result"]["your_winnings"] == 2


def test_digger_deal_at_most_nine_cards() -> None:
    roles = [D] * 7 + [S] * 3
    s = gold_round("classic", roles, reacher=0, nuggets="1" * 16)
    assert sum(won(s)) == 9
    assert won(s)[:7] == [2, 1, 1, 1, 1, 1, 2]  # 0 first, then 6, 5, ... 1, then 0 and 6


def test_saboteur_reaching_gold_first_taker_is_nearest_digger_against_order() -> None:
    roles = [D, D, S, D]
    s = gold_round("classic", roles, reacher=2, nuggets="3211" + "1" * 10)
    assert s.rs.result["winners"] == "diggers"
    # from 2 against turn order: 1 first, then 0, then 3
    assert s.rs.result["nuggets"] == [[2], [3, 1], [], [1]]


def test_gold_per_digger() -> None:
    roles = [D, D, S, S, D]
    s = gold_round("classic", roles, nuggets="1" * 16, options={"gold_per_digger": True})
    assert sum(won(s)) == 3


def test_old_mine_stones() -> None:
    cfg = GameConfig.from_options("classic", 5, {"old_mine": True})
    pile = new_game(cfg, 3).nuggets
    assert sorted(pile) == sorted("0" * 6 + "1" * 10 + "2" * 8 + "3" * 4)
    roles = [D, D, S, S, D]
    s = gold_round("classic", roles, nuggets="00310" + "1" * 5, options={"old_mine": True})
    # five cards 3,1,0,0,0 dealt 0 -> 4 -> 1 -> 0 -> 4
    assert s.rs.result["nuggets"] == [[3, 0], [0], [], [], [1, 0]]
    # stones are never used to pay a value
    s = dry_round("classic", [S, D, D, D, D], nuggets="0021", options={"old_mine": True})
    assert s.rs.result["nuggets"][0] == [2, 1] and s.nuggets == "00"


def test_competitive_broken_diggers_take_nothing() -> None:
    roles = [D, D, S, D]
    s = gold_round(
        "classic",
        roles,
        reacher=0,
        nuggets="3211" + "1" * 10,
        in_front={3: ["BREAK_CART"]},
        options={"competitive": True},
    )
    assert s.rs.result["nuggets"] == [[3, 1], [2, 1], [], []]
    s = gold_round(
        "classic", roles, reacher=0, nuggets="3211" + "1" * 10, in_front={3: ["BREAK_CART"]}
    )
    assert s.rs.result["nuggets"][3] == [2]


def test_max_saboteurs_roles() -> None:
    for n in range(3, 11):
        s = new_game(GameConfig.from_options("classic", n, {"max_saboteurs": True}), n)
        assert len(s.rs.roles) == n and s.rs.role_pool == ()
        sabs = {3: 1, 4: 1, 5: 2, 6: 2, 7: 3, 8: 3, 9: 3, 10: 4}[n]
        assert s.rs.roles.count(S) == sabs
    s = new_game(GameConfig.from_options("classic", 5, {}), 5)
    assert len(s.rs.role_pool) == 1


def test_selfish_dwarf_cases() -> None:
    roles = [SD, D, S, D, D]
    opts = {"selfish_dwarf": True}
    s = gold_round("classic", roles, reacher=0, nuggets="3322" + "1" * 10, options=opts)
    assert s.rs.result["winners"] == "selfish_dwarf" and won(s) == [4, 0, 0, 0, 0]
    s = gold_round("classic", roles, reacher=1, nuggets="1" * 16, options=opts)
    assert s.rs.result["winners"] == "diggers" and won(s)[0] == 0 and sum(won(s)) == 4
    s = dry_round("classic", roles, nuggets="3" * 4 + "1", options=opts)
    assert won(s) == [0, 0, 4, 0, 0]
    s = gold_round(
        "classic", roles, reacher=1, nuggets="1" * 16, options={**opts, "gold_per_digger": True}
    )
    assert sum(won(s)) == 3
    cfg = GameConfig.from_options("classic", 6, opts)
    st = new_game(cfg, 1)
    assert sorted(st.rs.roles + st.rs.role_pool).count(SD) == 1


def test_tournament() -> None:
    for n, (sab, dig) in {5: (1, 3), 6: (2, 3), 7: (2, 4), 8: (2, 5), 9: (3, 5)}.items():
        st = new_game(GameConfig.from_options("classic", n, {"tournament": True}), n)
        assert st.rs.role_pool == ()
        assert (st.rs.roles.count(S), st.rs.roles.count(D), st.rs.roles.count(SD)) == (sab, dig, 1)
    roles = [D, D, S, SD, D]
    opts = {"tournament": True}
    s = gold_round("classic", roles, reacher=1, nuggets="3" * 4 + "2" * 8 + "1" * 16, options=opts)
    assert won(s) == [2, 3, 0, 0, 2]
    s = gold_round("classic", roles, reacher=2, nuggets="3" * 4 + "2" * 8 + "1" * 16, options=opts)
    assert won(s) == [2, 3, 0, 0, 2]  # nearest digger against turn order from seat 2: 1
    s = gold_round("classic", roles, reacher=3, nuggets="3" * 4 + "2" * 8 + "1" * 16, options=opts)
    assert won(s) == [0, 0, 0, 4, 0]
    s = dry_round("classic", roles, nuggets="3" * 4 + "2" * 8 + "1" * 16, options=opts)
    assert won(s) == [0, 0, 4, 0, 0]


@pytest.mark.parametrize(
    ("edition", "players", "options"),
    [
        ("classic", 2, {}),
        ("classic", 11, {}),
        ("expansion", 1, {}),
        ("expansion", 13, {}),
        ("expansion", 5, {"old_mine": True}),
        ("expansion", 5, {"tournament": True}),
        ("classic", 4, {"tournament": True}),
        ("classic", 10, {"tournament": True}),
        ("classic", 6, {"tournament": True, "max_saboteurs": True}),
        ("classic", 6, {"tournament": True, "gold_per_digger": True}),
        ("classic", 6, {"rounds": 4}),
        ("classic", 6, {"rounds": True}),
        ("classic", 6, {"nonsense": True}),
        ("classic", 6, {"old_mine": "yes"}),
        ("chess", 6, {}),
    ],
)
def test_invalid_config(edition: str, players: int, options: dict) -> None:
    with pytest.raises(ConfigError) as exc:
        GameConfig.from_options(edition, players, options)
    assert exc.value.code == "invalid_config"


def test_valid_configs() -> None:
    cfg = GameConfig.from_options("classic", 7, {"tournament": True, "competitive": True})
    assert cfg.selfish_dwarf and cfg.options()["tournament"]
    GameConfig.from_options("expansion", 2, {"rounds": 1, "bounded_board": True})
    with pytest.raises(ConfigError):
        new_game(GameConfig("classic", 2), 1)


# ------------------------------------------------------------------ Saboteur 2


@pytest.mark.parametrize(
    ("roles", "expected"),
    [
        ([BLUE, S], [5, 0]),
        ([BLUE, BLUE, S], [4, 4, 0]),
        ([BLUE, BLUE, BLUE, S], [3, 3, 3, 0]),
        ([BLUE, BLUE, BLUE, BLUE, S], [2, 2, 2, 2, 0]),
        ([BLUE, BLUE, BLUE, BLUE, BOSS, PROF, S], [1, 1, 1, 1, 0, 0, 0]),
        ([BLUE, BOSS, S], [4, 3, 0]),
        ([BLUE, PROF, GREEN], [4, 2, 0]),
        ([BLUE, BOSS, PROF], [3, 2, 1]),
    ],
)
def test_s2_payout_table(roles, expected) -> None:
    s = gold_round("expansion", roles)
    assert won(s) == expected


def test_s2_round_runs_out_saboteurs_and_profiteer() -> None:
    s = dry_round("expansion", [S, S, PROF, BLUE, BOSS])
    assert s.rs.result["winners"] == "saboteurs"
    assert won(s) == [3, 3, 1, 0, 0]


def test_s2_trapped_winner_excluded_and_geologists() -> None:
    cells = [
        *ROW7[:2],
        (3, 0, "S2_CRYSTAL_CROSS", False),
        *ROW7[3:],
        (0, 1, "S2_CRYSTAL_T_NES", False),
        (0, 2, "S2_CRYSTAL_DEAD_N", False),
    ]
    s = gold_round(
        "expansion",
        [BLUE, BLUE, GEO, GEO, S],
        cells=cells,
        in_front={1: ["TRAPPED"], 3: ["TRAPPED"]},
    )
    # 1 winner (seat 1 trapped): 5; 3 crystals // 2 geologists = 1, the trapped one loses it
    assert won(s) == [5, 0, 1, 0, 0]
    assert s.rs.result["crystals"] == 3
    s = dry_round("expansion", [S, GEO])
    assert won(s) == [5, 0]


def _door_row(door_x: int, door: str) -> list:
    return [(x, 0, door, False) if x == door_x else c for c in ROW7 for x in (c[0],)]


def test_doors_decide_the_team() -> None:
    green_row = _door_row(3, "S2_DOOR_GREEN_EW")
    s = gold_round("expansion", [BLUE, GREEN, S], cells=green_row, reacher=0)
    assert s.rs.result["winners"] == "green" and won(s) == [0, 5, 0]
    blue_row = _door_row(3, "S2_DOOR_BLUE_EW")
    s = gold_round("expansion", [BLUE, GREEN, S], cells=blue_row, reacher=0)
    assert s.rs.result["winners"] == "blue" and won(s) == [5, 0, 0]
    # a green digger reaches it but every route has a blue door: blue wins
    s = gold_round("expansion", [BLUE, GREEN, S, BOSS], cells=blue_row, reacher=1)
    assert s.rs.result["winners"] == "blue" and won(s) == [4, 0, 0, 3]
    # a saboteur reaches an open route: both teams win
    s = gold_round("expansion", [BLUE, GREEN, S, BOSS], reacher=2)
    assert s.rs.result["winners"] == "blue+green" and won(s) == [3, 3, 0, 2]
    # a blue digger reaches an open route: only blue
    s = gold_round("expansion", [BLUE, GREEN, S], reacher=0)
    assert s.rs.result["winners"] == "blue"
    # every route closed to both colours: saboteurs (and the profiteer)
    doors = {2: "S2_DOOR_BLUE_EW", 4: "S2_DOOR_GREEN_EW"}
    both = [(x, 0, doors.get(x, cid), False) for x, _, cid, _ in ROW7]
    s = gold_round("expansion", [BLUE, GREEN, S, PROF], cells=both, reacher=0)
    assert s.rs.result["winners"] == "saboteurs" and won(s) == [0, 0, 4, 2]


def test_doors_with_two_routes() -> None:
    # route A along y=0 has a blue door; route B along y=1 is open; B enters the gold from S
    # (route A: no card opens south; route B: no card conducts north)
    a = [(x, 0, "S1_T_NEW", False) for x in (1, 2, 4, 5, 6)]
    a += [(3, 0, "S2_DOOR_BLUE_EW", False), (7, 0, "S2_CRYSTAL_T_NEW", False)]
    b = [(x, 1, EW, False) for x in (1, 2, 3)]
    b += [(4, 1, "S2_BRIDGE", False), (5, 1, "S2_BRIDGE", False)]
    b += [(6, 1, "S2_PLAIN_EW_STUBS_NS", False), (7, 1, "S2_CRYSTAL_EW_STUB_N", False)]
    b += [(0, 1, "S1_CURVE_NE", False), (8, 1, "S1_CURVE_NW", False)]
    s = gold_round("expansion", [BLUE, GREEN, S], cells=a + b, reacher=1)
    # the green digger reached it and an open route exists: green wins (blue needs
    # "P not green" or "no open green route")
    assert s.rs.result["winners"] == "green"
    s = gold_round("expansion", [BLUE, GREEN, S], cells=a + b, reacher=0)
    assert s.rs.result["winners"] == "blue"


# ------------------------------------------------------------------ theft


def laid(n: int, seqs: dict[int, int]) -> list[int]:
    """`theft_laid`: the seq each seat laid its theft card at (-1: none)."""
    return [seqs.get(s, -1) for s in range(n)]


def test_theft_order_choice_and_phase() -> None:
    roles = [BLUE, S, S, BLUE, PROF]
    s = build(
        "expansion",
        5,
        hands={0: ["MAP"], 1: [], 2: [], 3: [], 4: []},
        roles=roles,
        deck_left=0,
        in_front={0: ["THEFT"], 2: ["THEFT"], 3: ["THEFT", "TRAPPED"], 4: ["THEFT"]},
        gold=[0, 0, 0, 7, 2],
        theft_laid=laid(5, {0: 5, 2: 9, 3: 12, 4: 3}),
    )
    s, ev = apply_move(s, 0, {"type": "discard", "cards": [iid(s, 0, "MAP")]})
    # saboteurs 1, 2 and the profiteer win: 3 winners -> 3 each, profiteer 1
    assert s.gold == (0, 3, 3, 7, 3)
    assert s.phase == "stealing"
    # seat 3 is trapped: skipped; 2 laid last -> 2 first, then 4, then 0
    assert s.rs.thieves == (2, 4, 0) and s.rs.current == 2
    assert {m["target_seat"] for m in legal_moves(s, 2)} == {1, 3, 4}
    with pytest.raises(IllegalMove) as exc:
        apply_move(s, 2, {"type": "steal", "target_seat": 0})
    assert exc.value.reason == Reason.BAD_TARGET
    with pytest.raises(IllegalMove) as exc:
        apply_move(s, 4, {"type": "steal", "target_seat": 3})
    assert exc.value.reason == Reason.NOT_YOUR_TURN
    s, ev = apply_move(s, 2, {"type": "steal", "target_seat": 3})
    assert ev[0] == {"seq": s.seq, "seat": 2, "code": "stole", "target_seat": 3}
    assert s.gold == (0, 3, 4, 6, 3)
    # timeout: the richest other player (3 has 6)
    s, ev = apply_timeout(s)
    assert ev[0]["target_seat"] == 3 and ev[0]["timeout"] is True
    s, ev = apply_move(s, 0, {"type": "steal", "target_seat": 4})
    assert s.gold == (1, 3, 4, 5, 3)
    assert s.phase == "round_over"
    assert view_for(s, 1)["seats"][0]["has_gold"] is True
    assert view_for(s, 1)["round_result"]["steals"] == [[2, 3], [4, 3], [0, 4]]


def test_theft_nobody_has_gold_and_timeout_tie_order() -> None:
    roles = [S, BLUE, BLUE]
    s = build(
        "expansion",
        3,
        hands={0: ["MAP"], 1: [], 2: []},
        roles=roles,
        deck_left=0,
        in_front={1: ["THEFT"]},
        theft_laid=laid(3, {1: 4}),
    )
    s, _ = apply_move(s, 0, {"type": "discard", "cards": [iid(s, 0, "MAP")]})
    assert s.gold == (5, 0, 0) and s.phase == "stealing"
    # seat 0 has gold: the only choice
    assert legal_moves(s, 1) == [{"type": "steal", "target_seat": 0}]
    s2 = alter(s, gold=[0, 0, 0])
    assert legal_moves(s2, 1) == [{"type": "steal", "target_seat": None}]
    s3, ev = apply_move(s2, 1, {"type": "steal", "target_seat": None})
    assert ev[0]["target_seat"] is None and s3.phase == "round_over"
    # tie on the most gold: turn order from the thief (1 -> 2 before 0)
    s4 = alter(s, gold=[3, 0, 3])
    _, ev = apply_timeout(s4)
    assert ev[0]["target_seat"] == 2


def test_stealing_phase_view() -> None:
    roles = [BLUE, S, S]
    s = build(
        "expansion",
        3,
        hands={0: ["MAP"], 1: [], 2: []},
        roles=roles,
        deck_left=0,
        in_front={0: ["THEFT"]},
        gold=[0, 2, 0],
        theft_laid=laid(3, {0: 3}),
    )
    s, _ = apply_move(s, 0, {"type": "discard", "cards": [iid(s, 0, "MAP")]})
    assert s.phase == "stealing"
    v = view_for(s, 0)
    assert v["status"] == "stealing" and v["current_seat"] == 0
    assert [seat["role"] for seat in v["seats"]] == roles
    assert [seat["has_gold"] for seat in v["seats"]] == [False, True, True]
    assert v["legal_moves"] == [
        {"type": "steal", "target_seat": 1},
        {"type": "steal", "target_seat": 2},
    ]
    assert view_for(s, 1)["legal_moves"] == []
    assert view_for(s, 1)["you"]["gold"] == 6 and view_for(s, 2)["you"]["gold"] == 4
    assert all(seat["gold"] is None for seat in v["seats"])
