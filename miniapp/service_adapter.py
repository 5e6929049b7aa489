"""The one place where the Mini App calls ``GameService`` and reads its errors.

The service speaks Python (exceptions, result objects); the API speaks HTTP statuses and
error codes. Keeping the translation here means a change in the service touches one file.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import AsyncIterator
from typing import Any

from miniapp.auth import Session
from miniapp.errors import ApiError


def user_ref(session: Session) -> Any:
    from core.service import UserRef

    return UserRef(user_id=session.user_id, name=session.name, language=session.language)


# ServiceError codes (core.service.models) -> HTTP status.
STATUS_OF_CODE = {
    "not_found": 404,
    "not_creator": 403,
    "not_seated": 403,
    "forbidden": 403,
    "chat_busy": 409,
    "not_in_lobby": 409,
    "already_started": 409,
    "already_finished": 409,
    "lobby_full": 409,
    "not_enough_players": 409,
    "too_many_players": 422,
    "invalid_config": 422,
    "bad_setting": 422,
    "busy": 503,
}


def _translate(exc: Exception) -> ApiError:
    """Map a service exception to an HTTP error by its code, never by its text.

    Anything without a code is a bug: re-raised, so the error middleware logs it and
    answers a plain 500.
    """
    code = getattr(exc, "code", None)
    if not isinstance(code, str) or not code:
        raise exc
    message = str(getattr(exc, "message", "") or code)
    status = STATUS_OF_CODE.get(code, 422)
    headers = {"Retry-After": "1"} if status == 503 else None
    if status == 404:
        message = "no such game"
    return ApiError(status, code, message, headers=headers)


@dataclasses.dataclass(slots=True)
class ServiceAdapter:
    service: Any

    async def _call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        try:
            return await getattr(self.service, name)(*args, **kwargs)
        except ApiError:
            raise
        except Exception as exc:  # translated or re-raised (500) by _translate
            raise _translate(exc) from exc

    async def create(
        self,
        creator: Any,
        edition: str,
        options: dict[str, Any],
        seats: int | None,
        computers: int,
        level: str,
    ) -> dict[str, Any]:
        view = await self._call(
            "create_lobby",
            chat=None,
            creator=creator,
            edition=edition,
            options=options,
            seats=seats,
            computers=computers,
            level=level,
        )
        return dict(view)

    async def join(self, game_id: str, user: Any) -> dict[str, Any]:
        return dict(await self._call("join", game_id, user))

    async def leave(self, game_id: str, user_id: int) -> dict[str, Any]:
        return dict(await self._call("leave", game_id, user_id))

    async def start(self, game_id: str, user_id: int) -> dict[str, Any]:
        return dict(await self._call("start", game_id, user_id))

    async def view(self, game_id: str, user_id: int | None) -> dict[str, Any]:
        view = await self._call("view", game_id, user_id)
        if view is None:
            raise ApiError(404, "not_found", "no such game")
        return dict(view)

    async def games_for_user(self, user_id: int) -> list[str]:
        return list(await self._call("games_for_user", user_id))

    async def submit(
        self,
        game_id: str,
        user_id: int,
        move: dict[str, Any],
        version: int,
        *,
        submission_id: str | None = None,
    ) -> dict[str, Any]:
        extra = {} if submission_id is None else {"submission_id": submission_id}
        result = await self._call("submit", game_id, user_id, move, version, **extra)
        return {
            "status": str(result.status),
            "view": getattr(result, "view", None),
            "reason": getattr(result, "reason", None),
            "message": getattr(result, "message", None),
        }

    async def log(self, game_id: str, since: int) -> list[dict[str, Any]]:
        """The public log is the same for every caller (RULES §8 "everyone")."""
        return list(await self._call("log", game_id, since))

    async def version(self, game_id: str) -> int:
        """The game's current version: one field read (``HGET``), no record loaded, no view
        built — every socket asks after 10 s without a notice, so with 1,000 sockets this
        ran ~100 times a second as a whole-record load (issue 8)."""
        return int(await self._call("version", game_id))

    async def touch(self, game_id: str, user_id: int) -> None:
        """Mark the user present (the views' ``online`` flag); never fails a request."""
        with contextlib.suppress(Exception):
            await self.service.touch(game_id, user_id)

    async def healthy(self) -> bool:
        try:
            return bool(await self.service.store.ping())
        except Exception:
            return False

    async def listen(self, game_id: str) -> AsyncIterator[int]:
        stream = self.service.listen(game_id)
        try:
            async for version in stream:
                yield int(version)
        finally:
            aclose = getattr(stream, "aclose", None)
            if aclose is not None:
                with contextlib.suppress(Exception):
                    await aclose()
