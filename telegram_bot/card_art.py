"""Pillow drawing of single cards and icons, from ``core.look`` (the twin of ``cards.js``).

Every card is drawn from its connectivity groups, in card units scaled to pixels; a card
turned 180 degrees is drawn by turning its edges (and its point features), so the same
rules serve both turns.  Letters (door colour) stay upright so they remain readable.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from PIL import ImageDraw

from core import look
from core.look import BAND_EDGE_W, BAND_W, CARD_H, CARD_W, CENTRE, COLOURS, EDGE_POINTS
from telegram_bot.fonts import Font

Card = Mapping[str, Any]
Box = tuple[float, float, float, float]

_ADJACENT_CORNERS = {  # corner a quarter-ellipse band turns around, Pillow arc angles
    frozenset("NW"): ((0.0, 0.0), 0, 90),
    frozenset("NE"): ((CARD_W, 0.0), 90, 180),
    frozenset("ES"): ((CARD_W, CARD_H), 180, 270),
    frozenset("SW"): ((0.0, CARD_H), 270, 360),
}


class Pen:
    """Maps card units to pixels for one cell and draws the look's primitives."""

    def __init__(self, draw: ImageDraw.ImageDraw, x: float, y: float, scale: float) -> None:
        self.d, self.x, self.y, self.s = draw, x, y, scale

    def pt(self, px: float, py: float) -> tuple[float, float]:
        return self.x + px * self.s, self.y + py * self.s

    def box(self, x0: float, y0: float, x1: float, y1: float) -> Box:
        a, b = self.pt(min(x0, x1), min(y0, y1))
        c, d = self.pt(max(x0, x1), max(y0, y1))
        return a, b, c, d

    def rect(self, b: Box, fill: str, outline: str | None = None, width: float = 0) -> None:
        self.d.rectangle(
            self.box(*b),
            fill=fill,
            outline=outline,
            width=max(1, round(width * self.s)) if outline else 0,
        )

    def ellipse(
        self,
        cx: float,
        cy: float,
        rx: float,
        ry: float,
        fill: str | None,
        outline: str | None = None,
        width: float = 0,
    ) -> None:
        self.d.ellipse(
            self.box(cx - rx, cy - ry, cx + rx, cy + ry),
            fill=fill,
            outline=outline,
            width=max(1, round(width * self.s)) if outline else 0,
        )

    def polygon(
        self,
        pts: Sequence[tuple[float, float]],
        fill: str | None,
        outline: str | None = None,
        width: float = 0,
    ) -> None:
        xy = [self.pt(*p) for p in pts]
        self.d.polygon(
            xy, fill=fill, outline=outline, width=max(1, round(width * self.s)) if outline else 0
        )

    def line(self, pts: Sequence[tuple[float, float]], fill: str, width: float) -> None:
        self.d.line(
            [self.pt(*p) for p in pts],
            fill=fill,
            width=max(1, round(width * self.s)),
            joint="curve",
        )


def _segment(edge: str, end: float) -> Box:
    """The band rectangle from ``edge`` inwards, ``end`` card units deep (axis-aligned)."""
    cx, cy = CENTRE
    h = BAND_W / 2
    return {
        "N": (cx - h, 0.0, cx + h, end),
        "S": (cx - h, CARD_H - end, cx + h, CARD_H),
        "W": (0.0, cy - h, end, cy + h),
        "E": (CARD_W - end, cy - h, CARD_W, cy + h),
    }[edge]


def _grow(b: Box, by: float, edge: str | None = None) -> Box:
    """``b`` widened by ``by`` across the band (and not past the card's outer edge)."""
    x0, y0, x1, y1 = b
    if edge in ("N", "S"):
        return x0 - by, y0, x1 + by, y1
    if edge in ("E", "W"):
        return x0, y0 - by, x1, y1 + by
    return x0 - by, y0 - by, x1 + by, y1 + by


def _to_centre(edge: str) -> float:
    """Depth of a band that reaches the centre and covers the junction square."""
    return (CARD_H / 2 if edge in "NS" else CARD_W / 2) + BAND_W / 2


def _bands(
    pen: Pen, edges: Sequence[str], depth: float | None = None, earth: str = COLOURS["earth"]
) -> None:
    """Bands from ``edges`` to the centre, joined: all rims first, then all fills."""
    for e in edges:
        pen.rect(_grow(_segment(e, depth or _to_centre(e)), BAND_EDGE_W, e), COLOURS["earth_edge"])
    for e in edges:
        pen.rect(_segment(e, depth or _to_centre(e)), earth)


