"""Storage codecs: the compact move log and the service meta JSON."""

from __future__ import annotations

from typing import Any

from core.service import movelog

ENTRIES: list[dict[str, Any]] = [
    {"timeout": True, "v": 7},
    {
        "seat": 2,
        "move": {"type": "place_path", "card": "ab3cd", "x": 1, "y": -2, "rotated": True},
        "v": 8,
    },
    {"seat": 0, "move": {"type": "discard", "cards": ["aaaaa", "bbbbb"]}, "v": 9},
    {"seat": 1, "move": {"type": "steal", "target_seat": None}, "v": 10},
    {"seat": 3, "move": {"type": "next_round"}, "v": 11},
    {
        "seat": 4,
        "move": {"type": "repair_tool", "card": "x", "target_seat": 2, "tool": "cart"},
        "v": 12,
    },
    {"seat": 5, "move": {"type": "future_card", "card": "q", "extra": [1]}, "v": 13},
    {"seat": 5, "move": {"type": "map", "card": "q", "goal": 1, "note": "?"}, "v": 14},
]


def test_round_trip_and_compact() -> None:
    for entry in ENTRIES:
        raw = movelog.encode(entry)
        assert movelog.decode(raw) == entry
    assert movelog.encode(ENTRIES[1]) == '[8,2,0,"ab3cd",1,-2,1]'
    assert movelog.encode(ENTRIES[0]) == "[7]"


def test_log_entries_of_the_previous_format_still_decode() -> None:
    """Archived logs keep the type names and JSON booleans of the first codec."""
    assert movelog.decode('[8,2,"place_path","ab3cd",1,-2,true]') == ENTRIES[1]
    assert movelog.decode('[9,0,"discard",["aaaaa","bbbbb"]]') == ENTRIES[2]
    # a non-boolean "rotated" is kept verbatim (the dict form), never turned into a bool
    odd = {"seat": 1, "move": {**ENTRIES[1]["move"], "rotated": 1}, "v": 3}
    assert movelog.decode(movelog.encode(odd)) == odd


def test_state_codec_dictionary_is_frozen_and_old_forms_decode() -> None:
    import base64
    import hashlib
    import json
    import zlib

    from core import engine
    from core.service.records import STATE_ZDICT_1, decode_state, encode_state

    # stored states depend on these exact bytes (records.py): a new dictionary is a new file
    assert hashlib.sha256(STATE_ZDICT_1).hexdigest() == (
        "a36a7c2ae6826a8440b3297626a26847bf5045833cc3ee202a06288915d04ccf"
    )
    state = engine.new_game(engine.GameConfig("classic", 6), seed=5)
    stored = encode_state(state)
    raw = json.dumps(engine.state_to_json(state), separators=(",", ":"))
    assert stored.startswith("z1:") and len(stored) < len(raw) / 2
    assert engine.state_to_json(decode_state(stored)) == engine.state_to_json(state)
    older = "z:" + base64.b64encode(zlib.compress(raw.encode())).decode()
    for form in (older, raw):
        assert engine.state_to_json(decode_state(form)) == engine.state_to_json(state)


def test_meta_round_trip_ignores_unknown_fields() -> None:
    import json

    from core.service.meta import Meta, Seat

    meta = Meta(game_id="g", creator=1, seats=[Seat(1, "Ann"), Seat(None, "C", computer=True)])
    assert Meta.from_json(meta.to_json()) == meta
    data = json.loads(meta.to_json())
    data["future_field"] = 1
    data["seats"][0]["future_seat_field"] = 2
    assert Meta.from_json(json.dumps(data)) == meta


def test_only_a_computer_seat_with_the_computer_name_has_a_number() -> None:
    from core.service.meta import COMPUTER_NAME, Seat

    assert Seat(None, COMPUTER_NAME.format(n=3), computer=True).computer_no == 3
    assert Seat(7, "Computer 3").computer_no is None  # a human who calls themself that
    assert Seat(7, "Ann", computer=False, auto=True).computer_no is None  # taken over
    for odd in ("Computer", "Computer 0", "Computer 01", "Computer 3 ", "电脑 3"):
        assert Seat(None, odd, computer=True).computer_no is None


def test_meta_is_stored_packed_and_reads_back() -> None:
    import hashlib

    from core.service.meta import META_ZDICT_1, Meta, Seat

    assert hashlib.sha256(META_ZDICT_1).hexdigest() == (
        "c1862cdec372a3639e60d3a862d9d5afe93e133011ff1fd7baed1b257062e9aa"
    )
    meta = Meta(
        game_id="g",
        creator=1,
        chat=[-100, None],
        options={"rounds": 3},
        seats=[Seat(i, f"Player {i}", "en") for i in range(1, 7)],
        rounds_log=[{"round": 1, "winners": "saboteurs", "gold": [0, 3, 0, 0, 0, 3]}],
    )
    stored = meta.to_stored()
    assert stored.startswith("m1:") and len(stored) < len(meta.to_json()) / 2
    assert Meta.from_json(stored) == meta
    assert Meta.from_json(meta.to_json()) == meta  # the plain form (older records) too


def test_move_log_codec_knows_every_engine_move_type() -> None:
    """The log's table is a frozen wire format (append only), not derived from the engine's;
    this keeps a new engine move from being forgotten in it."""
    from core.engine.moveset import FIELDS as ENGINE_FIELDS
    from core.service import movelog

    assert set(ENGINE_FIELDS) <= set(movelog.FIELDS)
    for move_type, fields in ENGINE_FIELDS.items():
        assert set(fields) <= set(movelog.FIELDS[move_type]), move_type


def test_an_unchanged_meta_reuses_its_packed_form_and_a_changed_one_packs_anew() -> None:
    """``to_stored`` remembers the packed form of JSON it has seen (issue 8: a move that
    leaves the meta as it was does not compress it again); the result is what packing
    would give, and a change is never answered from the cache."""
    from core.service import meta as meta_module
    from core.service.meta import Meta, Seat

    meta = Meta(
        game_id="g-pack",
        creator=1,
        options={"rounds": 3},
        seats=[Seat(i, f"Player {i}", "en") for i in range(1, 6)],
    )
    stored = meta.to_stored()
    meta_module._PACKED.clear()
    read = Meta.from_json(stored)  # reading remembers the packed form of its JSON
    assert len(meta_module._PACKED) == 1
    assert read.copy().to_stored() == stored
    changed = read.copy()
    changed.seats[2].timeouts += 1
    again = changed.to_stored()
    assert again != stored and Meta.from_json(again) == changed
    meta_module._PACKED.clear()
    assert changed.to_stored() == again  # packed anew: the same bytes
