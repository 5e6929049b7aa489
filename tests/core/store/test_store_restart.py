"""A private redis-server killed and restarted, or cut off at a proxy, under a live
``RedisStore`` (issue 8).

redis-py 8 with maintenance notifications on ("auto", its default) skipped the pool's
check of a connection on checkout, so after a restart every idle pooled connection was
handed out dead and failed its first command: requests answered 503 and timer claims
failed for seconds after Redis was back. The store turns them off; this holds it.
"""

from __future__ import annotations

import asyncio
import shutil

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from core.store import RedisStore
from tests.chaos.proxy import ProxyProcess
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


async def _cut_and_restore() -> list[BaseException]:
    """Fill the pool, reset every connection at a proxy (as a cut network does), restore,
    and run 40 commands at once: the failures."""
    with RedisServer() as server:
        port = int(server.url.rsplit(":", 1)[1].split("/")[0])
        proxy = ProxyProcess(port).start()
        try:
            store = RedisStore.from_url(proxy.url, prefix="cut:")
            try:
                await asyncio.gather(*(store.version(f"g{i}") for i in range(40)))
                proxy.cut()
                await asyncio.sleep(0.5)
                proxy.restore()
                await asyncio.sleep(0.2)
                results = await asyncio.gather(
                    *(store.version(f"g{i}") for i in range(40)), return_exceptions=True
                )
                return [r for r in results if isinstance(r, BaseException)]
            finally:
                await store.close()
        finally:
            proxy.close()


async def test_pooled_connections_survive_a_reset_connection() -> None:
    """Reset connections (RST, not EOF) are replaced on checkout, not handed out."""
    failed = await _cut_and_restore()
    assert failed == [], f"{len(failed)} of 40 commands failed: {failed[:1]}"


def test_pooled_connections_survive_a_reset_connection_on_uvloop() -> None:
    """uvloop raises RuntimeError ("the handler is closed") writing to such a socket."""
    uvloop = pytest.importorskip("uvloop")
    failed = uvloop.run(_cut_and_restore())
    assert failed == [], f"{len(failed)} of 40 commands failed: {failed[:1]}"


def test_a_write_on_a_closed_socket_is_a_connection_error_on_uvloop(redis_url: str) -> None:
    """A connection closed between checkout and write: uvloop's RuntimeError ("the handler
    is closed") comes out as redis' ConnectionError (a 503, a timer outage — not a 500)."""
    uvloop = pytest.importorskip("uvloop")

    async def write_after_close() -> BaseException | None:
        store = RedisStore.from_url(redis_url, prefix="closed:")
        try:
            connection = await store.redis.connection_pool.get_connection()
            try:
                connection._writer.transport.abort()  # closed under it, after the checkout
                await asyncio.sleep(0)
                try:
                    await connection.send_command("PING")
                except BaseException as exc:
                    return exc
                return None
            finally:
                await store.redis.connection_pool.release(connection)
        finally:
            await store.close()

    error = uvloop.run(write_after_close())
    assert isinstance(error, RedisConnectionError), repr(error)
