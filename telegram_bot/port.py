"""The bot's view of the game service (CONTRACTS.md §3), in one place.

Handlers call this thin wrapper rather than the service directly so that the few things
the bot needs beyond the contract (which user holds which seat, a game's chat, the store
for claims and budgets) are looked up in one module, and service errors arrive as one
exception type with a stable code the catalogues translate.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from core.service.models import ChatKey, ServiceError, SubmitResult, UserRef

log = logging.getLogger(__name__)

__all__ = ["BotError", "ChatKey", "SeatUser", "ServicePort", "UserRef"]


class BotError(Exception):
    """A refused action with a translatable code (``reason`` context of the catalogues)."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


@dataclass(frozen=True, slots=True)
class SeatUser:
    seat: int
    user_id: int | None
    name: str
    computer: bool  # a computer seat from the start
    auto: bool  # the computer plays this human's seat now
    language: str | None = None  # the client language the player joined with


def _code(exc: Exception) -> str:
    code = getattr(exc, "code", None) or getattr(exc, "reason", None)
    return str(getattr(code, "value", code) or "wrong_phase")


class ServicePort:
    def __init__(self, service: Any) -> None:
        self.service = service

    @property
    def store(self) -> Any | None:
        return getattr(self.service, "store", None)

    async def _call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        fn = getattr(self.service, name, None)
        if fn is None:
            raise BotError("wrong_phase")
        try:
            return await fn(*args, **kwargs)
        except ServiceError as exc:
            raise BotError(_code(exc)) from exc
        except ValueError as exc:  # ConfigError and friends carry a code too
            raise BotError(_code(exc) if hasattr(exc, "code") else "invalid_config") from exc

    # lobby ------------------------------------------------------------------------
    async def create_lobby(self, chat: ChatKey | None, creator: UserRef, **kw: Any) -> dict:
        view: dict = await self._call("create_lobby", chat=chat, creator=creator, **kw)
        return view

    async def join(self, game_id: str, user: UserRef) -> dict:
        view: dict = await self._call("join", game_id, user)
        return view

    async def leave(self, game_id: str, user_id: int) -> dict:
        view: dict = await self._call("leave", game_id, user_id)
        return view

    async def kick(self, game_id: str, by_user: int, user_id: int, *, force: bool = False) -> dict:
        """The creator (or, with ``force``, a group admin) removes a player."""
        view: dict = await self._call("kick", game_id, by_user, user_id, force=force)
        return view

    async def extend(self, game_id: str, user_id: int, seconds: int) -> dict:
        """Push the lobby's auto-start countdown back (the service's lobby timer)."""
        view: dict = await self._call("extend", game_id, user_id, seconds)
        return view

    async def configure(
        self, game_id: str, user_id: int, *, force: bool = False, **settings: Any
    ) -> dict:
        view: dict = await self._call("configure", game_id, user_id, force=force, **settings)
        return view

    async def add_computer(
        self, game_id: str, user_id: int, level: str | None = None, *, force: bool = False
    ) -> dict:
        view: dict = await self._call("add_computer", game_id, user_id, level=level, force=force)
        return view

    async def start(self, game_id: str, user_id: int, *, force: bool = False) -> dict:
        view: dict = await self._call("start", game_id, user_id, force=force)
        return view

    async def cancel(self, game_id: str, user_id: int, *, force: bool = False) -> None:
        await self._call("cancel", game_id, user_id, force=force)

    # game -------------------------------------------------------------------------
    async def submit(self, game_id: str, user_id: int, move: dict, version: int) -> SubmitResult:
        try:
            result: SubmitResult = await self.service.submit(
                game_id, user_id, move, expected_version=version
            )
        except ServiceError as exc:
            raise BotError(_code(exc)) from exc
        return result

    async def view(self, game_id: str, user_id: int | None) -> dict | None:
        try:
            view: dict = await self.service.view(game_id, user_id)
        except ServiceError as exc:
            if _code(exc) == "not_found":
                return None
            raise BotError(_code(exc)) from exc
        return view

    async def game_for_chat(self, chat: ChatKey) -> str | None:
        gid: str | None = await self.service.game_for_chat(chat)
        return gid

    async def games_for_user(self, user_id: int) -> list[str]:
        games: list[str] = await self.service.games_for_user(user_id)
        return games

    async def seats(self, game_id: str) -> list[SeatUser]:
        """Server-side seat facts: which Telegram user holds each seat."""
        for name in ("seats", "seat_infos", "seat_info", "players"):
            fn = getattr(self.service, name, None)
            if fn is not None:
                try:
                    infos = await fn(game_id)
                except ServiceError as exc:
                    raise BotError(_code(exc)) from exc
                return [
                    SeatUser(
                        int(getattr(i, "seat", n)),
                        getattr(i, "user_id", None),
                        str(getattr(i, "name", "")),
                        bool(getattr(i, "computer", False)),
                        bool(getattr(i, "auto", False)),
                        getattr(i, "language", None),
                    )
                    for n, i in enumerate(infos)
                ]
        raise BotError("not_found")

    async def chat_of(self, game_id: str) -> ChatKey | None:
        for name in ("chat_of", "chat_for_game", "game_chat"):
            fn = getattr(self.service, name, None)
            if fn is not None:
                try:
                    chat: ChatKey | None = await fn(game_id)
                except ServiceError:
                    return None  # gone (expired or deleted)
                return chat
        meta_fn = getattr(self.service, "meta", None)
        if meta_fn is not None:
            meta = await meta_fn(game_id)
            return getattr(meta, "chat_key", None)
        return None

    async def creator_of(self, game_id: str) -> int | None:
        """The lobby creator's user id (from the view's ``creator_seat`` and the seats)."""
        view = await self.view(game_id, None)
        if view is None or view.get("creator_seat") is None:
            return None
        for seat in await self.seats(game_id):
            if seat.seat == view["creator_seat"]:
                return seat.user_id
        return None

    def changes(self) -> AsyncIterator[Any] | None:
        """The global change feed (``Change(game_id, version)``), when the service has one."""
        for owner in (self.service, self.store):
            fn = getattr(owner, "listen_all", None)
            if fn is not None:
                feed: AsyncIterator[Any] = fn()
                return feed
        return None

    async def stats(self, *, chat_id: int | None = None, user_id: int | None = None) -> dict:
        """``stats_for_chat`` (leaderboard) or ``stats_for_user`` of the service."""
        if chat_id is not None:
            fn = getattr(self.service, "stats_for_chat", None)
            arg = chat_id
        else:
            fn = getattr(self.service, "stats_for_user", None)
            arg = int(user_id or 0)
        if fn is None:
            return {}
        result: dict = await fn(arg)
        return result

    async def seen_update(self, update_id: int) -> bool:
        """True when this Telegram update was already handled (webhook retries)."""
        fn = getattr(self.service, "process_update_once", None)
        if fn is not None:
            return not await fn(update_id)
        store = self.store
        if store is not None and hasattr(store, "claim_once"):
            return not await store.claim_once(f"tg:upd:{update_id}", 3600)
        return False
