"""A group's last settings: what ``/new`` starts from, and the group's title.

When a game starts in a group, the service keeps the settings a group chooses for its
table (edition, rounds and variants, turn time, slow mode, computer level) as one of the
store's preferences; the group's next lobby starts from them over the schema's defaults.
"""

from __future__ import annotations

import json
from typing import Any

from core.service.lobby_settings import BY_NAME, Context, pace
from core.service.meta import Meta

# the settings a group keeps from one game to the next (the options travel with them)
KEPT = ("turn_time", "slow", "computer_level")
TITLE_MAX = 128  # Telegram's limit for a chat title


def pref_key(chat_id: int) -> str:
    """A preference without an owner (a group's id is negative): kept after user deletion."""
    return f"ls:{chat_id}"


def snapshot(meta: Meta) -> str:
    """The settings to keep for the group, as stored."""
    kept: dict[str, object] = {"edition": meta.edition, "options": dict(meta.options)}
    kept.update(
        turn_time=meta.turn_time,
        slow=meta.slow,
        computer_level=meta.computer_level,
    )
    return json.dumps(kept, separators=(",", ":"), sort_keys=True)


def parse(raw: str | None) -> dict[str, object] | None:
    """The stored settings, or None when there are none (or they are unreadable)."""
    if not raw:
        return None
    try:
        data = json.loads(raw)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def overlay(
    defaults: dict[str, Any],
    last: dict[str, object] | None,
    given: dict[str, Any],
    edition: str,
    context: Context,
) -> dict[str, object]:
    """A new lobby's wanted settings: the schema's ``defaults``, then the group's
    ``last`` ones that still exist and apply to ``edition``, then what the caller gave;
    slow mode brings its pace for whatever none of them chose."""
    wanted = {**defaults, "options": dict(defaults.get("options") or {})}
    chosen: set[str] = set()  # settings not left at their defaults (options included)
    if last is not None:
        for name in KEPT:
            if name in last:
                wanted[name] = last[name]
                chosen.add(name)
        options = last.get("options")
        for name, value in (options if isinstance(options, dict) else {}).items():
            spec = BY_NAME.get(name)
            if spec is not None and spec.where == "option" and spec.applies_to(edition):
                wanted["options"][name] = value
                chosen.add(name)
    for name, value in given.items():
        if name == "options":
            wanted["options"].update(value or {})
            chosen.update(value or {})
        else:
            wanted[name] = value
            chosen.add(name)
    if wanted.get("slow") is True:  # slow mode's pace, for what nobody chose
        for name, value in pace(True, context).items():
            if name not in chosen:
                if name == "rounds":
                    wanted["options"][name] = value
                else:
                    wanted[name] = value
    return wanted


def clean_title(title: str | None) -> str | None:
    """A chat title as kept: text on one line, at most TITLE_MAX characters; None if empty."""
    if not isinstance(title, str):
        return None
    text = " ".join(title.split())[:TITLE_MAX]
    return text or None
