"""Golden replays: recorded games' moves replayed from their seeds give the same final state.

The recorded final states are schema 1 (written before the state carried its catalogue and
card table): they load as the very game the replay plays, and schema 2 is schema 1 plus
the catalogue's version and the round's table, nothing else changed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.engine import GameConfig, replay, resolve_catalogue, state_from_json, state_to_json
from core.engine.codec import SCHEMA1_CATALOGUE

DATA = Path(__file__).parent / "data"


@pytest.mark.parametrize("name", ["golden_classic.json", "golden_expansion.json"])
def test_golden_replay(name: str) -> None:
    rec = json.loads((DATA / name).read_text())
    cfg = GameConfig.from_options(rec["edition"], rec["players"], rec["options"])
    final = replay(cfg, rec["seed"], rec["moves"], resolve_catalogue(SCHEMA1_CATALOGUE))
    old = rec["final_state"]
    assert state_from_json(old) == final
    assert final.phase == "finished" and len(final.results) == 3
    new = json.loads(json.dumps(state_to_json(final)))
    assert state_from_json(new) == final
    assert new.pop("schema") == 2 and old.pop("schema") == 1
    assert new.pop("catalogue") == SCHEMA1_CATALOGUE
    assert new["round"].pop("table") == final.rs.table.code
    assert new == old
