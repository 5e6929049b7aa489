"""Computer players: `choose_move(view, level=..., seed=...)` and `beliefs(view)`.

Pure and deterministic: they read the seat's view dict only (API.md), never the game
state, and draw their noise from a `random.Random` seeded by the caller's seed and the
view's position in the game.
"""

from __future__ import annotations

from core.ai.agent import LEVELS, choose_move
from core.ai.beliefs import beliefs

__all__ = ["LEVELS", "beliefs", "choose_move"]
