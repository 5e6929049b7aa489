"""Move declarations: each move type is declared once, next to its handler (docs/ADDING_A_CARD.md).

A declaration (`MoveSpec`) says everything the engine and its storage need to know about a
move type: its fields and their kinds, the action-card effect it plays, whether the card
then stays in front of a seat, the log events it writes and their fields, its legal-move
generator and its handler, and its stored numbers.  `moveset.py` gathers the declarations
and derives every other table from them (move format, dispatch, log codec, the service's
move log, the API's list of move types).

Stored numbers are positions in append-only tables (the move log's move-type codes, the
state log's event codes): a new move type or event takes the next free number, and a
number is never reused or changed (tests/core/engine/test_engine_registry.py pins them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any

from .cards import CARD_LIST
from .codes import EventCode, FieldKind, Phase


class Play(Enum):
    """How a move is made, which decides its handler's and generator's signatures."""

    CARD = "card"  # one card of the hand is played: handler(turn, move, card index)
    HAND = "hand"  # cards of the hand are discarded: handler(turn, move)
    PHASE = "phase"  # no card (stealing, round over): handler(state, seat, move, timeout)


@dataclass(frozen=True, slots=True)
class EventSpec:
    """A log event: its code, its fields in stored order, its stored code number (None:
    stored as a plain dict, for the round's and the game's own events)."""

    code: str
    fields: tuple[str, ...]
    number: int | None


@dataclass(frozen=True, slots=True)
class MoveSpec:
    type: str  # a MoveType (a str, so that a test may declare a move of its own)
    number: int  # stored number in the service's move log
    phase: Phase  # the phase it is made in
    play: Play
    fields: tuple[tuple[str, FieldKind], ...]  # after "type", in API.md's order
    events: tuple[EventSpec, ...]  # what it writes to the public log
    handler: Callable[..., Any]
    # CARD: legal(state, rs, seat, iid, idx, out); HAND: legal(state, rs, seat, iids, out);
    # PHASE: legal(state, seat) -> moves
    legal: Callable[..., Any]
    effect: str | None = None  # the action-card effect it plays (cards.json "effect")
    path: bool = False  # played with a path card
    stays_in_front: bool = False  # the card played lies in front of a seat afterwards

    @property
    def field_names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.fields)


MOVES: dict[str, MoveSpec] = {}
_FRONT: list[frozenset[str]] = []


def declare(spec: MoveSpec) -> MoveSpec:
    """Add a move type (its module's import declares it; moveset.py imports them all)."""
    if spec.type in MOVES:
        raise ValueError(f"move type {spec.type} declared twice")
    MOVES[spec.type] = spec
    _FRONT.clear()
    return spec


def front_ids() -> frozenset[str]:
    """The cards that lie in front of a seat once played (and so may be removed)."""
    if not _FRONT:
        effects = {s.effect for s in MOVES.values() if s.stays_in_front}
        _FRONT.append(
            frozenset(c.id for c in CARD_LIST if c.category == "action" and c.kind in effects)
        )
    return _FRONT[0]


# The round's and the game's own events (written by the flow, stored as plain dicts).
FLOW_EVENTS = (
    EventSpec(EventCode.ROUND_STARTED, ("round", "start_seat"), None),
    EventSpec(
        EventCode.ROUND_ENDED,
        ("round", "winners", "winning_seats", "roles", "gold_goal", "reached_by", "route"),
        None,
    ),
    EventSpec(EventCode.GAME_FINISHED, ("gold", "winners"), None),
)
