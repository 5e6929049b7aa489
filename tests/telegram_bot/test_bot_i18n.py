"""Catalogues: every message of the bot, every reason code, card, role, option and side has
a translation in each language, with the same placeholders; language codes map right."""

from __future__ import annotations

import re
import string
from pathlib import Path

import opencc
import pytest
from babel.messages.extract import extract_from_file
from babel.messages.pofile import read_po

from core.engine import CATALOGUE, Reason
from core.engine import setup as engine_setup
from core.service.lobby_settings import LEVELS, OPTION_SETTINGS
from telegram_bot import i18n

SOURCES = sorted(
    p
    for p in Path(i18n.__file__).parent.glob("*.py")
    if p.name not in ("board_picture.py", "fonts.py", "card_art.py", "main.py")
)
KEYWORDS = {"gettext": None, "ngettext": (1, 2), "pgettext": ((1, "c"), 2)}
SERVICE_CODES = (
    "not_found",
    "chat_busy",
    "not_creator",
    "not_in_lobby",
    "already_started",
    "lobby_full",
    "not_seated",
    "not_enough_players",
    "too_many_players",
    "invalid_config",
    "bad_setting",
    "busy",
    "stale_version",
    "bad_move",
    "already_finished",
    "kicked",
    "not_started",
    "not_finished",
    "game_paused",
)
ROLES = [
    getattr(engine_setup, n)
    for n in ("DIGGER", "SABOTEUR", "SELFISH", "BLUE", "GREEN", "BOSS", "PROFITEER", "GEOLOGIST")
]
SIDES = ("diggers", "saboteurs", "selfish_dwarf", "blue", "green", "blue+green")


def _source_messages() -> list[str | tuple[str, ...]]:
    found: list[str | tuple[str, ...]] = []
    for path in SOURCES:
        for _line, msg, _comments, ctx in extract_from_file("python", str(path), keywords=KEYWORDS):
            if ctx is None and msg not in found:
                found.append(msg)
    return found


def _catalog(language: str, domain: str = i18n.DOMAIN):
    with i18n.po_path(language, domain).open("rb") as f:
        return read_po(f, locale=language)


def _fields(text: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(text) if f}


@pytest.mark.parametrize("language", i18n.LANGUAGES)
def test_every_source_message_is_translated(language: str) -> None:
    catalog = _catalog(language)
    messages = _source_messages()
    assert len(messages) > 100
    for msg in messages:
        key = msg[0] if isinstance(msg, tuple) else msg
        entry = catalog.get(key)
        assert entry is not None, f"{language}: missing {key!r}"
        strings = entry.string if isinstance(entry.string, tuple) else (entry.string,)
        assert all(strings), f"{language}: untranslated {key!r}"
        for s in strings:
            assert _fields(s) <= _fields(key) | {"n"}, (language, key, s)
            assert _fields(key) - {"n"} <= _fields(s), (language, key, s)


@pytest.mark.parametrize("domain", [i18n.DOMAIN, i18n.CODES_DOMAIN])
@pytest.mark.parametrize("language", i18n.LANGUAGES)
def test_every_catalogue_entry_is_translated(language: str, domain: str) -> None:
    catalog = _catalog(language, domain)
    for entry in catalog:
        if not entry.id:
            continue
        strings = entry.string if isinstance(entry.string, tuple) else (entry.string,)
        assert all(strings), f"{language}: {entry.context}/{entry.id!r} has no translation"


@pytest.mark.parametrize("language", i18n.LANGUAGES)
def test_codes_cards_roles_have_words(language: str) -> None:
    t = i18n.Translator(language)
    for code in [r.value for r in Reason] + list(SERVICE_CODES):
        assert t.pgettext("reason", code) != code, (language, code)
    for card in CATALOGUE:
        assert t.pgettext("card", card) != card, (language, card)
    for role in ROLES:
        assert t.pgettext("role", role) != role, (language, role)
    for option in {s.name for s in OPTION_SETTINGS}:
        assert t.pgettext("option", option) != option
    for side in SIDES:
        assert t.pgettext("side", side) != side
    for tool in ("pickaxe", "lantern", "cart"):
        assert language == "en" or t.pgettext("tool", tool) != tool
    for level in LEVELS:  # the service's computer levels
        assert t.pgettext("level", level) != level, (language, level)


def test_chinese_is_really_chinese() -> None:
    hans, hant = i18n.Translator("zh_Hans"), i18n.Translator("zh_Hant")
    assert re.search(r"[\u4e00-\u9fff]", hans.reason("not_your_turn"))
    assert hans.role("SABOTEUR") == "破坏者" and hant.role("SABOTEUR") == "破壞者"
    passed = hans.ngettext(
        "{who} passed (discarded {n} card).", "{who} passed (discarded {n} cards).", 2, who="甲"
    )
    assert passed == "甲 跳过（弃了 2 张牌）。"
    en = i18n.Translator("en")
    assert (
        en.ngettext(
            "{who} passed (discarded {n} card).", "{who} passed (discarded {n} cards).", 1, who="Al"
        )
        == "Al passed (discarded 1 card)."
    )


@pytest.mark.parametrize("domain", [i18n.DOMAIN, i18n.CODES_DOMAIN])
@pytest.mark.parametrize(("language", "config"), [("zh_Hans", "t2s"), ("zh_Hant", "s2tw")])
def test_each_chinese_catalogue_is_in_its_own_script(
    language: str, config: str, domain: str
) -> None:
    """No Simplified character in the Traditional catalogue and no Traditional one in the
    Simplified: converting a translation into its own script (OpenCC) changes nothing."""
    convert = opencc.OpenCC(config).convert
    checked = 0
    for entry in _catalog(language, domain):
        strings = entry.string if isinstance(entry.string, tuple) else (entry.string,)
        for text in filter(None, strings) if entry.id else ():
            assert convert(text) == text, (language, entry.id, text, convert(text))
            checked += 1
    assert checked > 40


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("en", "en"),
        ("en-GB", "en"),
        (None, "en"),
        ("de", "en"),
        ("zh-hans", "zh_Hans"),
        ("zh-CN", "zh_Hans"),
        ("zh-sg", "zh_Hans"),
        ("zh", "zh_Hans"),
        ("zh-hant", "zh_Hant"),
        ("zh-TW", "zh_Hant"),
        ("zh-hk", "zh_Hant"),
        ("zh_Hant", "zh_Hant"),
        ("zh_Hans", "zh_Hans"),
    ],
)
def test_language_codes(code: str | None, expected: str) -> None:
    assert i18n.normalize_language(code) == expected


def test_default_language_applies_to_unknown_codes() -> None:
    assert i18n.normalize_language("fr", "zh-hant") == "zh_Hant"
    assert i18n.normalize_language(None, "zh-hans") == "zh_Hans"
