"""GameService: lobbies, seats and moves; timers and reads come from its parts.

See ``core.service.core`` for the load → decide → commit cycle every change goes through.
"""

from __future__ import annotations

import logging
from typing import Any

from core import engine
from core.service import chat_settings, history, lobby, lobby_api, lobby_settings
from core.service.core import client_submission_id
from core.service.flow import GameFlow
from core.service.guards import Guards
from core.service.meta import Meta, Seat
from core.service.models import (
    ChatKey,
    ServiceError,
    SubmitResult,
    UserRef,
)
from core.service.queries import Queries
from core.service.records import Loaded, Plan, new_game_id
from core.service.timers import Timers
from core.service.usertext import clean_user
from core.store import EPOCH_GAP, Deadline, Keep

log = logging.getLogger(__name__)


class GameService(GameFlow, Timers, Queries, Guards):
    """The API of CONTRACTS.md §3."""

    # ================================================================= lobby
    async def create_lobby(
        self,
        *,
        chat: ChatKey | None,
        creator: UserRef,
        edition: str | None = None,
        options: dict[str, Any] | None = None,
        seats: int | None = None,
        computers: int = 0,
        level: str | None = None,
        settings: dict[str, Any] | None = None,
        autostart: bool = True,
        title: str | None = None,
    ) -> dict[str, Any]:
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
        await self._check_caps(creator.user_id)
        last = await self._last_settings(chat) if edition is None else None
        edition = edition or (last or {}).get("edition") or "classic"
        meta = Meta(
            game_id=new_game_id(),
            creator=creator.user_id,
            created_ms=self.now_ms(),
            chat=[chat.chat_id, chat.topic_id] if chat else None,
            think_delay_s=self.config.think_delay_s,
            round_pause_s=self.config.round_pause_s,
            takeover_after=self.config.takeover_after,
            title=chat_settings.clean_title(title),
        )
        meta.max_seats = lobby.limits(edition)[1] if edition in ("classic", "expansion") else 10
        meta.seats.append(Seat(creator.user_id, creator.name, creator.language))
        given: dict[str, Any] = {"options": dict(options or {})}
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
        for _ in range(computers):
            lobby.add_computer(meta)
        deadline = self._lobby_deadline(meta, self.now_ms())
        if not await self.store.create(
            meta.game_id,
            "",
            meta.to_stored(),
            ttl_s=self._lobby_record_ttl(),
            deadline=deadline,
        ):
            raise ServiceError("busy", "game id collision; try again")
        if chat is not None:
            await self._bind_chat(chat, meta.game_id)
        await self.store.add_user_game(creator.user_id, meta.game_id, self.now_ms())
        await self.store.touch(meta.game_id, str(creator.user_id), self.now_ms())
        if autostart and computers and len(meta.seats) == meta.max_seats:
            return await self.start(meta.game_id, creator.user_id)
        return self._view(await self._load(meta.game_id), creator.user_id)

    @staticmethod
    def _lobby_defaults(context: lobby_settings.Context, edition: str) -> dict[str, Any]:
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
            if await self.store.bind_chat(chat.chat_id, chat.topic_id, game_id):
                return
            existing = await self.game_for_chat(chat)
            if existing is not None:
                await self.store.delete_game(game_id)
                raise ServiceError("chat_busy", "this chat already has a game", game_id=existing)
        await self.store.delete_game(game_id)
        raise ServiceError("busy", "could not claim the chat; try again")

    async def join(self, game_id: str, user: UserRef) -> dict[str, Any]:
        """Take a seat (idempotent). A group's lobby admits only members of that group
        (``membership_required`` otherwise; see ``core.service.guards``)."""
        user = clean_user(user)
        await self._admit(game_id, user.user_id)

        def decide(loaded: Loaded) -> Plan | None:
            if loaded.meta.seat_of(user.user_id) is not None and not loaded.meta.started:
                return None
            lobby.add_human(loaded.meta, user)
            return self._lobby_plan(loaded.meta)

        new = await self._mutate(game_id, decide, user.user_id)
        await self.store.add_user_game(user.user_id, game_id, self.now_ms())
        return self._view(new, user.user_id)

    async def leave(self, game_id: str, user_id: int) -> dict[str, Any]:
        """Lobby: free the seat. Game: the computer plays the seat from now on; when no
        human is left in the game it is cancelled (nobody to play for)."""
        return await self._remove(game_id, user_id, by=user_id, force=True)

    async def kick(
        self, game_id: str, by_user: int, user_id: int, *, force: bool = False
    ) -> dict[str, Any]:
        """The creator (or, with ``force``, a group admin) removes a player: as ``leave``."""
        return await self._remove(game_id, user_id, by=by_user, force=force)

    async def _remove(self, game_id: str, user_id: int, *, by: int, force: bool) -> dict[str, Any]:
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
                deadline = self._keep_or_recompute(loaded, meta, seat)
            self._bump(loaded, meta)
            return Plan(meta, loaded.state, [], deadline, state_changed=False)

        new = await self._mutate(game_id, decide)
        if not new.meta.started:
            await self.store.remove_user_game(user_id, game_id)
        return self._view(new, by)

    async def configure(
        self, game_id: str, user_id: int, *, force: bool = False, **settings: Any
    ) -> dict[str, Any]:
        """Lobby settings (creator only): edition, options, rounds, turn_time (seconds or
        None), language, think_delay (seconds), seats, round_pause, takeover_after,
        computer_level (easy / normal / hard: every computer seat, and any the computer
        takes over later)."""

        def decide(loaded: Loaded) -> Plan:
            lobby.require_creator(loaded.meta, user_id, force)
            lobby.configure(loaded.meta, settings)
            return self._lobby_plan(loaded.meta)

        return self._view(await self._mutate(game_id, decide, user_id), user_id)

    async def describe_lobby(self, game_id: str, user_id: int | None) -> dict[str, Any]:
        """The lobby's settings schema, current values and computer seats (the Mini App's
        lobby sheet; ``editable`` for its creator while it has not started)."""
        return lobby_api.describe((await self._load(game_id, read_only=True)).meta, user_id)

    async def set_lobby(
        self, game_id: str, user_id: int, settings: dict[str, Any], computers: Any = None
    ) -> dict[str, Any]:
        """Settings and the number of computer seats in one commit (creator only)."""

        def decide(loaded: Loaded) -> Plan:
            lobby.require_creator(loaded.meta, user_id)
            lobby_api.apply(loaded.meta, settings, computers)
            return self._lobby_plan(loaded.meta)

        return self._view(await self._mutate(game_id, decide, user_id), user_id)

    async def add_computer(
        self, game_id: str, user_id: int, level: str | None = None, *, force: bool = False
    ) -> dict[str, Any]:
        """A computer seat at ``level`` (default: the lobby's ``computer_level``)."""

        def decide(loaded: Loaded) -> Plan:
            lobby.require_creator(loaded.meta, user_id, force)
            lobby.add_computer(loaded.meta, level)
            return self._lobby_plan(loaded.meta)

        return self._view(await self._mutate(game_id, decide, user_id), user_id)

    async def remove_computer(
        self, game_id: str, user_id: int, seat: int | None = None, *, force: bool = False
    ) -> dict[str, Any]:
        def decide(loaded: Loaded) -> Plan:
            lobby.require_creator(loaded.meta, user_id, force)
            lobby.remove_computer(loaded.meta, seat)
            return self._lobby_plan(loaded.meta)

        return self._view(await self._mutate(game_id, decide, user_id), user_id)

    async def start(self, game_id: str, user_id: int, *, force: bool = False) -> dict[str, Any]:
        """Deal round 1 (creator only; the bot passes ``force`` for group admins)."""

        def decide(loaded: Loaded) -> Plan:
            lobby.require_creator(loaded.meta, user_id, force)
            return self._start_plan(loaded)

        return self._view(await self._mutate(game_id, decide, user_id), user_id)

    async def extend(self, game_id: str, user_id: int, seconds: int = 60) -> dict[str, Any]:
        """Push the running auto-start countdown back by ``seconds`` (anyone seated; at
        most an hour beyond a full countdown). No countdown running: nothing changes."""

        def decide(loaded: Loaded) -> Plan | None:
            meta = loaded.meta
            lobby.require_lobby(meta)
            if meta.seat_of(user_id) is None:
                raise ServiceError("not_seated", "you are not in this lobby")
            if meta.autostart_at is None:
                return None
            now = self.now_ms()
            later = max(meta.autostart_at, now) + max(1, int(seconds)) * 1000
            cap = now + ((meta.countdown_s or 0) + 3600) * 1000
            meta.autostart_at = min(later, cap)
            return self._lobby_plan(meta)

        return self._view(await self._mutate(game_id, decide, user_id), user_id)

    def _lobby_plan(self, meta: Meta) -> Plan:
        """A lobby change: commit the meta and re-arm the lobby's timer with it."""
        return Plan(meta, None, [], self._lobby_deadline(meta, self.now_ms()), state_changed=False)

    async def cancel(self, game_id: str, user_id: int, *, force: bool = False) -> dict[str, Any]:
        """End a lobby or a game without a result (creator, or ``force`` for admins)."""

        def decide(loaded: Loaded) -> Plan | None:
            meta = loaded.meta
            lobby.require_creator(meta, user_id, force)
            if meta.cancelled:
                return None
            if loaded.state is not None and engine.phase(loaded.state) == "finished":
                raise ServiceError("already_finished", "the game is over")
            meta.cancelled = True
            self._bump(loaded, meta)
            return Plan(meta, loaded.state, [], None, state_changed=False)

        return self._view(await self._mutate(game_id, decide, user_id), user_id)

    async def take_seat_back(self, game_id: str, user_id: int) -> dict[str, Any]:
        def decide(loaded: Loaded) -> Plan | None:
            meta = loaded.meta
            seat = meta.seat_of(user_id)
            if seat is None:
                raise ServiceError("not_seated", "you have no seat in this game")
            record = meta.seats[seat]
            if record.kicked:
                raise ServiceError("kicked", "you were removed from this game")
            if not record.auto or meta.cancelled or loaded.state is None:
                return None
            record.auto = record.left = False
            record.timeouts = 0
            deadline = self._keep_or_recompute(loaded, meta, seat)
            self._bump(loaded, meta)
            return Plan(meta, loaded.state, [], deadline, state_changed=False)

        return self._view(await self._mutate(game_id, decide, user_id), user_id)

    # ================================================================= moves
    async def submit(
        self,
        game_id: str,
        user_id: int,
        move: Any,
        expected_version: Any,
        *,
        submission_id: str | None = None,
    ) -> SubmitResult:
        """A player's move at the version they acted on (API.md ``POST .../moves``).

        ``submission_id``: the client's id of this submission (one per move it means to
        make, the same on every retry). A retry after a lost answer finds the move it
        made and answers ``ok`` again (with the current view) instead of ``stale``, while
        the move is among the game's last few commits. Without one, the commit still
        carries an id of its own (``ServiceCore._commit``)."""
        if (
            not isinstance(move, dict)
            or not isinstance(move.get("type"), str)
            or isinstance(expected_version, bool)
            or not isinstance(expected_version, int)
            or not (submission_id is None or isinstance(submission_id, str))
        ):
            return SubmitResult(
                "invalid",
                None,
                "bad_move",
                "move must be an object with a type, version an integer "
                "(and submission_id a string)",
            )
        sid = None if submission_id is None else client_submission_id(user_id, submission_id)
        if move["type"] == "take_seat_back":
            try:
                return SubmitResult("ok", await self.take_seat_back(game_id, user_id))
            except ServiceError as exc:
                if exc.code not in ("not_seated", "kicked"):
                    raise
                return SubmitResult("forbidden", await self.view(game_id, user_id), exc.code)
        async with self._lock(game_id):
            recent = self._recent_at(game_id, expected_version)
            if recent is not None:  # the usual case: no load, straight to the commit
                result = await self._submit_at(recent, user_id, move, expected_version, sid)
                if result is not None and result.status == "ok":
                    return result
            # anything else is answered from a fresh load
            loaded = await self._load(game_id)
            done = await self._submit_at(loaded, user_id, move, expected_version, sid)
            if done is not None and done.reason == "stale_version":
                if sid is not None and await self.store.submitted(game_id, sid) is not None:
                    return SubmitResult("ok", self._view(loaded, user_id))  # made already
                newer_epoch = expected_version // EPOCH_GAP < loaded.version // EPOCH_GAP
                if newer_epoch and await self.store.renumbered_from(game_id) == expected_version:
                    # a new master renumbered the very state the player saw (an epoch)
                    done = await self._submit_at(loaded, user_id, move, loaded.version, sid)
            if done is None:
                loaded = await self._load(game_id)
                done = SubmitResult("stale", self._view(loaded, user_id), "stale_version")
            return done

    async def _submit_at(
        self,
        loaded: Loaded,
        user_id: int,
        move: dict[str, Any],
        expected_version: int,
        submission: str | None = None,
    ) -> SubmitResult | None:
        """Decide and commit a move on ``loaded``; None when the commit lost the race."""
        meta = loaded.meta
        seat = meta.seat_of(user_id)
        if move["type"] == "timeout":
            return SubmitResult("forbidden", self._view(loaded, user_id), "server_only")
        if seat is None:
            return SubmitResult("forbidden", self._view(loaded, user_id), "not_seated")
        if loaded.version != expected_version:
            return SubmitResult("stale", self._view(loaded, user_id), "stale_version")
        if loaded.state is None or meta.cancelled:
            return SubmitResult("illegal", self._view(loaded, user_id), "wrong_phase")
        if meta.paused:
            return SubmitResult("illegal", self._view(loaded, user_id), "game_paused")
        if meta.seats[seat].auto:
            return SubmitResult("forbidden", self._view(loaded, user_id), "seat_taken_over")
        try:
            change = self._step(loaded, meta, seat, move)
        except engine.IllegalMove as exc:
            return SubmitResult(
                "illegal", self._view(loaded, user_id), str(exc.reason), exc.message
            )
        except engine.MoveFormatError as exc:
            return SubmitResult("invalid", self._view(loaded, user_id), "bad_move", str(exc))
        meta.seats[seat].timeouts = 0
        change.present = user_id
        new = await self._commit(loaded, change, submission)
        if new is None:
            return None
        return SubmitResult("ok", self._view(new, user_id))

    # ========================================================= history
    async def finished_view(self, game_id: str, user_id: int | None) -> dict[str, Any]:
        """A finished game's view from its archive, once its live record is gone."""
        return await history.finished_view(self.store, game_id, user_id)

    async def finished_log(self, game_id: str, since_version: int = 0) -> list[dict[str, Any]]:
        return await history.finished_log(self.store, game_id, since_version)

    async def replay(self, game_id: str) -> dict[str, Any]:
        """Every round of a game, live or archived (``core.service.history``)."""
        try:
            loaded = await self._load(game_id, read_only=True)
        except ServiceError as exc:
            if exc.code != "not_found":
                raise
            loaded = None
        return await history.replay_of(self.store, game_id, loaded)

    async def history(self, user_id: int, limit: int = 50) -> list[dict[str, Any]]:
        """The user's "My games": their's archived games, newest first."""
        records = await self.store.archived_for_user(user_id, limit)
        return [e for r in records if (e := history.history_entry(r, user_id)) is not None]
