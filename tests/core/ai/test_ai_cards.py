"""The agents' card table, derived from the engine's catalogue, agrees with cards.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.ai.cards import ACTIONS, PATHS, E, N, S, W, rotate


def mask_of(edges: str) -> int:
    """'NE' -> 3."""
    return sum({"N": N, "E": E, "S": S, "W": W}[c] for c in edges)


CARDS_JSON = Path(__file__).resolve().parents[3] / ".." / "shared" / "rules" / "cards.json"


def test_rotate_swaps_opposite_edges() -> None:
    assert rotate(mask_of("NE")) == mask_of("SW")
    assert rotate(mask_of("NESW")) == mask_of("NESW")
    assert rotate(mask_of("N")) == mask_of("S")


def test_table_matches_shared_cards_json() -> None:
    path = CARDS_JSON.resolve()
    if not path.exists():
        pytest.skip(f"shared catalogue not found at {path} (fresh clone outside the workplace)")
    data = json.loads(path.read_text("utf-8"))
    seen = set()
    for box in ("saboteur1", "saboteur2"):
        for c in data[box]["path_cards"]:
            info = PATHS[c["id"]]
            seen.add(c["id"])
            assert info.groups == tuple(mask_of(g) for g in c["groups"]), c["id"]
            assert info.ladder == bool(c.get("ladder", False)), c["id"]
            assert info.door == c.get("door"), c["id"]
            assert info.crystals == int(c.get("crystals", 0)), c["id"]
            assert info.kind == c["kind"], c["id"]
        for c in data[box]["action_cards"]:
            assert ACTIONS[c["id"]][0] == c["effect"], c["id"]
            assert ACTIONS[c["id"]][1] == tuple(c.get("tools", ())), c["id"]
    assert seen == set(PATHS)


def test_table_matches_engine_catalogue() -> None:
    engine = pytest.importorskip("core.engine")
    cat = getattr(engine, "CATALOGUE", None)
    if cat is None:
        pytest.skip("core.engine has no CATALOGUE yet")
    for cid, info in PATHS.items():
        assert tuple(cat[cid].groups) == info.groups, cid
    for cid in ACTIONS:
        assert cid in cat, cid
