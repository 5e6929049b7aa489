"""miniapp/static/i18n.js: the three dictionaries have the same keys, and each Chinese one
is written in its own script (the page has no catalogue tooling to catch either)."""

from __future__ import annotations

import re
from pathlib import Path

import opencc
import pytest

SOURCE = (Path(__file__).resolve().parents[2] / "miniapp" / "static" / "i18n.js").read_text(
    encoding="utf-8")
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
    code = STRING.sub(lambda m: '""' if not m.string[m.end():].lstrip().startswith(":")
                      else m.group(0), _block(name))
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
