"""The packaged catalogue agrees with the shared cards.json and with RULES §1-§6 counts."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest

from core.engine import CATALOGUE
from core.engine.cards import CARD_INDEX, GROUPS, MASK, SYMMETRIC, rot_mask
from core.engine.catalogue import CURRENT

SHARED = Path("/work/shared/rules/cards.json")


def test_packaged_copy_matches_shared_cards_json() -> None:
    if not SHARED.exists():
        pytest.skip(f"{SHARED} is absent (a clone outside the workplace): nothing to compare")
    packaged = resources.files("core.engine").joinpath("data/cards.json").read_text("utf-8")
    assert json.loads(packaged) == json.loads(SHARED.read_text("utf-8"))


def test_deck_sizes() -> None:
    classic = CURRENT.decks["classic"]
    assert len(classic) == 67
    tunnels = [i for i in classic if list(CATALOGUE.values())[i].category == "path"]
    assert len(tunnels) == 40
    expansion = CURRENT.decks["expansion"]
    assert len(expansion) == 67 + 30 + 21


def test_card_fields() -> None:
    assert CATALOGUE["S1_START"].source and not CATALOGUE["S1_START"].ladder
    assert CATALOGUE["S2_LADDER_E"].ladder and CATALOGUE["S2_LADDER_E"].source
    assert CATALOGUE["S2_BRIDGE"].groups == (5, 10)
    assert CATALOGUE["S2_DOOR_GREEN_NS_STUB_E"].door == "green"
    assert CATALOGUE["S2_DOOR_GREEN_NS_STUB_E"].groups == (5, 2)
    assert sum(c.crystals * c.count for c in CATALOGUE.values()) == 10
    assert CATALOGUE["REPAIR_PICKAXE_CART"].tools == ("pickaxe", "cart")
    assert sum(c.count for c in CATALOGUE.values() if c.kind == "ladder") == 4
    assert sum(c.count for c in CATALOGUE.values() if c.door) == 6


def test_rotation_and_symmetry() -> None:
    assert rot_mask(1) == 4 and rot_mask(2) == 8 and rot_mask(3) == 12
    i = CARD_INDEX["S1_CURVE_NE"]
    assert MASK[2 * i] == 3 and MASK[2 * i + 1] == 12
    assert GROUPS[2 * CARD_INDEX["S1_DEAD_NE"] + 1] == (4, 8)
    for cid in ("S1_CROSS", "S1_STRAIGHT_NS", "S2_BRIDGE", "S2_DOUBLE_CURVE_A", "S1_DEAD_EW"):
        assert SYMMETRIC[CARD_INDEX[cid]], cid
    for cid in ("S1_T_NES", "S1_CURVE_NE", "S1_DEAD_N", "S2_LADDER_E", "S2_DOOR_GREEN_NW"):
        assert not SYMMETRIC[CARD_INDEX[cid]], cid
