"""The shapes of the JSON the engine speaks: moves, log events and views.

They are types only (a `TypedDict` is a plain dict at run time): what mypy checks across
the engine, the computer players, the service and the adapters that read the same views.
A view's keys are the engine's (`view_for`) plus those the service adds (`core.service.
views`); every key is optional to the type checker, since a lobby, an archived game and a
client's own test data each carry a different subset.
"""

from __future__ import annotations

from typing import TypedDict


class MoveDict(TypedDict, total=False):
    """A move (API.md "Moves"): its type and the fields that type declares (registry.py)."""

    type: str
    card: str  # a hand card's instance id
    target_seat: int | None  # None: "steal" from nobody
    x: int
    y: int
    rotated: bool
    tool: str
    goal: int
    cards: list[str]  # hand card instance ids
    remove: str  # a card id in front of the player


class EventFields(TypedDict, total=False):
    """The fields of a log event besides seq, seat and code (registry.py declares which)."""

    version: int  # a view's entries carry the game version instead of seq
    timeout: bool
    card: str  # a card id
    target_seat: int | None
    x: int
    y: int
    rotated: bool
    goal: int
    kind: str
    tool: str
    removed: str
    count: int
    remove: str
    round: int
    start_seat: int
    winners: str | list[int]  # a round's label ("diggers", ...); the game's winning seats
    winning_seats: list[int]
    roles: list[str]
    gold_goal: int
    reached_by: int | None
    route: list[list[int]]
    gold: list[int]


class EventDict(EventFields, total=False):
    """A public log entry: seq, seat (None for the table), code and its event's fields."""

    seq: int
    seat: int | None
    code: str


class RoundResultDict(TypedDict, total=False):
    """What a round's end decided, as a view shows it (`your_*`: the viewer's own)."""

    round: int
    winners: str
    winning_seats: list[int]
    roles: list[str]
    gold_goal: int
    gold_reached: bool
    reached_by: int | None
    route: list[list[int]]
    steals: list[list[int | None]]  # [thief, robbed seat or None]
    crystals: int
    blue_open: bool
    green_open: bool
    winnings: list[int]
    nuggets: list[list[int]]
    your_winnings: int | None
    your_nuggets: list[int] | None


class FinalDict(TypedDict):
    gold: list[int]
    winners: list[int]


class HandCardDict(TypedDict):
    id: str  # the card's instance id (what a move names)
    card: str  # the card id


class KnownGoalDict(TypedDict):
    goal: int
    kind: str  # "gold" | "stone"


class KnownRoleDict(TypedDict):
    seat: int
    role: str
    stale: bool  # the role may have changed since


class YouDict(TypedDict, total=False):
    """The viewer's own facts (all None or empty for a spectator)."""

    seat: int | None
    role: str | None
    hand: list[HandCardDict]
    gold: int | None
    known_goals: list[KnownGoalDict]
    known_roles: list[KnownRoleDict]
    creator: bool  # the service's: the viewer made the lobby


class SeatDict(TypedDict, total=False):
    """One seat as everyone sees it; the engine's keys, then the service's flags."""

    seat: int
    hand_size: int
    in_front: list[str]
    has_gold: bool | None
    role: str | None  # once the round is over
    gold: int | None  # once the game is over
    ready: bool
    name: str
    online: bool
    computer: bool
    away: bool
    left: bool
    kicked: bool
    computer_no: int


class CellDict(TypedDict):
    x: int
    y: int
    card: str
    rotated: bool


class GoalDict(TypedDict):
    goal: int
    x: int
    y: int
    revealed: bool
    kind: str | None  # None while the viewer may not know it


class SettingsDict(TypedDict, total=False):
    """A table's settings in a view (core.service.views.settings_view)."""

    turn_time: int | None
    slow: bool
    language: str | None
    think_delay: float
    round_pause: int
    takeover_after: int
    computer_level: str
    countdown: int | None
    open_join: bool
    max_seats: int
    min_players: int
    max_players: int


class ViewDict(TypedDict, total=False):
    """A view of a game (API.md "The view"): the engine's keys, then the service's."""

    status: str
    edition: str
    options: dict[str, object]
    round: int
    rounds: int
    seq: int
    you: YouDict
    seats: list[SeatDict]
    board: list[CellDict]
    goals: list[GoalDict]
    deck_size: int
    discard_size: int
    current_seat: int | None
    log: list[EventDict]
    round_result: RoundResultDict | None
    final: FinalDict | None
    legal_moves: list[MoveDict]
    # the service's
    game_id: str
    version: int
    turn_deadline: str | None
    creator_seat: int | None
    settings: SettingsDict
    autostart_at: str | None
    title: str | None
    paused: bool
    rematch: str | None
    archived: bool
