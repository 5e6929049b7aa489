"""core.names: one catalogue of id names per language, read by the bot and the Mini App."""

from __future__ import annotations

import pytest

from core.engine import CATALOGUE
from core.names import LANGUAGES, codes_po, names


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_card_and_role_has_a_name(language: str) -> None:
    found = names(language)
    assert set(CATALOGUE) <= set(found["card"])  # and the gold cards' STONE_NUGGET
    assert all(found["card"].values()) and len(found["role"]) == 9  # 8 roles and UNKNOWN
    assert {"card", "role", "reason", "tool", "side", "level", "option", "edition"} <= set(found)


def test_the_languages_name_the_same_ids_in_their_own_words() -> None:
    en, hans, hant = (names(language) for language in LANGUAGES)
    for kind in en:
        assert set(en[kind]) == set(hans[kind]) == set(hant[kind]), kind
    maps = (en["card"]["MAP"], hans["card"]["MAP"], hant["card"]["MAP"])
    assert maps == ("Map", "藏宝图", "藏寶圖")


def test_an_unknown_language_is_refused() -> None:
    with pytest.raises(ValueError, match="no names"):
        codes_po("fr")
