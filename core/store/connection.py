"""The store's Redis client for every topology: one node (TCP, TLS, Unix socket) or a
master found through Redis Sentinel (TCP or TLS).

Every topology gets the same connection class behaviour (``Checked``): the pool's
checkout check also catches a socket reset under it, commands are packed by hiredis, and
a write on a closed uvloop transport is a connection error. redis-py picks its own plain
classes for ``rediss://`` and ``unix://`` URLs (and for Sentinel), which skipped all of
that: the classes are swapped for checked ones here, whatever the URL.

URLs (README "Several workers with Redis", CONTRACTS.md §2)::

    redis://[[user]:password@]host[:port][/db][?option=value...]
    rediss://...                                  the same over TLS
    unix://[[user]:password@]/path/to/redis.sock[?db=N...]
    redis+sentinel://[[user]:password@]host[:port][,host[:port]...]/service[/db][?...]
    rediss+sentinel://...                         TLS to the sentinels and to Redis

In a Sentinel URL the hosts are the sentinels (port 26379 unless given; IPv6 in
brackets), ``service`` is the name the sentinels monitor (``sentinel monitor <service>
...``), the user and password are Redis's own (``requirepass`` or an ACL user), and the
options ``sentinel_password`` / ``sentinel_username`` are the sentinels' (their own
``requirepass``), if they have any. Other options are redis-py connection options
(``socket_timeout``, ``ssl_ca_certs``, ``ssl_certfile``, ``ssl_keyfile``,
``ssl_cert_reqs``, ``ssl_check_hostname``, ``client_name``...); the ``socket_*`` and
``ssl_*`` ones also apply to the sentinels. A command gives up on a silent master after
``socket_timeout`` (redis-py's default, 5 s: a master whose host died sends no reset),
a question to a sentinel after ``sentinel_socket_timeout`` (default 1 s).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

import redis.asyncio as aioredis
from redis.asyncio.connection import (
    URL_QUERY_ARGUMENT_PARSERS,
    AbstractConnection,
    BlockingConnectionPool,
    Connection,
    SSLConnection,
    UnixDomainSocketConnection,
    parse_url,
)
from redis.asyncio.sentinel import (
    Sentinel,
    SentinelConnectionPool,
    SentinelManagedConnection,
    SentinelManagedSSLConnection,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

_pack: Callable[[tuple[Any, ...]], bytes] | None
try:
    from hiredis import pack_command as _hiredis_pack

    _pack = _hiredis_pack
except ImportError:  # (redis[hiredis] is a dependency; without it, redis-py packs)
    _pack = None

SENTINEL_SCHEMES = ("redis+sentinel", "rediss+sentinel")
SENTINEL_PORT = 26379
SENTINEL_QUERY_TIMEOUT_S = 1.0  # asking a sentinel which node is the master
_PACKABLE = (str, bytes, int)  # exact types: a bool is an int but redis-py refuses it


class Checked(AbstractConnection):
    """What every pooled connection of the store adds to redis-py's (a mixin).

    - A connection *reset* by the peer (a cut network, a proxy, a killed Redis that sent
      RST) is neither unread data nor EOF to redis-py's checkout check: it was handed out
      and failed its first command (``ConnectionError``, or uvloop's ``RuntimeError: ...
      the handler is closed``) — every idle pooled connection once, for seconds after the
      store was back. Its transport says it is closed, though.
    - hiredis packs the hot commands (several times faster than redis-py's packer for a
      commit's EVALSHA: docs/benchmarks/hotpath.md).
    - A write with nothing buffered skips redis-py's per-write ``asyncio.wait_for`` task.
    """

    async def can_read(self) -> bool:
        writer = self._writer
        if writer is not None and writer.transport.is_closing():
            return True  # the pool reconnects it before use
        return await super().can_read()

    def pack_command(self, *args: Any) -> list[bytes]:
        """A command in Redis's wire format, packed by hiredis's C packer when every
        argument is a ``str``, ``bytes`` or ``int`` (all the store's hot commands): the
        same bytes as redis-py's packer (str as UTF-8, int in decimal; tested). Anything
        else (a float, a bool, a multi-word command name, another encoding) takes
        redis-py's own path, with its errors."""
        if (
            _pack is not None
            and args
            and self.encoder.encoding == "utf-8"
            and self.encoder.encoding_errors == "strict"
            and not (isinstance(args[0], str) and " " in args[0])
            and all(type(a) in _PACKABLE for a in args)
        ):
            return [_pack(args)]
        return list(super().pack_command(*args))

    async def send_packed_command(
        self, command: bytes | str | Iterable[bytes], check_health: bool = True
    ) -> None:
        """uvloop refuses a write on a transport closed meanwhile with ``RuntimeError``
        (the standard loop: an ``OSError``, which redis-py maps): nothing was sent, so it
        is a connection error like any other — a 503 for the API, an outage for the
        timers — not a bug (redis-py has already dropped the connection)."""
        try:
            writer = self._writer
            if (
                self.socket_timeout
                and not self.health_check_interval  # (0 here: no PING before a command)
                and writer is not None
                and self.is_connected
                and not writer.transport.is_closing()
                and not writer.transport.get_write_buffer_size()
            ):
                await self._send_unbuffered(writer, command)
            else:
                await super().send_packed_command(command, check_health)
        except RuntimeError as exc:
            if "closed" not in str(exc):
                raise
            raise RedisConnectionError(f"Error while writing to socket: {exc}") from exc

    async def _send_unbuffered(
        self,
        writer: asyncio.StreamWriter,
        command: bytes | str | Iterable[bytes],
    ) -> None:
        """The write of a command when nothing is waiting in the socket's buffer (nearly
        always: a command is a few KB at most), without redis-py's ``asyncio.wait_for``.

        Why: ``wait_for`` wraps every write in a new task (Python 3.11) although the write
        goes straight to the kernel and ``drain()`` returns at once; at ~2 commands per move
        that task was a measurable share of a worker's CPU. The write timeout
        still applies whenever it can matter: if the write left bytes in the buffer (the
        kernel's socket buffer is full: Redis is not reading), the drain is bounded by
        ``socket_timeout`` exactly as redis-py bounds it. Errors map as in redis-py."""
        if isinstance(command, str):
            command = command.encode()
        if isinstance(command, bytes):
            command = [command]
        try:
            writer.writelines(command)
            if writer.transport.get_write_buffer_size():
                await asyncio.wait_for(writer.drain(), self.socket_timeout)
            else:
                await writer.drain()  # nothing buffered: returns at once (or raises if lost)
        except TimeoutError:
            await self.disconnect(nowait=True)
            raise RedisTimeoutError("Timeout writing to socket") from None
        except OSError as exc:
            await self.disconnect(nowait=True)
            raise RedisConnectionError(f"Error while writing to socket: {exc}") from exc
        except BaseException:
            await self.disconnect(nowait=True)
            raise


class CheckedConnection(Checked, Connection):
    """TCP (``redis://``)."""


class CheckedSSLConnection(Checked, SSLConnection):
    """TLS (``rediss://``)."""


class CheckedUnixConnection(Checked, UnixDomainSocketConnection):
    """A Unix socket (``unix://``)."""


class CheckedSentinelConnection(Checked, SentinelManagedConnection):
    """The master a sentinel names (``redis+sentinel://``); a ``READONLY`` answer (the
    master was demoted) is a connection error, and the next connect asks again."""


class CheckedSentinelSSLConnection(Checked, SentinelManagedSSLConnection):
    """The same over TLS (``rediss+sentinel://``)."""


_CHECKED: dict[type[AbstractConnection], type[Checked]] = {
    Connection: CheckedConnection,
    SSLConnection: CheckedSSLConnection,
    UnixDomainSocketConnection: CheckedUnixConnection,
}


class BlockingSentinelPool(SentinelConnectionPool, BlockingConnectionPool):
    """redis-py's Sentinel pool raises once ``max_connections`` are busy; the store's
    pools queue a burst instead (``BlockingConnectionPool``), on every topology."""


@dataclass(frozen=True, slots=True)
class SentinelUrl:
    """A parsed ``redis+sentinel://`` URL (see the module docstring)."""

    service: str
    sentinels: list[tuple[str, int]]
    tls: bool
    redis_kwargs: dict[str, Any] = field(default_factory=dict)  # the master's connections
    sentinel_kwargs: dict[str, object] = field(default_factory=dict)  # the sentinels'


def is_sentinel_url(url: str) -> bool:
    return url.split("://", 1)[0].lower() in SENTINEL_SCHEMES


def _option(name: str, value: str) -> object:
    parser = URL_QUERY_ARGUMENT_PARSERS.get(name)
    if parser is None:
        return value
    try:
        return parser(value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"invalid value for {name!r} in the Redis URL") from exc


def _hosts(netloc: str) -> list[tuple[str, int]]:
    hosts = []
    for part in netloc.split(","):
        part = part.strip()
        if not part:
            raise ValueError("a Sentinel URL lists sentinels as host[:port],host[:port]")
        if part.startswith("["):  # [IPv6]:port
            host, _, rest = part[1:].partition("]")
            port = rest[1:] if rest.startswith(":") else ""
            if rest and not rest.startswith(":"):
                raise ValueError(f"bad sentinel address {part!r}")
        else:
            host, _, port = part.partition(":")
        if not host:
            raise ValueError(f"bad sentinel address {part!r}")
        try:
            number = int(port) if port else SENTINEL_PORT
        except ValueError as exc:
            raise ValueError(f"bad sentinel port in {part!r}") from exc
        if not 0 < number < 65536:
            raise ValueError(f"bad sentinel port in {part!r}")
        hosts.append((unquote(host), number))
    return hosts


def parse_sentinel_url(url: str) -> SentinelUrl:
    """``redis+sentinel://[[user]:password@]h1[:p1][,h2[:p2]...]/service[/db][?...]``."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in SENTINEL_SCHEMES:
        raise ValueError(f"not a Sentinel URL: {scheme}://")
    userinfo, at, hostlist = parts.netloc.rpartition("@")
    if not at:
        userinfo, hostlist = "", parts.netloc
    sentinels = _hosts(hostlist)
    path = [unquote(p) for p in parts.path.split("/") if p]
    if not path or len(path) > 2:
        raise ValueError("a Sentinel URL names the service: redis+sentinel://hosts/service[/db]")
    service = path[0]
    redis_kwargs: dict[str, object] = {}
    sentinel_kwargs: dict[str, object] = {
        "socket_timeout": SENTINEL_QUERY_TIMEOUT_S,
        "socket_connect_timeout": SENTINEL_QUERY_TIMEOUT_S,
    }
    if len(path) == 2:
        try:
            redis_kwargs["db"] = int(path[1])
        except ValueError as exc:
            raise ValueError(f"bad database number {path[1]!r} in the Redis URL") from exc
    if userinfo:
        user, colon, password = userinfo.partition(":")
        if colon:
            if user:
                redis_kwargs["username"] = unquote(user)
            redis_kwargs["password"] = unquote(password)
        else:  # redis+sentinel://secret@... : a password alone (no user)
            redis_kwargs["password"] = unquote(user)
    for name, raw in parse_qsl(parts.query, keep_blank_values=False):
        if name in ("sentinel_password", "sentinel_username"):
            sentinel_kwargs[name.removeprefix("sentinel_")] = raw
        elif name == "sentinel_socket_timeout":
            sentinel_kwargs["socket_timeout"] = _option("socket_timeout", raw)
            sentinel_kwargs["socket_connect_timeout"] = sentinel_kwargs["socket_timeout"]
        else:
            value = _option(name, raw)
            redis_kwargs[name] = value
            if name.startswith("ssl_") or name == "socket_keepalive":
                sentinel_kwargs[name] = value
    tls = scheme == "rediss+sentinel"
    if tls:
        sentinel_kwargs["ssl"] = True
    return SentinelUrl(service, sentinels, tls, redis_kwargs, sentinel_kwargs)


def connect(url: str, **kwargs: object) -> tuple[aioredis.Redis, Sentinel | None]:
    """The client of a URL, its pool blocking a burst (``max_connections``, ``timeout``
    in ``kwargs``), with checked connections; and the Sentinel manager, if any (the
    caller closes it with the client). URL options win over ``kwargs``, as in redis-py."""
    if is_sentinel_url(url):
        target = parse_sentinel_url(url)
        sentinel = Sentinel(target.sentinels, sentinel_kwargs=target.sentinel_kwargs)
        options = {**kwargs, **target.redis_kwargs}
        options["connection_class"] = (
            CheckedSentinelSSLConnection if target.tls else CheckedSentinelConnection
        )
        client = sentinel.master_for(
            target.service,
            connection_pool_class=BlockingSentinelPool,
            check_connection=True,  # PING a new connection: a wrong node fails at once
            **options,
        )
        return client, sentinel
    options = {**kwargs, **parse_url(url)}
    redis_class = options.get("connection_class", Connection)
    options["connection_class"] = _CHECKED.get(redis_class, redis_class)
    pool = BlockingConnectionPool(**options)
    return aioredis.Redis.from_pool(pool), None  # the client owns (and closes) the pool
