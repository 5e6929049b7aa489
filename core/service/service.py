"""GameService: lobbies, seats, moves, timers and computer seats on top of a GameStore.

Every change is load → decide → ``store.commit(expected_version)``: the store's atomic
compare-and-set is what keeps several workers correct (principle 3); the per-game asyncio
lock only cuts conflicts inside one process. The commit that changes who acts arms that
turn's deadline in the same atomic step (principle 5), so a worker that dies loses nothing:
any other worker's ``run_timers`` claims the deadline and fires it at the armed version.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import logging
import secrets
import time
import zlib
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from core import engine
from core.service import lobby, movelog
from core.service.agents import Chooser, choose, move_seed
from core.service.archive import chat_stats, game_record, round_record, user_stats
from core.service.meta import Meta, Seat
from core.service.models import (
    ChatKey,
    SeatInfo,
    ServiceConfig,
    ServiceError,
    SubmitResult,
    TurnWarning,
    UserRef,
)
from core.service.views import game_view, lobby_view, rewrite_entry
from core.store import KEEP, TIMER_WARN, Change, Deadline, GameStore, Keep, TimerClaim

log = logging.getLogger(__name__)

WarningHandler = Callable[[TurnWarning], Awaitable[None]]
MAX_ATTEMPTS = 8
STATE_CACHE_SIZE = 256


def new_game_id() -> str:
    """12 characters of ``[A-Za-z0-9_-]``: 72 random bits, fits a deep link."""
    return secrets.token_urlsafe(9)


COMPRESS_ABOVE = 1024  # bytes of state JSON; below this zlib+base64 saves nothing


def encode_state(state: Any) -> str:
    """Engine state as stored: JSON, or ``z:`` + base64(zlib(JSON)) once it is large.

    Why: the state carries the round's public log and grows through a game; compressed it
    is about a third of the size, which keeps a live game within the memory budget
    (docs/benchmarks/store.md) for ~100 µs of CPU per move.
    """
    raw = json.dumps(engine.state_to_json(state), separators=(",", ":"))
    if len(raw) <= COMPRESS_ABOVE:
        return raw
    return "z:" + base64.b64encode(zlib.compress(raw.encode(), 6)).decode("ascii")


def decode_state(stored: str) -> Any:
    if stored.startswith("z:"):
        stored = zlib.decompress(base64.b64decode(stored[2:])).decode()
    return engine.state_from_json(json.loads(stored))


@dataclass(slots=True)
class Loaded:
    """One game as read in one round trip, decoded."""

    game_id: str
    version: int
    meta: Meta
    state: Any | None  # engine GameState; None in the lobby
    state_json: str
    deadline_ms: int | None
    presence: dict[str, int]


@dataclass(slots=True)
class Plan:
    """What a decision wants committed."""

    meta: Meta
    state: Any | None
    log: list[dict[str, Any]]
    deadline: Deadline | Keep | None
    state_changed: bool = True
    present: int | None = None  # user id to mark online in the same commit


class GameService:
    def __init__(
        self,
        store: GameStore,
        config: ServiceConfig | None = None,
        *,
        clock: Callable[[], int] | None = None,
        ai: Chooser | None = None,
    ) -> None:
        self.store = store
        self.config = config or ServiceConfig()
        self._clock = clock or (lambda: int(time.time() * 1000))
        self._ai = ai
        self._locks: dict[str, asyncio.Lock] = {}
        self._states: OrderedDict[str, tuple[str, Any]] = OrderedDict()
        self._warning_handlers: list[WarningHandler] = []
        self.fired = 0  # timers this process fired (tests, metrics)

    # ================================================================= plumbing
    def now_ms(self) -> int:
        return self._clock()

    @contextlib.asynccontextmanager
    async def _lock(self, game_id: str) -> AsyncIterator[None]:
        lock = self._locks.setdefault(game_id, asyncio.Lock())
        try:
            async with lock:
                yield
        finally:
            if not lock.locked() and self._locks.get(game_id) is lock:
                del self._locks[game_id]

    async def _load(self, game_id: str) -> Loaded:
        if not isinstance(game_id, str) or not 1 <= len(game_id) <= 64:
            raise ServiceError("not_found", "no such game")
        try:
            record = await self.store.load(game_id)
        except ValueError as exc:  # a malformed id
            raise ServiceError("not_found", "no such game") from exc
        if record is None:
            raise ServiceError("not_found", "no such game")
        meta = Meta.from_json(record.meta)
        state = self._decode(game_id, record.state) if record.state else None
        return Loaded(
            game_id, record.version, meta, state, record.state, record.deadline_ms, record.presence
        )

    def _decode(self, game_id: str, stored: str) -> Any:
        """Decode a stored state, reusing the last one this process saw for the game.

        States are immutable, so the object decoded from (or committed as) the same stored
        string can be shared; this skips most decoding when one worker drives a game.
        """
        cached = self._states.get(game_id)
        if cached is not None and cached[0] == stored:
            self._states.move_to_end(game_id)
            return cached[1]
        state = decode_state(stored)
        self._remember(game_id, stored, state)
        return state

    def _remember(self, game_id: str, stored: str, state: Any) -> None:
        self._states[game_id] = (stored, state)
        self._states.move_to_end(game_id)
        while len(self._states) > STATE_CACHE_SIZE:
            self._states.popitem(last=False)

    def _ttl(self, meta: Meta, state: Any | None) -> int:
        if meta.cancelled or (state is not None and engine.phase(state) == "finished"):
            return self.config.finished_ttl_s
        return self.config.game_ttl_s if meta.started else self.config.lobby_ttl_s

    async def _commit(self, loaded: Loaded, change: Plan) -> Loaded | None:
        """Commit at ``loaded.version``; the new Loaded, or None on a version conflict."""
        state_json = (
            encode_state(change.state)
            if change.state_changed and change.state is not None
            else loaded.state_json
        )
        result = await self.store.commit(
            loaded.game_id,
            loaded.version,
            state_json,
            change.meta.to_json(),
            [movelog.encode(e) for e in change.log],
            change.deadline,
            ttl_s=self._ttl(change.meta, change.state),
            presence=None if change.present is None else (str(change.present), self.now_ms()),
        )
        if not result.ok:
            if result.version is None:
                raise ServiceError("not_found", "no such game")
            return None
        if change.deadline is KEEP:
            deadline_ms = loaded.deadline_ms
        else:
            deadline_ms = change.deadline.at_ms if isinstance(change.deadline, Deadline) else None
        if change.state is not None:
            self._remember(loaded.game_id, state_json, change.state)
        presence = loaded.presence
        if change.present is not None:
            presence = {**presence, str(change.present): self.now_ms()}
        new = Loaded(
            loaded.game_id,
            loaded.version + 1,
            change.meta,
            change.state,
            state_json,
            deadline_ms,
            presence,
        )
        await self._after_commit(loaded, new)
        return new

    async def _mutate(
        self,
        game_id: str,
        decide: Callable[[Loaded], Plan | None],
        present: int | None = None,
    ) -> Loaded:
        """Load, decide, commit; retried on version conflicts (service-side changes).

        ``present``: the acting user, marked online in the same commit.
        """
        async with self._lock(game_id):
            for _ in range(MAX_ATTEMPTS):
                loaded = await self._load(game_id)
                change = decide(loaded)
                if change is None:
                    return loaded
                if present is not None and change.present is None:
                    change.present = present
                new = await self._commit(loaded, change)
                if new is not None:
                    return new
                await asyncio.sleep(0.005)
        raise ServiceError("busy", "too many concurrent changes; try again")

    def _view(self, loaded: Loaded, user_id: int | None) -> dict[str, Any]:
        window = self.config.online_window_s * 1000
        if loaded.state is None:
            return lobby_view(
                loaded.meta,
                version=loaded.version,
                viewer=user_id,
                presence=loaded.presence,
                now_ms=self.now_ms(),
                window_ms=window,
            )
        return game_view(
            loaded.meta,
            loaded.state,
            version=loaded.version,
            viewer=user_id,
            presence=loaded.presence,
            deadline_ms=loaded.deadline_ms,
            now_ms=self.now_ms(),
            window_ms=window,
        )

    # ============================================================ timing rules
    def _deadline(self, meta: Meta, state: Any, now: int) -> Deadline | None:
        """The deadline of whoever acts now (RULES §7), or None when nobody is timed."""
        phase = engine.phase(state)
        if phase == "finished":
            return Deadline(now + 1000)  # repair timer: archives if the finishing worker died
        if phase == "round_over":
            pause_until = meta.pause_until or now + meta.round_pause_s * 1000
            pending = [s for s in engine.waiting_on(state) if meta.seats[s].by_computer]
            if pending:
                return Deadline(min(pause_until, now + int(self.config.bot_ready_delay_s * 1000)))
            return Deadline(pause_until)
        seat = engine.actor(state)
        if seat is None:
            return None
        if meta.seats[seat].by_computer:
            return Deadline(now + int(meta.think_delay_s * 1000))
        if meta.turn_time is None:
            return None
        at = now + meta.turn_time * 1000
        warn = None
        if meta.turn_time >= 10:
            warn = at - min(self.config.warn_before_s, meta.turn_time // 2) * 1000
        return Deadline(at, warn)

    def _step(
        self, loaded: Loaded, meta: Meta, seat: int | None, move: dict[str, Any] | None
    ) -> Plan:
        """Apply one engine move (or the timeout when ``move`` is None); raises IllegalMove."""
        state = loaded.state
        assert state is not None
        now = self.now_ms()
        old_phase = engine.phase(state)
        if move is None:
            new_state, _ = engine.apply_timeout(state)
            entry: dict[str, Any] = {"timeout": True}
        else:
            assert seat is not None
            new_state, _ = engine.apply_move(state, seat, move)
            entry = {"seat": seat, "move": move}
        entry["v"] = loaded.version + 1
        new_phase = engine.phase(new_state)
        if new_phase in ("round_over", "finished") and old_phase != new_phase:
            self._record_round(meta, state, new_state)
        if new_phase == "round_over":
            if old_phase != "round_over":
                meta.pause_until = now + meta.round_pause_s * 1000
        else:
            meta.pause_until = None
        if new_phase == "finished":
            meta.finished_ms = now
        return Plan(meta, new_state, [entry], self._deadline(meta, new_state, now))

    def _record_round(self, meta: Meta, old_state: Any, new_state: Any) -> None:
        round_no = new_state.round
        if any(r.get("round") == round_no for r in meta.rounds_log):
            return
        before = [0] * len(meta.seats)
        for r in meta.rounds_log:
            before = [b + g for b, g in zip(before, r.get("gold", []), strict=False)]
        result = engine.view_for(new_state, None).get("round_result")
        meta.rounds_log.append(
            round_record(round_no, result, before, list(engine.scores(new_state)))
        )

    def _keep_or_recompute(self, loaded: Loaded, meta: Meta, seat: int) -> Deadline | Keep | None:
        """Service-only commits keep the deadline unless they change who acts for ``seat``."""
        state = loaded.state
        if state is None:
            return None
        phase = engine.phase(state)
        if phase == "round_over" or engine.actor(state) == seat:
            return self._deadline(meta, state, self.now_ms())
        return KEEP

    async def _after_commit(self, old: Loaded, new: Loaded) -> None:
        finished = new.state is not None and engine.phase(new.state) == "finished"
        was_over = old.meta.cancelled or (
            old.state is not None and engine.phase(old.state) == "finished"
        )
        if (finished or new.meta.cancelled) and not was_over:
            try:
                await self._close_out(new)
            except Exception:  # the finished game's repair timer retries
                log.exception("closing out game %s failed", new.game_id)

    async def _close_out(self, loaded: Loaded) -> None:
        """Idempotent: archive a finished game, free its chat, drop it from user indexes."""
        meta = loaded.meta
        if (
            loaded.state is not None
            and engine.phase(loaded.state) == "finished"
            and not meta.cancelled
            and await self.store.archived(loaded.game_id) is None
        ):
            final = list(engine.scores(loaded.state))
            await self.store.archive(
                loaded.game_id,
                game_record(meta, final),
                user_ids=meta.humans(),
                chat_id=meta.chat_key.chat_id if meta.chat_key else None,
                finished_ms=meta.finished_ms or self.now_ms(),
            )
        chat = meta.chat_key
        if chat is not None:
            await self.store.unbind_chat(chat.chat_id, chat.topic_id, loaded.game_id)
        for user_id in meta.humans():
            await self.store.remove_user_game(user_id, loaded.game_id)

    # ================================================================= lobby
    async def create_lobby(
        self,
        *,
        chat: ChatKey | None,
        creator: UserRef,
        edition: str = "classic",
        options: dict[str, Any] | None = None,
        seats: int | None = None,
        computers: int = 0,
        level: str = "normal",
        settings: dict[str, Any] | None = None,
        autostart: bool = True,
    ) -> dict[str, Any]:
        """A new lobby seating ``creator``; one open lobby or game per chat key.

        ``seats`` caps the table (default: the edition's maximum); ``computers`` adds that
        many computer seats; when they fill every seat but the creator's the game starts
        at once (``autostart``), as the Mini App's "play against the computer" does.
        Raises ServiceError ``chat_busy`` (``details["game_id"]``) when the chat has one.
        """
        meta = Meta(
            game_id=new_game_id(),
            creator=creator.user_id,
            created_ms=self.now_ms(),
            chat=[chat.chat_id, chat.topic_id] if chat else None,
            think_delay_s=self.config.think_delay_s,
            round_pause_s=self.config.round_pause_s,
            takeover_after=self.config.takeover_after,
        )
        meta.max_seats = lobby.limits(edition)[1] if edition in ("classic", "expansion") else 10
        meta.seats.append(Seat(creator.user_id, creator.name, creator.language))
        wanted: dict[str, Any] = {"edition": edition, "options": options or {}}
        if seats is not None:
            wanted["seats"] = seats
        wanted.update(settings or {})
        lobby.configure(meta, wanted)
        for _ in range(computers):
            lobby.add_computer(meta, level)
        if not await self.store.create(
            meta.game_id, "", meta.to_json(), ttl_s=self.config.lobby_ttl_s
        ):
            raise ServiceError("busy", "game id collision; try again")
        if chat is not None:
            await self._bind_chat(chat, meta.game_id)
        await self.store.add_user_game(creator.user_id, meta.game_id, self.now_ms())
        await self.store.touch(meta.game_id, str(creator.user_id), self.now_ms())
        if autostart and computers and len(meta.seats) == meta.max_seats:
            return await self.start(meta.game_id, creator.user_id)
        return self._view(await self._load(meta.game_id), creator.user_id)

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
        def decide(loaded: Loaded) -> Plan | None:
            if loaded.meta.seat_of(user.user_id) is not None and not loaded.meta.started:
                return None
            lobby.add_human(loaded.meta, user)
            return Plan(loaded.meta, None, [], None, state_changed=False)

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
                return Plan(meta, None, [], None, state_changed=False)
            seat = meta.seat_of(user_id)
            if seat is None:
                raise ServiceError("not_seated", "not playing in this game")
            if meta.seats[seat].left or (
                loaded.state is not None and engine.phase(loaded.state) == "finished"
            ):
                return None
            meta.seats[seat].left = meta.seats[seat].auto = True
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

    def _bump(self, loaded: Loaded, meta: Meta) -> None:
        """Record a service-only commit after the start (keeps version ↔ seq mapping)."""
        if loaded.state is not None:
            meta.bumps.append(loaded.state.seq)

    async def configure(
        self, game_id: str, user_id: int, *, force: bool = False, **settings: Any
    ) -> dict[str, Any]:
        """Lobby settings (creator only): edition, options, rounds, turn_time (seconds or
        None), language, think_delay (seconds), seats, round_pause, takeover_after."""

        def decide(loaded: Loaded) -> Plan:
            lobby.require_creator(loaded.meta, user_id, force)
            lobby.configure(loaded.meta, settings)
            return Plan(loaded.meta, None, [], None, state_changed=False)

        return self._view(await self._mutate(game_id, decide, user_id), user_id)

    async def add_computer(
        self, game_id: str, user_id: int, level: str = "normal", *, force: bool = False
    ) -> dict[str, Any]:
        def decide(loaded: Loaded) -> Plan:
            lobby.require_creator(loaded.meta, user_id, force)
            lobby.add_computer(loaded.meta, level)
            return Plan(loaded.meta, None, [], None, state_changed=False)

        return self._view(await self._mutate(game_id, decide, user_id), user_id)

    async def remove_computer(
        self, game_id: str, user_id: int, seat: int | None = None, *, force: bool = False
    ) -> dict[str, Any]:
        def decide(loaded: Loaded) -> Plan:
            lobby.require_creator(loaded.meta, user_id, force)
            lobby.remove_computer(loaded.meta, seat)
            return Plan(loaded.meta, None, [], None, state_changed=False)

        return self._view(await self._mutate(game_id, decide, user_id), user_id)

    async def start(self, game_id: str, user_id: int, *, force: bool = False) -> dict[str, Any]:
        """Deal round 1 (creator only; the bot passes ``force`` for group admins)."""

        def decide(loaded: Loaded) -> Plan:
            meta = loaded.meta
            lobby.require_creator(meta, user_id, force)
            lobby.require_lobby(meta)
            config = lobby.start_config(meta)
            meta.seed = secrets.randbits(62)
            meta.started = True
            meta.started_ms = self.now_ms()
            meta.base = loaded.version + 1
            state = engine.new_game(config, meta.seed)
            return Plan(meta, state, [], self._deadline(meta, state, self.now_ms()))

        return self._view(await self._mutate(game_id, decide, user_id), user_id)

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
        self, game_id: str, user_id: int, move: Any, expected_version: Any
    ) -> SubmitResult:
        """A player's move at the version they acted on (API.md ``POST .../moves``)."""
        if (
            not isinstance(move, dict)
            or not isinstance(move.get("type"), str)
            or isinstance(expected_version, bool)
            or not isinstance(expected_version, int)
        ):
            return SubmitResult(
                "invalid",
                None,
                "bad_move",
                "move must be an object with a type and version an integer",
            )
        if move["type"] == "take_seat_back":
            try:
                return SubmitResult("ok", await self.take_seat_back(game_id, user_id))
            except ServiceError as exc:
                if exc.code != "not_seated":
                    raise
                return SubmitResult("forbidden", await self.view(game_id, user_id), exc.code)
        async with self._lock(game_id):
            loaded = await self._load(game_id)
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
            new = await self._commit(loaded, change)
            if new is None:
                current = await self._load(game_id)
                return SubmitResult("stale", self._view(current, user_id), "stale_version")
            return SubmitResult("ok", self._view(new, user_id))

    # ================================================================= reads
    async def view(self, game_id: str, user_id: int | None) -> dict[str, Any]:
        """The player's view, or the spectator view for anyone not seated."""
        return self._view(await self._load(game_id), user_id)

    async def version(self, game_id: str) -> int:
        """The current version only (one small read; websocket resyncs)."""
        version = await self.store.version(game_id)
        if version is None:
            raise ServiceError("not_found", "no such game")
        return version

    async def log(self, game_id: str, since_version: int = 0) -> list[dict[str, Any]]:
        """Public log entries after ``since_version`` (API.md ``GET .../log?since=V``)."""
        loaded = await self._load(game_id)
        if loaded.state is None:
            return []
        entries = (rewrite_entry(loaded.meta, e) for e in engine.public_log(loaded.state))
        return [e for e in entries if e.get("version", 0) > since_version]

    async def move_log(self, game_id: str) -> list[dict[str, Any]]:
        """The committed moves (server-side: replays, checks), live or archived."""
        raw = await self.store.read_log(game_id) or await self.store.archived_log(game_id)
        return [movelog.decode(e) for e in raw]

    async def seats(self, game_id: str) -> list[SeatInfo]:
        """Seat owners for adapters (e.g. whom to message); never put these in a view."""
        loaded = await self._load(game_id)
        return [s.info(i) for i, s in enumerate(loaded.meta.seats)]

    async def chat_of(self, game_id: str) -> ChatKey | None:
        return (await self._load(game_id)).meta.chat_key

    async def game_for_chat(self, chat: ChatKey) -> str | None:
        """The open lobby or game of a chat/topic (finished or expired ones are unbound)."""
        game_id = await self.store.chat_game(chat.chat_id, chat.topic_id)
        if game_id is None:
            return None
        try:
            loaded = await self._load(game_id)
        except ServiceError:
            loaded = None
        over = (
            loaded is None
            or loaded.meta.cancelled
            or (loaded.state is not None and engine.phase(loaded.state) == "finished")
        )
        if over:
            await self.store.unbind_chat(chat.chat_id, chat.topic_id, game_id)
            return None
        return game_id

    async def games_for_user(self, user_id: int) -> list[str]:
        """Live games a user is seated in (newest first); expired ones are dropped."""
        live = []
        for game_id in await self.store.user_games(user_id):
            try:
                loaded = await self._load(game_id)
            except ServiceError:
                await self.store.remove_user_game(user_id, game_id)
                continue
            if loaded.meta.seat_of(user_id) is not None and not loaded.meta.cancelled:
                live.append(game_id)
        return live

    async def touch(self, game_id: str, user_id: int) -> None:
        """Mark a user present (the ``online`` flag); no version change, no notice."""
        await self.store.touch(game_id, str(user_id), self.now_ms())

    def listen(self, game_id: str) -> AsyncIterator[int]:
        """Versions of one game as they are committed (any worker), via pub/sub."""
        return self.store.listen(game_id)

    def listen_all(self) -> AsyncIterator[Change]:
        """Every game's changes (the bot's board updater claims each with claim_once)."""
        return self.store.listen_all()

    async def stats_for_user(self, user_id: int, limit: int = 100) -> dict[str, Any]:
        return user_stats(user_id, await self.store.archived_for_user(user_id, limit))

    async def stats_for_chat(self, chat_id: int, limit: int = 100) -> dict[str, Any]:
        return chat_stats(chat_id, await self.store.archived_for_chat(chat_id, limit))

    async def delete_user_data(self, user_id: int) -> int:
        return await self.store.delete_user_data(user_id)

    # ====================================================== side effects once
    async def process_update_once(self, update_id: int) -> bool:
        """True the first time an update id is seen (Telegram redelivers webhooks)."""
        return await self.store.claim_once(f"upd:{int(update_id)}", self.config.update_dedupe_ttl_s)

    async def claim_side_effect(self, key: str, ttl_s: float = 3600) -> bool:
        """Outbox: True for exactly one worker per key (e.g. ``board:<game>:<version>``)."""
        return await self.store.claim_once(f"fx:{key}", ttl_s)

    async def take_group_token(
        self, chat_id: int, capacity: int = 20, per_seconds: float = 60.0
    ) -> tuple[bool, float]:
        """Per-chat budget of group messages (principle 9): (allowed, seconds to wait)."""
        result = await self.store.take_token(chat_id, capacity, per_seconds)
        return result.allowed, result.wait_s

    def on_turn_warning(self, handler: WarningHandler) -> None:
        """Call ``handler`` once (on one worker) shortly before a human's turn runs out."""
        self._warning_handlers.append(handler)

    # ================================================================ timers
    async def run_timers(self, stop: asyncio.Event | None = None) -> None:
        """Background task: fire due deadlines, from whichever worker claims them first."""
        last_prune = 0
        while stop is None or not stop.is_set():
            try:
                fired = await self.fire_due()
                now = self.now_ms()
                if now - last_prune > 600_000:
                    last_prune = now
                    await self.store.prune_archive(now)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("timer loop error")
                fired = 0
            if not fired:
                if stop is None:
                    await asyncio.sleep(self.config.timer_interval_s)
                else:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(stop.wait(), self.config.timer_interval_s)

    async def fire_due(self, limit: int = 50) -> int:
        """Claim and fire what is due now; returns how many claims were handled."""
        claims = await self.store.claim_due(self.now_ms(), limit, self.config.timer_lease_ms)
        if claims:
            results = await asyncio.gather(*(self._fire(c) for c in claims), return_exceptions=True)
            for claim, result in zip(claims, results, strict=True):
                if isinstance(result, BaseException):
                    log.error("timer %s failed", claim, exc_info=result)
        return len(claims)

    async def _fire(self, claim: TimerClaim) -> None:
        if claim.kind == TIMER_WARN:
            await self._warn(claim)
            return
        async with self._lock(claim.game_id):
            try:
                loaded = await self._load(claim.game_id)
            except ServiceError:
                await self.store.timer_done(claim)
                return
            if loaded.version != claim.version:
                return  # stale: the newer commit armed its own deadline
            if loaded.state is None or loaded.meta.cancelled:
                await self.store.timer_done(claim)
                return
            if engine.phase(loaded.state) == "finished":
                await self._close_out(loaded)
                await self.store.timer_done(claim)
                return
            change = await self._timed_step(loaded)
            if await self._commit(loaded, change) is not None:
                self.fired += 1

    async def _timed_step(self, loaded: Loaded) -> Plan:
        """The move a due deadline makes: a computer seat's move, or the timeout rule."""
        state, meta = loaded.state, loaded.meta
        assert state is not None
        if engine.phase(state) == "round_over":
            pending = sorted(s for s in engine.waiting_on(state) if meta.seats[s].by_computer)
            if pending:
                return self._step(loaded, meta, pending[0], {"type": "next_round"})
            return self._step(loaded, meta, None, None)
        seat = engine.actor(state)
        if seat is not None and meta.seats[seat].by_computer:
            view = engine.view_for(state, seat)
            move = await asyncio.to_thread(
                choose,
                view,
                level=meta.seats[seat].level,
                seed=move_seed(loaded.game_id, loaded.version),
                ai=self._ai,
            )
            if move is not None:
                try:
                    return self._step(loaded, meta, seat, move)
                except (engine.IllegalMove, engine.MoveFormatError):
                    log.exception("computer move refused in %s; timing out", loaded.game_id)
        change = self._step(loaded, meta, None, None)
        if seat is not None and not meta.seats[seat].by_computer:
            record = meta.seats[seat]
            record.timeouts += 1
            if record.timeouts >= meta.takeover_after:
                record.auto = True  # the computer plays it until the player takes it back
                change.deadline = self._deadline(meta, change.state, self.now_ms())
        return change

    async def _warn(self, claim: TimerClaim) -> None:
        if not self._warning_handlers:
            return
        try:
            loaded = await self._load(claim.game_id)
        except ServiceError:
            return
        if loaded.version != claim.version or loaded.state is None or loaded.deadline_ms is None:
            return
        seat = engine.actor(loaded.state)
        if seat is None or loaded.meta.seats[seat].by_computer:
            return
        user_id = loaded.meta.seats[seat].user_id
        if user_id is None:
            return
        warning = TurnWarning(
            claim.game_id, claim.version, seat, user_id, loaded.deadline_ms, loaded.meta.chat_key
        )
        for handler in self._warning_handlers:
            try:
                await handler(warning)
            except Exception:
                log.exception("turn warning handler failed")
