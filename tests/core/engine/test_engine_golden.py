"""Golden replays: recorded games' moves replayed from their seeds give the same final state."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.engine import GameConfig, replay, state_from_json, state_to_json

DATA = Path(__file__).parent / "data"


@pytest.mark.parametrize("name", ["golden_classic.json", "golden_expansion.json"])
def test_golden_replay(name: str) -> None:
    rec = json.loads((DATA / name).read_text())
    cfg = GameConfig.from_options(rec["edition"], rec["players"], rec["options"])
    final = replay(cfg, rec["seed"], rec["moves"])
    assert json.loads(json.dumps(state_to_json(final))) == rec["final_state"]
    assert state_from_json(rec["final_state"]) == final
    assert final.phase == "finished" and len(final.results) == 3
