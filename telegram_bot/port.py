"""The bot's view of the game service (CONTRACTS.md §3), in one place.

Handlers call this thin wrapper rather than the service directly so that service errors
arrive as one exception type with a stable code the catalogues translate, and the few
reads the bot makes beyond one call (a lobby's creator) are written once.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import AsyncIterator, Iterator

from core.engine import ConfigError
from core.engine.shapes import MoveDict, ViewDict
from core.service import (
    Change,
    ChatKey,
    GameService,
    SeatInfo,
    ServiceError,
    SubmitResult,
    UserRef,
)
from core.service.history import HistoryEntry

__all__ = ["BotError", "ChatKey", "SeatInfo", "ServicePort", "UserRef"]


class BotError(Exception):
    """A refused action with a translatable code (``reason`` context of the catalogues)."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


@contextlib.contextmanager
def refused() -> Iterator[None]:
    """Turn the service's refusals into ``BotError`` with the same code."""
    try:
        yield
    except ServiceError as exc:
        raise BotError(exc.code or "wrong_phase") from exc
    except ConfigError as exc:
        raise BotError(exc.code) from exc
    except ValueError as exc:  # a malformed setting that no check named
        raise BotError("invalid_config") from exc


class ServicePort:
    def __init__(self, service: GameService) -> None:
        self.service = service
        # views and seat loads this worker asked for ("spectator", "player", "seats"),
        # read by tests and benchmarks (principle 9: read once per change)
        self.reads: Counter[str] = Counter()

    # lobby ------------------------------------------------------------------------
    async def create_lobby(
        self,
        chat: ChatKey | None,
        creator: UserRef,
        *,
        edition: str | None = None,
        settings: dict[str, object] | None = None,
        title: str | None = None,
    ) -> ViewDict:
        with refused():
            return await self.service.create_lobby(
                chat=chat, creator=creator, edition=edition, settings=settings, title=title
            )

    async def join(self, game_id: str, user: UserRef) -> ViewDict:
        with refused():
            return await self.service.join(game_id, user)

    async def grant_join_pass(self, game_id: str, user_id: int) -> None:
        """The user pressed the lobby's Join button in its group (telegram_bot.join)."""
        await self.service.grant_join_pass(game_id, user_id)

    async def leave(self, game_id: str, user_id: int) -> ViewDict:
        with refused():
            return await self.service.leave(game_id, user_id)

    async def kick(
        self, game_id: str, by_user: int, user_id: int, *, force: bool = False
    ) -> ViewDict:
        """The creator (or, with ``force``, a group admin) removes a player."""
        with refused():
            return await self.service.kick(game_id, by_user, user_id, force=force)

    async def extend(self, game_id: str, user_id: int, seconds: int) -> ViewDict:
        """Push the lobby's auto-start countdown back (the service's lobby timer)."""
        with refused():
            return await self.service.extend(game_id, user_id, seconds)

    async def configure(
        self, game_id: str, user_id: int, *, force: bool = False, **settings: object
    ) -> ViewDict:
        with refused():
            return await self.service.configure(game_id, user_id, force=force, **settings)

    async def add_computer(
        self, game_id: str, user_id: int, level: str | None = None, *, force: bool = False
    ) -> ViewDict:
        with refused():
            return await self.service.add_computer(game_id, user_id, level=level, force=force)

    async def start(self, game_id: str, user_id: int, *, force: bool = False) -> ViewDict:
        with refused():
            return await self.service.start(game_id, user_id, force=force)

    async def cancel(self, game_id: str, user_id: int, *, force: bool = False) -> None:
        with refused():
            await self.service.cancel(game_id, user_id, force=force)

    async def rematch(self, game_id: str, user_id: int) -> ViewDict:
        """Play again: the finished game's table in a new lobby (the same one for every
        press); the presser's view of it."""
        with refused():
            return await self.service.rematch(game_id, user_id)

    # game -------------------------------------------------------------------------
    async def pause(self, game_id: str, user_id: int, *, force: bool = False) -> ViewDict:
        with refused():
            return await self.service.pause(game_id, user_id, force=force)

    async def resume(self, game_id: str, user_id: int, *, force: bool = False) -> ViewDict:
        with refused():
            return await self.service.resume(game_id, user_id, force=force)

    async def prompt_delivered(self, game_id: str, version: int) -> None:
        """The bot's prompt of the turn at ``version`` reached its player (a late one
        forgives that turn's timeout: see ``GameService.prompt_delivered``)."""
        await self.service.prompt_delivered(game_id, version)

    async def submit(
        self, game_id: str, user_id: int, move: MoveDict, version: int
    ) -> SubmitResult:
        with refused():
            return await self.service.submit(game_id, user_id, move, expected_version=version)

    async def view(self, game_id: str, user_id: int | None) -> ViewDict | None:
        """The view, or None for a game that is gone."""
        self.reads["spectator" if user_id is None else "player"] += 1
        try:
            return await self.service.view(game_id, user_id)
        except ServiceError as exc:
            if exc.code == "not_found":
                return None
            raise BotError(exc.code) from exc

    async def version(self, game_id: str) -> int | None:
        """The game's current version (one small read, no view), None for one that is gone."""
        try:
            return await self.service.version(game_id)
        except ServiceError:
            return None

    async def game_for_chat(self, chat: ChatKey) -> str | None:
        return await self.service.game_for_chat(chat)

    async def games_for_user(self, user_id: int) -> list[str]:
        return await self.service.games_for_user(user_id)

    async def seats(self, game_id: str) -> list[SeatInfo]:
        """Server-side seat facts: which Telegram user holds each seat."""
        self.reads["seats"] += 1
        with refused():
            return await self.service.seats(game_id)

    async def chat_of(self, game_id: str) -> ChatKey | None:
        """The game's chat, or None for a private game or one that is gone."""
        try:
            return await self.service.chat_of(game_id)
        except ServiceError:
            return None  # gone (expired or deleted)

    async def creator_of(self, game_id: str) -> int | None:
        """The lobby creator's user id (from the view's ``creator_seat`` and the seats)."""
        view = await self.view(game_id, None)
        if view is None or view.get("creator_seat") is None:
            return None
        for seat in await self.seats(game_id):
            if seat.seat == view["creator_seat"]:
                return seat.user_id
        return None

    def changes(self) -> AsyncIterator[Change]:
        """The global change feed: ``Change(game_id, version)`` of every commit."""
        return self.service.listen_all()

    async def stats(
        self, *, chat_id: int | None = None, user_id: int | None = None
    ) -> dict[str, object]:
        """A group's leaderboard (``chat_id``) or one user's record."""
        if chat_id is not None:
            return await self.service.stats_for_chat(chat_id)
        return await self.service.stats_for_user(int(user_id or 0))

    async def history(self, user_id: int, limit: int = 10) -> list[HistoryEntry]:
        """The user's finished games, newest first ("My games")."""
        return await self.service.history(user_id, limit)

    async def seen_update(self, update_id: int) -> bool:
        """True when this Telegram update was already handled (webhook retries)."""
        return not await self.service.process_update_once(update_id)
