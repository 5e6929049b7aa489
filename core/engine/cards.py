"""The card catalogue (RULES §2, §3, §6), read from the packaged copy of cards.json.

Path cards are turned into integer edge masks (N=1, E=2, S=4, W=8) and per-orientation
group masks once at import, so that placement checks and reachability are a few integer
operations ("orient" = 2 * card index + rotated).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

N, E, S, W = 1, 2, 4, 8
SIDES = (N, E, S, W)
OPP = {N: S, E: W, S: N, W: E}
LETTER = {"N": N, "E": E, "S": S, "W": W}
TOOLS = ("pickaxe", "lantern", "cart")


def rot_mask(m: int) -> int:
    """Turn an edge mask by 180 degrees (N<->S, E<->W)."""
    return ((m << 2) | (m >> 2)) & 15


def _mask(letters: str) -> int:
    m = 0
    for ch in letters:
        m |= LETTER[ch]
    return m


@dataclass(frozen=True, slots=True)
class CardDef:
    """One catalogue card; behaviour comes from these fields, never from the id."""

    id: str
    edition: str  # "classic" | "expansion"
    category: str  # "start" | "goal" | "path" | "action"
    kind: str  # cards.json kind for path cards, effect for actions
    count: int
    mask: int = 0
    groups: tuple[int, ...] = ()
    source: bool = False  # start card and ladders
    ladder: bool = False  # a Saboteur 2 ladder card (placement rule of §6)
    door: str | None = None
    crystals: int = 0
    treasure: bool = False
    tools: tuple[str, ...] = ()

    @property
    def is_path(self) -> bool:
        return self.category == "path"


def read_data(name: str) -> dict[str, object]:
    """A JSON file packaged with the engine (under `core/engine/data/`)."""
    text = resources.files("core.engine").joinpath(f"data/{name}").read_text("utf-8")
    data: dict[str, object] = json.loads(text)
    return data


RAW = read_data("cards.json")
BOXES = (("saboteur1", "classic"), ("saboteur2", "expansion"))


def card_defs(raw: dict[str, Any]) -> dict[str, CardDef]:
    """Every card of a catalogue file (cards.json format) by id, in the file's order."""
    out: dict[str, CardDef] = {}
    for box, edition in BOXES:
        for c in raw[box]["path_cards"]:
            kind = c["kind"]
            category = kind if kind in ("start", "goal") else "path"
            out[c["id"]] = CardDef(
                id=c["id"],
                edition=edition,
                category=category,
                kind=kind,
                count=int(c["count"]),
                mask=_mask(c["edges"]),
                groups=tuple(_mask(g) for g in c["groups"]),
                source=bool(c.get("ladder", False)),
                ladder=kind == "ladder",
                door=c.get("door"),
                crystals=int(c.get("crystals", 0)),
                treasure=bool(c.get("treasure", False)),
            )
        for c in raw[box]["action_cards"]:
            out[c["id"]] = CardDef(
                id=c["id"],
                edition=edition,
                category="action",
                kind=c["effect"],
                count=int(c["count"]),
                tools=tuple(c.get("tools", ())),
            )
    return out


CATALOGUE: dict[str, CardDef] = card_defs(RAW)
CARD_LIST: tuple[CardDef, ...] = tuple(CATALOGUE.values())
CARD_INDEX: dict[str, int] = {c.id: i for i, c in enumerate(CARD_LIST)}
GOAL_CARDS: tuple[int, ...] = tuple(i for i, c in enumerate(CARD_LIST) if c.category == "goal")
GOLD = next(i for i in GOAL_CARDS if CARD_LIST[i].treasure)

# Per orientation o = 2 * index + rotated (path, start and goal cards only).
MASK: list[int] = []
GROUPS: list[tuple[int, ...]] = []
GROUP_OF: list[tuple[int, ...]] = []  # indexed by a single side bit (1, 2, 4, 8)
SOURCE: list[bool] = []
DOOR: list[int] = []  # door groups as a side mask (two-edge-or-more groups of a door card)
for _c in CARD_LIST:
    for _r in (0, 1):
        _groups = tuple(rot_mask(g) for g in _c.groups) if _r else _c.groups
        _of = [0] * 16
        for _g in _groups:
            for _s in SIDES:
                if _g & _s:
                    _of[_s] = _g
        MASK.append(rot_mask(_c.mask) if _r else _c.mask)
        GROUPS.append(_groups)
        GROUP_OF.append(tuple(_of))
        SOURCE.append(_c.source)
        _dm = 0
        if _c.door:
            for _g in _groups:
                if bin(_g).count("1") >= 2:
                    _dm |= _g
        DOOR.append(_dm)

SYMMETRIC: tuple[bool, ...] = tuple(
    c.category != "action" and set(GROUPS[2 * i]) == set(GROUPS[2 * i + 1])
    for i, c in enumerate(CARD_LIST)
)
