"""Every move type the engine knows, and the tables derived from their declarations.

Importing the three modules that declare moves (registry.declare) completes the registry;
every table below is derived from it, never written by hand.
"""

from __future__ import annotations

from collections.abc import Callable

from . import actions, expansion, flow
from .cards import CARD_LIST
from .codes import Phase
from .registry import FLOW_EVENTS, MOVES, EventSpec, MoveSpec, Play, front_ids

assert actions and expansion and flow  # imported for their declarations

SPECS: tuple[MoveSpec, ...] = tuple(sorted(MOVES.values(), key=lambda s: s.number))
# the log events written in positional form, by stored code number
LOG_EVENTS: tuple[EventSpec, ...] = tuple(
    sorted(
        (e for s in SPECS for e in s.events if e.number is not None), key=lambda e: e.number or 0
    )
)
EVENTS: tuple[EventSpec, ...] = (*LOG_EVENTS, *FLOW_EVENTS)


def _check() -> None:
    """Stored numbers are append-only tables: 0, 1, 2, ... without a gap or a repeat."""
    numbers = [s.number for s in SPECS]
    if numbers != list(range(len(SPECS))):
        raise ValueError(f"move numbers are not 0..{len(SPECS) - 1}: {numbers}")
    codes = [e.number for e in LOG_EVENTS]
    if codes != list(range(len(LOG_EVENTS))):
        raise ValueError(f"log event numbers are not 0..{len(LOG_EVENTS) - 1}: {codes}")
    if len({e.code for e in EVENTS}) != len(EVENTS):
        raise ValueError("an event code is declared twice")
    effects = [s.effect for s in SPECS if s.effect]
    if len(set(effects)) != len(effects):
        raise ValueError("an effect is played by two move types")
    missing = {c.kind for c in CARD_LIST if c.category == "action"} - set(effects)
    if missing:
        raise ValueError(f"no move type plays the effect(s) {sorted(missing)}")


_check()

# move type -> field names, in API.md's order (the service's move log stores them so)
FIELDS: dict[str, tuple[str, ...]] = {s.type: s.field_names for s in SPECS}
# the move type that plays each action-card effect
EFFECT_MOVE: dict[str, str] = {s.effect: s.type for s in SPECS if s.effect}
# log event code -> fields of its positional stored form (in code-number order)
LOG_FIELDS: dict[str, tuple[str, ...]] = {e.code: e.fields for e in LOG_EVENTS}
# every event code -> its fields (besides seq, seat and code; "timeout" may be added)
EVENT_FIELDS: dict[str, tuple[str, ...]] = {e.code: e.fields for e in EVENTS}
# the cards that lie in front of a seat once played
FRONT_IDS = front_ids()
# action-card moves whose card goes to the discard pile (the others leave it in front of a
# seat; a path card stays in the maze)
TO_DISCARD = frozenset(s.type for s in SPECS if s.effect and not s.stays_in_front)
_PATH = next(s for s in SPECS if s.path)


def _spec_of(idx: int) -> MoveSpec | None:
    c = CARD_LIST[idx]
    if c.category == "path":
        return _PATH
    if c.category == "action":
        return MOVES[EFFECT_MOVE[c.kind]]
    return None


# per catalogue index: the move type that plays the card (None: start and goal cards) and
# its legal-move generator
PLAYED_WITH: tuple[str | None, ...] = tuple(
    s.type if s else None for s in map(_spec_of, range(len(CARD_LIST)))
)
LEGAL_BY_CARD: tuple[Callable[..., object] | None, ...] = tuple(
    s.legal if s else None for s in map(_spec_of, range(len(CARD_LIST)))
)
# moves made with the hand as a whole (discards), in order; moves made outside play by phase
HAND_MOVES: tuple[MoveSpec, ...] = tuple(s for s in SPECS if s.play is Play.HAND)
PHASE_MOVES: dict[str, MoveSpec] = {s.phase: s for s in SPECS if s.play is Play.PHASE}
assert set(PHASE_MOVES) == {Phase.STEALING, Phase.ROUND_OVER}
