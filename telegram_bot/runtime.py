"""Side-effect coordination for the bot: claims, the per-group budget, small preferences.

Principle 9 of ARCHITECTURE.md: every side effect happens once whatever the number of
workers (``GameService.claim_side_effect``, ``SET NX`` in Redis), and group output is
budgeted per chat and the whole bot's sends share one budget (``acquire``, and
``telegram_bot.budget`` for every other call), both token buckets of the service, so
every worker and host shares them. Everything goes through the service, so
every worker sees the same claims: while the store cannot be reached a claim raises
(one of ``STORE_UNAVAILABLE``) rather than guess, and the caller retries on the next change.
"""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections import Counter
from dataclasses import dataclass, field

from core.service import GameService, SendBudget

# Group budget: a bucket of BURST tokens refilled at BURST/PERIOD per second, so any
# 60 s window holds at most BURST + 60*BURST/PERIOD = 20 sends (Telegram's ~20/min/group).
BURST = 5
PERIOD = 20.0
CLAIM_NAMESPACE = "tg:"  # the bot's side-effect keys, apart from the service's own
BOT_RATE = 30  # Telegram's ~30 messages per second per bot (BOT_SEND_RATE)

# Set by ``acquire`` for the send that follows in the same task: it is paid for already,
# so the rate limiter (``telegram_bot.budget``) does not charge it a second time.
_prepaid: contextvars.ContextVar[bool] = contextvars.ContextVar("prepaid", default=False)


@dataclass
class Runtime:
    """What the handlers and the notifier share besides the service's game calls."""

    service: GameService
    burst: int = BURST
    period: float = PERIOD
    rate: int = BOT_RATE
    _locks: dict[int, asyncio.Lock] = field(default_factory=dict)
    _pay_locks: dict[tuple[int | None, bool], asyncio.Lock] = field(default_factory=dict)
    # sends paid per kind ("urgent", "bulk", "waits"...), read by tests and benchmarks
    stats: Counter[str] = field(default_factory=Counter)

    @property
    def budget(self) -> SendBudget:
        """At most ``rate`` sends in any one-second window, as the group budget keeps 20
        in any minute: a bucket of a fifth of the rate, refilled at the rest less one
        (30/s: 6 + 23), the one a margin for requests that reach Telegram late."""
        burst = max(1, self.rate // 5)
        return SendBudget(
            rate=float(max(1, self.rate - burst - 1)),
            burst=burst,
            chat_capacity=self.burst,
            chat_per_seconds=self.period,
        )

    async def claim(self, key: str, ttl_s: int = 86400) -> bool:
        """True exactly once per key across workers (for ``ttl_s``)."""
        return await self.service.claim_side_effect(CLAIM_NAMESPACE + key, ttl_s)

    async def try_acquire(self, chat_id: int, *, max_wait_s: float, bulk: bool = False) -> bool:
        """Like ``acquire``, but give up (False) when the send could not go within
        ``max_wait_s``: a press must be answered within seconds, so a busy group gets the
        private chat instead of a late message."""
        deadline = time.monotonic() + max_wait_s
        while True:
            allowed, wait = await self.service.take_send_token(chat_id, self.budget, bulk=bulk)
            if allowed:
                self.stats["bulk" if bulk else "urgent"] += 1
                _prepaid.set(True)
                return True
            self.stats["waits"] += 1
            wait = max(0.02, float(wait))
            if time.monotonic() + wait > deadline:
                return False
            await asyncio.sleep(wait)

    async def acquire(self, chat_id: int, *, bulk: bool = False) -> None:
        """Wait for a group's budget and the bot's (the send that follows is paid for).

        Only groups are budgeted here; any other send pays the bot-wide budget in the
        rate limiter. ``bulk`` (a board picture) waits while urgent sends use the reserve."""
        if chat_id > 0:
            return
        await self.pay(chat_id, bulk=bulk)
        _prepaid.set(True)

    async def acquire_private(self, *, bulk: bool = False) -> None:
        """Wait for the bot's budget for one private send (paid for; ``bulk``: after
        urgent sends), e.g. redrawing a waiting player's panel."""
        await self.pay(None, bulk=bulk)
        _prepaid.set(True)

    async def pay(self, chat_id: int | None, *, bulk: bool = False) -> None:
        """Wait until the shared budget lets one send to ``chat_id`` go (None: bot only).

        Sends of one kind to one chat wait in line in this process (one lock each), so a
        saturated budget is asked by one waiter at a time, and in the order they came."""
        key = (chat_id, bulk)
        lock = self._pay_locks.get(key)
        if lock is None:
            if len(self._pay_locks) > 10_000:
                self._pay_locks = {k: v for k, v in self._pay_locks.items() if v.locked()}
            lock = self._pay_locks[key] = asyncio.Lock()
        async with lock:
            await self._pay(chat_id, bulk)

    async def _pay(self, chat_id: int | None, bulk: bool) -> None:
        while True:
            allowed, wait = await self.service.take_send_token(chat_id, self.budget, bulk=bulk)
            if allowed:
                self.stats["bulk" if bulk else "urgent"] += 1
                return
            self.stats["waits"] += 1
            await asyncio.sleep(min(max(0.02, float(wait)), 5.0))

    @staticmethod
    def take_prepaid() -> bool:
        """True once when ``acquire`` paid for the send now being made in this task."""
        paid = _prepaid.get()
        if paid:
            _prepaid.set(False)
        return paid

    async def hold(self, chat_id: int | None, seconds: float) -> None:
        """Telegram answered 429: every worker holds (that chat's, or all) sends."""
        self.stats["429"] += 1
        await self.service.hold_sends(chat_id, seconds)

    # preferences (language choices: ``u:<user>``, ``c:<chat>``, ``lc:<user>``) live in the
    # store without expiry, so every worker and a restarted one see them; a user's go with
    # ``delete_user_data``. Per-game bot data goes to the game's adapter data.
    async def get_pref(self, key: str) -> str | None:
        return await self.service.get_pref(key)

    async def set_pref(self, key: str, value: str) -> None:
        await self.service.set_pref(key, value)

    # per-game adapter data (board message id, lobby message id, panels, last seen state)
    async def get_game_data(self, game_id: str) -> dict[str, str]:
        return await self.service.adapter_data(game_id)

    async def get_game_value(self, game_id: str, name: str) -> str | None:
        return await self.service.adapter_value(game_id, name)

    async def set_game_data(self, game_id: str, name: str, value: str) -> None:
        await self.service.set_adapter_data(game_id, name, value)

    def chat_lock(self, chat_id: int) -> asyncio.Lock:
        lock = self._locks.get(chat_id)
        if lock is None:
            lock = self._locks[chat_id] = asyncio.Lock()
        return lock
