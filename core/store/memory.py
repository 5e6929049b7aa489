"""``GameStore`` in one process: the embedded default when no ``REDIS_URL`` is given.

Same semantics as ``RedisStore`` (the contract suite runs against both). Every method
does its work without awaiting in the middle, so each is atomic under asyncio, as a Lua
script is atomic in Redis. Expiry is checked lazily on access.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field

from core.store.base import (
    DEFAULT_ARCHIVE_RETENTION_S,
    DEFAULT_LEASE_MS,
    KEEP,
    SUBMISSIONS,
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
from core.store.fanout import Fanout
from core.store.keys import check_game_id, parse_timer_member, pref_owner, timer_member
from core.store.redis_store import anonymise


@dataclass(slots=True)
class _Game:
    version: int
    state: str
    meta: str
    expires: float
    log: list[str] = field(default_factory=list)
    adapter: dict[str, str] = field(default_factory=dict)
    presence: dict[str, int] = field(default_factory=dict)
    deadline_ms: int | None = None
    warn_ms: int | None = None  # until the warning is claimed
    timer_version: int | None = None
    lease_until: int | None = None
    submissions: dict[str, int] = field(default_factory=dict)  # id -> version, oldest first


class MemoryStore:
    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.time,
        archive_retention_s: int = DEFAULT_ARCHIVE_RETENTION_S,
    ) -> None:
        self._clock = clock
        self.archive_retention_s = archive_retention_s
        self._games: dict[str, _Game] = {}
        self._timers: dict[str, int] = {}
        self._chats: dict[tuple[int, int | None], str] = {}
        self._user_games: dict[int, dict[str, int]] = {}
        self._once: dict[str, float] = {}
        self._send: dict[int | None, tuple[float, float]] = {}  # bot-wide (None), per chat
        self._holds: dict[int | None, float] = {}
        self._archive: dict[str, tuple[dict[str, object], list[str]]] = {}
        self._archive_index: dict[str, int] = {}
        self._user_stats: dict[int, dict[str, int]] = {}
        self._chat_stats: dict[int, dict[str, int]] = {}
        self._prefs: dict[str, str] = {}
        self._user_prefs: dict[int, dict[str, str]] = {}
        self._fanout = Fanout()

    def _game(self, game_id: str) -> _Game | None:
        game = self._games.get(game_id)
        if game is not None and game.expires <= self._clock():
            del self._games[game_id]
            return None
        return game

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
        check_game_id(game_id)
        if (existing := self._game(game_id)) is not None:  # a retry of this very create?
            at = None if deadline is None else int(deadline.at_ms)
            return (existing.version, existing.state, existing.meta, existing.deadline_ms) == (
                version,
                state,
                meta,
                at,
            )
        game = _Game(version, state, meta, self._clock() + ttl_s)
        if deadline is not None:
            game.deadline_ms, game.timer_version = int(deadline.at_ms), version
            self._hint(game_id, TIMER_TURN, game.deadline_ms)
        self._games[game_id] = game
        return True

    async def load(self, game_id: str) -> GameRecord | None:
        game = self._game(game_id)
        if game is None:
            return None
        return GameRecord(
            game_id, game.version, game.state, game.meta, game.deadline_ms, dict(game.presence)
        )

    async def version(self, game_id: str) -> int | None:
        game = self._game(game_id)
        return game.version if game is not None else None

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
        sid = check_submission(submission)
        game = self._game(game_id)
        if game is None:
            return CommitResult(False, None)
        if game.version != expected_version:
            if sid in game.submissions:  # a retry of a commit that was applied
                return CommitResult(True, game.submissions[sid], duplicate=True)
            return CommitResult(False, game.version)
        new = game.version + 1
        game.version, game.state, game.meta = new, state, meta
        if sid:
            game.submissions[sid] = new
            while len(game.submissions) > SUBMISSIONS:
                del game.submissions[next(iter(game.submissions))]
        game.log.extend(log_entries)
        if presence is not None:
            game.presence[presence[0]] = int(presence[1])
        dl: int | None = None
        wl: int | None = None
        if deadline is KEEP:
            dl, wl = game.deadline_ms, game.warn_ms
        elif isinstance(deadline, Deadline):
            dl = int(deadline.at_ms)
            wl = None if deadline.warn_ms is None else int(deadline.warn_ms)
        game.deadline_ms, game.warn_ms, game.lease_until = dl, wl, None
        game.timer_version = new if dl is not None else None
        if deadline is not KEEP:
            self._hint(game_id, TIMER_TURN, dl)
            self._hint(game_id, TIMER_WARN, wl)
        elif dl is not None and self._timers.get(timer_member(game_id, TIMER_TURN), dl) > dl:
            self._hint(game_id, TIMER_TURN, dl)  # a stale claim's lease: due at the deadline
        game.expires = self._clock() + ttl_s
        self._fanout.dispatch(Change(game_id, new))
        return CommitResult(True, new)

    async def submitted(self, game_id: str, submission: str) -> int | None:
        sid = check_submission(submission)
        game = self._game(game_id)
        return None if game is None else game.submissions.get(sid)

    async def renumbered_from(self, game_id: str) -> int | None:
        return None  # one process: no failover, no other master

    async def read_log(self, game_id: str, start: int = 0, end: int = -1) -> list[str]:
        game = self._game(game_id)
        if game is None:
            return []
        return _lrange(game.log, start, end)

    async def delete_game(self, game_id: str) -> None:
        self._games.pop(game_id, None)
        self._hint(game_id, TIMER_TURN, None)
        self._hint(game_id, TIMER_WARN, None)

    async def touch(self, game_id: str, who: str, now_ms: int) -> None:
        game = self._game(game_id)
        if game is not None:
            game.presence[who] = int(now_ms)

    # ---------------------------------------------------------------- adapter data
    async def set_adapter(self, game_id: str, name: str, value: str) -> None:
        game = self._game(game_id)
        if game is not None:
            game.adapter[name] = value

    async def get_adapter(self, game_id: str) -> dict[str, str]:
        game = self._game(game_id)
        return dict(game.adapter) if game is not None else {}

    async def get_adapter_value(self, game_id: str, name: str) -> str | None:
        game = self._game(game_id)
        return game.adapter.get(name) if game is not None else None

    # ----------------------------------------------------------------- preferences
    async def get_pref(self, key: str) -> str | None:
        owner = pref_owner(key)
        if owner is not None:
            return self._user_prefs.get(owner, {}).get(key)
        return self._prefs.get(key)

    async def set_pref(self, key: str, value: str) -> None:
        owner = pref_owner(key)
        if owner is not None:
            self._user_prefs.setdefault(owner, {})[key] = value
        else:
            self._prefs[key] = value

    # --------------------------------------------------------------------- indexes
    async def bind_chat(self, chat_id: int, topic_id: int | None, game_id: str) -> bool:
        key = (chat_id, topic_id)
        if key in self._chats:
            return False
        self._chats[key] = game_id
        return True

    async def chat_game(self, chat_id: int, topic_id: int | None) -> str | None:
        return self._chats.get((chat_id, topic_id))

    async def unbind_chat(self, chat_id: int, topic_id: int | None, game_id: str) -> bool:
        if self._chats.get((chat_id, topic_id)) == game_id:
            del self._chats[(chat_id, topic_id)]
            return True
        return False

    async def add_user_game(self, user_id: int, game_id: str, now_ms: int) -> None:
        self._user_games.setdefault(user_id, {})[game_id] = now_ms

    async def remove_user_game(self, user_id: int, game_id: str) -> None:
        self._user_games.get(user_id, {}).pop(game_id, None)

    async def user_games(self, user_id: int) -> list[str]:
        games = self._user_games.get(user_id, {})
        return sorted(games, key=lambda g: (games[g], g), reverse=True)

    # ---------------------------------------------------------------------- timers
    def _hint(self, game_id: str, kind: str, at_ms: int | None) -> None:
        member = timer_member(game_id, kind)
        if at_ms is None:
            self._timers.pop(member, None)
        else:
            self._timers[member] = at_ms

    async def claim_due(
        self,
        now_ms: int,
        limit: int = 20,
        lease_ms: int = DEFAULT_LEASE_MS,
        *,
        kinds: str = TIMER_KINDS,
        overdue_ms: int | None = None,
    ) -> list[TimerClaim]:
        """The same two steps as ``RedisStore``: the index's due hints, then each game's
        record decides (here the index cannot diverge, but the lease works the same)."""
        lease_until = now_ms + lease_ms
        peek = overdue_ms is not None
        due = sorted(
            (s, m)
            for m, s in self._timers.items()
            if s <= now_ms and parse_timer_member(m)[1] in kinds
        )[:limit]
        claims = []
        for _, member in due:
            game_id, kind, _legacy = parse_timer_member(member)
            game = self._game(game_id)
            version = game.timer_version if game is not None else None
            if peek and kind == TIMER_TURN:  # a fallback poller: only the record decides
                if (
                    game is not None
                    and version is not None
                    and game.deadline_ms is not None
                    and game.deadline_ms <= now_ms - (overdue_ms or 0)
                    and (game.lease_until is None or game.lease_until <= now_ms)
                ):
                    game.lease_until = lease_until
                    claims.append(TimerClaim(game_id, version, kind, lease_until))
                continue
            if kind == TIMER_WARN:
                del self._timers[member]
            else:
                self._timers[member] = lease_until
            if game is None or version is None:
                self._timers.pop(member, None)
            elif kind == TIMER_WARN:
                if game.warn_ms is not None and game.warn_ms > now_ms:
                    self._timers[member] = game.warn_ms
                elif game.warn_ms is not None:
                    game.warn_ms = None
                    claims.append(TimerClaim(game_id, version, kind))
            elif game.deadline_ms is None:
                del self._timers[member]
            elif game.deadline_ms > now_ms:
                self._timers[member] = game.deadline_ms
            elif game.lease_until is not None and game.lease_until > now_ms:
                self._timers[member] = game.lease_until
            else:
                game.lease_until = lease_until
                claims.append(TimerClaim(game_id, version, kind, lease_until))
        return claims

    async def timer_release(self, claim: TimerClaim) -> None:
        game = self._game(claim.game_id)
        if claim.lease_until is None or game is None or game.lease_until != claim.lease_until:
            return
        game.lease_until = None
        member = timer_member(claim.game_id, claim.kind)
        if self._timers.get(member) == claim.lease_until and game.deadline_ms is not None:
            self._timers[member] = game.deadline_ms  # due: the next poll claims it

    async def timer_done(self, claim: TimerClaim) -> None:
        game = self._game(claim.game_id)
        if game is not None and game.timer_version == claim.version:
            game.deadline_ms = game.warn_ms = game.timer_version = game.lease_until = None
        member = timer_member(claim.game_id, claim.kind)
        if claim.lease_until is not None and self._timers.get(member) == claim.lease_until:
            del self._timers[member]

    async def arm_warning(self, game_id: str, deadline_ms: int, warn_ms: int) -> bool:
        game = self._game(game_id)
        if game is None or game.timer_version is None or game.deadline_ms != int(deadline_ms):
            return False
        game.warn_ms = int(warn_ms)
        self._hint(game_id, TIMER_WARN, game.warn_ms)
        return True

    async def next_due_ms(self) -> int | None:
        return min(self._timers.values(), default=None)

    async def sweep_timers(self) -> int:
        """One process: the index is updated with every commit and cannot lose an entry;
        the check is kept so both stores answer the same."""
        repaired = 0
        for game_id in list(self._games):
            game = self._game(game_id)
            if game is None:
                continue
            for kind, at in ((TIMER_TURN, game.deadline_ms), (TIMER_WARN, game.warn_ms)):
                if kind == TIMER_TURN and at is not None:
                    at = max(at, game.lease_until or 0)
                current = self._timers.get(timer_member(game_id, kind))
                if at is not None and (current is None or current > at):
                    self._hint(game_id, kind, at)
                    repaired += 1
        return repaired

    # ------------------------------------------------------------ side effects once
    async def claim_once(self, key: str, ttl_s: float) -> bool:
        now = self._clock()
        if self._once.get(key, 0.0) > now:
            return False
        self._once[key] = now + max(0.001, ttl_s)
        if len(self._once) > 10_000:
            self._once = {k: t for k, t in self._once.items() if t > now}
        return True

    async def take_send_token(
        self, chat_id: int | None, budget: SendBudget, *, bulk: bool = False
    ) -> TokenResult:
        """The Redis script's rules (``lua.SEND_BUDGET``) in one process."""
        now = self._clock()
        held = max(self._holds.get(None, 0.0), self._holds.get(chat_id, 0.0) if chat_id else 0.0)
        if held > now:
            return TokenResult(False, held - now)
        buckets: list[tuple[int | None, float, float]] = [(None, float(budget.burst), budget.rate)]
        if chat_id is not None:
            cap = float(budget.chat_capacity)
            buckets.append((chat_id, cap, cap / budget.chat_per_seconds))
        wait, levels = 0.0, []
        for key, cap, rate in buckets:
            n, ts = self._send.get(key, (cap, now))
            n = min(cap, n + max(0.0, now - ts) * rate)
            need = min(cap, 1 + max(1, math.floor(budget.reserve * cap))) if bulk else 1.0
            if n < need:
                wait = max(wait, math.ceil((need - n) / rate * 1000) / 1000)
            levels.append((key, n))
        if wait > 0:
            return TokenResult(False, wait)
        for key, n in levels:
            self._send[key] = (n - 1, now)
        return TokenResult(True, 0.0)

    async def hold_sends(self, chat_id: int | None, seconds: float) -> None:
        until = self._clock() + max(0.001, seconds)
        if until > self._holds.get(chat_id, 0.0):
            self._holds[chat_id] = until

    # --------------------------------------------------------------------- pub/sub
    async def start(self) -> None:
        return None

    async def listen(self, game_id: str) -> AsyncIterator[int]:
        async for version in self._fanout.listen(game_id):
            yield version

    async def listen_all(self) -> AsyncIterator[Change]:
        async for change in self._fanout.listen_all():
            yield change

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
        game = self._game(game_id)
        stored = json.loads(json.dumps(record))
        self._archive[game_id] = (stored, list(game.log) if game else [])
        self._archive_index[game_id] = finished_ms
        for user_id in set(user_ids):
            self._user_stats.setdefault(user_id, {})[game_id] = finished_ms
        if chat_id is not None:
            self._chat_stats.setdefault(chat_id, {})[game_id] = finished_ms

    async def archived(self, game_id: str) -> dict[str, object] | None:
        entry = self._archive.get(game_id)
        return json.loads(json.dumps(entry[0])) if entry else None

    async def archived_log(self, game_id: str) -> list[str]:
        entry = self._archive.get(game_id)
        return list(entry[1]) if entry else []

    def _newest(self, index: dict[str, int], limit: int) -> list[dict[str, object]]:
        ids = sorted(index, key=lambda g: (index[g], g), reverse=True)[:limit]
        return [json.loads(json.dumps(self._archive[g][0])) for g in ids if g in self._archive]

    async def archived_for_user(self, user_id: int, limit: int = 100) -> list[dict[str, object]]:
        return self._newest(self._user_stats.get(user_id, {}), limit)

    async def archived_for_chat(self, chat_id: int, limit: int = 100) -> list[dict[str, object]]:
        return self._newest(self._chat_stats.get(chat_id, {}), limit)

    async def prune_archive(self, now_ms: int) -> int:
        cutoff = now_ms - self.archive_retention_s * 1000
        old = [g for g, t in self._archive_index.items() if t <= cutoff]
        for game_id in old:
            del self._archive_index[game_id]
            self._archive.pop(game_id, None)
            for index in (*self._user_stats.values(), *self._chat_stats.values()):
                index.pop(game_id, None)
        return len(old)

    async def delete_user_data(self, user_id: int) -> int:
        changed = 0
        for game_id in self._user_stats.pop(user_id, {}):
            entry = self._archive.get(game_id)
            if entry is not None and anonymise(entry[0], user_id):
                changed += 1
        self._user_games.pop(user_id, None)
        self._user_prefs.pop(user_id, None)
        return changed

    async def ping(self) -> bool:
        return True

    async def close(self) -> None:
        return None


def _lrange(items: list[str], start: int, end: int) -> list[str]:
    """Redis LRANGE semantics (inclusive end, negative indexes from the end)."""
    n = len(items)
    if start < 0:
        start = max(0, n + start)
    if end < 0:
        end = n + end
    return items[start : end + 1]
