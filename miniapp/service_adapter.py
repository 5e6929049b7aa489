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


def _translate(exc: Exception) -> ApiError:
    """Map a service exception to an HTTP error by its code/class, never by its text."""
    code = str(getattr(exc, "code", "") or "")
    name = type(exc).__name__.lower()
    message = str(getattr(exc, "message", "") or exc) or code or name
    if isinstance(exc, ApiError):
        return exc
    if code in ("not_found", "no_such_game", "unknown_game") or "notfound" in name:
        return ApiError(404, "not_found", "no such game")
    if isinstance(exc, KeyError | LookupError):
        return ApiError(404, "not_found", "no such game")
    if code in ("forbidden", "not_creator", "not_a_player", "not_seated") or isinstance(
        exc, PermissionError
    ) or "forbidden" in name or "permission" in name:
        return ApiError(403, code or "forbidden", message)
    if code == "invalid_config" or "configerror" in name:
        return ApiError(422, "invalid_config", message)
    if code:
        return ApiError(409 if code in ("game_full", "already_started", "wrong_phase",
                                        "already_seated", "not_in_lobby") else 422,
                        code, message)
    if isinstance(exc, ValueError):
        return ApiError(422, "invalid_request", message)
    raise exc


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
            "create_lobby", chat=None, creator=creator, edition=edition, options=options,
            seats=seats,
        )
        game_id = view["game_id"]
        for _ in range(computers):
            view = await self._call("add_computer", game_id, creator.user_id, level)
        if seats is not None and computers == seats - 1 and computers > 0:
            view = await self._call("start", game_id, creator.user_id)
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
        self, game_id: str, user_id: int, move: dict[str, Any], version: int
    ) -> dict[str, Any]:
        result = await self._call("submit", game_id, user_id, move, version)
        status = getattr(result, "status", None)
        if status is None and isinstance(result, dict):
            return result
        return {
            "status": str(status),
            "view": getattr(result, "view", None),
            "reason": getattr(result, "reason", None),
            "message": getattr(result, "message", None),
        }

    async def log(self, game_id: str, user_id: int, since: int) -> list[dict[str, Any]]:
        if hasattr(self.service, "log"):
            return list(await self._call("log", game_id, user_id, since=since))
        view = await self.view(game_id, user_id)
        return [e for e in view.get("log", []) if int(e.get("version", 0)) > since]

    async def healthy(self) -> bool:
        for name in ("healthy", "ping"):
            probe = getattr(self.service, name, None)
            if probe is not None:
                try:
                    return bool(await probe())
                except Exception:
                    return False
        store = getattr(self.service, "store", None)
        ping = getattr(store, "ping", None)
        if ping is not None:
            try:
                return bool(await ping()) is not False
            except Exception:
                return False
        return True

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
