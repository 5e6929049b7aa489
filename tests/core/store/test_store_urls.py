"""The Redis URLs the store takes (``core/store/connection.py``): one node over TCP, TLS
or a Unix socket, or a Sentinel service; every one with the store's checked connections
and a blocking pool."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from redis.asyncio.connection import BlockingConnectionPool

from core.store import RedisStore
from core.store.connection import (
    BlockingSentinelPool,
    CheckedConnection,
    CheckedSentinelConnection,
    CheckedSentinelSSLConnection,
    CheckedSSLConnection,
    CheckedUnixConnection,
    is_sentinel_url,
    parse_sentinel_url,
)
from tests.load.harness import RedisServer


def test_a_sentinel_url_names_sentinels_service_db_and_credentials() -> None:
    target = parse_sentinel_url(
        "redis+sentinel://app:s%40cret@10.0.0.1:26380,10.0.0.2,[::1]:26381/games/2"
        "?sentinel_password=watch&socket_timeout=2.5&client_name=sab"
    )
    assert target.service == "games"
    assert target.sentinels == [("10.0.0.1", 26380), ("10.0.0.2", 26379), ("::1", 26381)]
    assert not target.tls
    assert target.redis_kwargs == {
        "db": 2,
        "username": "app",
        "password": "s@cret",
        "socket_timeout": 2.5,
        "client_name": "sab",
    }
    assert target.sentinel_kwargs == {
        "socket_timeout": 1.0,
        "socket_connect_timeout": 1.0,
        "password": "watch",
    }


def test_a_password_alone_and_defaults() -> None:
    target = parse_sentinel_url("redis+sentinel://secret@sentinel/mymaster")
    assert target.sentinels == [("sentinel", 26379)]
    assert target.redis_kwargs == {"password": "secret"}
    assert parse_sentinel_url("redis+sentinel://:secret@s/m").redis_kwargs == {"password": "secret"}
    assert parse_sentinel_url("redis+sentinel://s/m").redis_kwargs == {}


def test_tls_options_reach_redis_and_the_sentinels() -> None:
    target = parse_sentinel_url(
        "rediss+sentinel://s1:5000,s2:5000/m?ssl_ca_certs=/ca.pem&ssl_cert_reqs=required"
        "&sentinel_socket_timeout=0.5"
    )
    assert target.tls
    assert target.redis_kwargs == {"ssl_ca_certs": "/ca.pem", "ssl_cert_reqs": "required"}
    assert target.sentinel_kwargs == {
        "socket_timeout": 0.5,
        "socket_connect_timeout": 0.5,
        "ssl_ca_certs": "/ca.pem",
        "ssl_cert_reqs": "required",
        "ssl": True,
    }


@pytest.mark.parametrize(
    "url",
    [
        "redis+sentinel://s1,s2",  # no service
        "redis+sentinel://s1/",  # no service
        "redis+sentinel://s1/m/x",  # bad db
        "redis+sentinel://s1/m/0/extra",
        "redis+sentinel://s1:port/m",
        "redis+sentinel://s1:0/m",
        "redis+sentinel://s1,,s2/m",
        "redis+sentinel://[::1/m",
        "redis+sentinel://s1/m?socket_timeout=soon",
        "redis://host/0",  # not a Sentinel URL
    ],
)
def test_bad_sentinel_urls_are_refused_with_a_reason(url: str) -> None:
    with pytest.raises(ValueError):
        parse_sentinel_url(url)


def test_sentinel_schemes() -> None:
    assert is_sentinel_url("redis+sentinel://s/m")
    assert is_sentinel_url("REDISS+SENTINEL://s/m")
    assert not is_sentinel_url("redis://h/0")
    assert not is_sentinel_url("rediss://h/0")


@pytest.mark.parametrize(
    ("url", "connection_class", "pool_class"),
    [
        ("redis://127.0.0.1:6379/0", CheckedConnection, BlockingConnectionPool),
        ("rediss://127.0.0.1:6379/0", CheckedSSLConnection, BlockingConnectionPool),
        ("unix:///run/redis.sock?db=1", CheckedUnixConnection, BlockingConnectionPool),
        ("redis+sentinel://127.0.0.1/m", CheckedSentinelConnection, BlockingSentinelPool),
        ("rediss+sentinel://127.0.0.1/m", CheckedSentinelSSLConnection, BlockingSentinelPool),
    ],
)
async def test_every_topology_gets_checked_connections_and_a_blocking_pool(
    url: str, connection_class: type, pool_class: type
) -> None:
    store = RedisStore.from_url(url, prefix="urls:")  # (connects only when used)
    try:
        pool = store.redis.connection_pool
        assert type(pool) is pool_class
        assert pool.connection_class is connection_class
        assert pool.max_connections == 512
        assert pool.connection_kwargs["decode_responses"] is True
    finally:
        await store.close()


async def test_url_options_win_over_the_defaults() -> None:
    store = RedisStore.from_url("redis://127.0.0.1:6379/0?max_connections=7", prefix="u:")
    try:
        assert store.redis.connection_pool.max_connections == 7
    finally:
        await store.close()


@pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")
async def test_a_unix_socket_store_works(tmp_path: Path) -> None:
    """A private redis-server on a Unix socket: the checked class connects and commits."""
    sock = tmp_path / "redis.sock"
    with RedisServer(workdir=tmp_path, extra_args=["--unixsocket", str(sock)]):
        store = RedisStore.from_url(f"unix://{sock}?db=0", prefix="unix:")
        try:
            assert await store.create("g1", "s", "m", ttl_s=60)
            assert (await store.commit("g1", 1, "s", "m", [], None, ttl_s=60)).ok
            assert await store.version("g1") == 2
        finally:
            await store.close()
