"""One declaration per move type (core/engine/registry.py): the tables derived from the
declarations are the ones the engine, its storage and its API had, and stored numbers never
move (they are in stored move logs and stored states)."""

from __future__ import annotations

import json

import pytest

from core import engine
from core.engine import (
    EVENT_SPECS,
    MOVE_SPECS,
    EventCode,
    GameConfig,
    Move,
    MoveFormatError,
    MoveType,
    Phase,
    apply_move,
    legal_moves,
    moveset,
    parse_move,
)
from core.engine.log import CODES
from core.service import movelog
from core.sim import walk
from miniapp.openapi import MOVE_TYPES

# The service's move log stores a move type as its position here: append only.
STORED_MOVE_TYPES = (
    "place_path", "break_tool", "repair_tool", "rockfall", "map", "theft", "hands_off",
    "swap_hand", "inspect", "swap_hats", "trap", "free", "discard", "discard_to_remove",
    "steal", "next_round",
)  # fmt: skip
# A state's log stores an event code as its position here: append only.
STORED_EVENT_CODES = (
    "path_placed", "goal_revealed", "tool_broken", "tool_repaired", "rockfall", "map_used",
    "passed", "discarded_to_remove", "theft_laid", "hands_off", "freed", "trapped",
    "hands_swapped", "inspected", "hats_swapped", "stole", "ready",
)  # fmt: skip


def test_stored_numbers_never_change() -> None:
    assert movelog.TYPES[: len(STORED_MOVE_TYPES)] == STORED_MOVE_TYPES
    assert [s.number for s in MOVE_SPECS] == list(range(len(MOVE_SPECS)))
    assert CODES[: len(STORED_EVENT_CODES)] == STORED_EVENT_CODES
    assert [e.number for e in moveset.LOG_EVENTS] == list(range(len(CODES)))


def test_the_enums_keep_the_wire_strings() -> None:
    assert [m.value for m in MoveType][: len(STORED_MOVE_TYPES)] == list(STORED_MOVE_TYPES)
    assert [p.value for p in Phase] == ["playing", "stealing", "round_over", "finished"]
    assert {c.value for c in EventCode} >= {
        *STORED_EVENT_CODES,
        "round_started",
        "round_ended",
        "game_finished",
    }
    assert json.dumps({"type": MoveType.MAP, "code": EventCode.READY}) == (
        '{"type": "map", "code": "ready"}'
    )


def test_the_derived_tables_are_the_ones_written_by_hand_before() -> None:
    """What moves.FIELDS, EFFECT_MOVE, TO_DISCARD, turn.REMOVABLE, log.LOG_FIELDS,
    movelog.FIELDS and openapi.MOVE_TYPES held before they were derived (a new card may add
    to them, never change them)."""
    card, seat = ("card",), ("card", "target_seat")
    assert {
        "place_path": ("card", "x", "y", "rotated"),
        "break_tool": seat,
        "repair_tool": ("card", "target_seat", "tool"),
        "rockfall": ("card", "x", "y"),
        "map": ("card", "goal"),
        "theft": card,
        "hands_off": seat,
        "swap_hand": seat,
        "inspect": seat,
        "swap_hats": seat,
        "trap": seat,
        "free": seat,
        "discard": ("cards",),
        "discard_to_remove": ("cards", "remove"),
        "steal": ("target_seat",),
        "next_round": (),
    }.items() <= moveset.FIELDS.items()
    assert movelog.FIELDS == moveset.FIELDS and {"rotated"} == movelog.BOOL_FIELDS
    effects = {
        "break": "break_tool", "repair": "repair_tool", "rockfall": "rockfall", "map": "map",
        "theft": "theft", "hands_off": "hands_off", "swap_hand": "swap_hand",
        "inspection": "inspect", "swap_hats": "swap_hats", "trapped": "trap", "free": "free",
    }  # fmt: skip
    assert effects.items() <= moveset.EFFECT_MOVE.items()
    discarded = set(effects.values()) - {"break_tool", "theft", "trap"}
    assert moveset.TO_DISCARD & set(effects.values()) == discarded
    fronts = {"BREAK_PICKAXE", "BREAK_LANTERN", "BREAK_CART", "TRAPPED", "THEFT"}
    assert fronts <= moveset.FRONT_IDS
    assert {
        "path_placed": ("card", "x", "y", "rotated"),
        "goal_revealed": ("goal", "x", "y", "card", "rotated", "kind"),
        "tool_broken": ("card", "target_seat", "tool"),
        "tool_repaired": ("card", "target_seat", "tool"),
        "rockfall": ("card", "x", "y", "removed"),
        "map_used": ("card", "goal"),
        "passed": ("count",),
        "discarded_to_remove": ("count", "remove"),
        "theft_laid": ("card",),
        "hands_off": seat,
        "freed": seat,
        "trapped": seat,
        "hands_swapped": seat,
        "inspected": seat,
        "hats_swapped": seat,
        "stole": ("target_seat",),
        "ready": (),
    }.items() <= moveset.LOG_FIELDS.items()
    assert MOVE_TYPES[: len(STORED_MOVE_TYPES)] == list(STORED_MOVE_TYPES)
    assert MOVE_TYPES[-1] == "take_seat_back"
    assert {e.code for e in EVENT_SPECS} == set(EventCode)


def test_every_card_is_played_by_a_declared_move() -> None:
    for idx, card in enumerate(engine.CATALOGUE.values()):
        played = moveset.PLAYED_WITH[idx]
        if card.category in ("start", "goal"):
            assert played is None and moveset.LEGAL_BY_CARD[idx] is None
        else:
            spec = engine.registry.MOVES[played]  # type: ignore[index]
            assert spec.path == (card.category == "path")
            assert spec.effect in (None, card.kind)
            assert moveset.LEGAL_BY_CARD[idx] is spec.legal


def test_a_move_is_parsed_once_and_unknown_fields_are_dropped() -> None:
    move = {"type": "map", "card": "abcde", "goal": 1, "junk": "x" * 100}
    parsed = parse_move(move)
    assert type(parsed) is Move and parsed == {"type": "map", "card": "abcde", "goal": 1}
    assert parse_move(parsed) is parsed
    assert parse_move({"type": "steal"}) == {"type": "steal", "target_seat": None}
    for bad, why in (
        ([], "a move is a JSON object"),
        ({"type": "fly"}, "unknown move type: 'fly'"),
        ({"type": "map", "card": "a"}, "map: missing field 'goal'"),
        ({"type": "map", "card": "a", "goal": True}, "map: field 'goal' has the wrong type"),
        ({"type": "discard", "cards": ["a", 1]}, "discard: field 'cards' has the wrong type"),
        ({"type": "steal", "target_seat": "1"}, "steal: target_seat must be an integer or null"),
    ):
        with pytest.raises(MoveFormatError, match=why):
            parse_move(bad)


def test_a_parsed_move_plays_as_the_json_move_does() -> None:
    cfg = GameConfig.from_options("expansion", 5, {})
    for before, entry, after in walk(cfg, 3, east_bias=0.8):
        if "seat" not in entry:
            continue
        seat, move = entry["seat"], entry["move"]
        got, events = apply_move(before, seat, parse_move({**move, "extra": 1}))
        assert got == after
        assert legal_moves(got, got.rs.current) == legal_moves(after, after.rs.current)
        assert all(set(e) - {"seq", "seat", "code", "timeout"} <= set(
            moveset.EVENT_FIELDS[e["code"]]) for e in events)  # fmt: skip
