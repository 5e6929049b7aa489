"""The pure Saboteur rules engine (classic and Saboteur 2); see docs/CONTRACTS.md §1.

Public log entries (`apply_move` events, `public_log`, the view's `log`) are dicts with
"seq", "seat" (None for the table itself) and "code" (an EventCode), plus the fields its
event declares (EVENT_SPECS: each move's events are declared with the move, registry.py;
a timeout adds "timeout": true). What they never say: what a map showed, a role inspected
or swapped.

`winners` labels: classic "diggers" | "saboteurs" | "selfish_dwarf"; Saboteur 2 "blue" |
"green" | "blue+green" | "saboteurs".
"""

from .board import GOAL_CELLS
from .cards import CATALOGUE, CardDef
from .catalogue import CURRENT as CURRENT_CATALOGUE
from .catalogue import Catalogue
from .catalogue import resolve as resolve_catalogue
from .codec import state_from_json, state_to_json
from .codes import EventCode, FieldKind, MoveType, Phase
from .config import ConfigError, GameConfig
from .game import (
    actor,
    apply_move,
    apply_timeout,
    new_game,
    phase,
    public_log,
    replay,
    scores,
    waiting_on,
)
from .moves import Move, legal_moves, parse_move
from .moveset import EVENTS as EVENT_SPECS
from .moveset import SPECS as MOVE_SPECS
from .position import position_of, state_from_position
from .reasons import (
    CatalogueError,
    IllegalMove,
    MoveFormatError,
    PositionError,
    Reason,
    StateError,
)
from .registry import EventSpec, MoveSpec
from .state import GameState
from .views import view_for

__all__ = [
    "CATALOGUE",
    "CURRENT_CATALOGUE",
    "EVENT_SPECS",
    "GOAL_CELLS",
    "MOVE_SPECS",
    "CardDef",
    "Catalogue",
    "CatalogueError",
    "ConfigError",
    "EventCode",
    "EventSpec",
    "FieldKind",
    "GameConfig",
    "GameState",
    "IllegalMove",
    "Move",
    "MoveFormatError",
    "MoveSpec",
    "MoveType",
    "Phase",
    "PositionError",
    "Reason",
    "StateError",
    "actor",
    "apply_move",
    "apply_timeout",
    "legal_moves",
    "new_game",
    "parse_move",
    "phase",
    "position_of",
    "public_log",
    "replay",
    "resolve_catalogue",
    "scores",
    "state_from_json",
    "state_from_position",
    "state_to_json",
    "view_for",
    "waiting_on",
]
