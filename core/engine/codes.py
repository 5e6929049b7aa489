"""The engine's closed vocabularies as string enums: move types, phases, log event codes.

Their values are the strings of the JSON API and of stored states and logs (API.md), so a
member compares and serialises exactly as the bare string did.
"""

from __future__ import annotations

from enum import Enum, StrEnum


class MoveType(StrEnum):
    PLACE_PATH = "place_path"
    BREAK_TOOL = "break_tool"
    REPAIR_TOOL = "repair_tool"
    ROCKFALL = "rockfall"
    MAP = "map"
    THEFT = "theft"
    HANDS_OFF = "hands_off"
    SWAP_HAND = "swap_hand"
    INSPECT = "inspect"
    SWAP_HATS = "swap_hats"
    TRAP = "trap"
    FREE = "free"
    DISCARD = "discard"
    DISCARD_TO_REMOVE = "discard_to_remove"
    STEAL = "steal"
    NEXT_ROUND = "next_round"


class Phase(StrEnum):
    PLAYING = "playing"
    STEALING = "stealing"
    ROUND_OVER = "round_over"
    FINISHED = "finished"


class EventCode(StrEnum):
    PATH_PLACED = "path_placed"
    GOAL_REVEALED = "goal_revealed"
    TOOL_BROKEN = "tool_broken"
    TOOL_REPAIRED = "tool_repaired"
    ROCKFALL = "rockfall"
    MAP_USED = "map_used"
    PASSED = "passed"
    DISCARDED_TO_REMOVE = "discarded_to_remove"
    THEFT_LAID = "theft_laid"
    HANDS_OFF = "hands_off"
    FREED = "freed"
    TRAPPED = "trapped"
    HANDS_SWAPPED = "hands_swapped"
    INSPECTED = "inspected"
    HATS_SWAPPED = "hats_swapped"
    STOLE = "stole"
    READY = "ready"
    ROUND_STARTED = "round_started"
    ROUND_ENDED = "round_ended"
    GAME_FINISHED = "game_finished"


class FieldKind(Enum):
    """What a move field holds (checked once, when the move comes in)."""

    TEXT = "string"
    INT = "integer"
    BOOL = "boolean"
    TEXTS = "list of strings"
    SEAT_OR_NONE = "integer or null"  # may be left out (null)
