"""Service fixtures: a store per backend (real Redis for RedisStore) and a controllable clock.

Every group in these tests counts everyone as a member (``everyone_is_a_member``, autouse):
admission to a group's lobby has tests of its own (tests/security/test_service_guards.py).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from core.service import GameService, ServiceConfig
from core.service.guards import Guards
from core.store import GameStore, MemoryStore, RedisStore
from tests.core.service.service_clock import Clock

FAST = ServiceConfig(think_delay_s=0.0, bot_ready_delay_s=0.0, round_pause_s=0)


class Everyone:
    """A membership port for groups that everyone is in."""

    async def is_member(self, chat_id: int, user_id: int) -> bool | None:
        return True


@pytest.fixture(autouse=True)
def everyone_is_a_member(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Guards, "_membership", Everyone())


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture(params=["memory", "redis"])
async def store(
    request: pytest.FixtureRequest, redis_url: str, redis_prefix: str, redis_client: object
) -> AsyncIterator[GameStore]:
    backend: GameStore
    if request.param == "memory":
        backend = MemoryStore()
    else:
        backend = RedisStore.from_url(redis_url, prefix=redis_prefix)
    try:
        yield backend
    finally:
        await backend.close()


@pytest.fixture
def service(store: GameStore, clock: Clock) -> GameService:
    return GameService(store, FAST, clock=clock)