def _stub(pen: Pen, edge: str) -> None:
    """A dead end: a short band closed by a rock cap, well short of the centre."""
    _bands(pen, [edge], look.STUB_LEN)
    ex, ey = EDGE_POINTS[edge]
    along = look.STUB_LEN
    px = ex + (along if edge == "W" else -along if edge == "E" else 0)
    py = ey + (along if edge == "N" else -along if edge == "S" else 0)
    rx, ry = (look.CAP_R, look.CAP_DEPTH) if edge in "NS" else (look.CAP_DEPTH, look.CAP_R)
    pen.ellipse(px, py, rx, ry, COLOURS["cap"], COLOURS["cap_edge"], 2.5)


def _curve(pen: Pen, group: str) -> None:
    """A quarter-ellipse band around a corner (double curve cards)."""
    (kx, ky), a0, a1 = _ADJACENT_CORNERS[frozenset(group)]
    rx, ry = CARD_W / 2, CARD_H / 2
    rim = (COLOURS["earth_edge"], BAND_W + 2 * BAND_EDGE_W)
    for colour, w in (rim, (COLOURS["earth"], BAND_W)):
        h = w / 2
        pen.d.arc(
            pen.box(kx - rx - h, ky - ry - h, kx + rx + h, ky + ry + h),
            a0,
            a1,
            fill=colour,
            width=max(1, round(w * pen.s)),
        )


def _door(pen: Pen, edge: str, colour: str, letter: str, font: Font | None) -> None:
    """A gate across the band near ``edge``, with its letter for colour-blind players."""
    ex, ey = EDGE_POINTS[edge]
    cx, cy = CENTRE
    t = look.DOOR_AT
    gx, gy = ex + (cx - ex) * t, ey + (cy - ey) * t
    h, th = BAND_W / 2 + look.DOOR_OVERHANG, look.DOOR_THICK / 2
    b = (gx - h, gy - th, gx + h, gy + th) if edge in "NS" else (gx - th, gy - h, gx + th, gy + h)
    pen.rect(b, colour, COLOURS["door_edge"], 2)
    for k in (-0.62, 0.62):  # the gate's two hinge posts, dark: shape as well as colour
        px, py = (gx + k * h, gy) if edge in "NS" else (gx, gy + k * h)
        pen.rect(
            (px - 2.5, py - th, px + 2.5, py + th)
            if edge in "NS"
            else (px - th, py - 2.5, px + th, py + 2.5),
            COLOURS["door_edge"],
        )
    r = look.DOOR_BADGE_R
    pen.ellipse(gx, gy, r, r, colour, COLOURS["door_letter"], 2.5)
    if font is not None:
        pen.d.text(pen.pt(gx, gy), letter, fill=COLOURS["door_letter"], font=font, anchor="mm")


def _ladder(pen: Pen) -> None:
    cx, cy = CENTRE
    w, h = look.LADDER_W / 2, look.LADDER_H / 2
    for colour, width in ((COLOURS["ladder_edge"], 7.0), (COLOURS["ladder"], 4.0)):
        pen.line([(cx - w, cy - h), (cx - w, cy + h)], colour, width)
        pen.line([(cx + w, cy - h), (cx + w, cy + h)], colour, width)
        n = look.LADDER_RUNGS
        for i in range(n):
            ry = cy - h + (i + 0.5) * (2 * h / n)
            pen.line([(cx - w, ry), (cx + w, ry)], colour, width)


def _gem(pen: Pen, x: float, y: float) -> None:
    r = look.CRYSTAL_R
    outer = [(x, y - r), (x + r, y - r * 0.2), (x, y + r * 1.1), (x - r, y - r * 0.2)]
    pen.polygon(outer, COLOURS["crystal"], COLOURS["crystal_edge"], 2)
    pen.polygon(
        [(x - r, y - r * 0.2), (x + r, y - r * 0.2), (x, y + r * 1.1)],
        COLOURS["crystal_dark"],
        COLOURS["crystal_edge"],
        1.5,
    )
    pen.polygon(
        [(x - r * 0.35, y - r * 0.55), (x, y - r * 0.8), (x + r * 0.1, y - r * 0.45)], "#ffffff"
    )


