"""A round's card table: which card lies at which position, and each position's id.

All cards of a round are identified by their position in that round's table: the draw
pile is the suffix `cards[drawn:]`, hands hold positions.  The table is part of the state
(stored with it), so a stored game keeps its cards whatever the catalogue becomes.  The
instance ids are derived from the seed, the round and the table's length only: one
`getrandbits(25)` each from the round's generator after the deck's shuffle, whose draws do
not depend on the cards shuffled, so the ids of a stored table are those it was dealt with.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from functools import lru_cache

from .catalogue import Catalogue

ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"
# Every pair of ALPHABET letters, indexed by 10 random bits.
_PAIRS = tuple(a + b for a in ALPHABET for b in ALPHABET)


def rng_for(seed: int, *parts: object) -> random.Random:
    """A generator for one purpose, derived from the game's seed only."""
    return random.Random(":".join([str(seed), *map(str, parts)]))


@dataclass(frozen=True, slots=True)
class Table:
    """One round's cards: instance id and engine card index per position, and the cards
    as the state's catalogue stores them (`code`)."""

    iids: tuple[str, ...]
    cards: tuple[int, ...]
    pos_of: dict[str, int] = field(compare=False, hash=False, repr=False)
    code: str = field(compare=False, repr=False)

    @property
    def positions(self) -> frozenset[int]:
        return _positions(len(self.cards))


@lru_cache(maxsize=16)
def _positions(n: int) -> frozenset[int]:
    return frozenset(range(n))


def _draw_ids(rng: random.Random, n: int) -> dict[str, int]:
    """n distinct ids (5 letters from one `getrandbits(25)`; a repeat is drawn again)."""
    bits = rng.getrandbits
    pairs, letters = _PAIRS, ALPHABET
    pos_of: dict[str, int] = {}
    while len(pos_of) < n:
        b = bits(25)
        iid = pairs[b >> 15] + pairs[(b >> 5) & 1023] + letters[b & 31]
        if iid not in pos_of:
            pos_of[iid] = len(pos_of)
    return pos_of


@lru_cache(maxsize=1024)
def dealt_table(cat: Catalogue, seed: int, round_no: int, edition: str) -> Table:
    """The round's deal: the catalogue's deck shuffled by the round's generator."""
    rng = rng_for(seed, round_no, "deck")
    cards = list(cat.decks[edition])
    rng.shuffle(cards)
    pos_of = _draw_ids(rng, len(cards))
    dealt = tuple(cards)
    return Table(tuple(pos_of), dealt, pos_of, cat.table_code(dealt))


@lru_cache(maxsize=1024)
def _ids(seed: int, round_no: int, n: int) -> dict[str, int]:
    rng = rng_for(seed, round_no, "deck")
    rng.shuffle([0] * n)  # the same draws as the deck's shuffle
    return _draw_ids(rng, n)


def table_of(cat: Catalogue, seed: int, round_no: int, cards: tuple[int, ...]) -> Table:
    """A table holding `cards` (engine indices), with the ids its seed and round give."""
    pos_of = _ids(seed, round_no, len(cards))
    return Table(tuple(pos_of), cards, pos_of, cat.table_code(cards))


@lru_cache(maxsize=1024)
def stored_table(cat: Catalogue, seed: int, round_no: int, code: str) -> Table:
    """A table as a stored state holds it (CatalogueError: a card not in `cat`)."""
    cards = cat.table_cards(code)
    pos_of = _ids(seed, round_no, len(cards))
    return Table(tuple(pos_of), cards, pos_of, code)
