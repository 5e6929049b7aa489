"""API views (API.md "The view"): the engine's per-seat view plus the service's fields.

Allow-list: everything here comes either from ``engine.view_for`` (which already hides
what a viewer may not know) or from public lobby facts. User ids never appear.
"""

from __future__ import annotations

from datetime import UTC, datetime

from core import engine
from core.engine.config import PLAYERS
from core.engine.shapes import EventDict, MoveDict, SeatDict, SettingsDict, ViewDict
from core.service.meta import Meta

TAKE_SEAT_BACK: MoveDict = {"type": "take_seat_back"}


def iso(ms: int | None) -> str | None:
    if ms is None:
        return None
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def settings_view(meta: Meta) -> SettingsDict:
    lo, hi = PLAYERS.get(meta.edition, (2, 12))
    return {
        "turn_time": meta.turn_time,
        "slow": meta.slow,
        "language": meta.language,
        "think_delay": meta.think_delay_s,
        "round_pause": meta.round_pause_s,
        "takeover_after": meta.takeover_after,
        "computer_level": meta.computer_level,
        "countdown": meta.countdown_s,
        "open_join": meta.open_join,
        "max_seats": meta.max_seats,
        "min_players": lo,
        "max_players": min(hi, meta.max_seats),
    }


def _seat_flags(
    meta: Meta, i: int, presence: dict[str, int], now_ms: int, window_ms: int
) -> SeatDict:
    seat = meta.seats[i]
    if seat.by_computer:
        online = True
    else:
        seen = presence.get(str(seat.user_id))
        online = seen is not None and now_ms - seen <= window_ms
    flags: SeatDict = {
        "name": seat.name,
        "online": online,
        "computer": seat.by_computer,
        "away": seat.auto and not seat.computer,
        "left": seat.left,
        "kicked": seat.kicked,
    }
    if (number := seat.computer_no) is not None:
        flags["computer_no"] = number  # clients name it "Computer n" in the reader's language
    return flags


def rewrite_entry(meta: Meta, entry: EventDict) -> EventDict:
    """Engine log entries carry ``seq``; views carry the game ``version`` instead."""
    out = entry.copy()
    seq = out.pop("seq", None)
    if isinstance(seq, int):
        out["version"] = meta.version_of_seq(seq)
    return out


def lobby_view(
    meta: Meta,
    *,
    version: int,
    viewer: int | None,
    presence: dict[str, int],
    now_ms: int,
    window_ms: int,
) -> ViewDict:
    seat = meta.seat_of(viewer)
    status = "cancelled" if meta.cancelled else "lobby"
    rounds = meta.options.get("rounds", 3)  # an int: the lobby's settings are checked
    return {
        "game_id": meta.game_id,
        "version": version,
        "status": status,
        "edition": meta.edition,
        "options": dict(meta.options),
        "round": 0,
        "rounds": rounds if isinstance(rounds, int) else 3,
        "you": {
            "seat": seat,
            "role": None,
            "hand": [],
            "gold": None,
            "known_goals": [],
            "known_roles": [],
            "creator": viewer is not None and viewer == meta.creator,
        },
        "seats": [
            {
                "seat": i,
                "hand_size": 0,
                "in_front": [],
                "has_gold": None,
                "role": None,
                "gold": None,
                "ready": False,
                **_seat_flags(meta, i, presence, now_ms, window_ms),
            }
            for i in range(len(meta.seats))
        ],
        "board": [],
        "goals": [],
        "deck_size": 0,
        "discard_size": 0,
        "current_seat": None,
        "turn_deadline": None,
        "log": [],
        "round_result": None,
        "final": None,
        "legal_moves": [],
        "creator_seat": meta.seat_of(meta.creator),
        "settings": settings_view(meta),
        # the auto-start countdown's end (ISO, UTC), while enough players sit
        "autostart_at": None if meta.cancelled else iso(meta.autostart_at),
        **table_fields(meta),
    }


def table_fields(meta: Meta) -> ViewDict:
    """The service's facts about the table in every view: the group's title, whether the
    game is paused (no deadline then), and the lobby "play again" opened once it is over."""
    return {"title": meta.title, "paused": meta.paused, "rematch": meta.rematch}


def game_view(
    meta: Meta,
    state: engine.GameState,
    *,
    version: int,
    viewer: int | None,
    presence: dict[str, int],
    deadline_ms: int | None,
    now_ms: int,
    window_ms: int,
) -> ViewDict:
    seat = meta.seat_of(viewer)
    view = engine.view_for(state, seat)
    view["game_id"] = meta.game_id
    view["version"] = version
    view.pop("seq", None)  # the game version is the one counter clients see
    if meta.cancelled:
        view["status"] = "cancelled"
    view["turn_deadline"] = (
        iso(deadline_ms) if view.get("status") not in ("finished", "cancelled") else None
    )
    for entry in view.get("seats", []):
        i = entry.get("seat")
        if isinstance(i, int) and 0 <= i < len(meta.seats):
            entry.update(_seat_flags(meta, i, presence, now_ms, window_ms))
    for event in view.get("log", []):  # the engine's copies: rewritten in place
        seq = event.pop("seq", None)
        if isinstance(seq, int):
            event["version"] = meta.version_of_seq(seq)
    you = view.setdefault("you", {})
    you["creator"] = viewer is not None and viewer == meta.creator
    if meta.paused:  # nothing to play until it resumes (taking a seat back is not a move)
        view["legal_moves"] = []
    if seat is not None and meta.seats[seat].auto and not meta.cancelled:
        back = view.get("status") != "finished" and not meta.seats[seat].kicked
        view["legal_moves"] = [TAKE_SEAT_BACK.copy()] if back else []
    if meta.cancelled:
        view["legal_moves"] = []
    view["creator_seat"] = meta.seat_of(meta.creator)
    view["settings"] = settings_view(meta)
    view.update(table_fields(meta))
    return view
