"""The visual language of the maze, as data: one table for the Pillow and the SVG renderer.

Why a table: the group picture (Pillow, ``telegram_bot/board_picture.py``) and the Mini App
(SVG, ``miniapp/static/cards.js``) must look alike so a player recognises a card at a glance
in either place.  Both read the proportions, band width, colours and icon shapes from here;
the page gets them as JSON (``look_json()``, served by the Mini App server).

Coordinates: a card is drawn in *card units*, a box ``CARD_W`` x ``CARD_H`` (portrait,
2:3 like the real cards) with the origin at the top-left corner, y growing down (like SVG
and Pillow).  Tool and role icons are drawn in a unit box 0..1.  Cards are drawn from their
connectivity ``groups`` (``cards.json``), never from bitmaps, so a corrected card needs no
new art.  The drawing rules (LOOK.md) are:

* every group with two or more edges: a band from each opening to the centre, joined there;
* a one-edge group on a card without a ladder: a stub ``STUB_LEN`` long ending in a rock cap;
* two straight groups crossing (bridge): the ``EW`` band passes under the ``NS`` band, with a
  shadow gap either side of the upper band;
* two corner groups (double curve): two separate quarter-ellipse bands around opposite corners;
* door: a coloured gate across the band with its letter (colour-blind players);
* ladder: rungs at the centre; crystal: a gem in a rock corner;
* goal face down: a card back with "?"; gold: nuggets on the cross; stone: grey lumps.

Standard library only: this module is imported by pure code and by both renderers.
"""

from __future__ import annotations

from typing import Final

# --- card geometry (card units) -------------------------------------------------------

CARD_W: Final = 100.0
CARD_H: Final = 150.0
CARD_RADIUS: Final = 7.0  # rounded corners of the tile
CARD_GAP: Final = 6.0  # space between neighbouring cells on the board
BAND_W: Final = 34.0  # tunnel width
BAND_EDGE_W: Final = 3.0  # darker rim either side of a band
STUB_LEN: Final = 28.0  # a dead-end stub: this long from the edge, then the cap
CAP_R: Final = 22.0  # the rock cap closing a stub: half-width across the band
CAP_DEPTH: Final = 10.0  # ... and half-depth along it (an ellipse)
BRIDGE_GAP: Final = 9.0  # shadow either side of the upper band of a bridge
DOOR_AT: Final = 0.45  # gate position: fraction of the way from opening to centre
DOOR_THICK: Final = 18.0  # gate thickness across the band
DOOR_BADGE_R: Final = 13.0  # the lettered disc on the gate
DOOR_OVERHANG: Final = 9.0  # the gate sticks out this far either side of the band
LADDER_W: Final = 26.0  # width of the ladder glyph at the centre
LADDER_H: Final = 48.0
LADDER_RUNGS: Final = 4
CRYSTAL_AT: Final = (17.0, 24.0)  # centre of the gem (a rock corner, never on a band)
CRYSTAL_R: Final = 13.0
EMPTY_DASH: Final = (6.0, 6.0)  # dash pattern of an empty cell's faint outline

# Edge midpoints of the card (where openings are) and the centre where bands join.
CENTRE: Final = (CARD_W / 2, CARD_H / 2)
EDGE_POINTS: Final[dict[str, tuple[float, float]]] = {
    "N": (CARD_W / 2, 0.0),
    "E": (CARD_W, CARD_H / 2),
    "S": (CARD_W / 2, CARD_H),
    "W": (0.0, CARD_H / 2),
}
OPPOSITE: Final[dict[str, str]] = {"N": "S", "S": "N", "E": "W", "W": "E"}

# Gold nuggets on the revealed gold goal, and grey lumps on a stone goal's curve.  Nugget
# positions are in card units (drawn after the cross); lumps sit at fractions along each
# edge-to-centre segment of the stone's group.
GOLD_NUGGETS: Final[tuple[tuple[float, float, float], ...]] = (  # (x, y, radius)
    (50.0, 75.0, 14.0),
    (34.0, 60.0, 8.0),
    (67.0, 92.0, 9.0),
    (68.0, 61.0, 7.0),
    (33.0, 90.0, 7.0),
    (50.0, 40.0, 7.0),
    (50.0, 112.0, 7.0),
)
STONE_LUMPS: Final[tuple[tuple[float, float], ...]] = ((0.45, 10.0), (0.8, 12.0))  # (t, r)

