"""The pure Saboteur rules engine (classic and Saboteur 2); see docs/CONTRACTS.md §1.

Public log entries (`apply_move` events, `public_log`, the view's `log`) are dicts with
"seq", "seat" (None for the table itself) and "code", plus per code:

- path_placed: card, x, y, rotated            - goal_revealed: goal, x, y, card, rotated, kind
- tool_broken: card, target_seat, tool        - tool_repaired: card, target_seat, tool
- rockfall: card, x, y, removed               - map_used: card, goal (never what was seen)
- passed: count [, timeout]                   - discarded_to_remove: count, remove
- theft_laid: card                            - hands_off / freed / trapped: card, target_seat
- hands_swapped / inspected / hats_swapped: card, target_seat (never the roles)
- stole: target_seat (None: nobody had gold) [, timeout]
- ready (a seat confirmed "next round")       - round_started: round, start_seat
- round_ended: round, winners, winning_seats, roles, gold_goal, reached_by, route
- game_finished: gold (per seat), winners (seats sharing the top total)

`winners` labels: classic "diggers" | "saboteurs" | "selfish_dwarf"; Saboteur 2 "blue" |
"green" | "blue+green" | "saboteurs".
"""

from .cards import CATALOGUE, CardDef
from .catalogue import CURRENT as CURRENT_CATALOGUE
from .catalogue import Catalogue
from .catalogue import resolve as resolve_catalogue
from .codec import state_from_json, state_to_json
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
from .moves import legal_moves
from .position import position_of, state_from_position
from .reasons import (
    CatalogueError,
    IllegalMove,
    MoveFormatError,
    PositionError,
    Reason,
    StateError,
)
from .state import GameState
from .views import view_for

__all__ = [
    "CATALOGUE",
    "CURRENT_CATALOGUE",
    "CardDef",
    "Catalogue",
    "CatalogueError",
    "ConfigError",
    "GameConfig",
    "GameState",
    "IllegalMove",
    "MoveFormatError",
    "PositionError",
    "Reason",
    "StateError",
    "actor",
    "apply_move",
    "apply_timeout",
    "legal_moves",
    "new_game",
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
