"""The only code that talks to Redis: ``GameStore`` with a Redis and an in-memory backend."""

from __future__ import annotations

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import OutOfMemoryError as RedisOutOfMemoryError
from redis.exceptions import TimeoutError as RedisTimeoutError

from core.store.base import (
    DEFAULT_ARCHIVE_RETENTION_S,
    EPOCH_GAP,
    KEEP,
    TIMER_TURN,
    TIMER_WARN,
    Change,
    CommitResult,
    Deadline,
    GameRecord,
    GameStore,
    Keep,
    SendBudget,
    TimerClaim,
    TokenResult,
)
from core.store.keys import Keys
from core.store.memory import MemoryStore
from core.store.redis_store import RedisStore

# Redis is full (``maxmemory`` reached, ``noeviction``): it refuses every write, and a
# script refused at its first write wrote nothing. Reads go on.
STORE_FULL: tuple[type[Exception], ...] = (RedisOutOfMemoryError,)
# The store cannot be reached (Redis restarting, a cut connection) or is full: nothing was
# written and the caller may retry (the API answers 503). Callers catch these without
# knowing which backend runs.
STORE_UNAVAILABLE: tuple[type[Exception], ...] = (
    RedisConnectionError,
    RedisTimeoutError,
    OSError,
    *STORE_FULL,
)


def open_store(
    redis_url: str | None,
    *,
    prefix: str = "sab:",
    archive_retention_s: int = DEFAULT_ARCHIVE_RETENTION_S,
    replica_wait_ms: int = 0,
) -> GameStore:
    """Redis when a URL is configured (one node, or a Sentinel service: see
    ``core/store/connection.py``), else the in-process store (one worker)."""
    if redis_url:
        return RedisStore.from_url(
            redis_url,
            prefix=prefix,
            archive_retention_s=archive_retention_s,
            replica_wait_ms=replica_wait_ms,
        )
    return MemoryStore(archive_retention_s=archive_retention_s)


__all__ = [
    "DEFAULT_ARCHIVE_RETENTION_S",
    "EPOCH_GAP",
    "KEEP",
    "STORE_FULL",
    "STORE_UNAVAILABLE",
    "TIMER_TURN",
    "TIMER_WARN",
    "Change",
    "CommitResult",
    "Deadline",
    "GameRecord",
    "GameStore",
    "Keep",
    "Keys",
    "MemoryStore",
    "RedisStore",
    "SendBudget",
    "TimerClaim",
    "TokenResult",
    "open_store",
]
