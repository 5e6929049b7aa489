"""The shared look table: complete, JSON-ready, and consistent with the card catalogue."""

from __future__ import annotations

import json
import re
from pathlib import Path

from core import look

CARDS = Path("/work/shared/rules/cards.json")
HEX = re.compile(r"^#[0-9a-f]{6}$")


def _colours(obj: object) -> list[str]:
    """Every colour string anywhere in a nested structure."""
    if isinstance(obj, str):
        return [obj] if obj.startswith("#") else []
    if isinstance(obj, dict):
        return [c for v in obj.values() for c in _colours(v)]
    if isinstance(obj, list | tuple):
        return [c for v in obj for c in _colours(v)]
    return []


def test_look_json_round_trips_through_json() -> None:
    data = look.look_json()
    assert json.loads(json.dumps(data)) == data
    assert data["card"]["w"] / data["card"]["h"] == 2 / 3


def test_every_colour_is_a_six_digit_hex() -> None:
    colours = _colours(look.look_json())
    assert len(colours) > 40
    assert all(HEX.match(c) for c in colours), [c for c in colours if not HEX.match(c)]


def test_icons_are_well_formed_primitives_in_the_unit_box() -> None:
    for name in look.ICONS:
        prims = look.ICONS[name]
        assert prims, name
        for p in prims + look.BROKEN_CROSS + look.BROKEN_BACK:
            assert p["shape"] in {"polygon", "line", "circle"}
            pts = p["points"] if p["shape"] != "circle" else [p["c"]]
            assert all(0 <= v <= 1 for pt in pts for v in pt), (name, p)
            assert "fill" in p or "stroke" in p


def test_in_front_kinds_and_roles_are_covered() -> None:
    assert set(look.IN_FRONT_ICONS) == {
        "BREAK_PICKAXE",
        "BREAK_LANTERN",
        "BREAK_CART",
        "TRAPPED",
        "THEFT",
    }
    assert all(icon in look.ICONS for icon, _ in look.IN_FRONT_ICONS.values())
    cards = json.loads(CARDS.read_text())
    roles = {r["id"] for ed in ("saboteur1", "saboteur2") for r in cards[ed]["role_cards"]}
    roles.add(cards["saboteur1"]["variant_cards"]["selfish_dwarf_role"]["id"])
    assert roles <= set(look.ROLES)
    assert all(r["icon"] in look.ICONS for r in look.ROLES.values())
    # colour-blind players: each role badge and each door is told apart by its letter too
    letters = [r["letter"] for r in look.ROLES.values()]
    assert len(set(letters)) == len(letters)
    assert {d["letter"] for d in look.DOORS.values()} == {"B", "G"}


def test_geometry_keeps_stubs_short_of_the_centre_and_gem_off_the_bands() -> None:
    cx, cy = look.CENTRE
    # a visible rock gap between two opposite stubs, so a dead end never looks like a tunnel
    assert min(cx, cy) - (look.STUB_LEN + look.CAP_DEPTH) > 8
    assert look.CAP_R > look.BAND_W / 2
    gx, gy = look.CRYSTAL_AT
    half = look.BAND_W / 2
    assert gx + look.CRYSTAL_R < cx - half and gy + look.CRYSTAL_R < cy - half
    assert look.rotate_edge("N", True) == "S" and look.rotate_edge("E", False) == "E"