def draw_card(pen: Pen, card: Card, rotated: bool, font: Font | None) -> None:
    """One face-up card (path, start or revealed goal) from its ``groups``."""
    turn = (lambda e: look.rotate_edge(e, True)) if rotated else (lambda e: e)
    groups = ["".join(turn(e) for e in g) for g in card.get("groups", [])]
    # start and ladder cards are sources: a ladder drawn, one-edge groups conduct (cards.json
    # says ladder=true; the engine's catalogue says source=true)
    ladder = bool(card.get("ladder") or card.get("source") or card.get("kind") == "start")
    pen.d.rounded_rectangle(
        pen.box(0, 0, CARD_W, CARD_H),
        radius=look.CARD_RADIUS * pen.s,
        fill=COLOURS["rock"],
        outline=COLOURS["rock_edge"],
        width=max(1, round(2 * pen.s)),
    )
    multi = [g for g in groups if len(g) > 1]
    singles = [g for g in groups if len(g) == 1]
    if len(multi) == 2 and all(frozenset(g) in _ADJACENT_CORNERS for g in multi):
        for g in multi:
            _curve(pen, g)
    elif len(multi) == 2 and all(set(g) in ({"N", "S"}, {"E", "W"}) for g in multi):
        under, over = sorted(multi, key=lambda g: "N" in g)  # E-W under, N-S over
        _bands(pen, list(under), earth=COLOURS["earth_under"])
        cy = CENTRE[1]
        reach = BAND_W / 2 + BAND_EDGE_W + look.BRIDGE_GAP
        gap = look.BAND_W / 2 + BAND_EDGE_W + look.BRIDGE_GAP
        pen.rect((CENTRE[0] - gap, cy - reach, CENTRE[0] + gap, cy + reach), COLOURS["shadow"])
        _bands(pen, list(over))
    else:
        edges = [e for g in multi for e in g] + (list(singles) if ladder else [])
        _bands(pen, edges)
    if not ladder:
        for g in singles:
            _stub(pen, g)
    door = card.get("door")
    if door and multi:
        spec = look.DOORS.get(str(door), {"color": COLOURS["door_blue"], "letter": "?"})
        _door(pen, multi[0][0], spec["color"], spec["letter"], font)
    if ladder:
        _ladder(pen)
    if card.get("crystals"):
        gx, gy = look.CRYSTAL_AT
        _gem(pen, *((CARD_W - gx, CARD_H - gy) if rotated else (gx, gy)))
    if card.get("kind") == "start":
        pen.d.rounded_rectangle(
            pen.box(2, 2, CARD_W - 2, CARD_H - 2),
            radius=look.CARD_RADIUS * pen.s,
            outline=COLOURS["start_mark"],
            width=max(1, round(3 * pen.s)),
        )
    if card.get("kind") == "goal":
        if card.get("treasure"):
            for x, y, r in look.GOLD_NUGGETS:
                x, y = (CARD_W - x, CARD_H - y) if rotated else (x, y)
                pen.ellipse(x, y, r, r * 0.85, COLOURS["gold"], COLOURS["gold_edge"], 2)
        else:
            for g in multi:
                for e in g:
                    ex, ey = EDGE_POINTS[e]
                    for t, r in look.STONE_LUMPS:
                        x, y = ex + (CENTRE[0] - ex) * t, ey + (CENTRE[1] - ey) * t
                        pen.ellipse(x, y, r, r * 0.8, COLOURS["stone"], COLOURS["stone_edge"], 2)


def draw_goal_back(pen: Pen, font: Font | None) -> None:
    """A face-down goal: the same back for all three, with a question mark."""
    pen.d.rounded_rectangle(
        pen.box(0, 0, CARD_W, CARD_H),
        radius=look.CARD_RADIUS * pen.s,
        fill=COLOURS["goal_back"],
        outline=COLOURS["rock_edge"],
        width=max(1, round(2 * pen.s)),
    )
    pen.d.rounded_rectangle(
        pen.box(8, 8, CARD_W - 8, CARD_H - 8),
        radius=look.CARD_RADIUS * pen.s,
        outline=COLOURS["goal_back_edge"],
        width=max(1, round(3 * pen.s)),
    )
    if font is not None:
        pen.d.text(pen.pt(*CENTRE), "?", fill=COLOURS["goal_mark"], font=font, anchor="mm")


def draw_empty(pen: Pen) -> None:
    """A faint outline where a card could go."""
    pen.d.rounded_rectangle(
        pen.box(3, 3, CARD_W - 3, CARD_H - 3),
        radius=look.CARD_RADIUS * pen.s,
        outline=COLOURS["empty_outline"],
        width=max(1, round(1.5 * pen.s)),
    )


def draw_icon(
    draw: ImageDraw.ImageDraw, x: float, y: float, size: float, kind: str, broken: bool = False
) -> None:
    """A tool/cage/sack icon from the look's vector primitives, in a ``size`` px square."""
    pen = Pen(draw, x, y, size)
    prims: list[dict[str, Any]] = list(look.ICONS[kind])
    if broken:
        prims = [*look.BROKEN_BACK, *prims, *look.BROKEN_CROSS]
    for p in prims:
        if p["shape"] == "polygon":
            pts = [(a, b) for a, b in p["points"]]
            pen.polygon(pts, p.get("fill"), p.get("stroke"), p.get("width", 0))
        elif p["shape"] == "line":
            pen.line([(a, b) for a, b in p["points"]], p["stroke"], p["width"])
        else:
            (cx, cy), r = p["c"], p["r"]
            pen.ellipse(cx, cy, r, r, p.get("fill"), p.get("stroke"), p.get("width", 0))
