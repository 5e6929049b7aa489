"""``GameStore`` on Redis (redis.asyncio): production, several workers.

Every multi-step change is a registered Lua script (one round trip, atomic). The pub/sub
side is one subscription per process, fanned out in-process; it reconnects after a
dropped connection and then re-announces the current version of every listened game,
since notices sent while it was away are lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson
import redis.asyncio as aioredis
from redis.asyncio.client import Pipeline
from redis.asyncio.sentinel import Sentinel
from redis.commands.core import AsyncScript
from redis.driver_info import DriverInfo
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, RedisError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.maint_notifications import MaintNotificationsConfig
from redis.typing import EncodableT

from core.store import lua
from core.store.base import (
    DEFAULT_ARCHIVE_RETENTION_S,
    DEFAULT_LEASE_MS,
    KEEP,
    TIMER_KINDS,
    TIMER_TURN,
    TIMER_WARN,
    Change,
    CommitResult,
    Deadline,
    GameRecord,
    Keep,
    SendBudget,
    TimerClaim,
    TokenResult,
    check_submission,
)
from core.store.connection import connect
from core.store.fanout import Fanout
from core.store.keys import GAME_ID_RE, Keys, parse_timer_member, pref_owner, timer_member

log = logging.getLogger(__name__)


def _deadline_args(deadline: Deadline | Keep | None) -> list[str]:
    if deadline is KEEP:
        return ["keep", "", ""]
    if deadline is None:
        return ["clear", "", ""]
    assert isinstance(deadline, Deadline)
    warn = "" if deadline.warn_ms is None else str(int(deadline.warn_ms))
    return ["set", str(int(deadline.at_ms)), warn]


def _evalsha(
    pipe: Pipeline, script: AsyncScript, keys: Sequence[str], args: Sequence[EncodableT]
) -> None:
    pipe.evalsha(script.sha, len(keys), *keys, *args)


def _now_ms() -> int:
    return int(time.time() * 1000)


def _str(value: object) -> str:
    """Replies are ``str`` (the client decodes responses); redis-py types them loosely."""
    return value.decode() if isinstance(value, bytes) else str(value)


def _strs(values: Any) -> list[str]:
    return [_str(v) for v in values]


def _str_map(values: Any) -> dict[str, str]:
    return {_str(k): _str(v) for k, v in values.items()}


def _first_or_raise(replies: list[object]) -> list[object]:
    """The replies of a pipeline whose first command is the one that matters: its error
    is raised, the others' are logged (and stay in the list)."""
    if replies and isinstance(replies[0], Exception):
        raise replies[0]
    for reply in replies[1:]:
        if isinstance(reply, Exception):
            log.warning("a timer hint was not written (%s); the sweeper restores it", reply)
    return replies


def anonymise(record: dict[str, Any], user_id: int) -> bool:
    """Drop a user's identity from an archived record (their seat stays, nameless)."""
    changed = False
    for seat in record.get("seats", []):
        if seat.get("user_id") == user_id:
            seat["user_id"] = None
            seat["name"] = None
            changed = True
    return changed


# commands whose raw replies are what callers read (the lean path, see ``_lean``)
_LEAN_COMMANDS = frozenset({"EVALSHA", "ZADD", "ZREM", "WAIT", "PUBLISH"})


_DRIVER_INFO = DriverInfo()  # CLIENT SETINFO's name and version, read once per process
POOL_MAX_CONNECTIONS = 512  # past saturation 64 made requests wait >10 s: 503s
POOL_TIMEOUT_S = 10.0
RECORD_CACHE_SIZE = 4096  # games whose stored state/meta strings a worker keeps
# the change feed's re-subscription backs off to this: a failover's new master is
# announced within a second of being there (each try is one question to a sentinel)
SUBSCRIBE_RETRY_MAX_S = 1.0


@dataclass(frozen=True, slots=True)
class _Cached:
    """A game's stored state and meta at one version, as this worker last read/wrote them."""

    version: str
    state: str
    meta: str
    state_len: int  # bytes, as Redis counts them
    meta_len: int

    @classmethod
    def of(cls, version: int | str, state: str, meta: str) -> _Cached:
        return cls(str(version), state, meta, len(state.encode()), len(meta.encode()))


