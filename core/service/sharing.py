"""Sharing a finished game's result into any Telegram chat (Mini Apps 8.0 ``shareMessage``).

Telegram shares only a message the bot prepared (``savePreparedInlineMessage``), so the
service asks a ``Sharing`` port that the bot implements and installs when it runs; the Mini
App never talks to the bot. Without a port (local mode, an API-only server) sharing is
unavailable and the page offers no button.
"""

from __future__ import annotations

import logging
from typing import Protocol

from core.engine.shapes import ViewDict
from core.service.models import ServiceError, UserRef
from core.service.queries import Queries

log = logging.getLogger(__name__)


class Sharing(Protocol):
    """Prepare a message with a finished game's result for ``user`` to share; the
    prepared message's id, which the Mini App passes to ``shareMessage``."""

    async def prepare_result(self, user: UserRef, view: ViewDict) -> str: ...


class Share:
    """The service's side of sharing: which games may be shared, and by whom."""

    _sharing: Sharing | None = None  # none until the bot installs its port

    def __init__(self, queries: Queries) -> None:
        self.queries = queries

    def use_sharing(self, sharing: Sharing | None) -> None:
        """Install the port that prepares shareable messages (the bot's)."""
        self._sharing = sharing

    def sharing_available(self) -> bool:
        return self._sharing is not None

    async def share_result(self, game_id: str, user: UserRef) -> str:
        """The prepared message id of ``game_id``'s result in ``user``'s view and language:
        ``not_found``, ``game_in_progress`` (still being played) or ``sharing_unavailable``."""
        try:
            view = await self.queries.view(game_id, user.user_id)
        except ServiceError as exc:
            if exc.code != "not_found":
                raise
            view = await self.queries.finished_view(game_id, user.user_id)
        if view.get("status") != "finished":
            raise ServiceError("game_in_progress", "only a finished game's result can be shared")
        if self._sharing is None:
            raise ServiceError("sharing_unavailable", "sharing needs the Telegram bot")
        try:
            return await self._sharing.prepare_result(user, view)
        except Exception as exc:  # Telegram refused or is unreachable: no id to share
            log.warning("preparing the result of %s to share failed: %s", game_id, exc)
            raise ServiceError("sharing_unavailable", "Telegram did not prepare it") from exc
