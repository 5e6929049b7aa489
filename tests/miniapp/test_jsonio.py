"""The API's JSON encoder (orjson with a standard-library fallback) and the socket notice."""

from __future__ import annotations

import json

from core.service.jsoncodec import dumps_compact
from core.service.meta import Meta, Seat
from miniapp.ws import notice


def test_bodies_mean_what_the_standard_encoder_said() -> None:
    data = {
        "game_id": "aB3_-x",
        "name": "Zoë 日本 \u2028 \x01",
        "n": [0, -1, 2**63 - 1, 0.1, 1e16, True, None],
        "nested": {"k": [{"x": 1}]},
        1: "int key",
    }
    body = dumps_compact(data)
    assert isinstance(body, bytes)
    assert json.loads(body) == json.loads(json.dumps(data, ensure_ascii=False))
    # for such values even the bytes are those of the standard encoder as the API used it
    assert body == json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()


def test_what_orjson_refuses_goes_through_the_standard_encoder() -> None:
    huge = {"x": 10**30, "deep": [[[[[[]]]]]]}
    assert json.loads(dumps_compact(huge)) == huge
    deep: list[object] = []
    for _ in range(300):  # orjson stops at 254 levels
        deep = [deep]
    assert json.loads(dumps_compact(deep)) == deep


def test_notice_is_the_json_the_socket_always_sent() -> None:
    assert json.loads(notice("aB3_-x", 17)) == {"game_id": "aB3_-x", "version": 17}


def test_meta_copy_is_a_deep_copy_equal_to_a_reload() -> None:
    meta = Meta(
        "g1",
        5,
        [10, None],
        options={"rounds": 3, "x": [1, {"y": 2}]},
        seats=[Seat(5, "A"), Seat(None, "Bot", computer=True)],
        bumps=[3],
        rounds_log=[{"round": 1, "gold": [1, 2]}],
        started=True,
        seed=7,
    )
    loaded = Meta.from_json(meta.to_stored())
    copy = loaded.copy()
    assert copy == loaded and copy.to_stored() == meta.to_stored()
    copy.seats[0].timeouts = 2
    copy.options["x"][1]["y"] = 9
    copy.rounds_log[0]["gold"].append(3)
    copy.bumps.append(4)
    assert loaded == Meta.from_json(meta.to_stored())  # the original is untouched
