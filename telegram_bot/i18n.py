"""Translations: gettext catalogues (Babel) for English, 简体中文 and 繁體中文.

The ``.po`` files are the only source; they are compiled into memory at import with Babel
(no build step for whoever runs the bot). The bot's own messages are in ``locales/``. Card,
role and reason names use the catalogue id as msgid with a context (``card``, ``role``,
``reason``, ``tool``…) in a second domain, ``codes``, kept in ``core/locales`` because the
Mini App shows the same names (``core.names``): the English text lives in ``en`` like any
other language, and a renamed card is a catalogue change, not a code change.
"""

from __future__ import annotations

import gettext
import io
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from core.names import API_CODES, codes_po
from core.names import DOMAIN as CODES_DOMAIN
from core.names import LANGUAGES as LANGUAGES  # re-exported: the languages the bot speaks

LOCALES_DIR = Path(__file__).parent / "locales"
LANGUAGE_NAMES = {"en": "English", "zh_Hans": "简体中文", "zh_Hant": "繁體中文"}
DOMAIN = "messages"

# our catalogue names -> the game service's language setting (API.md "settings")
SERVICE_LANG = API_CODES
_HANS = {"zh", "zh-hans", "zh-cn", "zh-sg", "zh-my"}
_HANT = {"zh-hant", "zh-tw", "zh-hk", "zh-mo"}


def _match(code: str | None) -> str | None:
    if not code:
        return None
    c = code.strip().lower().replace("_", "-")
    if c in _HANT or c.startswith("zh-hant"):
        return "zh_Hant"
    if c in _HANS or c.startswith("zh"):
        return "zh_Hans"
    if c.startswith("en"):
        return "en"
    return None


def normalize_language(code: str | None, default: str | None = "en") -> str:
    """Map a Telegram ``language_code`` (or a setting) to one of our catalogues."""
    return _match(code) or _match(default) or "en"


def po_path(language: str, domain: str = DOMAIN) -> Path:
    if domain == CODES_DOMAIN:
        return codes_po(language)
    return LOCALES_DIR / language / "LC_MESSAGES" / f"{domain}.po"


def _compile(language: str, domain: str) -> gettext.GNUTranslations:
    with po_path(language, domain).open("rb") as f:
        catalog = read_po(f, locale=language)
    buf = io.BytesIO()
    write_mo(buf, catalog)
    buf.seek(0)
    return gettext.GNUTranslations(buf)


@cache
def translations(language: str) -> gettext.GNUTranslations:
    """The compiled catalogues of one language (once per process): the messages of the
    code (``messages.po``, kept with Babel's extract/update) falling back to the names of
    catalogue ids (``codes.po``: cards, roles, reasons… — data, so edited by hand)."""
    messages = _compile(language, DOMAIN)
    messages.add_fallback(_compile(language, CODES_DOMAIN))
    return messages


@dataclass(frozen=True, slots=True)
class Translator:
    """Words in one language; ``t.gettext`` is aliased ``_`` by callers."""

    language: str

    def gettext(self, message: str, /, **kwargs: object) -> str:
        text = translations(self.language).gettext(message)
        return text.format(**kwargs) if kwargs else text

    def ngettext(self, singular: str, plural: str, n: int, /, **kwargs: object) -> str:
        text = translations(self.language).ngettext(singular, plural, n)
        return text.format(n=n, **kwargs)

    def pgettext(self, context: str, message: str) -> str:
        return translations(self.language).pgettext(context, message)

    def card(self, card_id: str) -> str:
        return self._coded("card", card_id)

    def role(self, role_id: str | None) -> str:
        return self._coded("role", role_id or "UNKNOWN")

    def reason(self, code: str) -> str:
        return self._coded("reason", code)

    def tool(self, tool: str) -> str:
        return self._coded("tool", tool)

    def _coded(self, context: str, code: str) -> str:
        key = str(code)
        text = self.pgettext(context, key)
        if text == key:  # unknown id: try upper-case form, else show the id readably
            upper = self.pgettext(context, key.upper())
            if upper != key.upper():
                return upper
            return key.replace("_", " ").lower()
        return text


def translator(language: str | None, default: str | None = "en") -> Translator:
    return Translator(normalize_language(language, default))


def N_(message: str) -> str:
    """Mark a string for extraction without translating it here."""
    return message