# --- colours --------------------------------------------------------------------------

COLOURS: Final[dict[str, str]] = {
    "board_bg": "#1f1a17",  # behind the grid (group picture)
    "rock": "#4a3b33",  # card background
    "rock_edge": "#2a211c",  # card outline
    "rock_speck": "#5a4a40",  # texture dots
    "earth": "#d9a764",  # tunnel band
    "earth_edge": "#8a5a2b",  # band rim
    "earth_under": "#b07f45",  # the lower band of a bridge, in the shade
    "cap": "#6b5a4e",  # rock cap closing a dead end
    "cap_edge": "#2a211c",
    "shadow": "#1a1411",  # bridge gap
    "door_blue": "#1e6fd9",
    "door_green": "#1f9d4a",
    "door_letter": "#ffffff",
    "door_edge": "#0d0d0d",
    "ladder": "#f3e2b8",
    "ladder_edge": "#5b3a1a",
    "crystal": "#7ff0ff",
    "crystal_dark": "#1aa6c4",
    "crystal_edge": "#0b4a5a",
    "goal_back": "#2d4a6b",
    "goal_back_edge": "#e8c547",
    "goal_mark": "#e8c547",
    "gold": "#ffcc33",
    "gold_edge": "#a06d00",
    "stone": "#9a9a9a",
    "stone_edge": "#4d4d4d",
    "start_mark": "#f3e2b8",
    "empty_outline": "#51463f",
    "route": "#ffd54a",
    "legal_glow": "#7cf29a",
    "turn": "#ffd54a",
    "strip_bg": "#2b2420",
    "strip_text": "#f4ece4",
    "strip_hint": "#b9ab9f",
    "broken": "#e53935",
    "broken_mark": "#ffffff",
}

ROUTE_W: Final = 7.0  # width of the route frame around a highlighted cell (card units)
ROUTE_ALPHA: Final = 0.3  # translucent gold wash over a route cell's bands

# --- icons: simple vector primitives in a unit box 0..1 -------------------------------
# A primitive is a dict: {"shape": "polygon", "points": [[x, y], ...], "fill": c, "stroke": c,
# "width": w} | {"shape": "line", "points": [[x, y], ...], "stroke": c, "width": w}
# (a polyline) | {"shape": "circle", "c": [x, y], "r": r, "fill": c, "stroke": c, "width": w}.
# "fill"/"stroke" may be absent (nothing drawn); widths are in the same unit box.

_METAL = "#cfd8dc"
_METAL_DARK = "#455a64"
_WOOD = "#a1662f"
_WOOD_DARK = "#4e2e12"
_GLASS = "#ffe082"

