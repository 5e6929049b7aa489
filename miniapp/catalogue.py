"""The card catalogue and drawing geometry as one JSON document for the page.

The page draws every card from its catalogue entry (groups, door, ladder, crystals) with the
shared geometry of ``core.look``, so it holds no card art and no card table of its own.
It names cards and roles as the bot does, from ``core.names`` (``names``, by the page's
language codes), so a card has one name in every place a player reads it.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from _typeshed import DataclassInstance


def _fields(value: DataclassInstance) -> dict[str, object]:
    return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}


def _plain(value: object) -> object:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _fields(value)
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | frozenset | set):
        items = [_plain(v) for v in value]
        return sorted(items, key=str) if isinstance(value, frozenset | set) else items
    return value


LETTERS = (("N", 1), ("E", 2), ("S", 4), ("W", 8))


def _letters(mask: int) -> str:
    return "".join(letter for letter, bit in LETTERS if mask & bit)


def card_entry(card: DataclassInstance) -> dict[str, object]:
    """A card as in ``cards.json``: edges and groups as letters (``"NS"``), plus masks."""
    entry = _fields(card)
    mask = entry.get("mask")
    if isinstance(mask, int):
        entry["edges"] = _letters(mask)
    groups = entry.get("groups")
    if isinstance(groups, list) and all(isinstance(g, int) for g in groups):
        entry["group_masks"] = groups
        entry["groups"] = [_letters(g) for g in groups]
    return entry


# the kinds of names the page takes from the catalogue: codes.po context -> the page's table
PAGE_NAMES = {"card": "cards", "role": "roles", "option": "variants"}


def page_names() -> dict[str, dict[str, dict[str, str]]]:
    """``{page language: {table: {id: name}}}``; the page's codes are the API's (``en``,
    ``zh-hans``, ``zh-hant``)."""
    from core.names import API_CODES, names

    return {
        code: {table: dict(names(language).get(kind, {})) for kind, table in PAGE_NAMES.items()}
        for language, code in API_CODES.items()
    }


def catalogue_document() -> dict[str, object]:
    from core.engine import CATALOGUE

    document: dict[str, object] = {"cards": {cid: card_entry(c) for cid, c in CATALOGUE.items()}}
    try:
        from core.look import look_json
    except ImportError:  # the shared geometry has not landed: the page uses its defaults
        document["look"] = None
    else:
        document["look"] = look_json()
    document["names"] = page_names()
    return document
