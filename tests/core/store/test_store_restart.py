"""A private redis-server killed and restarted under a live ``RedisStore`` (issue 8).

redis-py 8 with maintenance notifications on ("auto", its default) skipped the pool's
check of a connection on checkout, so after a restart every idle pooled connection was
handed out dead and failed its first command: requests answered 503 and timer claims
failed for seconds after Redis was back. The store turns them off; this holds it.
"""

from __future__ import annotations

import asyncio
import shutil

import pytest

from core.store import RedisStore
from tests.load.harness import RedisServer

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")


async def test_pooled_connections_survive_a_restart() -> None:
    with RedisServer() as server:
        store = RedisStore.from_url(server.url, prefix="restart:")
        try:
            # fill the pool with idle connections to the Redis about to die
            await asyncio.gather(*(store.version(f"g{i}") for i in range(40)))
            await asyncio.to_thread(server.restart)
            await asyncio.sleep(0.2)  # the workers' loops see the closed sockets
            results = await asyncio.gather(
                *(store.version(f"g{i}") for i in range(40)), return_exceptions=True
            )
            failed = [r for r in results if isinstance(r, BaseException)]
            assert failed == [], f"{len(failed)} of 40 commands failed: {failed[:1]}"
            claims = await store.claim_due(0)
            assert claims == []
        finally:
            await store.close()