ICONS: Final[dict[str, list[dict[str, object]]]] = {
    "pickaxe": [
        {
            "shape": "line",
            "points": [[0.22, 0.9], [0.62, 0.3]],
            "stroke": _WOOD_DARK,
            "width": 0.15,
        },
        {"shape": "line", "points": [[0.22, 0.9], [0.62, 0.3]], "stroke": _WOOD, "width": 0.09},
        {
            "shape": "polygon",
            "points": [
                [0.12, 0.42],
                [0.3, 0.2],
                [0.55, 0.1],
                [0.78, 0.14],
                [0.95, 0.3],
                [0.98, 0.52],
                [0.82, 0.33],
                [0.6, 0.26],
                [0.38, 0.28],
            ],
            "fill": _METAL,
            "stroke": _METAL_DARK,
            "width": 0.04,
        },
    ],
    "lantern": [
        {"shape": "circle", "c": [0.5, 0.16], "r": 0.1, "stroke": _METAL_DARK, "width": 0.05},
        {
            "shape": "polygon",
            "points": [[0.3, 0.3], [0.7, 0.3], [0.62, 0.22], [0.38, 0.22]],
            "fill": _METAL_DARK,
            "stroke": _METAL_DARK,
            "width": 0.03,
        },
        {
            "shape": "polygon",
            "points": [[0.3, 0.3], [0.7, 0.3], [0.7, 0.8], [0.3, 0.8]],
            "fill": _GLASS,
            "stroke": _METAL_DARK,
            "width": 0.06,
        },
        {
            "shape": "line",
            "points": [[0.5, 0.32], [0.5, 0.78]],
            "stroke": _METAL_DARK,
            "width": 0.04,
        },
        {
            "shape": "polygon",
            "points": [[0.24, 0.8], [0.76, 0.8], [0.76, 0.9], [0.24, 0.9]],
            "fill": _METAL_DARK,
            "stroke": _METAL_DARK,
            "width": 0.02,
        },
    ],
    "cart": [
        {
            "shape": "polygon",
            "points": [[0.06, 0.28], [0.94, 0.28], [0.82, 0.7], [0.18, 0.7]],
            "fill": _METAL,
            "stroke": _METAL_DARK,
            "width": 0.06,
        },
        {
            "shape": "line",
            "points": [[0.14, 0.42], [0.86, 0.42]],
            "stroke": _METAL_DARK,
            "width": 0.04,
        },
        {
            "shape": "circle",
            "c": [0.3, 0.8],
            "r": 0.11,
            "fill": _METAL_DARK,
            "stroke": _METAL_DARK,
            "width": 0.02,
        },
        {
            "shape": "circle",
            "c": [0.7, 0.8],
            "r": 0.11,
            "fill": _METAL_DARK,
            "stroke": _METAL_DARK,
            "width": 0.02,
        },
    ],
    "trapped": [  # a cage
        {
            "shape": "polygon",
            "points": [[0.14, 0.18], [0.86, 0.18], [0.86, 0.9], [0.14, 0.9]],
            "fill": "#3e2f26",
            "stroke": _METAL,
            "width": 0.07,
        },
        {"shape": "line", "points": [[0.32, 0.18], [0.32, 0.9]], "stroke": _METAL, "width": 0.06},
        {"shape": "line", "points": [[0.5, 0.18], [0.5, 0.9]], "stroke": _METAL, "width": 0.06},
        {"shape": "line", "points": [[0.68, 0.18], [0.68, 0.9]], "stroke": _METAL, "width": 0.06},
        {"shape": "circle", "c": [0.5, 0.1], "r": 0.07, "stroke": _METAL, "width": 0.05},
    ],
    "theft": [  # a sack of gold
        {
            "shape": "polygon",
            "points": [
                [0.38, 0.28],
                [0.2, 0.48],
                [0.14, 0.72],
                [0.26, 0.9],
                [0.74, 0.9],
                [0.86, 0.72],
                [0.8, 0.48],
                [0.62, 0.28],
            ],
            "fill": "#b5874e",
            "stroke": _WOOD_DARK,
            "width": 0.05,
        },
        {
            "shape": "polygon",
            "points": [[0.34, 0.08], [0.66, 0.08], [0.58, 0.26], [0.42, 0.26]],
            "fill": "#b5874e",
            "stroke": _WOOD_DARK,
            "width": 0.05,
        },
        {
            "shape": "line",
            "points": [[0.36, 0.27], [0.64, 0.27]],
            "stroke": _WOOD_DARK,
            "width": 0.06,
        },
        {
            "shape": "circle",
            "c": [0.5, 0.64],
            "r": 0.15,
            "fill": "#ffcc33",
            "stroke": "#a06d00",
            "width": 0.04,
        },
    ],
    "gold": [  # has gold to steal (Saboteur 2 stealing phase)
        {
            "shape": "polygon",
            "points": [
                [0.1, 0.78],
                [0.22, 0.52],
                [0.45, 0.46],
                [0.6, 0.6],
                [0.56, 0.86],
                [0.22, 0.9],
            ],
            "fill": "#ffcc33",
            "stroke": "#a06d00",
            "width": 0.05,
        },
        {
            "shape": "polygon",
            "points": [
                [0.48, 0.5],
                [0.6, 0.24],
                [0.82, 0.2],
                [0.94, 0.42],
                [0.86, 0.66],
                [0.62, 0.64],
            ],
            "fill": "#ffd54a",
            "stroke": "#a06d00",
            "width": 0.05,
        },
        {"shape": "circle", "c": [0.72, 0.36], "r": 0.05, "fill": "#fff3c4"},
    ],
    "dynamite": [  # the saboteur's badge
        {
            "shape": "polygon",
            "points": [[0.16, 0.42], [0.37, 0.42], [0.37, 0.92], [0.16, 0.92]],
            "fill": "#d32f2f",
            "stroke": "#5d0000",
            "width": 0.04,
        },
        {
            "shape": "polygon",
            "points": [[0.4, 0.42], [0.6, 0.42], [0.6, 0.92], [0.4, 0.92]],
            "fill": "#e53935",
            "stroke": "#5d0000",
            "width": 0.04,
        },
        {
            "shape": "polygon",
            "points": [[0.63, 0.42], [0.84, 0.42], [0.84, 0.92], [0.63, 0.92]],
            "fill": "#d32f2f",
            "stroke": "#5d0000",
            "width": 0.04,
        },
        {
            "shape": "line",
            "points": [[0.14, 0.67], [0.86, 0.67]],
            "stroke": "#3e2723",
            "width": 0.07,
        },
        {
            "shape": "line",
            "points": [[0.5, 0.42], [0.55, 0.26], [0.7, 0.17]],
            "stroke": "#3e2723",
            "width": 0.04,
        },
        {
            "shape": "circle",
            "c": [0.75, 0.14],
            "r": 0.08,
            "fill": "#ffd54a",
            "stroke": "#ff6f00",
            "width": 0.03,
        },
    ],
    "crown": [  # the boss's badge
        {
            "shape": "polygon",
            "points": [
                [0.12, 0.78],
                [0.1, 0.3],
                [0.32, 0.52],
                [0.5, 0.2],
                [0.68, 0.52],
                [0.9, 0.3],
                [0.88, 0.78],
            ],
            "fill": "#ffcc33",
            "stroke": "#a06d00",
            "width": 0.05,
        },
        {
            "shape": "polygon",
            "points": [[0.12, 0.76], [0.88, 0.76], [0.88, 0.9], [0.12, 0.9]],
            "fill": "#ffb300",
            "stroke": "#a06d00",
            "width": 0.05,
        },
        {"shape": "circle", "c": [0.5, 0.6], "r": 0.07, "fill": "#e53935"},
        {"shape": "circle", "c": [0.28, 0.64], "r": 0.05, "fill": "#1e6fd9"},
        {"shape": "circle", "c": [0.72, 0.64], "r": 0.05, "fill": "#1f9d4a"},
    ],
    "crystal": [  # the geologist's badge; same gem as on crystal cards
        {
            "shape": "polygon",
            "points": [[0.5, 0.08], [0.88, 0.38], [0.5, 0.94], [0.12, 0.38]],
            "fill": "#7ff0ff",
            "stroke": "#0b4a5a",
            "width": 0.06,
        },
        {
            "shape": "polygon",
            "points": [[0.12, 0.38], [0.88, 0.38], [0.5, 0.94]],
            "fill": "#1aa6c4",
            "stroke": "#0b4a5a",
            "width": 0.04,
        },
    ],
}
# Broken tool: the icon in its own colours on a red disc (BROKEN_BACK), with a crack on top
# (BROKEN_CROSS, one bold slash): colour plus shape, for colour-blind players.
BROKEN_FILL: Final = "#e53935"
BROKEN_STROKE: Final = "#7f0000"
BROKEN_BACK: Final[list[dict[str, object]]] = [
    {
        "shape": "circle",
        "c": [0.5, 0.5],
        "r": 0.47,
        "fill": BROKEN_FILL,
        "stroke": BROKEN_STROKE,
        "width": 0.05,
    },
]
BROKEN_CROSS: Final[list[dict[str, object]]] = [
    {"shape": "line", "points": [[0.86, 0.14], [0.14, 0.86]], "stroke": "#ffffff", "width": 0.16},
    {
        "shape": "line",
        "points": [[0.86, 0.14], [0.14, 0.86]],
        "stroke": BROKEN_STROKE,
        "width": 0.08,
    },
]

