"""The pure Saboteur rules engine (classic and Saboteur 2); see docs/CONTRACTS.md §1."""

from .cards import CATALOGUE, CardDef
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
from .reasons import IllegalMove, MoveFormatError, Reason
from .state import GameState
from .views import view_for

__all__ = [
    "CATALOGUE",
    "CardDef",
    "ConfigError",
    "GameConfig",
    "GameState",
    "IllegalMove",
    "MoveFormatError",
    "Reason",
    "actor",
    "apply_move",
    "apply_timeout",
    "legal_moves",
    "new_game",
    "phase",
    "public_log",
    "replay",
    "scores",
    "state_from_json",
    "state_to_json",
    "view_for",
    "waiting_on",
]
