"""Hand-made views (API.md shape) for the agent tests that need no engine."""

from __future__ import annotations

from typing import Any

from core.ai.board_model import Board
from core.ai.cards import ACTIONS, PATHS
from core.ai.policy import fits


def make_view(
    board: dict[tuple[int, int], tuple[str, bool]],
    hand: list[str],
    *,
    role: str = "GOLD_DIGGER",
    seat: int = 0,
    players: int = 5,
    known_goals: list[dict[str, Any]] | None = None,
    log: list[dict[str, Any]] | None = None,
    in_front: dict[int, list[str]] | None = None,
    edition: str = "classic",
    deck_size: int = 30,
) -> dict[str, Any]:
    """A playing-phase view of `seat`, with legal moves computed by the test helper."""
    in_front = in_front or {}
    view: dict[str, Any] = {
        "status": "playing",
        "edition": edition,
        "options": {},
        "round": 1,
        "rounds": 3,
        "you": {
            "seat": seat,
            "role": role,
            "gold": 0,
            "hand": [{"id": f"c{k}", "card": c} for k, c in enumerate(hand)],
            "known_goals": known_goals or [],
            "known_roles": [],
        },
        "seats": [
            {
                "seat": s,
                "hand_size": 5,
                "in_front": list(in_front.get(s, [])),
                "has_gold": None,
                "role": None,
                "gold": None,
            }
            for s in range(players)
        ],
        "board": [{"x": x, "y": y, "card": c, "rotated": r} for (x, y), (c, r) in board.items()],
        "goals": [
            {"goal": i, "x": 8, "y": y, "revealed": False, "kind": None}
            for i, y in enumerate((-2, 0, 2))
        ],
        "deck_size": deck_size,
        "discard_size": 0,
        "current_seat": seat,
        "log": list(log or []),
        "round_result": None,
    }
    b = Board.from_view(view)
    broken = any(c.startswith("BREAK_") or c == "TRAPPED" for c in in_front.get(seat, []))
    moves: list[dict[str, Any]] = []
    for k, c in enumerate(hand):
        iid = f"c{k}"
        if c in PATHS and not broken:
            for x in range(-3, 11):
                for y in range(-5, 6):
                    for r in (False,) if PATHS[c].symmetric else (False, True):
                        if fits(b, x, y, c, r):
                            moves.append(
                                {"type": "place_path", "card": iid, "x": x, "y": y, "rotated": r}
                            )
        effect = ACTIONS.get(c, ("", ()))[0]
        if effect == "map":
            moves += [{"type": "map", "card": iid, "goal": g} for g in range(3)]
        elif effect == "break":
            moves += [
                {"type": "break_tool", "card": iid, "target_seat": t}
                for t in range(players)
                if t != seat
            ]
        elif effect == "repair":
            for t in range(players):
                for tool in ACTIONS[c][1]:
                    if f"BREAK_{tool.upper()}" in in_front.get(t, []):
                        moves.append(
                            {"type": "repair_tool", "card": iid, "target_seat": t, "tool": tool}
                        )
        elif effect == "rockfall":
            for (x, y), (card, _) in board.items():
                if PATHS[card].kind not in ("start", "goal"):
                    moves.append({"type": "rockfall", "card": iid, "x": x, "y": y})
        moves.append({"type": "discard", "cards": [iid]})
    view["legal_moves"] = moves
    return view


START = {(0, 0): ("S1_START", False)}
