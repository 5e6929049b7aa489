"""The game flow of a table: pause and resume, the bot's prompt receipts, play again, and
a group's last settings (CONTRACTS.md §3).

The clock's rules are ``core.service.clock``'s and the rematch lobby is
``core.service.rematch``'s; this part loads, decides and commits them like every change.
"""

from __future__ import annotations

import logging

from core import engine
from core.engine.shapes import ViewDict
from core.service import clock, lobby, rematch
from core.service.meta import Meta, Seat
from core.service.models import ChatKey, ServiceError, UserRef
from core.service.moves import Moves
from core.service.queries import Queries
from core.service.records import MAX_ATTEMPTS, Loaded, Plan, Records, bump, new_game_id
from core.service.timing import Timing
from core.store import KEEP, Deadline

log = logging.getLogger(__name__)


class GameFlow:
    """Pause and resume, prompt receipts, play again."""

    def __init__(self, records: Records, timing: Timing, queries: Queries, moves: Moves) -> None:
        self.records = records
        self.store = records.store
        self.timing = timing
        self.queries = queries
        self.moves = moves

    # ================================================================= pause
    async def pause(self, game_id: str, user_id: int, *, force: bool = False) -> ViewDict:
        """Stop the clock (the creator, or with ``force`` a group admin): no turn
        deadline, no computer move and no move at all until ``resume``; the view says
        ``paused``. A paused game still expires when nobody touches it for the game's idle
        time (its one deadline is then that expiry)."""

        def decide(loaded: Loaded) -> Plan | None:
            meta = loaded.meta
            lobby.require_creator(meta, user_id, force)
            state = _running(loaded)
            if meta.paused:
                return None
            now = self.timing.now_ms()
            meta.paused = True
            meta.paused_left_ms = _time_left(loaded, now)
            bump(loaded, meta)
            deadline = self.timing.deadline(meta, state, now)
            return Plan(meta, state, [], deadline, state_changed=False)

        return self.queries.render(await self.records.mutate(game_id, decide, user_id), user_id)

    async def resume(self, game_id: str, user_id: int, *, force: bool = False) -> ViewDict:
        """Start the clock again: the player to act gets back the time they had left when
        the game was paused (at least ``clock.RESUME_AT_LEAST_MS``, at most a whole turn);
        a round pause goes on where it stopped; a computer seat thinks as usual."""

        def decide(loaded: Loaded) -> Plan | None:
            meta = loaded.meta
            lobby.require_creator(meta, user_id, force)
            state = _running(loaded)
            if not meta.paused:
                return None
            now = self.timing.now_ms()
            left, meta.paused_left_ms = meta.paused_left_ms, None
            meta.paused = False
            seat = engine.actor(state)
            deadline: Deadline
            if engine.phase(state) == "round_over":
                meta.pause_until = now + (meta.round_pause_s * 1000 if left is None else left)
                deadline = self.timing.deadline(meta, state, now)
            elif (
                seat is not None
                and not meta.seats[seat].by_computer
                and left is not None
                and (resumed := clock.resumed(meta, left, now)) is not None
            ):
                meta.idle_until = None  # a turn's clock again, not the paused game's expiry
                deadline = resumed
            else:
                deadline = self.timing.deadline(meta, state, now, loaded.version + 1)
            bump(loaded, meta)
            return Plan(meta, state, [], deadline, state_changed=False)

        return self.queries.render(await self.records.mutate(game_id, decide, user_id), user_id)

    # ====================================================== the bot's prompts
    async def prompt_delivered(self, game_id: str, version: int) -> None:
        """The bot's prompt of the turn at ``version`` reached the player now. Recorded
        without a versioned commit (the game's presence data); when it went out more
        than ``clock.FORGIVE_AFTER_MS`` after the turn began, that turn's timeout is not
        counted against the player: its deadline is extended once instead."""
        if isinstance(version, bool) or not isinstance(version, int):
            return
        try:
            loaded = await self.records.load(game_id, read_only=True)
        except ServiceError:
            return  # gone: nothing to forgive
        state, meta = loaded.state, loaded.meta
        if state is None or meta.paused or version > loaded.version:
            return
        seat = engine.actor(state)
        if seat is None or meta.seats[seat].by_computer:
            return
        if clock.prompt_counts(meta, loaded.presence, version):
            await self.store.touch(game_id, clock.PROMPT, self.timing.now_ms())

    # ============================================================ play again
    async def rematch(self, game_id: str, user_id: int) -> ViewDict:
        """Play again: a new lobby for the finished game's table (``core.service.rematch``)
        with the presser as its creator; their view of it. Idempotent across presses
        and workers: the first lobby is recorded on the finished game with a compare-
        and-set (its view's ``rematch``) and every later press enters that one (seating
        the presser if they are not). Raises ServiceError ``not_finished``, ``not_seated``
        (not a player of that game), ``kicked``, ``chat_busy`` (another game opened in
        the chat meanwhile), ``already_started`` (the new game began without them)."""
        async with self.records.lock(game_id):
            for _ in range(MAX_ATTEMPTS):
                loaded = await self.records.load(game_id)
                old = loaded.meta
                seat = _player_of_finished(loaded, user_id)
                if old.rematch is not None:
                    entered = await self._enter_rematch(old.rematch, old.seats[seat])
                    if entered is not None:
                        return entered
                chat = old.chat_key
                busy = None if chat is None else await self.queries.game_for_chat(chat)
                if busy is not None:
                    if (await self.records.load(game_id)).meta.rematch == busy:
                        continue  # another press recorded it meanwhile: enter that one
                    raise ServiceError("chat_busy", "this chat already has a game", game_id=busy)
                now = self.timing.now_ms()
                new = rematch.lobby_for(old, user_id, new_game_id(), now)
                deadline = self.timing.lobby_deadline(new, now)  # (sets the countdown's end)
                if not await self.store.create(
                    new.game_id,
                    "",
                    new.to_stored(),
                    ttl_s=self.records.lobby_ttl(),
                    deadline=deadline,
                ):
                    continue  # a game id collision: another id
                old.rematch = new.game_id
                bump(loaded, old)
                plan = Plan(old, loaded.state, [], KEEP, state_changed=False)
                if await self.records.commit(loaded, plan) is None:
                    await self.store.delete_game(new.game_id)  # another press won: theirs
                    continue
                return await self._open_rematch(new, user_id)
        raise ServiceError("busy", "too many concurrent changes; try again")

    async def _open_rematch(self, meta: Meta, user_id: int) -> ViewDict:
        """The new lobby is recorded: claim the chat, index its players, maybe start."""
        chat = meta.chat_key
        if chat is not None:
            await self._claim_chat(chat, meta.game_id)
        now = self.timing.now_ms()
        for human in meta.humans():
            await self.store.add_user_game(human, meta.game_id, now)
        await self.store.touch(meta.game_id, str(user_id), now)
        if rematch.alone_with_computers(meta):
            new = await self.records.mutate(meta.game_id, self.moves.start_plan, user_id)
        else:
            new = await self.records.load(meta.game_id)
        return self.queries.render(new, user_id)

    async def _enter_rematch(self, game_id: str, seat: Seat) -> ViewDict | None:
        """The recorded rematch, entered by a player of the last game; None when it is no
        more (cancelled or expired: the next press opens another)."""
        assert seat.user_id is not None
        user = UserRef(seat.user_id, seat.name, seat.language)
        try:
            loaded = await self.records.load(game_id)
        except ServiceError:
            return None
        meta = loaded.meta
        if meta.cancelled:
            return None
        if meta.started:
            if meta.seat_of(user.user_id) is None:
                raise ServiceError("already_started", "the new game has started")
            return self.queries.render(loaded, user.user_id)
        chat = meta.chat_key
        if chat is not None and await self.store.chat_game(chat.chat_id, chat.topic_id) is None:
            await self._claim_chat(chat, game_id)  # its opener stopped before claiming it
        if meta.seat_of(user.user_id) is not None:
            return self.queries.render(loaded, user.user_id)

        def decide(current: Loaded) -> Plan | None:
            if current.meta.seat_of(user.user_id) is not None:
                return None
            lobby.add_human(current.meta, user)
            return Plan(
                current.meta,
                None,
                [],
                self.timing.lobby_deadline(current.meta, self.timing.now_ms()),
                state_changed=False,
            )

        joined = await self.records.mutate(game_id, decide, user.user_id)
        await self.store.add_user_game(user.user_id, game_id, self.timing.now_ms())
        return self.queries.render(joined, user.user_id)

    async def _claim_chat(self, chat: ChatKey, game_id: str) -> None:
        if await self.store.bind_chat(chat.chat_id, chat.topic_id, game_id):
            return
        existing = await self.queries.game_for_chat(chat)
        if existing == game_id:
            return
        if existing is None and await self.store.bind_chat(chat.chat_id, chat.topic_id, game_id):
            return
        await self.store.delete_game(game_id)  # someone opened a game meanwhile: theirs
        raise ServiceError("chat_busy", "this chat already has a game", game_id=existing)


