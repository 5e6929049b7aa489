"""Computer players: `choose_move(view, level=..., seed=...)`, `beliefs(view)`, and
`decide(state_or_view, seat, level, seed)` for a process pool.

Pure and deterministic: they read the seat's view dict only (API.md), never the game
state, and draw their noise from a `random.Random` seeded by the caller's seed and the
view's position in the game.
"""

from __future__ import annotations

from core.ai.agent import LEVELS, choose_move
from core.ai.beliefs import beliefs
from core.ai.entry import AI_LOG_LIMIT, ai_view, decide

__all__ = ["AI_LOG_LIMIT", "LEVELS", "ai_view", "beliefs", "choose_move", "decide"]