# What lies in front of a player (view ``in_front``) -> (icon, broken).
IN_FRONT_ICONS: Final[dict[str, tuple[str, bool]]] = {
    "BREAK_PICKAXE": ("pickaxe", True),
    "BREAK_LANTERN": ("lantern", True),
    "BREAK_CART": ("cart", True),
    "TRAPPED": ("trapped", False),
    "THEFT": ("theft", False),
}

# --- roles: badge colour, letter and icon (shown only to their owner) ------------------

ROLES: Final[dict[str, dict[str, str]]] = {
    "GOLD_DIGGER": {"color": "#e0a82e", "letter": "D", "icon": "pickaxe"},
    "SABOTEUR": {"color": "#37474f", "letter": "S", "icon": "dynamite"},
    "GOLD_DIGGER_BLUE": {"color": "#1e6fd9", "letter": "B", "icon": "pickaxe"},
    "GOLD_DIGGER_GREEN": {"color": "#1f9d4a", "letter": "G", "icon": "pickaxe"},
    "BOSS": {"color": "#7b1fa2", "letter": "K", "icon": "crown"},
    "PROFITEER": {"color": "#ef6c00", "letter": "P", "icon": "theft"},
    "GEOLOGIST": {"color": "#00897b", "letter": "Y", "icon": "crystal"},
    "SELFISH_DWARF": {"color": "#6d4c41", "letter": "X", "icon": "theft"},
}