def _running(loaded: Loaded) -> engine.GameState:
    """The state of a game that is being played (pause and resume), or ServiceError."""
    if loaded.meta.cancelled:
        raise ServiceError("not_found", "the game was cancelled")
    if loaded.state is None:
        raise ServiceError("not_started", "the game has not started")
    if engine.phase(loaded.state) == "finished":
        raise ServiceError("already_finished", "the game is over")
    return loaded.state


def _time_left(loaded: Loaded, now: int) -> int | None:
    """What pause stops: the human actor's time left, or the round pause's."""
    state, meta = loaded.state, loaded.meta
    assert state is not None
    phase = engine.phase(state)
    if phase == "round_over":
        return None if meta.pause_until is None else max(0, meta.pause_until - now)
    seat = engine.actor(state)
    if seat is None or meta.seats[seat].by_computer or loaded.deadline_ms is None:
        return None
    if meta.idle_until is not None:  # the deadline is the game's idle expiry, not a turn's
        return None
    return max(0, loaded.deadline_ms - now)


def _player_of_finished(loaded: Loaded, user_id: int) -> int:
    """The presser's seat in a finished game they may play again from, or ServiceError."""
    meta = loaded.meta
    if meta.cancelled or loaded.state is None or engine.phase(loaded.state) != "finished":
        raise ServiceError("not_finished", "the game is not over")
    seat = meta.seat_of(user_id)
    if seat is None:
        raise ServiceError("not_seated", "you did not play in this game")
    if meta.seats[seat].kicked:
        raise ServiceError("kicked", "you were removed from this game")
    return seat
