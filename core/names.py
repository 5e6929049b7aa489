"""The names of the game's ids — cards, roles, reasons, tools, sides, levels, options —
in English, 简体中文 and 繁體中文, from one gettext catalogue per language.

Why here: a player reads the same card in the group, in their private chat and in the Mini
App, so the bot and the page must name it alike. ``core/locales/<language>/LC_MESSAGES/
codes.po`` is the only source: the bot compiles it into its translations
(``telegram_bot.i18n``), the Mini App server sends the names the page shows in its
catalogue document (``miniapp.catalogue``). The ids are data, so the file is edited by hand
(no extraction can see them); each entry's ``msgctxt`` is its kind (``card``, ``role``…).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from babel.messages.pofile import read_po

LOCALES_DIR = Path(__file__).parent / "locales"
LANGUAGES = ("en", "zh_Hans", "zh_Hant")
# each catalogue's code in the API (a game's "language" setting, the page's languages)
API_CODES = {"en": "en", "zh_Hans": "zh-hans", "zh_Hant": "zh-hant"}
DOMAIN = "codes"


def codes_po(language: str) -> Path:
    """The catalogue file of one of ``LANGUAGES``."""
    if language not in LANGUAGES:
        raise ValueError(f"no names in {language!r}")
    return LOCALES_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.po"


@cache
def names(language: str) -> dict[str, dict[str, str]]:
    """``{kind: {id: name}}`` of one language, e.g. ``names("zh_Hans")["card"]["S1_CROSS"]``."""
    with codes_po(language).open("rb") as f:
        catalog = read_po(f, locale=language)
    found: dict[str, dict[str, str]] = {}
    for message in catalog:
        if message.id and message.context and isinstance(message.string, str):
            found.setdefault(message.context, {})[str(message.id)] = message.string
    return found
