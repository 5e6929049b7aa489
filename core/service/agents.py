"""Moves for seats the computer plays: ``core.ai``'s, or a random legal move if it fails.

The seed is derived from the game id and version, so a retried timer picks the same move
and a replay of the log never depends on which worker fired it.
"""

from __future__ import annotations

import hashlib
import logging
import random
from collections.abc import Callable

from core.ai import choose_move
from core.engine.shapes import MoveDict, ViewDict

log = logging.getLogger(__name__)

Chooser = Callable[..., MoveDict]


def move_seed(game_id: str, version: int) -> int:
    digest = hashlib.sha256(f"{game_id}:{version}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def choose(view: ViewDict, *, level: str, seed: int, ai: Chooser | None = None) -> MoveDict | None:
    """One of ``view["legal_moves"]``; None when there is none."""
    legal: list[MoveDict] = [
        m for m in view.get("legal_moves") or [] if m.get("type") != "take_seat_back"
    ]
    if not legal:
        return None
    chooser = ai if ai is not None else choose_move
    try:
        move = chooser(view, level=level, seed=seed)
        if move in legal:
            return move
        log.warning("computer player chose a move outside legal_moves: %r", move)
    except Exception:
        log.exception("computer player failed; playing a random legal move")
    return random.Random(seed).choice(legal)
