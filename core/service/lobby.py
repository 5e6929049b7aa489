"""Lobby rules on ``Meta``: seats, settings and who may change them (pure functions).

Each function changes ``meta`` in place or raises ``ServiceError``; the service commits.
"""

from __future__ import annotations

from core.engine import ConfigError, GameConfig
from core.engine.config import PLAYERS
from core.service.lobby_settings import BY_NAME, LEVELS, Context, pace, setting
from core.service.meta import COMPUTER_NAME, Meta, Seat
from core.service.models import ServiceError, UserRef

# what ``configure`` accepts: every setting of the schema, and the engine's options as one
# ``options`` object too
SETTINGS = (*BY_NAME, "options")


def limits(edition: str) -> tuple[int, int]:
    if edition not in PLAYERS:
        raise ServiceError("invalid_config", f"unknown edition {edition!r}")
    return PLAYERS[edition]


def require_lobby(meta: Meta) -> None:
    if meta.cancelled:
        raise ServiceError("not_found", "the game was cancelled")
    if meta.started:
        raise ServiceError("already_started", "the game has started")


def require_creator(meta: Meta, user_id: int, force: bool = False) -> None:
    if not force and user_id != meta.creator:
        raise ServiceError("not_creator", "only the player who opened the lobby may do this")


def check_options(edition: str, options: dict[str, object], players: int) -> dict[str, object]:
    """Options valid for some table size this lobby can still reach (start checks again)."""
    lo, hi = limits(edition)
    error: ConfigError | None = None
    for n in range(max(players, lo), hi + 1):
        try:
            return GameConfig.from_options(edition, n, options).options()
        except ConfigError as exc:
            error = error or exc
    raise ServiceError("invalid_config", error.message if error else "invalid options")


def add_human(meta: Meta, user: UserRef) -> None:
    require_lobby(meta)
    if meta.seat_of(user.user_id) is not None:
        return
    if user.user_id in meta.kicked:
        raise ServiceError("kicked", "you were removed from this game")
    if len(meta.seats) >= meta.max_seats:
        raise ServiceError("lobby_full", "every seat is taken")
    meta.seats.append(Seat(user.user_id, user.name, user.language))


def remove_human(meta: Meta, user_id: int) -> bool:
    """Leave a lobby; returns True when the lobby is now empty of humans."""
    seat = meta.seat_of(user_id)
    if seat is None:
        raise ServiceError("not_seated", "you are not in this lobby")
    del meta.seats[seat]
    humans = [s for s in meta.seats if not s.computer]
    if user_id == meta.creator and humans:
        assert humans[0].user_id is not None
        meta.creator = humans[0].user_id
    return not humans


def add_computer(meta: Meta, level: str | None = None) -> None:
    """A computer seat at ``level``, by default the table's (``computer_level``)."""
    require_lobby(meta)
    level = meta.computer_level if level is None else level
    if level not in LEVELS:
        raise ServiceError("bad_setting", f"level must be one of {', '.join(LEVELS)}")
    if len(meta.seats) >= meta.max_seats:
        raise ServiceError("lobby_full", "every seat is taken")
    number = 1 + sum(1 for s in meta.seats if s.computer)
    meta.seats.append(Seat(None, COMPUTER_NAME.format(n=number), computer=True, level=level))


def remove_computer(meta: Meta, seat: int | None) -> None:
    require_lobby(meta)
    computers = [i for i, s in enumerate(meta.seats) if s.computer]
    if not computers:
        raise ServiceError("bad_setting", "there is no computer seat")
    target = computers[-1] if seat is None else seat
    if target not in computers:
        raise ServiceError("bad_setting", "that seat is not a computer seat")
    del meta.seats[target]


def configure(meta: Meta, settings: dict[str, object]) -> None:
    """Apply lobby settings (``lobby_settings.SCHEMA``): each value is checked by the
    schema, the options together by the engine for every table size still reachable."""
    require_lobby(meta)
    unknown = sorted(set(settings) - set(SETTINGS))
    if unknown:
        raise ServiceError("bad_setting", f"unknown setting(s): {', '.join(unknown)}")
    values = {name: setting(name).check(v) for name, v in settings.items() if name != "options"}
    edition = values.get("edition", meta.edition)
    lo, hi = limits(edition)
    options = dict(
        meta.options if edition == meta.edition else {"rounds": meta.options.get("rounds", 3)}
    )
    given = settings.get("options") or {}
    if not isinstance(given, dict):
        raise ServiceError("invalid_config", "options must be an object")
    options.update(given)
    options.update({k: v for k, v in values.items() if BY_NAME[k].where == "option"})
    slow = values.get("slow", meta.slow)
    if slow != meta.slow:  # slow mode brings its own pace unless the caller chose one
        paced = pace(slow, context_of(meta))
        if "turn_time" not in values:
            values["turn_time"] = paced["turn_time"]
        if "rounds" not in values and "rounds" not in given:
            options["rounds"] = paced["rounds"]
    max_seats = values.get("seats") or (min(meta.max_seats, hi) if edition == meta.edition else hi)
    if not lo <= max_seats <= hi:
        raise ServiceError("bad_setting", f"{edition} seats {lo} to {hi} players")
    if len(meta.seats) > max_seats:
        raise ServiceError("too_many_players", f"{len(meta.seats)} seated, at most {max_seats}")
    meta.options = check_options(edition, options, len(meta.seats))
    meta.edition = edition
    meta.max_seats = max_seats
    meta.slow = slow
    if "turn_time" in values:
        meta.turn_time = values["turn_time"]
    if "language" in values:
        meta.language = values["language"]
    if "think_delay" in values:
        meta.think_delay_s = values["think_delay"]
    if "round_pause" in values:
        meta.round_pause_s = values["round_pause"]
    if "countdown" in values:
        if values["countdown"] != meta.countdown_s:
            meta.autostart_at = None  # a new length starts a new countdown
        meta.countdown_s = values["countdown"]
    if "computer_level" in values:
        meta.computer_level = values["computer_level"]
        for seat in meta.seats:  # one table, one strength
            if seat.computer:
                seat.level = meta.computer_level
    if "takeover_after" in values:
        meta.takeover_after = values["takeover_after"]
    if "open_join" in values:
        meta.open_join = values["open_join"]


def context_of(meta: Meta) -> Context:
    """Where the lobby opened: a Telegram group, or anywhere else."""
    return "group" if meta.chat is not None else "private"


def enough_players(meta: Meta) -> bool:
    return len(meta.seats) >= limits(meta.edition)[0]


def start_config(meta: Meta) -> GameConfig:
    lo, hi = limits(meta.edition)
    n = len(meta.seats)
    if n < lo:
        raise ServiceError("not_enough_players", f"{meta.edition} needs at least {lo} players")
    if n > hi:
        raise ServiceError("too_many_players", f"{meta.edition} is for at most {hi} players")
    try:
        return GameConfig.from_options(meta.edition, n, meta.options)
    except ConfigError as exc:
        raise ServiceError("invalid_config", exc.message) from exc
