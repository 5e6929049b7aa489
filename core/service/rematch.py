"""Play again: the lobby a finished game opens for the same table (a pure function).

Same chat, settings, computer seats and level; every human of the last game seated
except those who left or were removed (the one who asks is seated whatever they did
before, and is the new creator); a fresh game id, so the old game's record stays as it was.
"""

from __future__ import annotations

from core.service.meta import COMPUTER_NAME, Meta, Seat


def lobby_for(old: Meta, presser: int, game_id: str, now_ms: int) -> Meta:
    meta = Meta(
        game_id=game_id,
        creator=presser,
        chat=list(old.chat) if old.chat is not None else None,
        edition=old.edition,
        options=dict(old.options),
        max_seats=old.max_seats,
        turn_time=old.turn_time,
        language=old.language,
        think_delay_s=old.think_delay_s,
        round_pause_s=old.round_pause_s,
        takeover_after=old.takeover_after,
        computer_level=old.computer_level,
        countdown_s=old.countdown_s,
        created_ms=now_ms,
        title=old.title,
        slow=old.slow,
    )
    computers = 0
    for seat in old.seats:
        if seat.computer:
            computers += 1
            name = COMPUTER_NAME.format(n=computers)
            meta.seats.append(Seat(None, name, computer=True, level=seat.level))
        elif seat.user_id == presser or not seat.left:
            meta.seats.append(Seat(seat.user_id, seat.name, seat.language))
    return meta


def alone_with_computers(meta: Meta) -> bool:
    """One human and computers in every other seat of a private table: as when it was
    first opened against the computer, the game starts at once."""
    humans = [s for s in meta.seats if not s.computer]
    return meta.chat is None and len(humans) == 1 and len(meta.seats) == meta.max_seats
