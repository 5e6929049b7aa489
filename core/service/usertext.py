"""Text that people give about themselves (names, language codes), made fit to store.

A JSON escape can carry a lone surrogate (``"\\ud800"``), which no UTF-8 encoder accepts:
stored in a game, it made every later answer about that game fail. Telegram's own updates
never carry one, but anything an API client sends may, so every name is cleaned where it
enters the service (and the Mini App cleans what initData carries the same way).
"""

from __future__ import annotations

import unicodedata

from core.service.models import UserRef

MAX_NAME = 64
MAX_LANGUAGE = 16
_CLEAN = {"Cs": "\ufffd", "Cc": ""}  # surrogate -> U+FFFD; control characters dropped


def clean_text(value: object) -> str:
    """``value`` as a string a UTF-8 encoder accepts and a reader can see: lone surrogates
    become U+FFFD, control characters (newlines, NUL...) are dropped, the rest is kept."""
    if value is None:
        return ""
    text = value if isinstance(value, str) else str(value)
    if text.isprintable():  # the usual case, in one C loop
        return text
    return "".join(_CLEAN.get(unicodedata.category(c), c) for c in text)


def clean_user(user: UserRef) -> UserRef:
    """The user as the service stores them: a clean name (never empty) and language."""
    name = clean_text(user.name).strip()[:MAX_NAME] or str(user.user_id)
    language = clean_text(user.language)[:MAX_LANGUAGE] or None
    if name == user.name and language == user.language:
        return user
    return UserRef(user.user_id, name, language)