DOORS: Final[dict[str, dict[str, str]]] = {
    "blue": {"color": COLOURS["door_blue"], "letter": "B"},
    "green": {"color": COLOURS["door_green"], "letter": "G"},
}

# --- the group picture (pixels) -------------------------------------------------------

PICTURE_MAX_SIDE: Final = 1280  # long side of the group picture, at most
PICTURE_CELL_MAX_W: Final = 96  # cell width in pixels when the board is small
PICTURE_MARGIN_CELLS: Final = 1  # empty cells shown around the cards in play


def rotate_edge(edge: str, rotated: bool) -> str:
    """The edge a card's ``edge`` faces once placed (only 0 and 180 degrees exist)."""
    return OPPOSITE[edge] if rotated else edge


def look_json() -> dict[str, object]:
    """Everything above as one JSON-ready dict, for the Mini App page (``cards.js``)."""
    return {
        "card": {
            "w": CARD_W,
            "h": CARD_H,
            "radius": CARD_RADIUS,
            "gap": CARD_GAP,
            "band_w": BAND_W,
            "band_edge_w": BAND_EDGE_W,
            "stub_len": STUB_LEN,
            "cap_r": CAP_R,
            "cap_depth": CAP_DEPTH,
            "bridge_gap": BRIDGE_GAP,
            "door_at": DOOR_AT,
            "door_thick": DOOR_THICK,
            "door_overhang": DOOR_OVERHANG,
            "door_badge_r": DOOR_BADGE_R,
            "ladder_w": LADDER_W,
            "ladder_h": LADDER_H,
            "ladder_rungs": LADDER_RUNGS,
            "crystal_at": list(CRYSTAL_AT),
            "crystal_r": CRYSTAL_R,
            "empty_dash": list(EMPTY_DASH),
            "route_w": ROUTE_W,
            "route_alpha": ROUTE_ALPHA,
            "centre": list(CENTRE),
            "edges": {k: list(v) for k, v in EDGE_POINTS.items()},
            "gold_nuggets": [list(n) for n in GOLD_NUGGETS],
            "stone_lumps": [list(n) for n in STONE_LUMPS],
        },
        "colours": dict(COLOURS),
        "icons": {k: [dict(p) for p in v] for k, v in ICONS.items()},
        "broken": {
            "fill": BROKEN_FILL,
            "stroke": BROKEN_STROKE,
            "back": [dict(p) for p in BROKEN_BACK],
            "cross": [dict(p) for p in BROKEN_CROSS],
        },
        "in_front": {k: {"icon": v[0], "broken": v[1]} for k, v in IN_FRONT_ICONS.items()},
        "roles": {k: dict(v) for k, v in ROLES.items()},
        "doors": {k: dict(v) for k, v in DOORS.items()},
    }
