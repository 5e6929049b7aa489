"""The state's public log (core/engine/log.py): kept encoded after `state_from_json`, both
forms always meaning the same entries, the stored JSON unchanged by the laziness."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from core.engine import (
    GameConfig,
    apply_move,
    apply_timeout,
    legal_moves,
    new_game,
    public_log,
    state_from_json,
    state_to_json,
    view_for,
)
from core.engine.log import Log, enc_entry
from core.engine.state import GameState


def _played(edition: str, players: int, seed: int, moves: int) -> list[GameState]:
    rng = random.Random(seed)
    s = new_game(GameConfig.from_options(edition, players, {}), seed)
    out = [s]
    while len(out) <= moves and s.phase != "finished":
        if s.phase == "round_over" or rng.random() < 0.05:
            s, _ = apply_timeout(s)
        else:
            seat = s.rs.current
            assert seat is not None
            s, _ = apply_move(s, seat, rng.choice(legal_moves(s, seat)))
        out.append(s)
    return out


def _eager(log: Any) -> list[Any]:
    """The stored form computed the old way: every entry encoded from its dict."""
    out, prev = [], 0
    for e in log:
        out.append(enc_entry(e, prev))
        prev = e["seq"]
    return out


def _roundtrip(s: GameState) -> GameState:
    return state_from_json(json.loads(json.dumps(state_to_json(s))))


@pytest.mark.parametrize(("edition", "players", "seed"), [("classic", 10, 1), ("expansion", 6, 2)])
def test_every_state_of_a_game_round_trips(edition: str, players: int, seed: int) -> None:
    played = _played(edition, players, seed, 400)
    for s in played:
        loaded = _roundtrip(s)
        assert state_to_json(loaded)["log"] == _eager(s.log) == state_to_json(s)["log"]
        assert loaded == s and loaded.log == s.log
        assert list(loaded.log) == list(s.log)
    assert played[-1].phase == "finished"


def test_moves_on_a_loaded_state_encode_only_their_events() -> None:
    played = _played("classic", 8, 5, 150)
    mid = played[100]
    loaded = _roundtrip(mid)
    rng = random.Random(9)
    a, b = mid, loaded
    for _ in range(40):
        if a.phase == "finished":
            break
        if a.phase == "round_over":
            a, ea = apply_timeout(a)
            b, eb = apply_timeout(b)
        else:
            seat = a.rs.current
            assert seat is not None
            move = rng.choice(legal_moves(a, seat))
            a, ea = apply_move(a, seat, move)
            b, eb = apply_move(b, seat, move)
        assert ea == eb
        assert b.log._dec is None  # nothing decoded: the stored entries were only copied
        assert state_to_json(b) == state_to_json(a)
        assert state_to_json(b)["log"] == _eager(a.log)
    assert view_for(b, 0) == view_for(a, 0)
    assert public_log(b, 50) == public_log(a, 50)
    assert b == a


def test_view_tail_decodes_the_same_entries() -> None:
    s = _played("expansion", 5, 3, 180)[-1]
    loaded = _roundtrip(s)
    for k in (1, 7, 50, len(s.log), len(s.log) + 5):
        assert loaded.log[-k:] == tuple(s.log)[-k:]
    assert loaded.log[3] == s.log[3]
    assert loaded.log[-1] == s.log[-1]
    assert len(loaded.log) == len(s.log)


def test_returned_events_and_views_do_not_share_the_state_log() -> None:
    s = _played("classic", 5, 4, 60)[-1]
    loaded = _roundtrip(s)
    half = _roundtrip(s)
    half.log[3]  # decoded completely
    kept = _roundtrip(s)
    for state in (loaded, half, s):
        got = view_for(state, 0)["log"] + public_log(state) + public_log(state, 30)
        assert got == view_for(kept, 0)["log"] + public_log(kept) + public_log(kept, 30)
        for entry in got:
            entry["seq"] = -1
            entry["code"] = "tampered"
            for v in entry.values():
                if isinstance(v, list):
                    v.append("tampered")
        assert state == kept
    assert len(view_for(s, 0)["log"]) == 50
    assert len(view_for(s, 0, log_limit=500)["log"]) == len(s.log)


def test_log_entries_round_trip_and_odd_entries_stay_dicts() -> None:
    placed = {"seq": 9, "seat": 1, "code": "path_placed", "card": "S1_CROSS", "x": 2, "y": -1}
    placed["rotated"] = True
    assert enc_entry(placed, 7) == [2, 1, 0, enc_entry(placed, 7)[3], 2, -1, 1]
    assert list(Log.from_json([[7, 1, 0, 0, 0, 0, 0], enc_entry(placed, 7)]))[1] == placed
    timed = {"seq": 3, "seat": 0, "code": "passed", "count": 1, "timeout": True}
    assert enc_entry(timed, 0) is timed
    log = Log.of([{"seq": 0, "seat": None, "code": "round_started"}, placed, timed])
    again = Log.from_json(json.loads(json.dumps(log.to_json())))
    assert again == log and list(again) == list(log) and again == tuple(log)
    with pytest.raises(ValueError):
        list(Log.from_json([[1, 1, 0, 4]]))


def test_schema_1_states_written_before_the_lazy_log_still_load() -> None:
    """tests/core/engine/data holds states written by the eager encoder (same JSON)."""
    from pathlib import Path

    for name in ("golden_classic.json", "golden_expansion.json"):
        rec = json.loads((Path(__file__).parent / "data" / name).read_text())
        state = state_from_json(rec["final_state"])
        new = state_to_json(state)
        assert new["log"] == rec["final_state"]["log"]
        assert [e["seq"] for e in state.log] == sorted(e["seq"] for e in state.log)
