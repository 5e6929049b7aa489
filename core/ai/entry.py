"""One call a worker process can make for a computer seat: `decide(state_or_view, ...)`.

Why: a `hard` decision costs up to a quarter second of CPU, so the service runs it in a
process pool, away from its event loop; the pool needs a top-level, picklable, pure
function. Given the game state it builds the seat's view itself with the round's whole
public log (`AI_LOG_LIMIT` entries, more than a round ever writes), not only the last 50
entries a client view carries: the search draws its worlds from everything the table saw.
"""

from __future__ import annotations

from core.ai.agent import choose_move
from core.engine import GameState, view_for
from core.engine.shapes import MoveDict, ViewDict

AI_LOG_LIMIT = 400  # a classic round writes < 120 entries, a Saboteur 2 round < 250


def ai_view(state: GameState, seat: int) -> ViewDict:
    """The seat's view with the public log long enough to hold the whole round."""
    return view_for(state, seat, log_limit=AI_LOG_LIMIT)


def decide(
    source: GameState | ViewDict,
    seat: int | None = None,
    level: str = "normal",
    seed: int = 0,
) -> MoveDict:
    """One legal move for `seat`: from a game state (with `seat`), or from a view."""
    if isinstance(source, GameState):
        if seat is None:
            raise ValueError("a seat is needed to decide from a game state")
        view: ViewDict = ai_view(source, seat)
    else:
        view = source
        if seat is not None and (view.get("you") or {}).get("seat") != seat:
            raise ValueError(f"this view is not seat {seat}'s")
    return choose_move(view, level=level, seed=seed)
