"""The group's board picture: the maze and the players' strip, drawn with Pillow.

Input is a *spectator* view (API.md).  Defence in depth: the renderer first copies the
handful of public fields it draws (``_public``) and never looks at anything else, so even a
player's view with ``you``, roles or hands produces the very same bytes.

Sized for a phone in a chat: at most ``PICTURE_MAX_SIDE`` px on the long side, the maze
cropped to the cards in play plus a margin (start and goals always in), drawn at twice the
size and scaled down for smooth edges, then sent as PNG or JPEG, whichever is smaller.
The maze's rim is labelled with ``core.cells`` names (row letters on the left, column
numbers on top), the names the bot's buttons and log lines use ("Place … at F3").
Rendering is CPU work: ``render_board_async`` runs it in a thread and caches per version.
"""

from __future__ import annotations

import asyncio
import io
import json
import math
from collections import OrderedDict
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

from core import look
from core.cells import column_name, row_name
from core.look import CARD_H, CARD_W, COLOURS
from telegram_bot import card_art
from telegram_bot.fonts import Font, load_font, printable

SS = 2  # supersampling factor
PNG_COLOURS = 128  # palette of the PNG candidate
LABELS_EN: dict[str, str] = {
    "round": "Round {round}/{rounds}",
    "deck": "Deck {deck}",
    "playing": "",
    "stealing": "Stealing gold",
    "round_over": "Round over",
    "finished": "Game over",
    "lobby": "Waiting for players",
    "computer": "Computer {n}",  # a computer seat's name (the view's computer_no)
}
_CARDS_JSON = (
    Path(__file__).resolve().parent.parent / "core" / "engine" / "data" / "cards.json",
    Path(__file__).resolve().parent.parent / "core" / "engine" / "cards.json",
    Path(__file__).resolve().parent.parent / "core" / "cards.json",
    Path("/work/shared/rules/cards.json"),
)


@lru_cache(maxsize=1)
def catalogue() -> dict[str, dict[str, Any]]:
    """Path cards by catalogue id: {kind, mask, groups, door, ladder, crystals, treasure}.

    Taken from ``cards.json`` (packaged with the engine); the renderer needs only the
    drawing fields, so it does not depend on the engine's classes.
    """
    for path in _CARDS_JSON:
        if path.is_file():
            data = json.loads(path.read_text(encoding="utf-8"))
            return {
                c["id"]: c
                for ed in ("saboteur1", "saboteur2")
                for c in data.get(ed, {}).get("path_cards", [])
            }
    raise FileNotFoundError("cards.json not found in core/engine/data")


def _public(view: Mapping[str, Any]) -> dict[str, Any]:
    """Only what everyone may see, copied field by field (never the view itself).

    Idempotent: ``_public(_public(v))`` draws the same picture as ``v``.
    """

    def num(v: Any) -> int | None:
        return v if isinstance(v, int) and not isinstance(v, bool) else None

    def at(c: Any) -> bool:  # a well-formed cell entry (anything else is skipped)
        return (
            isinstance(c, Mapping) and num(c.get("x")) is not None and num(c.get("y")) is not None
        )

    def point(p: Any) -> bool:
        return isinstance(p, list | tuple) and len(p) == 2 and all(num(v) is not None for v in p)

    board = [
        {"x": c["x"], "y": c["y"], "card": str(c.get("card")), "rotated": bool(c.get("rotated"))}
        for c in view.get("board") or []
        if at(c)
    ]
    goals = [
        {
            "x": g["x"],
            "y": g["y"],
            "revealed": bool(g.get("revealed")),
            "kind": g.get("kind") if g.get("revealed") else None,
        }
        for g in view.get("goals") or []
        if at(g)
    ]
    seats = [
        {
            "seat": num(s.get("seat")),
            "name": str(s.get("name") or f"#{i + 1}"),
            "computer_no": num(s.get("computer_no")),
            "hand_size": num(s.get("hand_size")),
            "has_gold": s.get("has_gold") is True,  # public in Saboteur 2 (someone to rob)
            "in_front": [str(k) for k in s.get("in_front") or [] if str(k) in look.IN_FRONT_ICONS],
        }
        for i, s in enumerate(view.get("seats") or [])
        if isinstance(s, Mapping)
    ]
    result = view.get("round_result")
    route = result.get("route") if isinstance(result, Mapping) else None
    route = [p for p in route if point(p)] if isinstance(route, list) else []
    return {
        "board": board,
        "goals": goals,
        "seats": seats,
        "current_seat": num(view.get("current_seat")),
        "round": num(view.get("round")),
        "rounds": num(view.get("rounds")),
        "deck_size": num(view.get("deck_size")),
        "status": str(view.get("status") or ""),
        "route": [(p[0], p[1]) for p in route],
        "round_result": {"route": [[p[0], p[1]] for p in route]} if route else None,
    }


