"""Storage codecs: the compact move log and the service meta JSON."""

from __future__ import annotations

from core.service import movelog

ENTRIES = [
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
    assert movelog.encode(ENTRIES[1]) == '[8,2,"place_path","ab3cd",1,-2,true]'
    assert movelog.encode(ENTRIES[0]) == "[7]"


def test_meta_round_trip_ignores_unknown_fields() -> None:
    import json

    from core.service.meta import Meta, Seat

    meta = Meta(game_id="g", creator=1, seats=[Seat(1, "Ann"), Seat(None, "C", computer=True)])
    assert Meta.from_json(meta.to_json()) == meta
    data = json.loads(meta.to_json())
    data["future_field"] = 1
    data["seats"][0]["future_seat_field"] = 2
    assert Meta.from_json(json.dumps(data)) == meta
