"""The one place where the Mini App calls ``GameService`` and reads its errors.

The service speaks Python (exceptions, result objects); the API speaks HTTP statuses and
error codes. Keeping the translation here means a change in the service touches one file.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, AsyncIterator, Iterator
from dataclasses import dataclass
from typing import TypedDict

from core.engine import ConfigError
from core.engine.shapes import EventDict, ViewDict
from core.service import GameService, ServiceError, UserRef
from core.service.history import HistoryEntry
from core.service.lobby_settings import BY_NAME
from core.service.models import SubmitStatus
from miniapp.auth import Session
from miniapp.errors import ApiError

# The choices a request may name, as core declares them (the service checks every limit).
EDITIONS = BY_NAME["edition"].choices
LEVELS = BY_NAME["computer_level"].choices


def user_ref(session: Session) -> UserRef:
    return UserRef(user_id=session.user_id, name=session.name, language=session.language)


# ServiceError codes (core.service.models) -> HTTP status.
STATUS_OF_CODE = {
    "not_found": 404,
    "not_creator": 403,
    "not_seated": 403,
    "forbidden": 403,
    "membership_required": 403,  # a group's lobby: press Join in the group first
    "chat_busy": 409,
    "not_in_lobby": 409,
    "already_started": 409,
    "already_finished": 409,
    "lobby_full": 409,
    "too_many_lobbies": 409,  # the user's cap (core.service.guards)
    "too_many_games": 409,
    "not_enough_players": 409,
    "too_many_players": 422,
    "invalid_config": 422,
    "not_started": 409,
    "bad_setting": 422,
    "busy": 503,
    "game_in_progress": 409,  # sharing the result of a game still being played
    "sharing_unavailable": 503,  # no bot prepares shared messages (local, API-only)
}


def _api_error(code: str, message: str) -> ApiError:
    """The HTTP error of a service error code (the code decides, never the text)."""
    status = STATUS_OF_CODE.get(code, 422)
    headers = {"Retry-After": "1"} if code == "busy" else None
    if status == 404:
        message = "no such game"
    return ApiError(status, code, message or code, headers=headers)


@contextlib.contextmanager
def translated() -> Iterator[None]:
    """Service refusals become HTTP errors; anything else is a bug or the store being
    down, left to the error middleware (500, or 503 ``store_unavailable``)."""
    try:
        yield
    except ServiceError as exc:
        raise _api_error(exc.code, exc.message) from exc
    except ConfigError as exc:
        raise _api_error(exc.code, exc.message) from exc


class SubmitAnswer(TypedDict):
    """A move's outcome as the API answers it (``core.service.models.SubmitResult``)."""

    status: SubmitStatus
    view: ViewDict | None
    reason: str | None
    message: str | None


@dataclass(slots=True)
class ServiceAdapter:
    service: GameService

    async def create(
        self,
        creator: UserRef,
        edition: str,
        options: dict[str, object],
        seats: int | None,
        computers: int,
        level: str,
        settings: dict[str, object] | None = None,
    ) -> ViewDict:
        with translated():
            return await self.service.create_lobby(
                chat=None,
                creator=creator,
                edition=edition,
                options=options,
                seats=seats,
                computers=computers,
                level=level,
                settings=settings,
            )

    async def join(self, game_id: str, user: UserRef) -> ViewDict:
        with translated():
            return await self.service.join(game_id, user)

    async def leave(self, game_id: str, user_id: int) -> ViewDict:
        with translated():
            return await self.service.leave(game_id, user_id)

    async def start(self, game_id: str, user_id: int) -> ViewDict:
        with translated():
            return await self.service.start(game_id, user_id)

    async def view(self, game_id: str, user_id: int | None) -> ViewDict:
        """The live view, or a finished game's from the archive once its record is gone."""
        with translated():
            try:
                return await self.service.view(game_id, user_id)
            except ServiceError as exc:
                if exc.code != "not_found":
                    raise
            return await self.service.finished_view(game_id, user_id)

    async def share_result(self, game_id: str, user: UserRef) -> str:
        with translated():
            return await self.service.share_result(game_id, user)

    async def games_for_user(self, user_id: int) -> list[str]:
        with translated():
            return await self.service.games_for_user(user_id)

    async def submit(
        self,
        game_id: str,
        user_id: int,
        move: dict[str, object],
        version: int,
        *,
        submission_id: str | None = None,
    ) -> SubmitAnswer:
        with translated():
            result = await self.service.submit(
                game_id, user_id, move, version, submission_id=submission_id
            )
        return {
            "status": result.status,
            "view": result.view,
            "reason": result.reason,
            "message": result.message,
        }

    async def log(self, game_id: str, since: int) -> list[EventDict]:
        """The public log is the same for every caller (RULES §8 "everyone")."""
        with translated():
            try:
                return await self.service.log(game_id, since)
            except ServiceError as exc:
                if exc.code != "not_found":
                    raise
            return await self.service.finished_log(game_id, since)

    async def replay(self, game_id: str) -> dict[str, object]:
        with translated():
            return await self.service.replay(game_id)

    async def history(self, user_id: int) -> list[HistoryEntry]:
        with translated():
            return await self.service.history(user_id)

    async def lobby_settings(self, game_id: str, user_id: int) -> dict[str, object]:
        with translated():
            return await self.service.describe_lobby(game_id, user_id)

    async def set_lobby(
        self, game_id: str, user_id: int, settings: dict[str, object], computers: object
    ) -> ViewDict:
        with translated():
            return await self.service.set_lobby(game_id, user_id, settings, computers)

    async def version(self, game_id: str) -> int:
        """The game's current version: one field read, no record loaded, no view built
        (every socket asks after 10 s without a notice)."""
        with translated():
            return await self.service.version(game_id)

    async def touch(self, game_id: str, user_id: int) -> None:
        """Mark the user present (the views' ``online`` flag); never fails a request."""
        with contextlib.suppress(Exception):
            await self.service.touch(game_id, user_id)

    async def healthy(self) -> bool:
        return await self.service.ping()

    async def listen(self, game_id: str) -> AsyncIterator[int]:
        stream = self.service.listen(game_id)
        try:
            async for version in stream:
                yield version
        finally:
            if isinstance(stream, AsyncGenerator):
                with contextlib.suppress(Exception):
                    await stream.aclose()
