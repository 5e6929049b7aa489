"""The lobby's settings as front ends other than the bot read and write them.

One call sets any of the schema's settings (``lobby_settings.SCHEMA``) and the number of
computer seats together, in one commit: the bot's lobby message redraws once, from the
same meta the Mini App reads. Every check is the schema's or ``lobby``'s.
"""

from __future__ import annotations

from core.service import lobby, lobby_settings
from core.service.meta import Meta
from core.service.models import ServiceError
from core.service.views import settings_view

MAX_COMPUTERS = lobby_settings.SEAT_RANGE[1] - 1


def values(meta: Meta) -> dict[str, object]:
    """Every setting's current value, by the schema's names."""
    shown = settings_view(meta)
    out: dict[str, object] = {}
    for spec in lobby_settings.SCHEMA:
        if spec.where == "game":
            out[spec.name] = getattr(meta, spec.name)
        elif spec.where == "option":
            out[spec.name] = meta.options.get(spec.name, spec.default_for("private"))
        elif spec.name == "seats":
            out[spec.name] = meta.max_seats
        else:
            out[spec.name] = shown.get(spec.name)
    return out


def describe(meta: Meta, viewer: int | None) -> dict[str, object]:
    """The schema where the lobby opened, its current values and computer seats."""
    context = lobby.context_of(meta)
    return {
        "game_id": meta.game_id,
        "context": context,
        "schema": lobby_settings.describe(context),
        "values": values(meta),
        "computers": sum(1 for s in meta.seats if s.computer),
        "max_computers": MAX_COMPUTERS,
        "editable": viewer is not None and viewer == meta.creator and not meta.started,
    }


def apply(meta: Meta, settings: dict[str, object], computers: object = None) -> None:
    """Settings, then the computer seats added or removed (the last ones first) to reach
    ``computers``; raises ServiceError (``bad_setting``, ``lobby_full``...)."""
    if settings:
        lobby.configure(meta, settings)
    if computers is None:
        return
    if isinstance(computers, bool) or not isinstance(computers, int):
        raise ServiceError("bad_setting", "computers is a whole number")
    if not 0 <= computers <= MAX_COMPUTERS:
        raise ServiceError("bad_setting", f"computers is 0 to {MAX_COMPUTERS}")
    have = sum(1 for s in meta.seats if s.computer)
    for _ in range(computers - have):
        lobby.add_computer(meta)
    for _ in range(have - computers):
        lobby.remove_computer(meta, None)
