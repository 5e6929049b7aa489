"""Side-effect coordination for the bot: claims, the per-group budget, small preferences.

Principle 9 of ARCHITECTURE.md: every side effect happens once whatever the number of
workers (``GameService.claim_side_effect``, ``SET NX`` in Redis), and group output is
budgeted per chat by the service's token bucket. Everything goes through the service, so
every worker sees the same claims: while the store cannot be reached a claim raises
(one of ``STORE_UNAVAILABLE``) rather than guess, and the caller retries on the next change.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from core.service import GameService

# Group budget: a bucket of BURST tokens refilled at BURST/PERIOD per second, so any
# 60 s window holds at most BURST + 60*BURST/PERIOD = 20 sends (Telegram's ~20/min/group).
BURST = 5
PERIOD = 20.0
CLAIM_NAMESPACE = "tg:"  # the bot's side-effect keys, apart from the service's own


@dataclass
class Runtime:
    """What the handlers and the notifier share besides the service's game calls."""

    service: GameService
    burst: int = BURST
    period: float = PERIOD
    _locks: dict[int, asyncio.Lock] = field(default_factory=dict)

    async def claim(self, key: str, ttl_s: int = 86400) -> bool:
        """True exactly once per key across workers (for ``ttl_s``)."""
        return await self.service.claim_side_effect(CLAIM_NAMESPACE + key, ttl_s)

    async def take_token(self, chat_id: int) -> float:
        """0 when a group send may go now, else the seconds to wait before asking again."""
        allowed, wait_s = await self.service.take_group_token(chat_id, self.burst, self.period)
        return 0.0 if allowed else max(0.05, float(wait_s))

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
    # ``delete_user_data``. Per-game bot data goes to the game's adapter data.
    async def get_pref(self, key: str) -> str | None:
        return await self.service.get_pref(key)

    async def set_pref(self, key: str, value: str) -> None:
        await self.service.set_pref(key, value)

    # per-game adapter data (board message id, lobby message id, panels, last seen state)
    async def get_game_data(self, game_id: str) -> dict[str, str]:
        return await self.service.adapter_data(game_id)

    async def set_game_data(self, game_id: str, name: str, value: str) -> None:
        await self.service.set_adapter_data(game_id, name, value)

    def chat_lock(self, chat_id: int) -> asyncio.Lock:
        lock = self._locks.get(chat_id)
        if lock is None:
            lock = self._locks[chat_id] = asyncio.Lock()
        return lock