class _Layout:
    """Pixel geometry (at the supersampled size) for a board and a number of players."""

    def __init__(self, cells: tuple[int, int, int, int], players: int, ss: int) -> None:
        self.x0, self.y0, self.x1, self.y1 = cells
        ncols, nrows = self.x1 - self.x0 + 1, self.y1 - self.y0 + 1
        cw = float(look.PICTURE_CELL_MAX_W)
        while True:
            gap = look.CARD_GAP * cw / CARD_W
            pitch_x, pitch_y = cw + gap, cw * CARD_H / CARD_W + gap
            pad = max(8.0, cw * 0.15)
            rim = max(30.0, cw * 0.48)  # the gutter of the row and column names
            width = max(ncols * pitch_x + 2 * pad + rim, 560.0)
            self.font_px = max(22, min(30, round(width / 34)))
            row_h = self.font_px * 1.75
            cols = max(1, min(players, int(width // (self.font_px * 13))))
            rows = math.ceil(players / cols) if players else 0
            header = self.font_px * 1.9
            height = nrows * pitch_y + 2 * pad + rim + header + rows * row_h + pad
            if max(width, height) <= look.PICTURE_MAX_SIDE or cw <= 24:
                break
            cw -= 2
        self.ss, self.cw, self.gap, self.pad, self.rim = ss, cw, gap, pad, rim
        self.pitch_x, self.pitch_y = pitch_x, pitch_y
        self.width, self.height = math.ceil(width), math.ceil(height)
        self.board_left = rim + (width - rim - ncols * pitch_x) / 2 + gap / 2
        self.board_top = pad + rim + gap / 2
        self.strip_top = nrows * pitch_y + 2 * pad + rim
        self.header, self.row_h, self.cols, self.rows = header, row_h, cols, rows

    def cell(self, x: int, y: int) -> tuple[float, float]:
        """Top-left pixel of cell (x, y), supersampled."""
        return (
            (self.board_left + (x - self.x0) * self.pitch_x) * self.ss,
            (self.board_top + (y - self.y0) * self.pitch_y) * self.ss,
        )


def _extent(pub: Mapping[str, Any]) -> tuple[int, int, int, int]:
    xs = [0] + [c["x"] for c in pub["board"]] + [g["x"] for g in pub["goals"]]
    ys = [0] + [c["y"] for c in pub["board"]] + [g["y"] for g in pub["goals"]]
    if not pub["goals"]:
        xs += [8]
        ys += [-2, 2]
    m = look.PICTURE_MARGIN_CELLS
    return min(xs) - m, min(ys) - m, max(xs) + m, max(ys) + m


def _draw_board(
    img: Image.Image,
    draw: ImageDraw.ImageDraw,
    pub: Mapping[str, Any],
    lay: _Layout,
    override: str | None,
) -> None:
    cards = catalogue()
    s = lay.cw * lay.ss / CARD_W
    letter = load_font(max(8, round(look.DOOR_BADGE_R * 1.5 * s)), bold=True, override=override)
    qmark = load_font(max(10, round(60 * s)), bold=True, override=override)
    taken: dict[tuple[int, int], dict[str, Any]] = {(c["x"], c["y"]): c for c in pub["board"]}
    backs = {(g["x"], g["y"]) for g in pub["goals"] if (g["x"], g["y"]) not in taken}
    occupied = set(taken) | backs | {(0, 0)}
    for x in range(lay.x0, lay.x1 + 1):
        for y in range(lay.y0, lay.y1 + 1):
            pen = card_art.Pen(draw, *lay.cell(x, y), s)
            if (x, y) in taken:
                entry = taken[(x, y)]
                card = cards.get(entry["card"])
                if card is None:  # unknown id: a plain back rather than a crash
                    card_art.draw_goal_back(pen, qmark)
                else:
                    card_art.draw_card(pen, card, entry["rotated"], letter)
            elif (x, y) in backs:
                card_art.draw_goal_back(pen, qmark)
            elif any((x + dx, y + dy) in occupied for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))):
                card_art.draw_empty(pen)
    _draw_route(img, draw, pub["route"], lay, s)
    _draw_rim(draw, lay, override)


def _draw_rim(draw: ImageDraw.ImageDraw, lay: _Layout, override: str | None) -> list[str]:
    """Column numbers above the maze, row letters left of it; returns what it wrote."""
    ss = lay.ss
    size = max(12, round(lay.rim * 0.78 * ss))
    font = load_font(size, bold=True, override=override)
    ink = COLOURS["strip_hint"]
    card_w, card_h = lay.cw * ss, lay.cw * CARD_H / CARD_W * ss
    drawn = []
    for x in range(lay.x0, lay.x1 + 1):
        left, top = lay.cell(x, lay.y0)
        name = column_name(x)
        draw.text(
            (left + card_w / 2, top - lay.rim * ss / 2), name, fill=ink, font=font, anchor="mm"
        )
        drawn.append(name)
    for y in range(lay.y0, lay.y1 + 1):
        left, top = lay.cell(lay.x0, y)
        name = row_name(y)
        draw.text(
            (left - lay.rim * ss / 2, top + card_h / 2), name, fill=ink, font=font, anchor="mm"
        )
        drawn.append(name)
    return drawn


def _draw_route(
    img: Image.Image,
    draw: ImageDraw.ImageDraw,
    route: list[tuple[int, int]],
    lay: _Layout,
    s: float,
) -> None:
    """The gold's route at round end: a gold wash and frame on every cell of it."""
    w, h = round(CARD_W * s), round(CARD_H * s)
    gold = Image.new("RGB", (w, h), COLOURS["route"])
    for x, y in route:
        if not (lay.x0 <= x <= lay.x1 and lay.y0 <= y <= lay.y1):
            continue
        px, py = (round(v) for v in lay.cell(x, y))
        region = img.crop((px, py, px + w, py + h))
        img.paste(Image.blend(region, gold, look.ROUTE_ALPHA), (px, py))
        draw.rounded_rectangle(
            (px, py, px + w, py + h),
            radius=look.CARD_RADIUS * s,
            outline=COLOURS["route"],
            width=max(2, round(look.ROUTE_W * s)),
        )


def _fit(draw: ImageDraw.ImageDraw, text: str, font: Font, width: float) -> str:
    """``text`` cut with an ellipsis to ``width`` pixels."""
    if draw.textlength(text, font=font) <= width:
        return text
    while text and draw.textlength(text + "…", font=font) > width:
        text = text[:-1]
    return text + "…"


def _draw_strip(
    draw: ImageDraw.ImageDraw,
    pub: Mapping[str, Any],
    lay: _Layout,
    labels: Mapping[str, str],
    override: str | None,
) -> None:
    ss, fp = lay.ss, lay.font_px * lay.ss
    font = load_font(fp, override=override)
    bold = load_font(fp, bold=True, override=override)
    top = lay.strip_top * ss
    draw.rectangle((0, top, lay.width * ss, lay.height * ss), fill=COLOURS["strip_bg"])
    parts = []
    if pub["round"] is not None and pub["rounds"] is not None:
        parts.append(labels["round"].format(round=pub["round"], rounds=pub["rounds"]))
    if pub["deck_size"] is not None:
        parts.append(labels["deck"].format(deck=pub["deck_size"]))
    if labels.get(pub["status"]):
        parts.append(labels[pub["status"]])
    hy = top + lay.header * ss / 2
    draw.text(
        (lay.pad * ss, hy),
        "   ·   ".join(parts),
        fill=COLOURS["strip_text"],
        font=bold,
        anchor="lm",
    )
    col_w = (lay.width - 2 * lay.pad) / max(1, lay.cols) * ss
    row_h = lay.row_h * ss
    for i, seat in enumerate(pub["seats"]):
        r, c = divmod(i, lay.cols)
        x = lay.pad * ss + c * col_w
        y = top + lay.header * ss + r * row_h
        mid = y + row_h / 2
        turn = seat["seat"] is not None and seat["seat"] == pub["current_seat"]
        if turn:
            draw.rounded_rectangle(
                (x, y + 3 * ss, x + col_w - 8 * ss, y + row_h - 3 * ss),
                radius=row_h / 4,
                fill=COLOURS["turn"],
            )
            tri = fp * 0.35
            draw.polygon(
                [(x + 8 * ss, mid - tri), (x + 8 * ss + tri * 1.5, mid), (x + 8 * ss, mid + tri)],
                fill=COLOURS["strip_bg"],
            )
        ink = COLOURS["strip_bg"] if turn else COLOURS["strip_text"]
        hint = COLOURS["strip_bg"] if turn else COLOURS["strip_hint"]
        icons = [look.IN_FRONT_ICONS[k] for k in seat["in_front"]]
        if seat["has_gold"] and pub["status"] == "stealing":
            icons.insert(0, ("gold", False))
        icon = fp * 1.4
        right = x + col_w - 16 * ss
        for name, broken in reversed(icons):
            right -= icon
            card_art.draw_icon(draw, right, mid - icon / 2, icon, name, broken)
            right -= 4 * ss
        if seat["hand_size"] is not None:
            txt = str(seat["hand_size"])
            tw = draw.textlength(txt, font=font)
            right -= tw + 6 * ss
            draw.text((right, mid), txt, fill=hint, font=font, anchor="lm")
            cw, ch = fp * 0.55, fp * 0.8
            right -= cw + 6 * ss
            draw.rounded_rectangle(
                (right, mid - ch / 2, right + cw, mid + ch / 2),
                radius=3 * ss,
                fill=COLOURS["goal_back"],
                outline=COLOURS["goal_back_edge"],
                width=max(1, 2 * ss),
            )
        left = x + (8 * ss + fp * 0.8 if turn else 8 * ss)
        face = bold if turn else font
        label = (
            labels["computer"].format(n=seat["computer_no"])
            if seat["computer_no"] is not None
            else seat["name"]
        )
        name = _fit(draw, printable(label, face) or f"#{i + 1}", face, right - left - 10 * ss)
        draw.text((left, mid), name, fill=ink, font=bold if turn else font, anchor="lm")


def _encode(img: Image.Image) -> tuple[bytes, str]:
    """PNG or JPEG, whichever is smaller for this picture.

    The art is flat colour, so a 128-colour palette PNG is crisp and usually a third of the
    JPEG; JPEG still wins when a picture is unusually busy.
    """
    png, jpg = io.BytesIO(), io.BytesIO()
    palette = img.quantize(PNG_COLOURS, method=Image.Quantize.FASTOCTREE)
    palette.save(png, format="PNG", optimize=False, compress_level=7)
    img.save(jpg, format="JPEG", quality=85, optimize=True, subsampling=0)
    if len(jpg.getvalue()) < len(png.getvalue()):
        return jpg.getvalue(), "image/jpeg"
    return png.getvalue(), "image/png"


def render_board(
    view: Mapping[str, Any],
    *,
    font_path: str | None = None,
    labels: Mapping[str, str] | None = None,
) -> tuple[bytes, str]:
    """The board picture of a spectator ``view``: (bytes, mime type).

    ``font_path`` overrides the font (Settings.board_font / BOARD_FONT); ``labels`` are the
    translated header texts (keys of ``LABELS_EN``) in the group's language.
    """
    pub = _public(view)
    words = {**LABELS_EN, **(labels or {})}
    lay = _Layout(_extent(pub), len(pub["seats"]), SS)
    big = Image.new("RGB", (lay.width * SS, lay.height * SS), COLOURS["board_bg"])
    draw = ImageDraw.Draw(big)
    _draw_board(big, draw, pub, lay, font_path)
    _draw_strip(draw, pub, lay, words, font_path)
    img = big.reduce(SS)  # area average: the anti-aliasing, and much faster than LANCZOS
    return _encode(img)


_CACHE: OrderedDict[tuple[Any, ...], tuple[bytes, str]] = OrderedDict()
_CACHE_SIZE = 32
_INFLIGHT: dict[tuple[Any, ...], asyncio.Task[tuple[bytes, str]]] = {}


async def render_board_async(
    view: Mapping[str, Any],
    *,
    font_path: str | None = None,
    labels: Mapping[str, str] | None = None,
) -> tuple[bytes, str]:
    """``render_board`` off the event loop, cached per (game_id, version, font, labels).

    Two callers asking for the same version at once share one rendering (the debounced
    board message and a refresh button often coincide).
    """
    key = (
        view.get("game_id"),
        view.get("version"),
        font_path,
        tuple(sorted((labels or {}).items())),
    )
    if key[0] is None or key[1] is None:
        return await asyncio.to_thread(render_board, view, font_path=font_path, labels=labels)
    if key in _CACHE:
        _CACHE.move_to_end(key)
        return _CACHE[key]
    task = _INFLIGHT.get(key)
    if task is None:
        snapshot = _public(view)  # the view may change while the thread runs
        task = asyncio.ensure_future(
            asyncio.to_thread(render_board, snapshot, font_path=font_path, labels=labels)
        )
        _INFLIGHT[key] = task
        try:
            result = await asyncio.shield(task)
        finally:
            _INFLIGHT.pop(key, None)
        _CACHE[key] = result
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
        return result
    return await asyncio.shield(task)
