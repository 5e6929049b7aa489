"""Game state (immutable) and the per-round card table.

All cards of a round are identified by their position in that round's shuffled card
table, which is derived from the seed (so it is never stored): the draw pile is the
suffix `table[drawn:]`, hands hold positions, and each position has an opaque instance id.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from functools import lru_cache
from typing import Any

from .board import Board
from .cards import CARD_LIST, deck_cards
from .config import GameConfig
from .log import Log

REMOVED_S2 = 10
ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"


@dataclass(frozen=True, slots=True)
class Table:
    """One round's shuffled cards: instance id and catalogue index per position."""

    iids: tuple[str, ...]
    cards: tuple[int, ...]
    pos_of: dict[str, int] = field(compare=False, hash=False)


def rng_for(seed: int, *parts: object) -> random.Random:
    """A generator for one purpose, derived from the game's seed only."""
    return random.Random(":".join([str(seed), *map(str, parts)]))


# Every pair of ALPHABET letters, indexed by 10 random bits.
_PAIRS = tuple(a + b for a in ALPHABET for b in ALPHABET)


@lru_cache(maxsize=1024)
def round_table(seed: int, round_no: int, edition: str) -> Table:
    """The round's shuffled cards and their instance ids.

    An id is 5 letters of a 32-letter alphabet made from one `getrandbits(25)` of the
    round's own generator (drawn after the shuffle, so ids say nothing about deck order);
    a repeat within the round is drawn again.  One call per id instead of five
    `choice` calls: this runs at every round start."""
    rng = rng_for(seed, round_no, "deck")
    cards = deck_cards(edition)
    rng.shuffle(cards)
    bits = rng.getrandbits
    pairs, letters = _PAIRS, ALPHABET
    pos_of: dict[str, int] = {}
    n = len(cards)
    while len(pos_of) < n:
        b = bits(25)
        iid = pairs[b >> 15] + pairs[(b >> 5) & 1023] + letters[b & 31]
        if iid not in pos_of:
            pos_of[iid] = len(pos_of)
    return Table(tuple(pos_of), tuple(cards), pos_of)


@dataclass(frozen=True, slots=True)
class RoundState:
    number: int
    table: Table = field(compare=False, repr=False)
    drawn: int  # next position of the draw pile
    hands: tuple[tuple[int, ...], ...]
    roles: tuple[str, ...]
    role_pool: tuple[str, ...]  # role cards set aside (hidden)
    board: Board
    discard: tuple[int, ...]  # catalogue indices, in order
    in_front: tuple[tuple[str, ...], ...]  # catalogue ids lying in front of each seat
    known_goals: tuple[tuple[int, ...], ...]  # per seat, goal indices looked at (sorted)
    known_roles: tuple[tuple[tuple[int, str, bool], ...], ...]  # per seat: (seat, role, stale)
    current: int | None  # seat to act (playing) or thief (stealing)
    start_seat: int
    last_mover: int | None = None
    theft_laid: tuple[int, ...] = ()  # per seat, seq when its theft card was laid (-1)
    thieves: tuple[int, ...] = ()  # stealing phase: thieves still to act, in order
    reached_by: int | None = None
    result: dict[str, Any] | None = None

    def card_of(self, pos: int) -> int:
        return self.table.cards[pos]

    def deck_size(self) -> int:
        return len(self.table.cards) - self.drawn


@dataclass(frozen=True, slots=True)
class GameState:
    config: GameConfig
    seed: int
    seq: int
    phase: str  # playing | stealing | round_over | finished
    gold: tuple[int, ...]
    nuggets: str  # classic nugget pile, top first, one digit per card (values 0..3)
    rs: RoundState
    log: Log  # public entries (dicts); see log.py
    results: tuple[dict[str, Any], ...] = ()  # one per finished round (private parts inside)
    ready: frozenset[int] = frozenset()

    @property
    def round(self) -> int:
        return self.rs.number

    @property
    def n(self) -> int:
        return self.config.players


def card_id(idx: int) -> str:
    return CARD_LIST[idx].id


def _make_evolver(cls: type) -> Callable[[Any, dict[str, Any]], Any]:
    """Build a field-by-field copier for `cls` (the same technique dataclasses uses for
    __init__): a move changes a handful of fields, and copying the rest slot by slot is
    several times cheaper than `dataclasses.replace`, which re-runs __init__.  Each slot is
    written through its member descriptor's setter, a third cheaper than
    `object.__setattr__` by name."""
    lines = ["def evolve(obj, changes):", "    new = _new(_cls)"]
    setters = {f.name: cls.__dict__[f.name].__set__ for f in fields(cls)}
    namespace: dict[str, Any] = {"_new": object.__new__, "_cls": cls, "_setters": setters}
    for n, setter in setters.items():
        # the slot's own setter: no attribute lookup by name, no frozen-class __setattr__
        namespace[f"_set_{n}"] = setter
        lines.append(f"    _set_{n}(new, obj.{n})")
    lines.append("    for k, v in changes.items():")
    lines.append("        _setters[k](new, v)")
    lines.append("    return new")
    exec("\n".join(lines), namespace)
    fn: Callable[[Any, dict[str, Any]], Any] = namespace["evolve"]
    return fn


_EVOLVERS = {cls: _make_evolver(cls) for cls in (RoundState, GameState)}


def evolve(obj: Any, **changes: Any) -> Any:
    """`dataclasses.replace` for the two state classes, without re-running __init__."""
    return _EVOLVERS[type(obj)](obj, changes)


def evolve_with(obj: Any, changes: dict[str, Any]) -> Any:
    """`evolve` with the changes already in a dict (a move's scratch collects them)."""
    return _EVOLVERS[type(obj)](obj, changes)
