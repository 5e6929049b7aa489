"""How the service stores a game: ids, the engine state encoding, loaded records, plans,
and ``Records``, which loads and commits them."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import secrets
import time
import zlib
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from core import engine
from core.service import chat_settings, movelog
from core.service.archive import game_record
from core.service.history import replay_facts
from core.service.jsoncodec import dumps_compact, loads
from core.service.meta import Meta
from core.service.models import ServiceConfig, ServiceError, TurnWarning
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

WarningHandler = Callable[[TurnWarning], Awaitable[None]]

MAX_ATTEMPTS = 8
STATE_CACHE_SIZE = 1024  # decoded states kept per worker (a load test drives ~1,000 games)
TOUCH_EVERY_MS = 30_000  # presence (online window 120 s) is rewritten at most this often
CLOSE_OUT_REPAIR_MS = 1_000  # a game that ended: its clean-up is redone after this if lost
COMMIT_RETRY_FIRST_S = 0.05  # a commit whose reply was lost is sent again after this,
COMMIT_RETRY_MAX_S = 1.0  # doubling up to this, until ServiceConfig.commit_retry_s


def new_game_id() -> str:
    """12 characters of ``[A-Za-z0-9_-]``: 72 random bits, fits a deep link."""
    return secrets.token_urlsafe(9)


COMPRESS_ABOVE = 256  # bytes of state JSON; below this zlib+base64 saves nothing

# Preset zlib dictionary: two sample game states (a classic and an expansion game). A
# state shares most of its keys, option names, role names and log patterns with any other,
# so deflate can refer back to the sample instead of spelling them out: a mid-game state
# stores in ~60 % of the bytes plain zlib needs. Stored states depend on these exact bytes:
# never edit the file; a better dictionary is a new file and a new prefix ("z2:").
STATE_ZDICT_1 = Path(__file__).with_name("state_zdict_1.json").read_bytes()


def encode_state(state: engine.GameState) -> str:
    """Engine state as stored: JSON, or ``z1:`` + base64(zlib(JSON, preset dictionary)).

    Why: the state carries the game's public log and grows through a game; compressed it
    is about a quarter of the JSON, which keeps a live game within the memory budget
    (docs/benchmarks/store.md). Memory level 8 (zlib's default) compresses these few KB
    as well as 9 for less CPU: a smaller hash table to set up per state.
    """
    raw = dumps_compact(engine.state_to_json(state))
    if len(raw) <= COMPRESS_ABOVE:
        return raw.decode()
    packer = zlib.compressobj(9, zlib.DEFLATED, 15, 8, zlib.Z_DEFAULT_STRATEGY, STATE_ZDICT_1)
    packed = packer.compress(raw) + packer.flush()
    return "z1:" + base64.b64encode(packed).decode("ascii")


def decode_state(stored: str) -> engine.GameState:
    """Reads every stored form: ``z1:`` (dictionary), ``z:`` (plain zlib, older), JSON."""
    if stored.startswith("z1:"):
        unpacker = zlib.decompressobj(15, STATE_ZDICT_1)
        stored = (unpacker.decompress(base64.b64decode(stored[3:])) + unpacker.flush()).decode()
    elif stored.startswith("z:"):
        stored = zlib.decompress(base64.b64decode(stored[2:])).decode()
    return engine.state_from_json(loads(stored))


@dataclass(slots=True)
class Loaded:
    """One game as read in one round trip, decoded."""

    game_id: str
    version: int
    meta: Meta
    state: engine.GameState | None  # None in the lobby
    state_json: str
    deadline_ms: int | None
    presence: dict[str, int]
    # over (cancelled or finished) as stored: decisions change ``meta`` in place, so after
    # one, only this still says what the game was before the commit
    over: bool = False


def is_over(meta: Meta, state: engine.GameState | None) -> bool:
    """Cancelled (or expired), or finished: nothing more happens in this game."""
    return meta.cancelled or (state is not None and engine.phase(state) == "finished")


@dataclass(slots=True)
class Plan:
    """What a decision wants committed."""

    meta: Meta
    state: engine.GameState | None
    log: list[dict[str, object]]
    deadline: Deadline | Keep | None
    state_changed: bool = True
    present: int | None = None  # user id to mark online in the same commit


def new_submission_id() -> str:
    """The id a commit is stored with (72 random bits): a retry finds its own write."""
    return secrets.token_urlsafe(9)


def bump(loaded: Loaded, meta: Meta) -> None:
    """Record a service-only commit after the start (keeps version ↔ seq mapping)."""
    if loaded.state is not None:
        meta.bumps.append(loaded.state.seq)


@dataclass(slots=True)
class _Cached:
    """The last record of one game this worker loaded or committed. A version's state and
    meta never change, so their decoded forms are shared; ``meta`` is never changed in
    place (callers that decide get a copy)."""

    version: int
    meta_json: str
    meta: Meta | None  # meta_json parsed (lazily after a commit)
    state_json: str
    state: engine.GameState | None
    deadline_ms: int | None
    presence: dict[str, int]

    def parsed_meta(self) -> Meta:
        if self.meta is None:
            self.meta = Meta.from_json(self.meta_json)
        return self.meta


class Records:
    """Load and commit game records: the load → decide → commit-at-version cycle, the
    per-game lock of this process and its one cache of decoded records.

    Every change is load → decide → ``store.commit(expected_version)``: the store's atomic
    compare-and-set is what keeps several workers correct (principle 3); the per-game
    asyncio lock only cuts conflicts inside one process.
    """

    def __init__(self, store: GameStore, config: ServiceConfig, clock: Callable[[], int]) -> None:
        self.store = store
        self.config = config
        self.now_ms = clock
        self.locks: dict[str, tuple[asyncio.Lock, int]] = {}
        self._cache: OrderedDict[str, _Cached] = OrderedDict()
        # commits sent again with their submission id (reply lost, store unreachable or
        # no replica confirmed), and how many of those found their first try applied
        self.commit_retries = 0
        self.commit_duplicates = 0

    @contextlib.asynccontextmanager
    async def lock(self, game_id: str) -> AsyncIterator[None]:
        """Per-game lock inside this process (cuts conflicts; the CAS keeps correctness).

        Reference-counted so the entry is dropped only when nobody holds or awaits it.
        """
        lock, users = self.locks.get(game_id, (asyncio.Lock(), 0))
        self.locks[game_id] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self.locks[game_id]
            if users <= 1:
                del self.locks[game_id]
            else:
                self.locks[game_id] = (lock, users - 1)

    # ------------------------------------------------------------------ load
    async def load(self, game_id: str, *, read_only: bool = False) -> Loaded:
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
        hit = self._cache.get(game_id)
        if hit is not None and hit.meta_json == record.meta:
            pristine = hit.parsed_meta()
        else:
            pristine = Meta.from_json(record.meta)
        state: engine.GameState | None = None
        if record.state:
            if hit is not None and hit.state_json == record.state:
                state = hit.state
            else:
                state = decode_state(record.state)
        self._keep(
            game_id,
            _Cached(
                record.version,
                record.meta,
                pristine,
                record.state,
                state,
                record.deadline_ms,
                record.presence,
            ),
        )
        meta = pristine if read_only else pristine.copy()
        meta = _based(meta, record.version, state, shared=read_only)
        return Loaded(
            game_id,
            record.version,
            meta,
            state,
            record.state,
            record.deadline_ms,
            record.presence,
            is_over(meta, state),
        )

    def recent_at(self, game_id: str, version: int) -> Loaded | None:
        """What this worker last loaded or committed for the game, if it is at ``version``:
        a version's state and meta never change, so a move at that version can be decided
        on it without a load — the commit's compare-and-set still rejects it if the game
        has moved on. Presence may be a few seconds old (it only feeds ``online``)."""
        hit = self._cache.get(game_id)
        if hit is None or hit.version != version or hit.state is None:
            return None
        self._cache.move_to_end(game_id)
        meta = hit.parsed_meta().copy()  # a fresh object: decisions mutate the meta
        return Loaded(
            game_id,
            version,
            _based(meta, version, hit.state, shared=False),
            hit.state,
            hit.state_json,
            hit.deadline_ms,
            dict(hit.presence),
            is_over(meta, hit.state),
        )

    def _keep(self, game_id: str, entry: _Cached) -> None:
        self._cache[game_id] = entry
        self._cache.move_to_end(game_id)
        while len(self._cache) > STATE_CACHE_SIZE:
            self._cache.popitem(last=False)

    # ---------------------------------------------------------------- commit
    def ttl(self, meta: Meta, state: engine.GameState | None) -> float:
        if is_over(meta, state):
            return self.config.finished_ttl_s
        if meta.started:
            return self._record_ttl(self.config.game_ttl_s)
        return self.lobby_ttl()

    def lobby_ttl(self) -> float:
        return self._record_ttl(self.config.lobby_ttl_s)

    def _record_ttl(self, idle_s: float) -> float:
        """A lobby's or game's record outlives its idle timer (which expires it with a
        commit every worker hears, and then cleans up) by a grace period; the key's own
        TTL is only the backstop for when no worker runs timers at all."""
        return idle_s + min(self.config.lobby_grace_s, idle_s)

    async def commit(
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
                result = await self._send(
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
        old = self._cache.get(loaded.game_id)  # most moves leave the meta as it was
        parsed = old.meta if old is not None and old.meta_json == meta_json else None
        self._keep(
            loaded.game_id,
            _Cached(new.version, meta_json, parsed, state_json, new.state, deadline_ms, presence),
        )
        await self._after_commit(loaded, new)
        return new

    async def _send(
        self, game_id: str, expected: int, state_json: str, meta_json: str, change: Plan, sid: str
    ) -> CommitResult:
        return await self.store.commit(
            game_id,
            expected,
            state_json,
            meta_json,
            [movelog.encode(e) for e in change.log],
            change.deadline,
            ttl_s=self.ttl(change.meta, change.state),
            presence=None if change.present is None else (str(change.present), self.now_ms()),
            submission=sid,
        )

    async def mutate(
        self,
        game_id: str,
        decide: Callable[[Loaded], Plan | None],
        present: int | None = None,
    ) -> Loaded:
        """Load, decide, commit; retried on version conflicts (service-side changes).

        ``present``: the acting user, marked online in the same commit.
        """
        async with self.lock(game_id):
            for _ in range(MAX_ATTEMPTS):
                loaded = await self.load(game_id)
                change = decide(loaded)
                if change is None:
                    return loaded
                if present is not None and change.present is None:
                    change.present = present
                new = await self.commit(loaded, change)
                if new is not None:
                    return new
                await asyncio.sleep(0.005)
        raise ServiceError("busy", "too many concurrent changes; try again")

    # ------------------------------------------------------ after a commit
    async def _after_commit(self, old: Loaded, new: Loaded) -> None:
        """The commit that ends a game closes it out; the one that starts a group's game
        keeps its settings for the group's next lobby (``/new`` starts from them)."""
        # ``old.over`` is the game as loaded: the decision changed ``old.meta`` in place
        # (so ``old.meta.cancelled`` is already the new value)
        if new.over and not old.over:
            try:
                await self.close_out(new)
            except Exception:  # the finished game's repair timer retries
                log.exception("closing out game %s failed", new.game_id)
        chat = new.meta.chat_key
        if chat is None or old.state is not None or new.state is None:
            return  # (a decision changes the loaded meta in place: compare the states)
        try:
            key = chat_settings.pref_key(chat.chat_id)
            await self.store.set_pref(key, chat_settings.snapshot(new.meta))
        except STORE_UNAVAILABLE:  # the game started; its group keeps the older settings
            log.warning("could not keep the settings of %s for its group", new.game_id)

    async def close_out(self, loaded: Loaded) -> None:
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


def _based(meta: Meta, version: int, state: engine.GameState | None, *, shared: bool) -> Meta:
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
        v = entry.get("v")
        if isinstance(v, int):
            entry["v"] = v + by
    if change.meta.started:
        change.meta.base += by
