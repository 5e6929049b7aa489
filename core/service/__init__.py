"""GameService: lobbies, seats, moves, timers and computer seats (CONTRACTS.md §3)."""

from __future__ import annotations

from core.service.models import (
    ChatKey,
    SeatInfo,
    ServiceConfig,
    ServiceError,
    SubmitResult,
    TurnWarning,
    UserRef,
)
from core.service.service import GameService, new_game_id
from core.store import STORE_UNAVAILABLE

__all__ = [
    "STORE_UNAVAILABLE",
    "ChatKey",
    "GameService",
    "SeatInfo",
    "ServiceConfig",
    "ServiceError",
    "SubmitResult",
    "TurnWarning",
    "UserRef",
    "new_game_id",
]
