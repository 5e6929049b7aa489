"""The card facts the computer players need, as a small embedded table.

Why a copy: the agents must be pure and must not depend on engine internals, and they
only need each card's *shape* (groups of edges, ladder, door, crystals) and each action's
effect. A test checks this table against `shared/rules/cards.json` (and against the
engine's `CATALOGUE` when it is importable), so the two can never drift silently.

Edges are bit masks: N=1, E=2, S=4, W=8. A card turned 180 degrees swaps N<->S, E<->W.
"""

from __future__ import annotations

from dataclasses import dataclass

N, E, S, W = 1, 2, 4, 8
DIRS: tuple[tuple[int, int, int], ...] = ((N, 0, -1), (E, 1, 0), (S, 0, 1), (W, -1, 0))
OPPOSITE = {N: S, E: W, S: N, W: E}


def mask_of(edges: str) -> int:
    """'NE' -> 3."""
    return sum({"N": N, "E": E, "S": S, "W": W}[c] for c in edges)


def rotate(mask: int) -> int:
    """The mask of an edge set turned 180 degrees."""
    return ((mask << 2) | (mask >> 2)) & 15


@dataclass(frozen=True, slots=True)
class PathInfo:
    """Shape of a path-like card (start, goals and every tunnel card)."""

    kind: str  # start | goal | path | deadend | bridge | doublecurve | ladder | door | crystal
    groups: tuple[int, ...]
    ladder: bool = False
    door: str | None = None
    crystals: int = 0
    treasure: bool = False

    def placed_groups(self, rotated: bool) -> tuple[int, ...]:
        return tuple(rotate(g) for g in self.groups) if rotated else self.groups

    @property
    def mask(self) -> int:
        m = 0
        for g in self.groups:
            m |= g
        return m

    @property
    def symmetric(self) -> bool:
        return sorted(rotate(g) for g in self.groups) == sorted(self.groups)


def _p(kind: str, *groups: str, **kw: object) -> PathInfo:
    return PathInfo(kind, tuple(mask_of(g) for g in groups), **kw)  # type: ignore[arg-type]


PATHS: dict[str, PathInfo] = {
    "S1_START": _p("start", "NESW", ladder=True),
    "S1_GOAL_GOLD": _p("goal", "NESW", treasure=True),
    "S1_GOAL_STONE_NE": _p("goal", "NE"),
    "S1_GOAL_STONE_NW": _p("goal", "NW"),
    "S1_CROSS": _p("path", "NESW"),
    "S1_T_NES": _p("path", "NES"),
    "S1_T_NEW": _p("path", "NEW"),
    "S1_STRAIGHT_NS": _p("path", "NS"),
    "S1_STRAIGHT_EW": _p("path", "EW"),
    "S1_CURVE_NE": _p("path", "NE"),
    "S1_CURVE_NW": _p("path", "NW"),
    "S1_DEAD_CROSS": _p("deadend", "N", "E", "S", "W"),
    "S1_DEAD_NES": _p("deadend", "N", "E", "S"),
    "S1_DEAD_NEW": _p("deadend", "N", "E", "W"),
    "S1_DEAD_NS": _p("deadend", "N", "S"),
    "S1_DEAD_EW": _p("deadend", "E", "W"),
    "S1_DEAD_NE": _p("deadend", "N", "E"),
    "S1_DEAD_NW": _p("deadend", "N", "W"),
    "S1_DEAD_N": _p("deadend", "N"),
    "S1_DEAD_E": _p("deadend", "E"),
    "S2_BRIDGE": _p("bridge", "NS", "EW"),
    "S2_DOUBLE_CURVE_A": _p("doublecurve", "NW", "ES"),
    "S2_DOUBLE_CURVE_B": _p("doublecurve", "NE", "SW"),
    "S2_LADDER_S": _p("ladder", "S", ladder=True),
    "S2_LADDER_E": _p("ladder", "E", ladder=True),
    "S2_LADDER_ES": _p("ladder", "ES", ladder=True),
    "S2_LADDER_NE": _p("ladder", "NE", ladder=True),
    "S2_DOOR_BLUE_NS": _p("door", "NS", door="blue"),
    "S2_DOOR_BLUE_EW": _p("door", "EW", door="blue"),
    "S2_DOOR_BLUE_NE": _p("door", "NE", door="blue"),
    "S2_DOOR_GREEN_NS_STUB_E": _p("door", "NS", "E", door="green"),
    "S2_DOOR_GREEN_EW": _p("door", "EW", door="green"),
    "S2_DOOR_GREEN_NW": _p("door", "NW", door="green"),
    "S2_CRYSTAL_CROSS": _p("crystal", "NESW", crystals=1),
    "S2_CRYSTAL_T_NEW": _p("crystal", "NEW", crystals=1),
    "S2_CRYSTAL_T_NES": _p("crystal", "NES", crystals=1),
    "S2_CRYSTAL_NES_STUB_W": _p("crystal", "NES", "W", crystals=1),
    "S2_CRYSTAL_NEW_STUB_S": _p("crystal", "NEW", "S", crystals=1),
    "S2_CRYSTAL_EW_STUB_N": _p("crystal", "EW", "N", crystals=1),
    "S2_CRYSTAL_DEAD_N": _p("crystal", "N", crystals=1),
    "S2_CRYSTAL_DEAD_E": _p("crystal", "E", crystals=1),
    "S2_PLAIN_NS_STUB_E": _p("path", "NS", "E"),
    "S2_PLAIN_EW_STUBS_NS": _p("path", "EW", "N", "S"),
    "S2_PLAIN_NW_STUB_S": _p("path", "NW", "S"),
    "S2_PLAIN_NE_STUB_S": _p("path", "NE", "S"),
}

# action card -> (effect, tools)
ACTIONS: dict[str, tuple[str, tuple[str, ...]]] = {
    "BREAK_PICKAXE": ("break", ("pickaxe",)),
    "BREAK_LANTERN": ("break", ("lantern",)),
    "BREAK_CART": ("break", ("cart",)),
    "REPAIR_PICKAXE": ("repair", ("pickaxe",)),
    "REPAIR_LANTERN": ("repair", ("lantern",)),
    "REPAIR_CART": ("repair", ("cart",)),
    "REPAIR_PICKAXE_LANTERN": ("repair", ("pickaxe", "lantern")),
    "REPAIR_PICKAXE_CART": ("repair", ("pickaxe", "cart")),
    "REPAIR_LANTERN_CART": ("repair", ("lantern", "cart")),
    "MAP": ("map", ()),
    "ROCKFALL": ("rockfall", ()),
    "THEFT": ("theft", ()),
    "HANDS_OFF": ("hands_off", ()),
    "SWAP_YOUR_HAND": ("swap_hand", ()),
    "INSPECTION": ("inspection", ()),
    "SWAP_YOUR_HATS": ("swap_hats", ()),
    "TRAPPED": ("trapped", ()),
    "FREE_AT_LAST": ("free", ()),
    "S2_ROCKFALL": ("rockfall", ()),
}

BREAK_CARDS = {"BREAK_PICKAXE": "pickaxe", "BREAK_LANTERN": "lantern", "BREAK_CART": "cart"}


def path_info(card: str) -> PathInfo | None:
    return PATHS.get(card)


def is_path(card: str) -> bool:
    return card in PATHS


def effect_of(card: str) -> str:
    """'path' for tunnel cards, the action's effect otherwise ('' if unknown)."""
    if card in PATHS:
        return "path"
    a = ACTIONS.get(card)
    return a[0] if a else ""
