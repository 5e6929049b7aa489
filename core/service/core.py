"""The service's core: load → decide → commit at the expected version, timing rules.

Every change is load → decide → ``store.commit(expected_version)``: the store's atomic
compare-and-set is what keeps several workers correct (principle 3); the per-game asyncio
lock only cuts conflicts inside one process. The commit that changes who acts arms that
turn's deadline in the same atomic step (principle 5).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from typing import Any

from core import engine
from core.service import clock, lobby, movelog
from core.service.agents import Chooser
from core.service.archive import game_record, round_record
from core.service.history import replay_facts
from core.service.meta import Meta
from core.service.models import (
    ServiceConfig,
    ServiceError,
)
from core.service.records import (
    CLOSE_OUT_REPAIR_MS,
    MAX_ATTEMPTS,
    STATE_CACHE_SIZE,
    Loaded,
    Plan,
    WarningHandler,
    decode_state,
    encode_state,
    is_over,
)
from core.service.views import game_view, lobby_view
from core.store import (
    KEEP,
    STORE_FULL,
    STORE_UNAVAILABLE,
    CommitResult,
    Deadline,
    GameStore,
    Keep,
)

log = logging.getLogger(__name__)

COMMIT_RETRY_FIRST_S = 0.05  # a commit whose reply was lost is sent again after this,
COMMIT_RETRY_MAX_S = 1.0  # doubling up to this, until ServiceConfig.commit_retry_s


def new_submission_id() -> str:
    """The id a commit is stored with (72 random bits): a retry finds its own write."""
    return secrets.token_urlsafe(9)


def client_submission_id(user_id: int, submission_id: str) -> str:
    """The store's id for a client's ``submission_id``: scoped to the user (another
    user's id never matches) and of a fixed size whatever the client sent."""
    digest = hashlib.blake2b(f"{user_id}:{submission_id}".encode(), digest_size=9).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii")


class ServiceCore:
    """State and plumbing shared by the service's parts (load, decide, commit)."""

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
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}
        self._states: OrderedDict[str, tuple[str, Any]] = OrderedDict()
        self._metas: OrderedDict[str, tuple[str, Meta]] = OrderedDict()  # see _meta_of
        self._touched: dict[tuple[str, int], int] = {}  # (game, user) -> last presence seen
        # game -> the last record this worker loaded or committed, with its meta as stored
        self._recent: OrderedDict[str, tuple[Loaded, str]] = OrderedDict()
        self._warning_handlers: list[WarningHandler] = []
        self.fired = 0  # timers this process fired (tests, metrics)
        # commits sent again with their submission id (reply lost, store unreachable or
        # no replica confirmed), and how many of those found their first try applied
        self.commit_retries = 0
        self.commit_duplicates = 0

    # ================================================================= plumbing
    def now_ms(self) -> int:
        return self._clock()

    @contextlib.asynccontextmanager
    async def _lock(self, game_id: str) -> AsyncIterator[None]:
        """Per-game lock inside this process (cuts conflicts; the CAS keeps correctness).

        Reference-counted so the entry is dropped only when nobody holds or awaits it.
        """
        lock, users = self._locks.get(game_id, (asyncio.Lock(), 0))
        self._locks[game_id] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[game_id]
            if users <= 1:
                del self._locks[game_id]
            else:
                self._locks[game_id] = (lock, users - 1)

    async def _load(self, game_id: str, *, read_only: bool = False) -> Loaded:
        """The game as stored now. ``read_only``: the caller only reads it (a view), so
        the meta may be this worker's shared parsed copy rather than a fresh one."""
        if not isinstance(game_id, str) or not 1 <= len(game_id) <= 64:
            raise ServiceError("not_found", "no such game")
        try:
            record = await self.store.load(game_id)
        except ValueError as exc:  # a malformed id
            raise ServiceError("not_found", "no such game") from exc
        if record is None:
            raise ServiceError("not_found", "no such game")
        meta = self._meta_of(game_id, record.meta, fresh=not read_only)
        state = self._decode(game_id, record.state) if record.state else None
        meta = _based(meta, record.version, state, shared=read_only)
        loaded = Loaded(
            game_id,
            record.version,
            meta,
            state,
            record.state,
            record.deadline_ms,
            record.presence,
            is_over(meta, state),
        )
        self._keep_recent(loaded, record.meta)
        return loaded

    def _keep_recent(self, loaded: Loaded, meta_json: str) -> None:
        self._recent[loaded.game_id] = (loaded, meta_json)
        self._recent.move_to_end(loaded.game_id)
        while len(self._recent) > STATE_CACHE_SIZE:
            self._recent.popitem(last=False)

    def _recent_at(self, game_id: str, version: int) -> Loaded | None:
        """What this worker last loaded or committed for the game, if it is at ``version``:
        a version's state and meta never change, so a move at that version can be decided
        on it without a load — the commit's compare-and-set still rejects it if the game
        has moved on. Presence may be a few seconds old (it only feeds ``online``)."""
        hit = self._recent.get(game_id)
        if hit is None or hit[0].version != version or hit[0].state is None:
            return None
        old, meta_json = hit
        meta = self._meta_of(game_id, meta_json)  # a fresh object: decisions mutate the meta
        return Loaded(
            game_id,
            version,
            _based(meta, version, old.state, shared=False),
            old.state,
            old.state_json,
            old.deadline_ms,
            dict(old.presence),
            old.over,
        )

    def _meta_of(self, game_id: str, stored: str, *, fresh: bool = True) -> Meta:
        """A fresh ``Meta`` of a stored meta string, parsed once per version and worker.

        A version's meta never changes, and a move reads it twice (the GET's load, then the
        POST's decision): the parsed original is kept, and each caller gets its own deep
        copy (decisions mutate it) for about a third of a parse; ``fresh=False`` hands out
        the shared original itself, for callers that never change it (views)."""
        hit = self._metas.get(game_id)
        if hit is not None and hit[0] == stored:
            self._metas.move_to_end(game_id)
            pristine = hit[1]
        else:
            pristine = Meta.from_json(stored)
            self._metas[game_id] = (stored, pristine)
            self._metas.move_to_end(game_id)
            while len(self._metas) > STATE_CACHE_SIZE:
                self._metas.popitem(last=False)
        return pristine.copy() if fresh else pristine

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

    def _ttl(self, meta: Meta, state: Any | None) -> float:
        if is_over(meta, state):
            return self.config.finished_ttl_s
        if meta.started:
            return self._record_ttl(self.config.game_ttl_s)
        return self._lobby_record_ttl()

    def _lobby_record_ttl(self) -> float:
        return self._record_ttl(self.config.lobby_ttl_s)

    def _record_ttl(self, idle_s: float) -> float:
        """A lobby's or game's record outlives its idle timer (which expires it with a
        commit every worker hears, and then cleans up) by a grace period; the key's own
        TTL is only the backstop for when no worker runs timers at all."""
        return idle_s + min(self.config.lobby_grace_s, idle_s)

    def _lobby_deadline(self, meta: Meta, now: int, *, idle: bool = True) -> Deadline | None:
        """The lobby's one timer (principle 5), armed by every lobby commit: the auto-start
        countdown while enough players sit, else the idle expiry. ``idle`` refreshes the
        expiry (a change in the lobby); the timer's own re-arming does not."""
        if meta.started or meta.cancelled:
            return None
        if meta.countdown_s and lobby.enough_players(meta):
            if meta.autostart_at is None:
                meta.autostart_at = now + meta.countdown_s * 1000
        else:
            meta.autostart_at = None
        if idle or meta.idle_until is None:
            meta.idle_until = now + int(self.config.lobby_ttl_s * 1000)
        at = meta.idle_until
        if meta.autostart_at is not None:
            at = min(at, meta.autostart_at)
        return Deadline(at)

    def _start_plan(self, loaded: Loaded) -> Plan:
        """Deal round 1 (raises ServiceError when the lobby cannot start)."""
        meta = loaded.meta
        lobby.require_lobby(meta)
        config = lobby.start_config(meta)
        meta.seed = secrets.randbits(62)
        meta.started = True
        meta.started_ms = self.now_ms()
        meta.autostart_at = meta.idle_until = None
        meta.base = loaded.version + 1
        state = engine.new_game(config, meta.seed)
        return Plan(meta, state, [], self._deadline(meta, state, self.now_ms(), loaded.version + 1))

    async def _commit(
        self, loaded: Loaded, change: Plan, submission: str | None = None
    ) -> Loaded | None:
        """Commit at ``loaded.version``; the new Loaded, or None on a version conflict.

        Exactly once across failures: the commit carries a submission id (``submission``,
        or a new one). A commit whose reply was lost (a cut connection, a failover, the
        store unreachable) is sent again with the same id until ``commit_retry_s``; if the
        first try was applied, the store says so and the answer is the one the first try
        would have had. A game renumbered by a new master since it was loaded (the same
        state, see ``core/store/lua.py`` "Epochs") is committed again at its new number.
        With a replica wait, a commit no replica confirmed is retried the same way, then
        refused: ``ServiceError("busy")`` (applied on the master, not announced; a retry
        with the same submission id answers once a replica has it).
        A commit that ends the game (cancelled, expired) arms a repair deadline, as the
        finishing move does: if this worker dies before its clean-up, a timer redoes it.
        """
        if change.deadline is None and change.meta.cancelled:
            change.deadline = Deadline(self.now_ms() + CLOSE_OUT_REPAIR_MS)
        state_json = (
            encode_state(change.state)
            if change.state_changed and change.state is not None
            else loaded.state_json
        )
        sid = submission or new_submission_id()
        expected = loaded.version
        give_up = time.monotonic() + self.config.commit_retry_s
        delay = COMMIT_RETRY_FIRST_S
        while True:
            meta_json = change.meta.to_stored()
            try:
                result = await self._send_commit(
                    loaded.game_id, expected, state_json, meta_json, change, sid
                )
            except STORE_FULL:
                raise  # refused whole (nothing written): no retry fixes it, 503 at once
            except STORE_UNAVAILABLE:
                if time.monotonic() + delay > give_up:
                    raise
                result = None
            if result is not None and result.renumbered:
                assert result.version is not None
                _shift(change, result.version - expected)
                expected = result.version
                continue
            if result is not None and result.ok and result.confirmed:
                break
            if result is not None and not result.ok:
                if result.version is None:
                    raise ServiceError("not_found", "no such game")
                return None
            # the reply was lost, or no replica confirmed the commit: the same commit again
            if result is not None and time.monotonic() + delay > give_up:
                raise ServiceError("busy", "no replica confirmed the change in time; try again")
            self.commit_retries += 1
            await asyncio.sleep(delay)
            delay = min(delay * 2, COMMIT_RETRY_MAX_S)
        if result.duplicate:
            self.commit_duplicates += 1
        assert result.version is not None
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
            result.version,
            change.meta,
            change.state,
            state_json,
            deadline_ms,
            presence,
            is_over(change.meta, change.state),
        )
        self._keep_recent(new, meta_json)
        await self._after_commit(loaded, new)
        return new

    async def _send_commit(
        self, game_id: str, expected: int, state_json: str, meta_json: str, change: Plan, sid: str
    ) -> CommitResult:
        return await self.store.commit(
            game_id,
            expected,
            state_json,
            meta_json,
            [movelog.encode(e) for e in change.log],
            change.deadline,
            ttl_s=self._ttl(change.meta, change.state),
            presence=None if change.present is None else (str(change.present), self.now_ms()),
            submission=sid,
        )

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
        # an idle game's deadline is its expiry, not anyone's turn running out
        turn_deadline = None if loaded.meta.idle_until is not None else loaded.deadline_ms
        return game_view(
            loaded.meta,
            loaded.state,
            version=loaded.version,
            viewer=user_id,
            presence=loaded.presence,
            deadline_ms=turn_deadline,
            now_ms=self.now_ms(),
            window_ms=window,
        )

    # ============================================================ timing rules
    def _deadline(self, meta: Meta, state: Any, now: int, version: int | None = None) -> Deadline:
        """The deadline of whoever acts now (RULES §7); when nobody is timed (a human's
        turn without a turn time, or a paused game), the game's idle expiry
        ``game_ttl_s`` from now, which a timer commits like any change
        (``Timers._expire_idle``). ``version``: of the commit that arms it (a human's turn
        remembers where it began, see ``clock.begin_turn``)."""
        deadline = self._turn_deadline(meta, state, now, version)
        if deadline is None:
            meta.idle_until = now + int(self.config.game_ttl_s * 1000)
            return Deadline(meta.idle_until)
        meta.idle_until = None
        return deadline

    def _turn_deadline(
        self, meta: Meta, state: Any, now: int, version: int | None
    ) -> Deadline | None:
        """The deadline of whoever acts now (RULES §7), or None when nobody is timed (or
        the game is paused)."""
        phase = engine.phase(state)
        if phase == "finished":
            return Deadline(now + 1000)  # repair timer: archives if the finishing worker died
        if meta.paused:
            return None
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
        return clock.begin_turn(meta, meta.turn_time, now, version)

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
            # the one shape check; the log keeps the move as the engine parsed it: fields it
            # does not know are dropped, never stored (a client's junk would live in the
            # archive for months)
            move = engine.parse_move(move)
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
        return Plan(
            meta, new_state, [entry], self._deadline(meta, new_state, now, loaded.version + 1)
        )

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
            return self._deadline(meta, state, self.now_ms(), loaded.version + 1)
        return KEEP

    async def _after_commit(self, old: Loaded, new: Loaded) -> None:
        # ``old.over`` is the game as loaded: the decision changed ``old.meta`` in place
        # (so ``old.meta.cancelled`` is already the new value)
        if new.over and not old.over:
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
                game_record(meta, final, replay_facts(meta, loaded.state, loaded.version)),
                user_ids=meta.humans(),
                chat_id=meta.chat_key.chat_id if meta.chat_key else None,
                finished_ms=meta.finished_ms or self.now_ms(),
            )
        chat = meta.chat_key
        if chat is not None:
            await self.store.unbind_chat(chat.chat_id, chat.topic_id, loaded.game_id)
        for user_id in meta.humans():
            await self.store.remove_user_game(user_id, loaded.game_id)

    def _bump(self, loaded: Loaded, meta: Meta) -> None:
        """Record a service-only commit after the start (keeps version ↔ seq mapping)."""
        if loaded.state is not None:
            meta.bumps.append(loaded.state.seq)


def _based(meta: Meta, version: int, state: Any | None, *, shared: bool) -> Meta:
    """The meta with ``base`` such that ``version_of_seq`` agrees with ``version``.

    A started game's version is ``base + seq + len(bumps)`` (every commit after the start
    is a move or a bump); a new master renumbers the record (``core/store/lua.py``
    "Epochs") without touching the meta, so the base is re-derived from the record's own
    version here: the log's versions then stay in the game's current numbering. A no-op
    otherwise. ``shared``: ``meta`` is this worker's cached copy, never changed in place.
    """
    if state is None or not meta.started:
        return meta
    base = version - state.seq - len(meta.bumps)
    if base == meta.base:
        return meta
    if shared:
        meta = meta.copy()
    meta.base = base
    return meta


def _shift(change: Plan, by: int) -> None:
    """Move a decided change into a renumbered game's numbering (the same state)."""
    for entry in change.log:
        if isinstance(entry.get("v"), int):
            entry["v"] += by
    if change.meta.started:
        change.meta.base += by
