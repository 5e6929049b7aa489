"""miniapp/static/i18n.js: the three dictionaries have the same keys, and each Chinese one
is written in its own script (the page has no catalogue tooling to catch either)."""

from __future__ import annotations

import re
from pathlib import Path

import opencc
import pytest

SOURCE = (Path(__file__).resolve().parents[2] / "miniapp" / "static" / "i18n.js").read_text(
    encoding="utf-8"
)
STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


def _block(name: str) -> str:
    """The text of the object literal ``const NAME = {...};``."""
    found = re.search(rf"^const {name} = \{{(.*?)^\}};", SOURCE, re.S | re.M)
    assert found is not None, name
    return found.group(1)


def _strings(name: str) -> list[str]:
    return STRING.findall(_block(name))


def _keys(name: str) -> list[str]:
    """Every key in order, nested ones included (string values blanked out first, so that
    a colon inside a text is not taken for a key)."""
    code = STRING.sub(
        lambda m: '""' if not m.string[m.end() :].lstrip().startswith(":") else m.group(0),
        _block(name),
    )
    return re.findall(r'([A-Za-z_]\w*|"[^"]*")\s*:', code)


def test_the_dictionaries_have_the_same_keys() -> None:
    en = _keys("EN")
    assert len(en) > 100 and "computerN" in en
    for name in ("HANS", "HANT"):
        assert sorted(_keys(name)) == sorted(en), name


@pytest.mark.parametrize(("name", "config"), [("HANS", "t2s"), ("HANT", "s2tw")])
def test_each_chinese_dictionary_is_in_its_own_script(name: str, config: str) -> None:
    convert = opencc.OpenCC(config).convert
    texts = _strings(name)
    assert len(texts) > 100
    for text in texts:
        assert convert(text) == text, (name, text, convert(text))


def _entries(name: str, group: str) -> dict[str, str]:
    """``group: { KEY: "text", ... }`` inside dictionary ``name`` (braces inside the texts,
    such as ``{who}``, do not end it)."""
    code = _block(name)
    found = re.search(rf"\b{group}: \{{", code)
    assert found is not None, (name, group)
    depth, i, end = 1, found.end(), len(code)
    while depth and i < end:
        if code[i] == '"':
            i = code.index('"', i + 1)
        elif code[i] in "{}":
            depth += 1 if code[i] == "{" else -1
        i += 1
    body = code[found.end() : i - 1]
    return {k.strip('"'): v for k, v in re.findall(r'("[^"]+"|\w+): "([^"]*)"', body)}


@pytest.mark.parametrize(("name", "language"), [("HANS", "zh_Hans"), ("HANT", "zh_Hant")])
def test_the_page_and_the_bot_use_the_same_chinese_words(name: str, language: str) -> None:
    """A player reads both (the group, their private chat, the Mini App): the game's
    name, the winning sides, the levels and the tools are the same words everywhere (card
    and role names come from the bot's catalogue itself: see the test below)."""
    from telegram_bot.i18n import Translator

    t = Translator(language)
    assert _strings(name)[0] == t.gettext("Saboteur")  # the dictionary's first text: title
    assert len(_entries(name, "win")) == 6
    for side, text in _entries(name, "win").items():
        assert text == t.pgettext("side", side), side
    levels = _entries(name, "levels")
    assert set(levels) == {"easy", "normal", "hard"}
    for level, text in levels.items():
        assert text == t.pgettext("level", level), level
    for tool in ("pickaxe", "lantern", "cart"):
        text = re.search(rf'\b{tool}: "([^"]*)"', _block(name))
        assert text is not None and text.group(1) == t.tool(tool), tool


@pytest.mark.parametrize("name", ["EN", "HANS", "HANT"])
def test_every_refusal_has_words(name: str) -> None:
    """The page says why a move or a lobby action was refused in the reader's language:
    every engine reason, every service code the API passes on, and its own 429 and 503."""
    from core.engine import Reason
    from miniapp.errors import STATUS_CODES
    from miniapp.service_adapter import STATUS_OF_CODE

    codes = (
        {r.value for r in Reason} | set(STATUS_OF_CODE) | {STATUS_CODES[429], "store_unavailable"}
    )
    words = _entries(name, "reasons")
    assert codes <= set(words), sorted(codes - set(words))
    assert all(words.values())


@pytest.mark.parametrize("name", ["EN", "HANS", "HANT"])
def test_every_log_entry_has_words(name: str) -> None:
    """The page's log tells every engine event in the reader's language (an unknown code
    would show as the raw code)."""
    from core.engine.log import CODES

    words = _entries(name, "logc")
    assert set(CODES) <= set(words), sorted(set(CODES) - set(words))
    assert all("{" not in w or "}" in w for w in words.values())


@pytest.mark.parametrize(
    ("code", "language"), [("en", "en"), ("zh-hans", "zh_Hans"), ("zh-hant", "zh_Hant")]
)
def test_the_page_names_cards_and_roles_as_the_bot_does(code: str, language: str) -> None:
    """The page holds no card or role names: the catalogue document brings the bot's own,
    for every card and role, under the page's language code (``LANGS`` in i18n.js)."""
    from core.engine import CATALOGUE, setup
    from miniapp.catalogue import catalogue_document
    from telegram_bot.i18n import Translator

    t = Translator(language)
    page = catalogue_document()["names"][code]
    assert {card: t.card(card) for card in CATALOGUE}.items() <= page["cards"].items()
    ids = (
        setup.DIGGER,
        setup.SABOTEUR,
        setup.SELFISH,
        setup.BLUE,
        setup.GREEN,
        setup.BOSS,
        setup.PROFITEER,
        setup.GEOLOGIST,
    )
    assert {role: t.role(role) for role in ids}.items() <= page["roles"].items()
    assert re.search(rf'\b"?{code}"?: \[', SOURCE), code  # a language of LANGS
    for group in ("cards", "roles"):  # no second copy in the page
        assert not re.search(rf"\b{group}: \{{", SOURCE), group
