"""The bot-wide send budget in front of every Bot API call (ARCHITECTURE principle 9).

Telegram lets one bot send about 30 messages per second across all chats; with several
workers and hosts only a budget they share keeps the bot under it. Every sending call
(``send*``, ``edit*``, ``copy*``, ``forward*``) takes a token of the service's bucket
before it goes, unless the notifier already paid for it (``Runtime.acquire``); a group's
send also takes a token of that group's bucket. A 429 is told to every worker
(``Runtime.hold``): a group's for that chat, any other for the whole bot. PTB's
``AIORateLimiter`` stays underneath as the process-local second line and does the retries.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Coroutine
from typing import Any

from telegram.error import RetryAfter
from telegram.ext import AIORateLimiter
from telegram.warnings import PTBDeprecationWarning

from telegram_bot.runtime import Runtime

SENDING = ("send", "edit", "copy", "forward")
BULK = frozenset({"sendPhoto", "editMessageMedia"})  # board pictures wait for the rest


def chat_of(data: dict[str, Any]) -> int | None:
    with contextlib.suppress(TypeError, ValueError):
        return int(data["chat_id"])
    return None


def retry_seconds(exc: RetryAfter) -> float:
    """A 429's retry_after in seconds (an int now, a timedelta in PTB's next major)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PTBDeprecationWarning)
        retry = exc.retry_after
    return float(retry.total_seconds() if hasattr(retry, "total_seconds") else retry)


class SharedRateLimiter(AIORateLimiter):
    """``AIORateLimiter`` with the budget every worker shares (``runtime`` set at build)."""

    runtime: Runtime | None = None

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, Any]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: int | None,
    ) -> Any:
        runtime = self.runtime
        if runtime is None or not endpoint.startswith(SENDING):
            return await super().process_request(
                callback, args, kwargs, endpoint, data, rate_limit_args
            )
        chat = chat_of(data)
        group = chat if chat is not None and chat < 0 else None
        prepaid = runtime.take_prepaid()

        async def paid(*a: Any, **kw: Any) -> Any:
            nonlocal prepaid
            if not prepaid:  # a retry pays again
                await runtime.pay(group, bulk=endpoint in BULK)
            prepaid = False
            try:
                return await callback(*a, **kw)
            except RetryAfter as exc:
                await runtime.hold(group, retry_seconds(exc))
                raise

        return await super().process_request(paid, args, kwargs, endpoint, data, rate_limit_args)
