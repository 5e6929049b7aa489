"""The card facts the computer players need, derived from the public card catalogue.

The agents only need each card's *shape* (groups of edges, source, door, crystals) and
each action's effect. They take them from ``core.engine.CATALOGUE`` — the packaged
``cards.json``, public knowledge like the printed cards — rather than a copy, so a
corrected card is one data change. They still decide from the view only (no state).

Edges are bit masks: N=1, E=2, S=4, W=8. A card turned 180 degrees swaps N<->S, E<->W.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.engine import CATALOGUE

N, E, S, W = 1, 2, 4, 8
DIRS: tuple[tuple[int, int, int], ...] = ((N, 0, -1), (E, 1, 0), (S, 0, 1), (W, -1, 0))
OPPOSITE = {N: S, E: W, S: N, W: E}


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


def _tables() -> tuple[dict[str, PathInfo], dict[str, tuple[str, tuple[str, ...]]]]:
    """Shapes of path-like cards and (effect, tools) of action cards, from the catalogue."""
    paths: dict[str, PathInfo] = {}
    actions: dict[str, tuple[str, tuple[str, ...]]] = {}
    for card in CATALOGUE.values():
        if card.category == "action":
            actions[card.id] = (card.kind, tuple(card.tools))
        else:
            # ``ladder`` here means "a source": the start card conducts like a ladder
            paths[card.id] = PathInfo(
                card.kind,
                tuple(card.groups),
                ladder=card.source,
                door=card.door,
                crystals=card.crystals,
                treasure=card.treasure,
            )
    return paths, actions


PATHS, ACTIONS = _tables()

BREAK_CARDS = {"BREAK_PICKAXE": "pickaxe", "BREAK_LANTERN": "lantern", "BREAK_CART": "cart"}
