"""The font of the group picture: one with CJK glyphs, because names are often Chinese.

Order: an explicit path (``BOARD_FONT`` via Settings or the caller), then Debian's
``fonts-noto-cjk`` and ``fonts-wqy-microhei``, then Pillow's built-in font with a loud
warning (it has no CJK glyphs: Chinese names would come out as boxes).
"""

from __future__ import annotations

import logging
import unicodedata
from functools import lru_cache
from pathlib import Path

from PIL import ImageFont

log = logging.getLogger(__name__)

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont

# (path, face index) — in the Noto CJK collections face 2 is "Noto Sans CJK SC".
CANDIDATES: tuple[tuple[str, int], ...] = (
    ("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", 2),
    ("/usr/share/fonts/opentype/noto/NotoSansCJK-Medium.ttc", 2),
    ("/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc", 2),
    ("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc", 0),
    ("/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc", 0),
    ("/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf", 0),
)
NOTO = "/usr/share/fonts/opentype/noto/"
BOLD_OF = {NOTO + "NotoSansCJK-Regular.ttc": NOTO + "NotoSansCJK-Bold.ttc"}


@lru_cache(maxsize=8)
def find_font(override: str | None = None) -> tuple[str, int] | None:
    """The (path, face index) to use, or None when only Pillow's default font is left."""
    chosen = override or None  # Settings.board_font (BOARD_FONT), passed by the caller
    if chosen:
        if Path(chosen).is_file():
            return chosen, 0
        log.warning("BOARD_FONT=%s does not exist; looking for a CJK font instead", chosen)
    for path, index in CANDIDATES:
        if Path(path).is_file():
            return path, index
    log.warning(
        "No CJK font found (install fonts-noto-cjk or fonts-wqy-microhei, or set BOARD_FONT):"
        " Chinese names in the board picture will show as boxes"
    )
    return None


@lru_cache(maxsize=64)
def load_font(size: int, *, bold: bool = False, override: str | None = None) -> Font:
    """A font of ``size`` pixels; cached because opening a 20 MB collection is not free."""
    found = find_font(override)
    if found is None:
        return ImageFont.load_default(size=size)
    path, index = found
    if bold and path in BOLD_OF and Path(BOLD_OF[path]).is_file():
        path = BOLD_OF[path]
    try:
        return ImageFont.truetype(path, size=size, index=index)
    except OSError:  # a single-face file given with the collection's face index
        return ImageFont.truetype(path, size=size)


def _glyph(font: Font, ch: str) -> bytes:
    return bytes(font.getmask(ch))


def printable(text: str, font: Font) -> str:
    """``text`` without the characters ``font`` would draw as a box (tofu).

    Telegram names often carry emoji and symbols that no CJK text font has; dropping them
    reads better than a row of boxes.  Invisible joiners and variation selectors go too.
    """
    if not isinstance(font, ImageFont.FreeTypeFont):
        return text
    cached = _TOFU.get(id(font))
    if cached is None:
        cached = _TOFU[id(font)] = (_glyph(font, "\U000f0001"), font)
    tofu = cached[0]
    kept = []
    dropped = False  # a combining mark goes with the letter it sits on
    for ch in text:
        cat = unicodedata.category(ch)
        if cat in ("Cf", "Cc") or "\ufe00" <= ch <= "\ufe0f":
            continue
        if cat.startswith("M") and dropped:
            continue
        dropped = not (ch.isspace() or _glyph(font, ch) != tofu)
        if not dropped:
            kept.append(ch)
    return " ".join("".join(kept).split())


_TOFU: dict[int, tuple[bytes, Font]] = {}
