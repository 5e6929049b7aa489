"""Reason codes and engine exceptions.

The reason list is closed: adapters translate each code into words, so a new code is a
contract change (API.md "reason codes").
"""

from __future__ import annotations

from enum import StrEnum


class Reason(StrEnum):
    """Why a move was refused (machine-readable, stable)."""

    NOT_YOUR_TURN = "not_your_turn"
    CARD_NOT_IN_HAND = "card_not_in_hand"
    TOOL_BROKEN = "tool_broken"
    TRAPPED = "trapped"
    CELL_TAKEN = "cell_taken"
    NO_NEIGHBOUR = "no_neighbour"
    EDGE_MISMATCH = "edge_mismatch"
    NOT_CONNECTED = "not_connected"
    OUT_OF_BOUNDS = "out_of_bounds"
    LADDER_NEXT_TO_GOAL = "ladder_next_to_goal"
    BAD_TARGET = "bad_target"
    NO_SUCH_TOOL_BROKEN = "no_such_tool_broken"
    ALREADY_BROKEN = "already_broken"
    ALREADY_IN_FRONT = "already_in_front"
    GOAL_ALREADY_REVEALED = "goal_already_revealed"
    WRONG_PHASE = "wrong_phase"
    BAD_DISCARD = "bad_discard"
    WRONG_CARD_TYPE = "wrong_card_type"
    BAD_ROTATION = "bad_rotation"
    BAD_TOOL = "bad_tool"
    NOTHING_TO_REMOVE = "nothing_to_remove"
    ALREADY_READY = "already_ready"
    GAME_OVER = "game_over"
    NOT_IN_EDITION = "not_in_edition"
    BAD_SEAT = "bad_seat"


class IllegalMove(Exception):
    """A well-formed move that the rules refuse now."""

    def __init__(self, reason: Reason, message: str = "") -> None:
        super().__init__(f"{reason.value}: {message}" if message else reason.value)
        self.reason = reason
        self.message = message or reason.value


class MoveFormatError(ValueError):
    """A move dict that is not a move at all (missing fields, wrong types)."""


class StateError(ValueError):
    """A stored state that this engine cannot read as a game (malformed or inconsistent)."""


class CatalogueError(StateError):
    """A catalogue this engine cannot resolve: unknown version, or a card it does not know
    (or knows with another connectivity or effect)."""


class PositionError(StateError):
    """A position document that is not a position of this game (the message says why)."""
