"""Lobbies: opening one, seats, settings, computer seats, the start, the end without a
result; each a load → decide → commit of ``Records``, its rules ``core.service.lobby``'s."""

from __future__ import annotations

from typing import Any

from core import engine
from core.engine.shapes import ViewDict
from core.service import chat_settings, lobby, lobby_api, lobby_settings
from core.service.guards import Guards
from core.service.meta import Meta, Seat
from core.service.models import ChatKey, ServiceConfig, ServiceError, UserRef
from core.service.moves import Moves
from core.service.queries import Queries
from core.service.records import Loaded, Plan, Records, bump, new_game_id
from core.service.timing import Timing
from core.service.usertext import clean_user
from core.store import Deadline, Keep


class Lobbies:
    """The lobby's actions (CONTRACTS.md §3); also leaving and kicking during a game."""

    def __init__(
        self, records: Records, timing: Timing, queries: Queries, moves: Moves, guards: Guards
    ) -> None:
        self.records = records
        self.timing = timing
        self.queries = queries
        self.moves = moves
        self.guards = guards

    @property
    def config(self) -> ServiceConfig:
        return self.records.config

    async def create_lobby(
        self,
        *,
        chat: ChatKey | None,
        creator: UserRef,
        edition: str | None = None,
        options: dict[str, object] | None = None,
        seats: int | None = None,
        computers: int = 0,
        level: str | None = None,
        settings: dict[str, object] | None = None,
        autostart: bool = True,
        title: str | None = None,
    ) -> ViewDict:
        """A new lobby seating ``creator``; one open lobby or game per chat key.

        A group's lobby starts from the settings of the last game started there (edition,
        rounds, variants, turn time, slow mode, computer level), over the schema's
        defaults; ``edition`` and the other arguments win over both. ``seats`` caps the
        table (default: the edition's maximum); ``computers`` adds that many computer
        seats; when they fill every seat but the creator's the game starts at once
        (``autostart``), as the Mini App's "play against the computer" does. ``title``:
        the group's title, kept with the game and its record ("My games").
        Raises ServiceError ``chat_busy`` (``details["game_id"]``) when the chat has one,
        ``too_many_lobbies`` / ``too_many_games`` past the creator's caps.
        """
        creator = clean_user(creator)
        await self.guards.check_caps(creator.user_id)
        last = await self._last_settings(chat) if edition is None else None
        edition = edition or (last or {}).get("edition") or "classic"
        meta = Meta(
            game_id=new_game_id(),
            creator=creator.user_id,
            created_ms=self.timing.now_ms(),
            chat=[chat.chat_id, chat.topic_id] if chat else None,
            think_delay_s=self.config.think_delay_s,
            round_pause_s=self.config.round_pause_s,
            takeover_after=self.config.takeover_after,
            title=chat_settings.clean_title(title),
        )
        meta.max_seats = lobby.limits(edition)[1] if edition in ("classic", "expansion") else 10
        meta.seats.append(Seat(creator.user_id, creator.name, creator.language))
        given: dict[str, object] = {"options": dict(options or {})}
        given.update({"computer_level": level} if level is not None else {})
        given.update({"seats": seats} if seats is not None else {})
        given.update(settings or {})
        context: lobby_settings.Context = "group" if chat else "private"
        wanted = self._lobby_defaults(context, edition)
        try:
            lobby.configure(meta, chat_settings.overlay(wanted, last, given, edition, context))
        except ServiceError:
            if last is None:
                raise
            # the group's last settings no longer fit (the schema changed): the defaults
            lobby.configure(meta, chat_settings.overlay(wanted, None, given, edition, context))
        if not 0 <= computers < meta.max_seats:
            raise ServiceError(
                "bad_setting", f"computer seats are 0 to {meta.max_seats - 1}: one is yours"
            )
        for _ in range(computers):
            lobby.add_computer(meta)
        deadline = self.timing.lobby_deadline(meta, self.timing.now_ms())
        if not await self.records.store.create(
            meta.game_id,
            "",
            meta.to_stored(),
            ttl_s=self.records.lobby_ttl(),
            deadline=deadline,
        ):
            raise ServiceError("busy", "game id collision; try again")
        if chat is not None:
            await self._bind_chat(chat, meta.game_id)
        await self.records.store.add_user_game(creator.user_id, meta.game_id, self.timing.now_ms())
        await self.records.store.touch(meta.game_id, str(creator.user_id), self.timing.now_ms())
        if autostart and computers and len(meta.seats) == meta.max_seats:
            return await self.start(meta.game_id, creator.user_id)
        return self.queries.render(await self.records.load(meta.game_id), creator.user_id)

    @staticmethod
    def _lobby_defaults(context: lobby_settings.Context, edition: str) -> dict[str, object]:
        """A new lobby's settings: the schema's defaults where it opens, except timing and
        size, which the deployment (ServiceConfig) and the edition decide."""
        wanted: dict[str, Any] = {"edition": edition, "options": {}}
        for name, value in lobby_settings.defaults(context).items():
            spec = lobby_settings.BY_NAME[name]
            if spec.where == "option":
                if spec.applies_to(edition):
                    wanted["options"][name] = value
            elif name not in ("edition", "think_delay", "round_pause", "takeover_after", "seats"):
                wanted[name] = value
        return wanted

    async def _bind_chat(self, chat: ChatKey, game_id: str) -> None:
        for _ in range(3):
            if await self.records.store.bind_chat(chat.chat_id, chat.topic_id, game_id):
                return
            existing = await self.queries.game_for_chat(chat)
            if existing is not None:
                await self.records.store.delete_game(game_id)
                raise ServiceError("chat_busy", "this chat already has a game", game_id=existing)
        await self.records.store.delete_game(game_id)
        raise ServiceError("busy", "could not claim the chat; try again")

    async def join(self, game_id: str, user: UserRef) -> ViewDict:
        """Take a seat (idempotent). A group's lobby admits only members of that group
        (``membership_required`` otherwise; see ``core.service.guards``)."""
        user = clean_user(user)
        await self.guards.admit(game_id, user.user_id)

        def decide(loaded: Loaded) -> Plan | None:
            if loaded.meta.seat_of(user.user_id) is not None and not loaded.meta.started:
                return None
            lobby.add_human(loaded.meta, user)
            return self._lobby_plan(loaded.meta)

        new = await self.records.mutate(game_id, decide, user.user_id)
        await self.records.store.add_user_game(user.user_id, game_id, self.timing.now_ms())
        return self.queries.render(new, user.user_id)

    async def leave(self, game_id: str, user_id: int) -> ViewDict:
        """Lobby: free the seat. Game: the computer plays the seat from now on; when no
        human is left in the game it is cancelled (nobody to play for)."""
        return await self._remove(game_id, user_id, by=user_id, force=True)

    async def kick(
        self, game_id: str, by_user: int, user_id: int, *, force: bool = False
    ) -> ViewDict:
        """The creator (or, with ``force``, a group admin) removes a player: as ``leave``."""
        return await self._remove(game_id, user_id, by=by_user, force=force)

    async def _remove(self, game_id: str, user_id: int, *, by: int, force: bool) -> ViewDict:
        def decide(loaded: Loaded) -> Plan | None:
            meta = loaded.meta
            if by != user_id:
                lobby.require_creator(meta, by, force)
            if meta.cancelled:
                return None
            if not meta.started:
                empty = lobby.remove_human(meta, user_id)
                meta.cancelled = empty
                if by != user_id and user_id not in meta.kicked:
                    meta.kicked.append(user_id)  # a kick sticks: no joining again
                return self._lobby_plan(meta)
            seat = meta.seat_of(user_id)
            if seat is None:
                raise ServiceError("not_seated", "not playing in this game")
            record = meta.seats[seat]
            kick = by != user_id  # removed by the creator or an admin: it sticks
            if (record.left and (record.kicked or not kick)) or (
                loaded.state is not None and engine.phase(loaded.state) == "finished"
            ):
                return None
            record.left = record.auto = True
            record.kicked = record.kicked or kick
            if meta.active_humans() == 0:
                meta.cancelled = True
                deadline: Deadline | Keep | None = None
            else:
                deadline = self.timing.keep_or_recompute(loaded, meta, seat)
            bump(loaded, meta)
            return Plan(meta, loaded.state, [], deadline, state_changed=False)

        new = await self.records.mutate(game_id, decide)
        if not new.meta.started:
            await self.records.store.remove_user_game(user_id, game_id)
        return self.queries.render(new, by)

    async def configure(
        self, game_id: str, user_id: int, *, force: bool = False, **settings: object
    ) -> ViewDict:
        """Lobby settings (creator only): edition, options, rounds, turn_time (seconds or
        None), language, think_delay (seconds), seats, round_pause, takeover_after,
        computer_level (easy / normal / hard: every computer seat, and any the computer
        takes over later)."""

        def decide(loaded: Loaded) -> Plan:
            lobby.require_creator(loaded.meta, user_id, force)
            lobby.configure(loaded.meta, settings)
            return self._lobby_plan(loaded.meta)

        return self.queries.render(await self.records.mutate(game_id, decide, user_id), user_id)

    async def describe_lobby(self, game_id: str, user_id: int | None) -> dict[str, object]:
        """The lobby's settings schema, current values and computer seats (the Mini App's
        lobby sheet; ``editable`` for its creator while it has not started)."""
        loaded = await self.records.load(game_id, read_only=True)
        return lobby_api.describe(loaded.meta, user_id)

    async def set_lobby(
        self, game_id: str, user_id: int, settings: dict[str, object], computers: object = None
    ) -> ViewDict:
        """Settings and the number of computer seats in one commit (creator only)."""

        def decide(loaded: Loaded) -> Plan:
            lobby.require_creator(loaded.meta, user_id)
            lobby_api.apply(loaded.meta, settings, computers)
            return self._lobby_plan(loaded.meta)

        return self.queries.render(await self.records.mutate(game_id, decide, user_id), user_id)

    async def add_computer(
        self, game_id: str, user_id: int, level: str | None = None, *, force: bool = False
    ) -> ViewDict:
        """A computer seat at ``level`` (default: the lobby's ``computer_level``)."""

        def decide(loaded: Loaded) -> Plan:
            lobby.require_creator(loaded.meta, user_id, force)
            lobby.add_computer(loaded.meta, level)
            return self._lobby_plan(loaded.meta)

        return self.queries.render(await self.records.mutate(game_id, decide, user_id), user_id)

    async def remove_computer(
        self, game_id: str, user_id: int, seat: int | None = None, *, force: bool = False
    ) -> ViewDict:
        def decide(loaded: Loaded) -> Plan:
            lobby.require_creator(loaded.meta, user_id, force)
            lobby.remove_computer(loaded.meta, seat)
            return self._lobby_plan(loaded.meta)

        return self.queries.render(await self.records.mutate(game_id, decide, user_id), user_id)

    async def start(self, game_id: str, user_id: int, *, force: bool = False) -> ViewDict:
        """Deal round 1 (creator only; the bot passes ``force`` for group admins)."""

        def decide(loaded: Loaded) -> Plan:
            lobby.require_creator(loaded.meta, user_id, force)
            return self.moves.start_plan(loaded)

        return self.queries.render(await self.records.mutate(game_id, decide, user_id), user_id)

    async def extend(self, game_id: str, user_id: int, seconds: int = 60) -> ViewDict:
        """Push the running auto-start countdown back by ``seconds`` (anyone seated; at
        most an hour beyond a full countdown). No countdown running: nothing changes."""

        def decide(loaded: Loaded) -> Plan | None:
            meta = loaded.meta
            lobby.require_lobby(meta)
            if meta.seat_of(user_id) is None:
                raise ServiceError("not_seated", "you are not in this lobby")
            if meta.autostart_at is None:
                return None
            now = self.timing.now_ms()
            later = max(meta.autostart_at, now) + max(1, int(seconds)) * 1000
            cap = now + ((meta.countdown_s or 0) + 3600) * 1000
            meta.autostart_at = min(later, cap)
            return self._lobby_plan(meta)

        return self.queries.render(await self.records.mutate(game_id, decide, user_id), user_id)

    def _lobby_plan(self, meta: Meta) -> Plan:
        """A lobby change: commit the meta and re-arm the lobby's timer with it."""
        deadline = self.timing.lobby_deadline(meta, self.timing.now_ms())
        return Plan(meta, None, [], deadline, state_changed=False)

    async def cancel(self, game_id: str, user_id: int, *, force: bool = False) -> ViewDict:
        """End a lobby or a game without a result (creator, or ``force`` for admins)."""

        def decide(loaded: Loaded) -> Plan | None:
            meta = loaded.meta
            lobby.require_creator(meta, user_id, force)
            if meta.cancelled:
                return None
            if loaded.state is not None and engine.phase(loaded.state) == "finished":
                raise ServiceError("already_finished", "the game is over")
            meta.cancelled = True
            bump(loaded, meta)
            return Plan(meta, loaded.state, [], None, state_changed=False)

        return self.queries.render(await self.records.mutate(game_id, decide, user_id), user_id)

    async def _last_settings(self, chat: ChatKey | None) -> dict[str, Any] | None:
        """The settings of the last game started in the group (``/new`` starts from them)."""
        if chat is None:
            return None
        key = chat_settings.pref_key(chat.chat_id)
        return chat_settings.parse(await self.records.store.get_pref(key))
