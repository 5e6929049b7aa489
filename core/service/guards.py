"""Checks made before the service changes anything for a user: caps and admission.

- **Caps**: a user may have only so many open lobbies, and open lobbies and games, among
  the games they opened (``ServiceConfig.max_open_lobbies`` / ``max_open_games``); past
  that, opening another is refused with a clear error until one ends. Without a cap one
  account could fill Redis with lobbies that live for a day each.
- **Admission to a group's lobby**: the lobby belongs to a Telegram group, so only members
  of that group may take a seat. Proof is either a *join pass* — recorded when the user
  pressed the lobby's Join button in the group itself (only members see the group's
  messages), valid ``ServiceConfig.join_pass_s`` — or the group's membership list, asked
  through a ``Membership`` port that the bot implements (``getChatMember``, which Telegram
  guarantees only when the bot is an admin; it may answer "cannot tell"). The lobby's
  creator may open it to anyone (the ``open_join`` lobby setting). A lobby opened outside
  a group (the Mini App, local mode) admits whoever holds its link.

Join passes are kept in the game's adapter data (``jp:<user id>`` = expiry, ms): they live
and die with the lobby, costing no key of their own.
"""

from __future__ import annotations

import logging
from typing import Protocol

from core import engine
from core.service.models import ServiceError
from core.service.records import Records

log = logging.getLogger(__name__)

PASS_PREFIX = "jp:"


class Membership(Protocol):
    """Is a Telegram user a member of a group? ``None`` when it cannot be told (the bot
    is no admin there, Telegram is unreachable): then only a join pass admits."""

    async def is_member(self, chat_id: int, user_id: int) -> bool | None: ...


class Guards:
    """Caps and admission, asked before a lobby is opened or a seat taken."""

    _membership: Membership | None = None  # closed by default: only join passes admit

    def __init__(self, records: Records) -> None:
        self.records = records
        self.store = records.store
        self.config = records.config

    def use_membership(self, membership: Membership | None) -> None:
        """Install the port that answers group membership questions (the bot's)."""
        self._membership = membership

    # ------------------------------------------------------------------- caps
    async def check_caps(self, user_id: int) -> None:
        """Raise ``too_many_lobbies`` / ``too_many_games`` when ``user_id`` may not open
        another game now."""
        max_lobbies, max_games = self.config.max_open_lobbies, self.config.max_open_games
        if max_lobbies is None and max_games is None:
            return
        lobbies = games = 0
        for game_id in await self.store.user_games(user_id):
            try:
                loaded = await self.records.load(game_id, read_only=True)
            except ServiceError:
                continue
            meta = loaded.meta
            over = meta.cancelled or (
                loaded.state is not None and engine.phase(loaded.state) == "finished"
            )
            if meta.creator != user_id or over:
                continue
            games += 1
            lobbies += not meta.started
        if max_lobbies is not None and lobbies >= max_lobbies:
            raise ServiceError(
                "too_many_lobbies",
                f"you already have {lobbies} open lobbies: start or cancel one first",
                limit=max_lobbies,
            )
        if max_games is not None and games >= max_games:
            raise ServiceError(
                "too_many_games",
                f"you already have {games} games going: finish or leave one first",
                limit=max_games,
            )

    # --------------------------------------------------------------- admission
    async def grant_join_pass(self, game_id: str, user_id: int) -> None:
        """Record that ``user_id`` pressed the Join button of ``game_id``'s lobby in its
        group (the caller saw the press come from that group's message)."""
        until = self.records.now_ms() + self.config.join_pass_s * 1000
        await self.store.set_adapter(game_id, f"{PASS_PREFIX}{int(user_id)}", str(until))

    async def admit(self, game_id: str, user_id: int) -> None:
        """Raise ``membership_required`` unless ``user_id`` may take a seat in the lobby."""
        loaded = await self.records.load(game_id, read_only=True)
        meta = loaded.meta
        chat = meta.chat_key
        if chat is None or meta.open_join or meta.started or meta.cancelled:
            return  # not a group's lobby, open to anyone, or join() refuses it anyway
        if meta.seat_of(user_id) is not None:
            return
        data = await self.store.get_adapter(game_id)
        until = data.get(f"{PASS_PREFIX}{int(user_id)}", "")
        if until.isdigit() and int(until) > self.records.now_ms():
            return
        if self._membership is not None:
            try:
                member = await self._membership.is_member(chat.chat_id, user_id)
            except Exception:  # the port must not fail a join it could not answer
                log.exception("membership check failed for a lobby of chat %s", chat.chat_id)
                member = None
            if member:
                return
        raise ServiceError(
            "membership_required",
            "this lobby belongs to a Telegram group: press Join under its message in the "
            "group to take a seat (or ask its creator to open it to anyone)",
        )
