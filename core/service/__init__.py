"""GameService: lobbies, seats, moves, timers and computer seats (CONTRACTS.md §3).

The adapters (the bot, the Mini App) call ``GameService`` and nothing below it: health,
claims, budgets, preferences and adapter data are its methods too, and
``STORE_UNAVAILABLE`` names the errors of a store that cannot be reached.
"""

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
from core.service.records import new_game_id
from core.service.service import GameService
from core.store import STORE_FULL, STORE_UNAVAILABLE, Change, SendBudget

__all__ = [
    "STORE_FULL",
    "STORE_UNAVAILABLE",
    "Change",
    "ChatKey",
    "GameService",
    "SeatInfo",
    "SendBudget",
    "ServiceConfig",
    "ServiceError",
    "SubmitResult",
    "TurnWarning",
    "UserRef",
    "new_game_id",
]
