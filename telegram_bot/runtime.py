"""Side-effect coordination for the bot: claims, the per-group budget, small preferences.

Principle 9 of ARCHITECTURE.md: every side effect happens once whatever the number of
workers (``claim_once`` on the store, ``SET NX`` in Redis), and group output is budgeted
per chat by a token bucket in the store. When the service runs without a store that
offers these (tests, a first run), a process-local fallback with the same meaning is used.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger(__name__)

# Group budget: a bucket of BURST tokens refilled at BURST/PERIOD per second, so any
# 60 s window holds at most BURST + 60*BURST/PERIOD = 20 sends (Telegram's ~20/min/group).
BURST = 5
PERIOD = 20.0


@dataclass
class _LocalBucket:
    tokens: float
    stamp: float


@dataclass
class Runtime:
    """What the handlers and the notifier share besides the service."""

    store: Any | None = None
    burst: int = BURST
    period: float = PERIOD
    _claims: dict[str, float] = field(default_factory=dict)
    _buckets: dict[int, _LocalBucket] = field(default_factory=dict)
    _prefs: dict[str, str] = field(default_factory=dict)
    _locks: dict[int, asyncio.Lock] = field(default_factory=dict)

    async def claim(self, key: str, ttl_s: int = 86400) -> bool:
        """True exactly once per key (across workers when the store supports it)."""
        fn = getattr(self.store, "claim_once", None)
        if fn is not None:
            try:
                return bool(await fn("tg:" + key, ttl_s))
            except Exception:  # store down: fall back rather than lose the message
                log.exception("claim_once failed; using the local claim")
        now = time.monotonic()
        if len(self._claims) > 50_000:
            self._claims = {k: t for k, t in self._claims.items() if t > now}
        if self._claims.get(key, 0) > now:
            return False
        self._claims[key] = now + ttl_s
        return True

    async def take_token(self, chat_id: int) -> float:
        """0 when a group send may go now, else the seconds to wait before asking again."""
        fn = getattr(self.store, "take_token", None)
        if fn is not None:
            try:
                res = await fn(chat_id, self.burst, self.period)
                return 0.0 if res.allowed else max(0.05, float(res.wait_s))
            except Exception:
                log.exception("take_token failed; using the local bucket")
        now = time.monotonic()
        rate = self.burst / self.period
        b = self._buckets.get(chat_id)
        if b is None:
            b = self._buckets[chat_id] = _LocalBucket(float(self.burst), now)
        b.tokens = min(float(self.burst), b.tokens + (now - b.stamp) * rate)
        b.stamp = now
        if b.tokens >= 1.0:
            b.tokens -= 1.0
            return 0.0
        return (1.0 - b.tokens) / rate

    async def acquire(self, chat_id: int) -> None:
        """Wait for the group's budget (only groups are budgeted; private chats are not)."""
        if chat_id > 0:
            return
        while True:
            wait = await self.take_token(chat_id)
            if wait <= 0:
                return
            await asyncio.sleep(min(wait, 5.0))

    # preferences (language choices: ``u:<user>``, ``c:<chat>``, ``lc:<user>``) live in the
    # store without expiry, so every worker and a restarted one see them; a user's go with
    # ``delete_user_data``. Per-game bot data goes to the store's adapter hash.
    async def get_pref(self, key: str) -> str | None:
        fn = getattr(self.store, "get_pref", None)
        if fn is not None:
            value: str | None = await fn(key)
            return value
        return self._prefs.get(key)

    async def set_pref(self, key: str, value: str) -> None:
        fn = getattr(self.store, "set_pref", None)
        if fn is not None:
            await fn(key, value)
            return
        self._prefs[key] = value

    # per-game adapter data (board message id, lobby message id, panels, last seen state)
    async def get_game_data(self, game_id: str) -> dict[str, str]:
        fn = getattr(self.store, "get_adapter", None)
        if fn is not None:
            data: dict[str, str] = await fn(game_id)
            return data
        return {
            k.split("|", 1)[1]: v for k, v in self._prefs.items() if k.startswith(f"ad:{game_id}|")
        }

    async def set_game_data(self, game_id: str, name: str, value: str) -> None:
        fn = getattr(self.store, "set_adapter", None)
        if fn is not None:
            await fn(game_id, name, value)
            return
        self._prefs[f"ad:{game_id}|{name}"] = value

    def chat_lock(self, chat_id: int) -> asyncio.Lock:
        lock = self._locks.get(chat_id)
        if lock is None:
            lock = self._locks[chat_id] = asyncio.Lock()
        return lock
