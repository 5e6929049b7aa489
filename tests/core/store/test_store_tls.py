"""TLS (``rediss://``, ``rediss+sentinel://``) against a real TLS-only redis-server with a
self-signed certificate made here: the same checked connections, and so the same
reconnect behaviour, as plain TCP — a ``rediss://`` URL used to get redis-py's own
``SSLConnection`` and skip the checks (issue 20)."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from core.store import RedisStore
from core.store.connection import CheckedSentinelSSLConnection, CheckedSSLConnection
from tests.chaos.proxy import ProxyProcess
from tests.load.harness import HOST, RedisServer, TlsFiles
from tests.load.topology import SentinelTopology

pytestmark = [
    pytest.mark.topology,
    pytest.mark.skipif(
        shutil.which("redis-server") is None or shutil.which("openssl") is None,
        reason="needs redis-server and openssl",
    ),
]


@pytest.fixture(scope="module")
def tls_files(tmp_path_factory: pytest.TempPathFactory) -> TlsFiles:
    return TlsFiles.make(tmp_path_factory.mktemp("tls"))


@pytest.fixture
def tls_server(tls_files: TlsFiles, tmp_path: Path) -> Iterator[RedisServer]:
    with RedisServer(tls=tls_files, workdir=tmp_path) as server:
        yield server


async def test_rediss_gets_the_checked_connection_class(tls_server: RedisServer) -> None:
    store = RedisStore.from_url(tls_server.url, prefix="tls:")
    try:
        pool = store.redis.connection_pool
        assert pool.connection_class is CheckedSSLConnection
        assert await store.create("g1", "s", "m", ttl_s=60)
        heard = store.listen("g1")
        first = asyncio.ensure_future(anext(heard))
        await store.start()
        await asyncio.sleep(0.05)
        assert (await store.commit("g1", 1, "s2", "m", ["e"], None, ttl_s=60)).ok
        assert await asyncio.wait_for(first, 5) == 2
        record = await store.load("g1")
        assert record is not None and record.state == "s2"
    finally:
        await store.close()


async def test_pooled_tls_connections_survive_a_restart(tls_server: RedisServer) -> None:
    store = RedisStore.from_url(tls_server.url, prefix="tls:")
    try:
        await asyncio.gather(*(store.version(f"g{i}") for i in range(20)))
        await asyncio.to_thread(tls_server.restart)
        await asyncio.sleep(0.2)
        results = await asyncio.gather(
            *(store.version(f"g{i}") for i in range(20)), return_exceptions=True
        )
        failed = [r for r in results if isinstance(r, BaseException)]
        assert failed == [], f"{len(failed)} of 20 commands failed: {failed[:1]}"
    finally:
        await store.close()


async def test_pooled_tls_connections_survive_a_reset_connection(
    tls_server: RedisServer, tls_files: TlsFiles
) -> None:
    """TLS through a TCP proxy that resets every connection (RST, not EOF): replaced on
    checkout, as on plain TCP (test_store_restart.py)."""
    proxy = ProxyProcess(tls_server.port).start()
    try:
        url = f"rediss://{HOST}:{proxy.port}/0?ssl_ca_certs={tls_files.cert}"
        store = RedisStore.from_url(url, prefix="tls:")
        try:
            await asyncio.gather(*(store.version(f"g{i}") for i in range(20)))
            proxy.cut()
            await asyncio.sleep(0.5)
            proxy.restore()
            await asyncio.sleep(0.2)
            results = await asyncio.gather(
                *(store.version(f"g{i}") for i in range(20)), return_exceptions=True
            )
            failed = [r for r in results if isinstance(r, BaseException)]
            assert failed == [], f"{len(failed)} of 20 commands failed: {failed[:1]}"
        finally:
            await store.close()
    finally:
        proxy.close()


async def test_a_certificate_it_cannot_verify_is_refused(tls_server: RedisServer) -> None:
    """No CA given: the self-signed certificate is not trusted (TLS is really checked)."""
    store = RedisStore.from_url(f"rediss://{HOST}:{tls_server.port}/0", prefix="tls:")
    try:
        assert not await store.ping()
    finally:
        await store.close()


async def test_sentinel_over_tls() -> None:
    """``rediss+sentinel://``: TLS to the sentinel and to the master it names."""
    with SentinelTopology(replicas=0, sentinels=1, tls=True) as topology:
        store = RedisStore.from_url(topology.url, prefix="tls:")
        try:
            assert store.redis.connection_pool.connection_class is CheckedSentinelSSLConnection
            assert await store.create("g1", "s", "m", ttl_s=60)
            assert (await store.commit("g1", 1, "s", "m", [], None, ttl_s=60)).ok
            assert await store.version("g1") == 2
        finally:
            await store.close()


def test_pooled_tls_connections_survive_a_reset_connection_on_uvloop(
    tls_server: RedisServer, tls_files: TlsFiles
) -> None:
    uvloop = pytest.importorskip("uvloop")
    uvloop.run(test_pooled_tls_connections_survive_a_reset_connection(tls_server, tls_files))


def test_a_tls_write_on_a_closed_socket_is_a_connection_error_on_uvloop(
    tls_server: RedisServer,
) -> None:
    """A connection closed between checkout and write: a ConnectionError (a 503, a timer
    outage), never uvloop's RuntimeError (a 500), as on plain TCP."""
    uvloop = pytest.importorskip("uvloop")

    async def write_after_close() -> BaseException | None:
        store = RedisStore.from_url(tls_server.url, prefix="tls:")
        try:
            connection = await store.redis.connection_pool.get_connection()
            try:
                connection._writer.transport.abort()
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