class RedisStore:
    def __init__(
        self,
        client: aioredis.Redis,
        *,
        prefix: str = "sab:",
        archive_retention_s: int = DEFAULT_ARCHIVE_RETENTION_S,
        replica_wait_ms: int = 0,
        sentinel: Sentinel | None = None,
    ) -> None:
        self.redis = client
        self.keys = Keys(prefix)
        self.archive_retention_s = archive_retention_s
        # > 0: a commit waits this long for one replica to have it (WAIT, on the commit's
        # connection) and is announced only once one has (CommitResult.confirmed)
        self.replica_wait_ms = max(0, int(replica_wait_ms))
        self._sentinel = sentinel  # the manager of a Sentinel client (closed with it)
        self._commit = client.register_script(lua.COMMIT)
        self._create = client.register_script(lua.CREATE)
        self._hset_alive = client.register_script(lua.HSET_ALIVE)
        self._load_cached = client.register_script(lua.LOAD_CACHED)
        self._version = client.register_script(lua.VERSION)
        self._submitted = client.register_script(lua.SUBMITTED)
        self._renumbered_from = client.register_script(lua.RENUMBERED_FROM)
        # Per-worker cache of the big fields (state, meta) by game: a load sends the cached
        # version and lengths, and Redis leaves those fields out when they still match.
        self._big: OrderedDict[str, _Cached] = OrderedDict()
        self._claim = client.register_script(lua.CLAIM_DUE)
        self._claim_game = client.register_script(lua.CLAIM_GAME)
        self._index_fix = client.register_script(lua.INDEX_FIX)
        self._timer_done = client.register_script(lua.TIMER_DONE)
        self._arm_warning = client.register_script(lua.ARM_WARNING)
        self._scripts = (
            self._commit,
            self._create,
            self._claim_game,
            self._index_fix,
            self._timer_done,
            self._arm_warning,
        )
        self._delete_if = client.register_script(lua.DELETE_IF)
        self._send_budget = client.register_script(lua.SEND_BUDGET)
        self._send_hold = client.register_script(lua.SEND_HOLD)
        self._archive = client.register_script(lua.ARCHIVE)
        self._fanout = Fanout()
        self._sub_task: asyncio.Task[None] | None = None
        self._subscribed = asyncio.Event()
        self.reconnects = 0
        self._sweep_cursor = 0
        self.sweep_batch = 2000  # keys examined per sweep_timers() call (SCAN COUNT)

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        prefix: str = "sab:",
        archive_retention_s: int = DEFAULT_ARCHIVE_RETENTION_S,
        replica_wait_ms: int = 0,
        **client_kwargs: Any,
    ) -> RedisStore:
        """A client of one Redis (``redis://``, ``rediss://``, ``unix://``) or of the master
        of a Sentinel service (``redis+sentinel://``, ``rediss+sentinel://``; the URL
        grammar: ``core/store/connection.py``), every one with the store's checked
        connections, and a pool that makes a burst of requests wait for a connection.

        redis-py's default pool raises once ``max_connections`` are busy, which turns a
        burst of concurrent requests into errors; a blocking pool queues them (up to
        ``pool_timeout`` seconds) and caps the connections a worker opens.

        Maintenance notifications (a Redis Enterprise / RESP3 feature, ``"auto"`` by
        default in redis-py 8) are turned off: while they are on, the pool skips its
        check of a connection on checkout ("closed by the server, or unread data?"), so
        after a Redis restart *every* idle pooled connection was handed out dead and
        failed its first command — requests answered 503 and timer claims and fires
        failed one after another for seconds after Redis was back. With the check, a dead
        connection is replaced before it is used.
        """
        client_kwargs["max_connections"] = int(
            client_kwargs.pop("max_connections", POOL_MAX_CONNECTIONS)
        )
        client_kwargs["timeout"] = float(client_kwargs.pop("pool_timeout", POOL_TIMEOUT_S))
        client_kwargs.setdefault(
            "maint_notifications_config", MaintNotificationsConfig(enabled=False)
        )
        # One DriverInfo for every connection: redis-py builds one per connection by
        # default, reading the package's metadata from disk (importlib.metadata) each
        # time; a burst that grows the pool paid it hundreds of times, in the middle of
        # the requests it was serving (docs/benchmarks/hotpath.md).
        client_kwargs.setdefault("driver_info", _DRIVER_INFO)
        client_kwargs["decode_responses"] = True
        client, sentinel = connect(url, **client_kwargs)
        return cls(
            client,
            prefix=prefix,
            archive_retention_s=archive_retention_s,
            replica_wait_ms=replica_wait_ms,
            sentinel=sentinel,
        )

    # ------------------------------------------------------------------ live games
    async def create(
        self,
        game_id: str,
        state: str,
        meta: str,
        *,
        ttl_s: float,
        version: int = 1,
        deadline: Deadline | None = None,
    ) -> bool:
        at = "" if deadline is None else str(int(deadline.at_ms))
        args: list[EncodableT] = [state, meta, version, int(ttl_s * 1000), at]
        member = timer_member(game_id, TIMER_TURN)

        def build(pipe: Pipeline) -> None:  # the record and its hint in one round trip
            _evalsha(pipe, self._create, [self.keys.game(game_id)], args)
            if deadline is not None:
                pipe.zadd(self.keys.timers(), {member: int(deadline.at_ms)})

        created, *_ = await self._pipeline(build, only_first=True)
        if not created and deadline is not None:
            await self._undo_hints([(member, int(deadline.at_ms))])
        return bool(created)

    async def load(self, game_id: str) -> GameRecord | None:
        """One round trip; the state and meta travel only when this worker's copy is stale
        (a state is a few KB and most loads follow a commit this worker already holds)."""
        key = self.keys.game(game_id)
        cached = self._big.get(game_id)
        args: list[str | int] = (
            [cached.version, cached.state_len, cached.meta_len] if cached else ["", -2, -2]
        )
        reply = await self._run_script(self._load_cached, [key], args)
        if not reply:
            self._big.pop(game_id, None)
            return None
        full, flat = reply
        raw = {_str(flat[i]): _str(flat[i + 1]) for i in range(0, len(flat), 2)}
        if int(full) or cached is None:
            state, meta = raw.get("s", ""), raw.get("m", "")
            self._remember(game_id, _Cached.of(raw["v"], state, meta))
        else:
            state, meta = cached.state, cached.meta
            self._big.move_to_end(game_id)
        presence = {k[2:]: int(v) for k, v in raw.items() if k.startswith("p:")}
        dl = raw.get("dl")
        return GameRecord(
            game_id=game_id,
            version=int(raw["v"]),
            state=state,
            meta=meta,
            deadline_ms=int(dl) if dl else None,
            presence=presence,
        )

    def _remember(self, game_id: str, cached: _Cached) -> None:
        self._big[game_id] = cached
        self._big.move_to_end(game_id)
        if len(self._big) > RECORD_CACHE_SIZE:
            self._big.popitem(last=False)

    async def version(self, game_id: str) -> int | None:
        raw = await self._run_script(self._version, [self.keys.game(game_id)], [])
        return int(raw) if raw is not None else None

    async def submitted(self, game_id: str, submission: str) -> int | None:
        key = self.keys.game(game_id)
        raw = await self._run_script(self._submitted, [key], [check_submission(submission)])
        return int(raw) if raw is not None else None

    async def renumbered_from(self, game_id: str) -> int | None:
        raw = await self._run_script(self._renumbered_from, [self.keys.game(game_id)], [])
        return int(raw) if raw is not None else None

    async def commit(
        self,
        game_id: str,
        expected_version: int,
        state: str,
        meta: str,
        log_entries: Sequence[str],
        deadline: Deadline | Keep | None,
        *,
        ttl_s: float,
        presence: tuple[str, int] | None = None,
        submission: str | None = None,
    ) -> CommitResult:
        wait_ms = self.replica_wait_ms
        args: list[EncodableT] = [expected_version, state, meta, int(ttl_s * 1000)]
        args += _deadline_args(deadline)
        args += [self.keys.channel(), game_id, len(log_entries)]
        args += [f"p:{presence[0]}", int(presence[1])] if presence else ["", 0]
        args += [check_submission(submission), 0 if wait_ms else 1]
        args += log_entries
        hints = self._hints(game_id, deadline)
        timers = self.keys.timers()
        turn = timer_member(game_id, TIMER_TURN)

        # One round trip: the commit script (the game's slot) and the index hints (the
        # index's slot) in one non-transactional pipeline. The hints are written even if
        # the commit loses; then they are undone below (the loser's extra trip). With a
        # replica wait, WAIT ends the same pipeline (it waits for this connection's
        # writes), and the change is published only once a replica has it.
        def build(pipe: Pipeline) -> None:
            _evalsha(pipe, self._commit, self.keys.game_keys(game_id), args)
            for member, score in hints:
                if score is None:
                    pipe.zrem(timers, member)
                else:
                    pipe.zadd(timers, {member: score})
            if deadline is KEEP:
                # The kept deadline moves to the new version. If a worker was firing it at
                # the old version (its claim is now stale), the hint sits at that worker's
                # lease: "look now" instead, and the claim finds the kept deadline.
                pipe.zadd(timers, {turn: _now_ms()}, xx=True, lt=True)
            if wait_ms:
                pipe.execute_command("WAIT", 1, wait_ms)

        # A hint refused after the script committed (Redis full, say) must not turn the
        # commit into an error: the sweeper restores the hint from the record.
        replies = await self._pipeline(build, only_first=True)
        status, version = (int(x) for x in replies[0])
        if status != 1 and hints:  # a loser's, a retry's or a renumbered game's: undone
            await self._undo_hints(hints)
        if status in (1, 2):
            # (a WAIT that failed is left in the replies as its error: not confirmed)
            waited = replies[-1]
            confirmed = not wait_ms or (isinstance(waited, int) and waited >= 1)
            if confirmed and wait_ms:
                await self._publish(game_id, version)
            self._remember(game_id, _Cached.of(version, state, meta))
            return CommitResult(True, version, duplicate=status == 2, confirmed=confirmed)
        if status == 3:
            return CommitResult(False, version, renumbered=True)
        return CommitResult(False, version if status == 0 else None)

    async def _publish(self, game_id: str, version: int) -> None:
        """The change notice of a commit a replica confirmed (a lost notice only delays
        listeners: their resync, and the sockets' own, read the version)."""
        payload = orjson.dumps({"game_id": game_id, "version": version}).decode()
        try:
            await self._lean([("PUBLISH", self.keys.channel(), payload)])
        except RedisError as exc:
            log.warning("change notice of %s v%s not sent: %s", game_id, version, exc)

    def _hints(
        self, game_id: str, deadline: Deadline | Keep | None
    ) -> list[tuple[str, int | None]]:
        """Index writes for a commit: (member, score), score None = remove. KEEP: none."""
        turn, warn = timer_member(game_id, TIMER_TURN), timer_member(game_id, TIMER_WARN)
        if deadline is KEEP:
            return []
        if deadline is None:
            return [(turn, None), (warn, None)]
        assert isinstance(deadline, Deadline)
        at = int(deadline.at_ms)
        return [(turn, at), (warn, None if deadline.warn_ms is None else int(deadline.warn_ms))]

    async def _undo_hints(self, hints: Sequence[tuple[str, int | None]]) -> None:
        """A losing commit's hints may be wrong: turn each into "look at the game now"
        unless a commit re-armed it meanwhile (the claim then finds the true deadline)."""
        now = _now_ms()
        args: list[EncodableT] = []
        for member, score in hints:
            if score is None:
                args += ["nx", member, now]
            else:
                args += ["cas", member, now, score]
        with contextlib.suppress(RedisError):
            await self._index_fix(keys=[self.keys.timers()], args=args)

    async def read_log(self, game_id: str, start: int = 0, end: int = -1) -> list[str]:
        return _strs(await self.redis.lrange(self.keys.log(game_id), start, end))

    async def delete_game(self, game_id: str) -> None:
        self._big.pop(game_id, None)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.delete(*self.keys.game_keys(game_id))
            pipe.zrem(
                self.keys.timers(),
                timer_member(game_id, TIMER_TURN),
                timer_member(game_id, TIMER_WARN),
            )
            await pipe.execute()

    async def touch(self, game_id: str, who: str, now_ms: int) -> None:
        key = self.keys.game(game_id)
        await self._run_script(self._hset_alive, [key, key], [f"p:{who}", int(now_ms)])

    # ---------------------------------------------------------------- adapter data
    async def set_adapter(self, game_id: str, name: str, value: str) -> None:
        await self._hset_alive(
            keys=[self.keys.game(game_id), self.keys.adapter(game_id)], args=[name, value]
        )

    async def get_adapter(self, game_id: str) -> dict[str, str]:
        return _str_map(await self.redis.hgetall(self.keys.adapter(game_id)))

    async def get_adapter_value(self, game_id: str, name: str) -> str | None:
        raw = await self.redis.hget(self.keys.adapter(game_id), name)
        return None if raw is None else _str(raw)

    # ----------------------------------------------------------------- preferences
    async def get_pref(self, key: str) -> str | None:
        owner = pref_owner(key)
        if owner is not None:
            raw = await self.redis.hget(self.keys.user_prefs(owner), key)
        else:
            raw = await self.redis.get(self.keys.pref(key))
        return None if raw is None else _str(raw)

    async def set_pref(self, key: str, value: str) -> None:
        owner = pref_owner(key)
        if owner is not None:
            await self.redis.hset(self.keys.user_prefs(owner), key, value)
        else:
            await self.redis.set(self.keys.pref(key), value)

    # --------------------------------------------------------------------- indexes
    async def bind_chat(self, chat_id: int, topic_id: int | None, game_id: str) -> bool:
        return bool(await self.redis.set(self.keys.chat(chat_id, topic_id), game_id, nx=True))

    async def chat_game(self, chat_id: int, topic_id: int | None) -> str | None:
        raw = await self.redis.get(self.keys.chat(chat_id, topic_id))
        return None if raw is None else _str(raw)

    async def unbind_chat(self, chat_id: int, topic_id: int | None, game_id: str) -> bool:
        return bool(await self._delete_if(keys=[self.keys.chat(chat_id, topic_id)], args=[game_id]))

    async def add_user_game(self, user_id: int, game_id: str, now_ms: int) -> None:
        await self.redis.zadd(self.keys.user_games(user_id), {game_id: now_ms})

    async def remove_user_game(self, user_id: int, game_id: str) -> None:
        await self.redis.zrem(self.keys.user_games(user_id), game_id)

    async def user_games(self, user_id: int) -> list[str]:
        return _strs(await self.redis.zrevrange(self.keys.user_games(user_id), 0, -1))

    # ---------------------------------------------------------------------- timers
    async def claim_due(
        self,
        now_ms: int,
        limit: int = 20,
        lease_ms: int = DEFAULT_LEASE_MS,
        *,
        kinds: str = TIMER_KINDS,
        overdue_ms: int | None = None,
    ) -> list[TimerClaim]:
        """Due hints from the index, then each game's own record decides (see lua.py).

        ``kinds``: which timers to hand out (``"t"`` turns, ``"w"`` warnings). With
        ``overdue_ms`` (a fallback poller) a turn deadline is handed out only once it is
        more than that overdue and nobody's lease holds it, and the index is only read
        for turns: the primary poller's claims are left alone.

        Idle: one round trip. With due hints: the index step, one pipeline of per-game
        claims (one slot each) and, only for hints that were early or stale, one repair.
        """
        lease_until = int(now_ms) + int(lease_ms)
        timers = self.keys.timers()
        peek = overdue_ms is not None
        turns = "skip" if TIMER_TURN not in kinds else ("peek" if peek else "claim")
        warns = "claim" if TIMER_WARN in kinds else "skip"
        members = _strs(
            await self._claim(keys=[timers], args=[now_ms, limit, lease_until, turns, warns])
        )
        if not members:
            return []
        parsed = [parse_timer_member(m) for m in members]
        valid = [i for i, (game_id, _, _) in enumerate(parsed) if GAME_ID_RE.match(game_id)]
        overdue_before = "" if overdue_ms is None else int(now_ms) - int(overdue_ms)

        def build(pipe: Pipeline) -> None:
            for i in valid:
                game_id, kind, _ = parsed[i]
                keys = [self.keys.game(game_id)]
                args: list[EncodableT] = [
                    kind,
                    now_ms,
                    lease_until,
                    overdue_before if kind == TIMER_TURN else "",
                ]
                _evalsha(pipe, self._claim_game, keys, args)

        try:
            results = await self._pipeline(build)
        except (RedisConnectionError, RedisTimeoutError, OSError):
            # The index step moved the turn hints to our lease, but no game was leased:
            # put them back to "look now" so the store's return is not a lease late.
            if not peek:
                back: list[Any] = []
                for member, (_, kind, _) in zip(members, parsed, strict=True):
                    if kind == TIMER_TURN:
                        back += ["cas", member, _now_ms(), lease_until]
                with contextlib.suppress(RedisError, OSError):
                    await self._index_fix(keys=[timers], args=back)
            raise
        outcomes: list[Any] = [[0, 0]] * len(members)  # junk members: dropped
        for i, outcome in zip(valid, results, strict=True):
            outcomes[i] = outcome
        claims: list[TimerClaim] = []
        fixes: list[Any] = []
        for member, (game_id, kind, legacy), (status, value) in zip(
            members, parsed, outcomes, strict=True
        ):
            is_turn = kind == TIMER_TURN
            if status == 1:
                claims.append(
                    TimerClaim(game_id, int(value), kind, lease_until if is_turn else None)
                )
                continue
            if is_turn and peek:
                continue  # the hint was only read: whatever it says stays the primary's
            if is_turn and status != 3:  # the hint is at our lease unless a commit re-armed it
                later = "" if status == 0 or legacy else int(value)
                fixes += ["cas", member, later, lease_until]
            if status == 2 and (legacy or not is_turn):
                fixes += ["nx", timer_member(game_id, kind), int(value)]
        if fixes:
            await self._index_fix(keys=[timers], args=fixes)
        return claims

    async def timer_release(self, claim: TimerClaim) -> None:
        """Give back a turn claim whose firing failed: the next poll (of any worker) may
        claim it at once instead of waiting for the lease to run out."""
        lease = claim.lease_until
        if lease is None:
            return
        member = timer_member(claim.game_id, claim.kind)

        def build(pipe: Pipeline) -> None:
            _evalsha(
                pipe, self._timer_done, [self.keys.game(claim.game_id)], [claim.version, lease]
            )
            args: list[EncodableT] = ["cas", member, _now_ms(), lease]
            _evalsha(pipe, self._index_fix, [self.keys.timers()], args)

        await self._pipeline(build)

    async def timer_done(self, claim: TimerClaim) -> None:
        def build(pipe: Pipeline) -> None:
            _evalsha(pipe, self._timer_done, [self.keys.game(claim.game_id)], [claim.version])
            if claim.lease_until is not None:  # drop the hint unless re-armed meanwhile
                member = timer_member(claim.game_id, claim.kind)
                args: list[EncodableT] = ["cas", member, "", claim.lease_until]
                _evalsha(pipe, self._index_fix, [self.keys.timers()], args)

        await self._pipeline(build)

    async def arm_warning(self, game_id: str, deadline_ms: int, warn_ms: int) -> bool:
        """The record decides (see lua.ARM_WARNING); the hint goes in the same round trip,
        and is harmless when the record refused: its claim finds no warning and drops it."""
        args = [int(deadline_ms), int(warn_ms)]

        def build(pipe: Pipeline) -> None:
            _evalsha(pipe, self._arm_warning, [self.keys.game(game_id)], args)
            pipe.zadd(self.keys.timers(), {timer_member(game_id, TIMER_WARN): int(warn_ms)})

        armed, *_ = await self._pipeline(build)
        return bool(armed)

    async def next_due_ms(self) -> int | None:
        first = await self.redis.zrange(self.keys.timers(), 0, 0, withscores=True)
        return int(first[0][1]) if first else None

    async def sweep_timers(self) -> int:
        """Repair the timer index from the games' records, one SCAN batch per call.

        The index is written next to the commit, not inside it (another slot on Cluster),
        so a crash or a failover between the two can lose a hint, and a hint can end up
        later than the deadline. Each call examines the next ``sweep_batch`` keys (the
        cursor is kept between calls) and re-adds or lowers the hints of games whose
        record has a deadline (``ZADD LT``: a repair can only make a hint earlier, and an
        early hint is harmless — the claim checks the record). Returns the repairs made.
        """
        cursor, found = await self.redis.scan(
            self._sweep_cursor, match=self.keys.game_pattern(), count=self.sweep_batch, _type="hash"
        )
        self._sweep_cursor = int(cursor)
        games = [g for g in (self.keys.game_id_of(_str(k)) for k in found) if g is not None]
        if not games:
            return 0
        timers = self.keys.timers()
        async with self.redis.pipeline(transaction=False) as pipe:
            for game_id in games:
                pipe.hmget(self.keys.game(game_id), "dl", "wl", "lz")
                pipe.zmscore(
                    timers, [timer_member(game_id, TIMER_TURN), timer_member(game_id, TIMER_WARN)]
                )
            rows = await pipe.execute()
        repairs: dict[str, int] = {}
        for i, game_id in enumerate(games):
            dl, wl, lz = (None if x is None else int(x) for x in rows[2 * i])
            turn_score, warn_score = rows[2 * i + 1]
            if dl is not None:
                due = max(dl, lz or 0)
                if turn_score is None or turn_score > due:
                    repairs[timer_member(game_id, TIMER_TURN)] = due
            if wl is not None and (warn_score is None or warn_score > wl):
                repairs[timer_member(game_id, TIMER_WARN)] = wl
        if repairs:
            await self.redis.zadd(timers, repairs, lt=True)
            log.info("timer sweep repaired %d index entries", len(repairs))
        return len(repairs)

    # ------------------------------------------------------------ side effects once
    async def claim_once(self, key: str, ttl_s: float) -> bool:
        return bool(
            await self.redis.set(self.keys.once(key), "1", nx=True, px=max(1, int(ttl_s * 1000)))
        )

    async def take_send_token(
        self, chat_id: int | None, budget: SendBudget, *, bulk: bool = False
    ) -> TokenResult:
        keys = [self.keys.send_bucket(), self.keys.send_hold()]
        if chat_id is not None:
            keys += [self.keys.send_bucket(chat_id), self.keys.send_hold(chat_id)]
        allowed, wait_ms = await self._send_budget(
            keys=keys,
            args=[
                budget.rate / 1000,
                budget.burst,
                budget.chat_capacity,
                int(budget.chat_per_seconds * 1000),
                int(bulk),
                budget.reserve,
            ],
        )
        return TokenResult(bool(allowed), int(wait_ms) / 1000)

    async def hold_sends(self, chat_id: int | None, seconds: float) -> None:
        await self._send_hold(
            keys=[self.keys.send_hold(chat_id)], args=[max(1, int(seconds * 1000))]
        )

    # --------------------------------------------------------------------- pub/sub
    async def start(self) -> None:
        """Start the process's one subscription and wait until it is live."""
        if self._sub_task is None or self._sub_task.done():
            self._subscribed.clear()
            self._sub_task = asyncio.create_task(self._subscriber(), name="store-pubsub")
        await self._subscribed.wait()

    async def listen(self, game_id: str) -> AsyncIterator[int]:
        await self.start()
        async for version in self._fanout.listen(game_id):
            yield version

    async def listen_all(self) -> AsyncIterator[Change]:
        await self.start()
        async for change in self._fanout.listen_all():
            yield change

    async def _subscriber(self) -> None:
        delay = 0.1
        first = True
        while True:
            pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(self.keys.channel())
                self._subscribed.set()
                if not first:
                    self.reconnects += 1
                    await self._resync()
                first = False
                delay = 0.1
                while True:
                    # Blocking read (no timeout): a wake-up per notice and nothing else —
                    # a timed read set up and cancelled a timer for every notice, and every
                    # worker receives every game's notices. A lost connection
                    # still raises; the sockets' own resync covers a silent one.
                    message = await pubsub.get_message(timeout=None)
                    if message is None or message.get("type") != "message":
                        continue
                    self._dispatch(message["data"])
            except asyncio.CancelledError:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
                raise
            except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
                log.warning("pub/sub connection lost (%s); reconnecting", exc)
            except RedisError:
                log.exception("pub/sub error; reconnecting")
            with contextlib.suppress(Exception):
                await pubsub.aclose()
            await asyncio.sleep(delay)
            delay = min(delay * 2, SUBSCRIBE_RETRY_MAX_S)

    def _dispatch(self, data: str) -> None:
        try:
            payload = orjson.loads(data)  # every worker parses every notice
            change = Change(str(payload["game_id"]), int(payload["version"]))
        except (ValueError, KeyError, TypeError):
            log.warning("ignoring malformed change notice %r", data)
            return
        self._fanout.dispatch(change)

    async def _resync(self) -> None:
        """Notices sent while disconnected are gone: announce what each game is at now
        (after a failover: in the new master's numbering, see ``lua.py`` "Epochs")."""
        for game_id in self._fanout.games:
            version = await self.version(game_id)
            if version is not None:
                self._fanout.dispatch(Change(game_id, version))

    # ------------------------------------------------------------- finished games
    async def archive(
        self,
        game_id: str,
        record: dict[str, object],
        *,
        user_ids: Sequence[int],
        chat_id: int | None,
        finished_ms: int,
    ) -> None:
        k = self.keys
        await self._archive(
            keys=[k.archive(game_id), k.archive_log(game_id), k.log(game_id)],
            args=[json.dumps(record, separators=(",", ":"))],
        )
        # global indexes, each in its own slot: a plain pipeline (MULTI is slot-bound too)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zadd(k.archive_index(), {game_id: finished_ms})
            for user_id in set(user_ids):
                pipe.zadd(k.user_stats(user_id), {game_id: finished_ms})
            if chat_id is not None:
                pipe.zadd(k.chat_stats(chat_id), {game_id: finished_ms})
            await pipe.execute()

    async def archived(self, game_id: str) -> dict[str, Any] | None:
        raw = await self.redis.get(self.keys.archive(game_id))
        return json.loads(raw) if raw else None

    async def archived_log(self, game_id: str) -> list[str]:
        return _strs(await self.redis.lrange(self.keys.archive_log(game_id), 0, -1))

    async def _records(self, game_ids: Sequence[str]) -> list[dict[str, object]]:
        if not game_ids:
            return []
        async with self.redis.pipeline(transaction=False) as pipe:
            for game_id in game_ids:
                pipe.get(self.keys.archive(game_id))
            raws = await pipe.execute()
        return [json.loads(raw) for raw in raws if raw]

    async def archived_for_user(self, user_id: int, limit: int = 100) -> list[dict[str, object]]:
        ids = _strs(await self.redis.zrevrange(self.keys.user_stats(user_id), 0, limit - 1))
        return await self._records(ids)

    async def archived_for_chat(self, chat_id: int, limit: int = 100) -> list[dict[str, object]]:
        ids = _strs(await self.redis.zrevrange(self.keys.chat_stats(chat_id), 0, limit - 1))
        return await self._records(ids)

    async def prune_archive(self, now_ms: int) -> int:
        k = self.keys
        cutoff = now_ms - self.archive_retention_s * 1000
        old = _strs(await self.redis.zrangebyscore(k.archive_index(), "-inf", cutoff))
        for game_id in old:
            record = await self.archived(game_id) or {}
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.delete(k.archive(game_id), k.archive_log(game_id))
                for seat in record.get("seats", []):
                    if seat.get("user_id") is not None:
                        pipe.zrem(k.user_stats(seat["user_id"]), game_id)
                if record.get("chat_id") is not None:
                    pipe.zrem(k.chat_stats(record["chat_id"]), game_id)
                pipe.zrem(k.archive_index(), game_id)
                await pipe.execute()
        return len(old)

    async def delete_user_data(self, user_id: int) -> int:
        k = self.keys
        ids = _strs(await self.redis.zrange(k.user_stats(user_id), 0, -1))
        changed = 0
        for game_id in ids:
            raw = await self.redis.get(k.archive(game_id))
            if not raw:
                continue
            record = json.loads(raw)
            if anonymise(record, user_id):
                await self.redis.set(k.archive(game_id), json.dumps(record, separators=(",", ":")))
                changed += 1
        async with self.redis.pipeline(transaction=False) as pipe:  # three slots: three DELs
            pipe.delete(k.user_stats(user_id))
            pipe.delete(k.user_games(user_id))
            pipe.delete(k.user_prefs(user_id))
            await pipe.execute()
        return changed

    # ------------------------------------------------------------------- plumbing
    async def _pipeline(
        self, build: Callable[[Pipeline], None], *, only_first: bool = False
    ) -> list[Any]:
        """Run a non-transactional pipeline in one round trip (scripts as bare EVALSHA:
        redis-py would add a SCRIPT EXISTS trip); after a Redis restart forgot the
        scripts, load them and run it again (a NOSCRIPT command did nothing).

        ``only_first``: only the first command's error is raised; the others' (index
        hints, which the sweeper repairs) are logged and left in the replies."""
        pipe = self.redis.pipeline(transaction=False)
        build(pipe)
        commands = [args for args, _options in pipe.command_stack]
        if all(_str(args[0]).upper() in _LEAN_COMMANDS for args in commands):
            try:
                return await self._lean(commands, only_first=only_first)
            except (NoScriptError, RedisConnectionError, RedisTimeoutError):
                pass  # redis-py's path below: loads the scripts, retries the connection
        for attempt in range(2):
            async with self.redis.pipeline(transaction=False) as pipe:
                build(pipe)
                try:
                    replies = list(await pipe.execute(raise_on_error=not only_first))
                    return _first_or_raise(replies) if only_first else replies
                except NoScriptError:
                    if attempt:
                        raise
            for script in self._scripts:
                script.sha = _str(await self.redis.script_load(script.script))
        raise AssertionError("unreachable")

    async def _run_script(
        self, script: AsyncScript, keys: Sequence[str], args: Sequence[Any]
    ) -> Any:
        """A script on the lean path (see ``_lean``); NOSCRIPT or a connection error: through
        redis-py's own call, which loads the script or retries on a new connection."""
        try:
            (reply,) = await self._lean([("EVALSHA", script.sha, len(keys), *keys, *args)])
        except (NoScriptError, RedisConnectionError, RedisTimeoutError):
            reply = await script(keys=list(keys), args=list(args))
        return reply

    async def _lean(
        self, commands: Sequence[Sequence[object]], *, only_first: bool = False
    ) -> list[object]:
        """Send commands in one write and read their replies, on a connection of the
        client's own pool, without redis-py's per-command machinery (retry wrapper,
        observability hooks, response callbacks): about half the CPU per command, and a
        move makes two, the GET's load and the POST's commit (docs/benchmarks/hotpath.md).

        Only for commands whose raw reply is what the caller wants (scripts' replies,
        ZADD/ZREM counts). A connection that fails in any way mid-command is closed,
        never reused; the caller retries a connection error or a NOSCRIPT through
        redis-py's own path, as redis-py itself would have retried. Getting a connection
        (the pool's wait and its checks) is redis-py's, unchanged."""
        pool = self.redis.connection_pool
        conn = await pool.get_connection()
        try:
            await conn.send_packed_command(conn.pack_commands(commands))
            replies: list[object] = []
            error: ResponseError | None = None
            for _ in commands:
                try:
                    replies.append(await conn.read_response())
                except ResponseError as exc:  # an error reply is read whole: go on
                    error = error or exc
                    replies.append(exc)
            if only_first:
                return _first_or_raise(replies)
            if error is not None:
                raise error
            return replies
        except BaseException:
            await conn.disconnect(nowait=True)  # (an error reply: clean, but rare)
            raise
        finally:
            await pool.release(conn)

    async def ping(self) -> bool:
        try:
            return bool(await self.redis.ping())
        except RedisError:
            return False

    async def close(self) -> None:
        if self._sub_task is not None:
            self._sub_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._sub_task
            self._sub_task = None
        await self.redis.aclose()
        if self._sentinel is not None:
            await self._sentinel.aclose()
