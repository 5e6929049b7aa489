"""Game state (immutable): the game, the round in progress and its card table (deal.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, TypeVar

from .board import Board
from .catalogue import CURRENT, Catalogue
from .config import GameConfig
from .deal import Table
from .shapes import RoundResultDict

if TYPE_CHECKING:  # log.py reads the move declarations, whose handlers use the state
    from .log import Log


@dataclass(frozen=True, slots=True)
class RoundState:
    number: int
    table: Table = field(repr=False)
    drawn: int  # next position of the draw pile
    hands: tuple[tuple[int, ...], ...]
    roles: tuple[str, ...]
    role_pool: tuple[str, ...]  # role cards set aside (hidden)
    board: Board
    discard: tuple[int, ...]  # engine card indices, in order
    in_front: tuple[tuple[str, ...], ...]  # catalogue ids lying in front of each seat
    known_goals: tuple[tuple[int, ...], ...]  # per seat, goal indices looked at (sorted)
    known_roles: tuple[tuple[tuple[int, str, bool], ...], ...]  # per seat: (seat, role, stale)
    current: int | None  # seat to act (playing) or thief (stealing)
    start_seat: int
    last_mover: int | None = None
    theft_laid: tuple[int, ...] = ()  # per seat, seq when its theft card was laid (-1)
    thieves: tuple[int, ...] = ()  # stealing phase: thieves still to act, in order
    reached_by: int | None = None
    result: RoundResultDict | None = None

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
    results: tuple[dict[str, object], ...] = ()  # one per finished round (private parts inside)
    ready: frozenset[int] = frozenset()
    catalogue: Catalogue = CURRENT  # the catalogue the game is dealt from

    @property
    def round(self) -> int:
        return self.rs.number

    @property
    def n(self) -> int:
        return self.config.players


def _make_evolver(cls: type) -> Callable[[Any, dict[str, object]], Any]:
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
    fn: Callable[[Any, dict[str, object]], object] = namespace["evolve"]
    return fn


_EVOLVERS = {cls: _make_evolver(cls) for cls in (RoundState, GameState)}
_S = TypeVar("_S", RoundState, GameState)


def evolve(obj: _S, **changes: object) -> _S:
    """`dataclasses.replace` for the two state classes, without re-running __init__."""
    new: _S = _EVOLVERS[type(obj)](obj, changes)
    return new


def evolve_with(obj: _S, changes: dict[str, object]) -> _S:
    """`evolve` with the changes already in a dict (a move's scratch collects them)."""
    new: _S = _EVOLVERS[type(obj)](obj, changes)
    return new
