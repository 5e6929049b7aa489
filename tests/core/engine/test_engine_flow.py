"""Setup, rounds, start seats, ties, timeouts of each phase, views (RULES §4, §7, §8), codec."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from core.engine import (
    GameConfig,
    IllegalMove,
    Reason,
    actor,
    apply_move,
    apply_timeout,
    legal_moves,
    new_game,
    public_log,
    scores,
    state_from_json,
    state_to_json,
    view_for,
    waiting_on,
)
from tests.core.engine.engine_builders import build, iid

D, S = "GOLD_DIGGER", "SABOTEUR"


@pytest.mark.parametrize("players", range(3, 11))
def test_classic_setup(players: int) -> None:
    s = new_game(GameConfig.from_options("classic", players, {}), 11)
    h = {3: 6, 4: 6, 5: 6, 6: 5, 7: 5, 8: 4, 9: 4, 10: 4}[players]
    sab, dig = {
        3: (1, 3),
        4: (1, 4),
        5: (2, 4),
        6: (2, 5),
        7: (3, 5),
        8: (3, 6),
        9: (3, 7),
        10: (4, 7),
    }[players]
    assert all(len(hand) == h for hand in s.rs.hands)
    every = s.rs.roles + s.rs.role_pool
    assert (every.count(S), every.count(D)) == (sab, dig)
    assert len(s.rs.role_pool) == 1
    assert s.rs.deck_size() == 67 - players * h
    assert s.phase == "playing" and actor(s) == s.rs.start_seat
    ids = [s.rs.table.iids[p] for hand in s.rs.hands for p in hand]
    assert len(set(ids)) == len(ids)


@pytest.mark.parametrize("players", [2, 7, 12])
def test_expansion_setup(players: int) -> None:
    s = new_game(GameConfig.from_options("expansion", players, {}), 5)
    assert all(len(hand) == 6 for hand in s.rs.hands)
    deck = len(s.catalogue.decks["expansion"])  # test_engine_cards counts it
    assert len(s.rs.table.cards) == deck and s.catalogue.removed == 10
    assert s.rs.deck_size() == deck - 10 - 6 * players
    assert len(s.rs.roles) + len(s.rs.role_pool) == 15
    v = view_for(s, 0)
    assert v["deck_size"] == s.rs.deck_size() and v["discard_size"] == 0
    assert all(seat["has_gold"] is False for seat in v["seats"])


def test_same_seed_same_game_and_ids_differ_per_round() -> None:
    cfg = GameConfig.from_options("classic", 5, {})
    a, b = new_game(cfg, 99), new_game(cfg, 99)
    assert state_to_json(a) == state_to_json(b)
    assert new_game(cfg, 100).rs.hands != a.rs.hands or (
        new_game(cfg, 100).rs.table.iids != a.rs.table.iids
    )


def _end_round_by_discard(s, seat):
    """Make `seat` the only one holding a card with an empty pile, then discard it."""
    hands = {i: [] for i in range(s.n)}
    hands[seat] = ["MAP"]
    return hands


def test_next_round_start_seat_and_ready() -> None:
    s = build(
        players=4,
        hands={0: [], 1: [], 2: ["MAP"], 3: []},
        deck_left=0,
        current=2,
        roles=[D, S, D, D],
    )
    s, ev = apply_move(s, 2, {"type": "discard", "cards": [iid(s, 2, "MAP")]})
    assert s.phase == "round_over" and waiting_on(s) == frozenset(range(4))
    assert legal_moves(s, 1) == [{"type": "next_round"}]
    v = view_for(s, 1)
    assert [seat["role"] for seat in v["seats"]] == [D, S, D, D]  # public at round end
    assert v["round_result"]["winners"] == "saboteurs"
    assert v["goals"][s.rs.board.gold_goal()]["kind"] == "gold"
    for seat in (0, 1, 3):
        s, _ = apply_move(s, seat, {"type": "next_round"})
    with pytest.raises(IllegalMove) as exc:
        apply_move(s, 1, {"type": "next_round"})
    assert exc.value.reason == Reason.ALREADY_READY
    assert view_for(s, 2)["seats"][1]["ready"] is True
    assert waiting_on(s) == frozenset({2})
    s, ev = apply_move(s, 2, {"type": "next_round"})
    assert s.phase == "playing" and s.round == 2
    assert ev[-1]["code"] == "round_started" and ev[-1]["start_seat"] == 3  # after seat 2
    assert actor(s) == 3
    assert view_for(s, 0)["round_result"] is None
    assert [seat["role"] for seat in view_for(s, 0)["seats"]] == [None] * 4
    assert scores(s) == [0, 4, 0, 0]


def test_rounds_option_and_finish_and_ties() -> None:
    s = build(
        players=4,
        hands={0: [], 1: [], 2: ["MAP"], 3: []},
        deck_left=0,
        current=2,
        roles=[D, S, D, D],
        options={"rounds": 1},
        gold=[0, 0, 4, 0],
    )
    s, ev = apply_move(s, 2, {"type": "discard", "cards": [iid(s, 2, "MAP")]})
    assert s.phase == "finished"
    assert ev[-1] == {
        "seq": 1,
        "seat": None,
        "code": "game_finished",
        "gold": [0, 4, 4, 0],
        "winners": [1, 2],
    }
    v = view_for(s, 0)
    assert v["final"] == {"gold": [0, 4, 4, 0], "winners": [1, 2]}
    assert [seat["gold"] for seat in v["seats"]] == [0, 4, 4, 0]
    assert v["legal_moves"] == [] and waiting_on(s) == frozenset() and actor(s) is None
    with pytest.raises(IllegalMove) as exc:
        apply_move(s, 0, {"type": "next_round"})
    assert exc.value.reason == Reason.GAME_OVER
    with pytest.raises(IllegalMove) as exc:
        apply_timeout(s)
    assert exc.value.reason == Reason.WRONG_PHASE
    assert len(s.results) == 1


def test_two_rounds_option() -> None:
    cfg = GameConfig.from_options("classic", 3, {"rounds": 2})
    s = new_game(cfg, 4)
    rounds = 0
    while s.phase != "finished":
        s, _ = apply_timeout(s)
        rounds = max(rounds, s.round)
    assert rounds == 2 and len(s.results) == 2


def test_timeout_playing_discards_random_card_then_draws() -> None:
    s = build(players=3, hands={0: ["MAP", "ROCKFALL", "S1_CROSS"]}, current=0)
    deck = s.rs.deck_size()
    s2, ev = apply_timeout(s)
    assert ev == [{"seq": 1, "seat": 0, "code": "passed", "count": 1, "timeout": True}]
    assert len(s2.rs.hands[0]) == 3 and s2.rs.deck_size() == deck - 1
    assert actor(s2) == 1
    again, _ = apply_timeout(s)
    assert state_to_json(again) == state_to_json(s2)  # seeded, reproducible
    s = build("expansion", 3, hands={0: ["MAP", "ROCKFALL"]}, current=0)
    s2, ev = apply_timeout(s)
    assert ev[0]["count"] == 1 and len(s2.rs.hands[0]) == 2


def test_timeout_round_over_starts_next_round() -> None:
    s = build(players=3, hands={0: ["MAP"], 1: [], 2: []}, deck_left=0, current=0)
    s, _ = apply_move(s, 0, {"type": "discard", "cards": [iid(s, 0, "MAP")]})
    s, _ = apply_move(s, 1, {"type": "next_round"})
    seq = s.seq
    s, ev = apply_timeout(s)
    assert s.phase == "playing" and s.round == 2 and s.seq == seq + 1
    assert ev == [
        {"seq": seq + 1, "seat": None, "code": "round_started", "round": 2, "start_seat": 1}
    ]


def test_views_hide_private_information() -> None:
    s = build(players=4, hands={0: ["MAP", "S1_CROSS"], 1: ["ROCKFALL"]})
    s, _ = apply_move(s, 0, {"type": "map", "card": iid(s, 0, "MAP"), "goal": 0})
    other_hand = [s.rs.table.iids[p] for p in s.rs.hands[1]]
    for viewer in (None, 0, 2, 3):
        v = view_for(s, viewer)
        text = json.dumps(v)
        for card in other_hand:
            assert card not in text
        assert all(seat["role"] is None for seat in v["seats"])
        assert all(seat["gold"] is None for seat in v["seats"])
        assert all(seat["has_gold"] is None for seat in v["seats"])
        if viewer != 0:
            assert all(g["kind"] is None for g in v["goals"])
    spect = view_for(s, None)
    assert spect["you"]["seat"] is None and spect["you"]["hand"] == []
    assert spect["you"]["role"] is None and spect["legal_moves"] == []
    mine = view_for(s, 1)
    assert mine["you"]["role"] == s.rs.roles[1]
    assert [c["id"] for c in mine["you"]["hand"]] == other_hand
    assert mine["you"]["gold"] == 0
    assert set(mine) >= {
        "status",
        "edition",
        "options",
        "round",
        "rounds",
        "you",
        "seats",
        "board",
        "goals",
        "deck_size",
        "discard_size",
        "current_seat",
        "log",
        "round_result",
        "final",
        "legal_moves",
    }


def test_view_has_no_seed_or_deck_order() -> None:
    cfg = GameConfig.from_options("expansion", 4, {})
    s = new_game(cfg, 123456789)
    deck = [s.rs.table.iids[p] for p in range(s.rs.drawn, len(s.rs.table.iids))]
    removed = s.rs.table.iids[:10]
    for viewer in (None, 0, 1, 2, 3):
        text = json.dumps(view_for(s, viewer))
        assert "123456789" not in text
        assert not any(i in text for i in deck + list(removed))


def test_log_hides_what_passes_and_maps_reveal() -> None:
    s = build(players=3, hands={0: ["MAP", "ROCKFALL"], 1: ["S1_CROSS"]}, current=0)
    s, _ = apply_move(s, 0, {"type": "map", "card": iid(s, 0, "MAP"), "goal": 1})
    s, _ = apply_move(s, 1, {"type": "discard", "cards": [iid(s, 1, "S1_CROSS")]})
    log = public_log(s)
    assert [e["code"] for e in log] == ["round_started", "map_used", "passed"]
    assert log[2] == {"seq": 2, "seat": 1, "code": "passed", "count": 1}
    assert "kind" not in log[1]
    assert public_log(s, 1) == log[2:]
    assert view_for(s, 2, log_limit=1)["log"] == log[2:]


def test_codec_roundtrip_and_size() -> None:
    s = build("expansion", 6, hands={0: ["S1_CROSS", "THEFT"]}, in_front={3: ["TRAPPED"]})
    s, _ = apply_move(s, 0, {"type": "theft", "card": iid(s, 0, "THEFT")})
    d = state_to_json(s)
    assert d["schema"] == 2 and d["catalogue"] == s.catalogue.version
    text = json.dumps(d, separators=(",", ":"))
    back = state_from_json(json.loads(text))
    assert back == s
    assert view_for(back, 2) == view_for(s, 2)
    assert legal_moves(back, back.rs.current) == legal_moves(s, s.rs.current)
    assert len(text) < 6000
    with pytest.raises(ValueError):
        state_from_json({**d, "schema": 99})


def test_apply_never_mutates() -> None:
    s = build(players=3, hands={0: ["S1_CROSS", "MAP"]})
    before = state_to_json(s)
    apply_move(
        s,
        0,
        {"type": "place_path", "card": iid(s, 0, "S1_CROSS"), "x": 1, "y": 0, "rotated": False},
    )
    apply_timeout(s)
    assert state_to_json(s) == before


def test_actor_and_waiting_on_during_play() -> None:
    s = build(players=3, current=1)
    assert actor(s) == 1 and waiting_on(s) == frozenset({1})
    assert legal_moves(s, 0) == [] and legal_moves(s, 1)
    assert legal_moves(s, None) == [] and legal_moves(s, 17) == []
    s2 = replace(s, seq=5)
    assert view_for(s2, 1)["current_seat"] == 1
