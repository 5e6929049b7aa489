"""A lean keep-alive HTTP/1.1 client for the two hot requests of a load run.

Why not aiohttp's ``ClientSession`` here: the load generator runs on the same 2 cores as
the server it measures, and aiohttp's client spends ~0.4-0.5 ms of CPU per GET + POST
(URL objects, header multidicts, a streaming reader, a timer and a context manager per
request). Every slot sends the same two requests, so the request bytes can be built once
per (game, player) and the answer read with a few ``bytes`` operations.

It stays a correct HTTP/1.1 client for what the server sends: the status line, headers
(``Server-Timing``, ``Content-Length``, ``Transfer-Encoding: chunked``,
``Content-Encoding: gzip``/``deflate``, ``Connection: close``), bodies split over any
number of reads. It sends ``Accept-Encoding: gzip, deflate`` like aiohttp's client, so the
server does the same work (it gzips views) as with the old generator. The setup, the
WebSockets, the fuzzer and the chaos tests keep using aiohttp (``tests.load.client``).
"""

from __future__ import annotations

import asyncio
import time
import zlib
from typing import Any, cast

import orjson

from tests.load.client import Reply, _parse

TIMEOUT_S = 30.0  # the aiohttp session's total timeout it replaces


class HttpError(ConnectionError):
    """The connection failed or the server sent something this client cannot read."""


class _Conn(asyncio.Protocol):
    """One keep-alive connection: one request at a time, answered in order."""

    __slots__ = ("_head", "_need", "buf", "closed", "transport", "waiter")

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.buf = bytearray()
        self.waiter: asyncio.Future[tuple[int, dict[bytes, bytes], bytes]] | None = None
        self.closed = False
        self._head: tuple[int, dict[bytes, bytes], int] | None = None  # status, headers, end
        self._need = -1  # total bytes of head + body, once known (-1: chunked or unknown)

    # asyncio callbacks -------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # (uvloop's transports are not registered as asyncio.Transport subclasses)
        self.transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        self.buf += data
        if self.waiter is None:
            self._fail(HttpError("unsolicited data"))
            return
        try:
            answer = self._answer()
        except (ValueError, IndexError, zlib.error) as exc:
            self._fail(HttpError(f"unreadable answer ({exc})"[:60]))
            return
        if answer is not None:
            waiter, self.waiter = self.waiter, None
            if not waiter.done():
                waiter.set_result(answer)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self._fail(
            HttpError(
                f"connection lost ({type(exc).__name__})" if exc else "server closed the connection"
            )
        )

    # parsing ---------------------------------------------------------------------
    def _answer(self) -> tuple[int, dict[bytes, bytes], bytes] | None:
        """The whole answer once it is in the buffer (else None); resets for the next."""
        buf = self.buf
        if self._head is None:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                return None
            lines = bytes(buf[:end]).split(b"\r\n")
            status = int(lines[0].split(b" ", 2)[1])
            headers: dict[bytes, bytes] = {}
            for line in lines[1:]:
                name, _, value = line.partition(b":")
                headers[name.strip().lower()] = value.strip()
            end += 4
            self._head = (status, headers, end)
            length = headers.get(b"content-length")
            if b"chunked" in headers.get(b"transfer-encoding", b"").lower():
                self._need = -1
            elif length is not None:
                self._need = end + int(length)
            elif status in (204, 304) or 100 <= status < 200:
                self._need = end
            else:
                raise ValueError("an answer without a length (read-until-close unsupported)")
        status, headers, start = self._head
        if self._need >= 0:
            if len(buf) < self._need:
                return None
            body = bytes(buf[start : self._need])
            rest = self._need
        else:
            decoded = _dechunk(buf, start)
            if decoded is None:
                return None
            body, rest = decoded
        del buf[:rest]
        self._head, self._need = None, -1
        encoding = headers.get(b"content-encoding", b"").lower()
        if encoding == b"gzip":
            body = zlib.decompress(body, 16 + zlib.MAX_WBITS)
        elif encoding == b"deflate":
            body = zlib.decompress(body)
        return status, headers, body

    def _fail(self, exc: Exception) -> None:
        self.closed = True
        waiter, self.waiter = self.waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_exception(exc)
        if self.transport is not None:
            self.transport.close()


def _dechunk(buf: bytearray, start: int) -> tuple[bytes, int] | None:
    """A complete chunked body from ``buf[start:]`` and where it ends, or None."""
    parts: list[bytes] = []
    pos = start
    while True:
        eol = buf.find(b"\r\n", pos)
        if eol < 0:
            return None
        size = int(bytes(buf[pos:eol]).split(b";", 1)[0], 16)
        pos = eol + 2
        if size == 0:
            trailer_end = buf.find(b"\r\n\r\n", pos - 2)  # no trailers: "0\r\n\r\n"
            if trailer_end < 0:
                return None
            return b"".join(parts), trailer_end + 4
        if len(buf) < pos + size + 2:
            return None
        parts.append(bytes(buf[pos : pos + size]))
        pos += size + 2


class FastApi:
    """``view`` and ``move`` of :class:`tests.load.client.Api`, over raw keep-alive HTTP.

    By default one pool of kept-alive connections serves every player, the most recently
    used connection first: what the workers see behind the deployment's reverse proxy
    (Caddy keeps such a pool to the shared port). At a few hundred moves/s nearly all
    requests then travel on a few connections, so the kernel's ``SO_REUSEPORT`` placement
    gives one worker most of the load (0.6-0.7 against 0.2-0.4 cores at 500 moves/s);
    measured, this costs nothing in latency or capacity on this machine
    (docs/benchmarks/load.md). ``per_player`` keeps each player's own connections
    instead, as browsers talking to the workers directly would: evenly spread, and a
    player's GET and POST reach the same worker.
    """

    def __init__(self, host: str, port: int, per_player: bool = False) -> None:
        self.host, self.port = host, port
        self.per_player = per_player
        self._idle: dict[str, list[_Conn]] = {}
        self._common = (
            f"Host: {host}:{port}\r\nAccept: */*\r\nAccept-Encoding: gzip, deflate\r\n"
        ).encode()
        self._gets: dict[tuple[str, str], bytes] = {}
        self._posts: dict[tuple[str, str], bytes] = {}
        self.connections_opened = 0

    @classmethod
    def for_base_url(cls, base_url: str, per_player: bool = False) -> FastApi:
        hostport = base_url.split("://", 1)[1].rstrip("/")
        host, _, port = hostport.rpartition(":")
        return cls(host, int(port), per_player)

    async def view(self, token: str, game_id: str) -> Reply:
        request = self._gets.get((token, game_id))
        if request is None:
            request = self._gets[(token, game_id)] = (
                f"GET /api/games/{game_id} HTTP/1.1\r\n".encode()
                + self._common
                + f"Authorization: Bearer {token}\r\n\r\n".encode()
            )
        return await self._send(token, request, retry=True)

    async def move(
        self,
        token: str,
        game_id: str,
        version: int,
        move: dict[str, Any],
        submission_id: str | None = None,
    ) -> Reply:
        """A move; with a ``submission_id`` it is safe to send again (the server makes it
        once), so a kept-alive connection that turns out closed is retried like a GET."""
        head = self._posts.get((token, game_id))
        if head is None:
            head = self._posts[(token, game_id)] = (
                f"POST /api/games/{game_id}/moves HTTP/1.1\r\n".encode()
                + self._common
                + f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n"
                "Content-Length: ".encode()
            )
        fields: dict[str, Any] = {"version": version, "move": move}
        if submission_id is not None:
            fields["submission_id"] = submission_id
        body = orjson.dumps(fields)
        request = b"%s%d\r\n\r\n%s" % (head, len(body), body)
        return await self._send(token, request, retry=submission_id is not None)

    async def _send(self, token: str, request: bytes, *, retry: bool) -> Reply:
        began = time.perf_counter()
        idle = self._idle.setdefault(token if self.per_player else "", [])
        conn, reused = await self._conn(idle)
        try:
            status, headers, body = await self._exchange(conn, request)
        except HttpError:
            # a kept-alive connection the server closed meanwhile: an idempotent GET is
            # sent again on a fresh one (as browsers do); a POST's failure is reported
            if not (retry and reused):
                raise
            conn, _ = await self._conn(idle, fresh=True)
            status, headers, body = await self._exchange(conn, request)
        ms = (time.perf_counter() - began) * 1000
        if not conn.closed and headers.get(b"connection", b"").lower() != b"close":
            idle.append(conn)
        elif conn.transport is not None:
            conn.transport.close()
        timing = headers.get(b"server-timing")
        server_ms: float | None = None
        if timing is not None:
            at = timing.find(b"dur=")
            if at >= 0:
                digits = timing[at + 4 :].split(b",", 1)[0].split(b";", 1)[0]
                server_ms = float(digits)
        return Reply(status, _parse(body), ms, server_ms)

    async def _conn(self, idle: list[_Conn], fresh: bool = False) -> tuple[_Conn, bool]:
        while idle and not fresh:
            conn = idle.pop()
            if not conn.closed and conn.transport is not None and not conn.transport.is_closing():
                return conn, True
        loop = asyncio.get_running_loop()
        transport, conn = await loop.create_connection(_Conn, self.host, self.port)
        conn.transport = transport  # uvloop may call connection_made only later
        self.connections_opened += 1
        return conn, False

    async def _exchange(self, conn: _Conn, request: bytes) -> tuple[int, dict[bytes, bytes], bytes]:
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[tuple[int, dict[bytes, bytes], bytes]] = loop.create_future()
        conn.waiter = waiter
        assert conn.transport is not None
        conn.transport.write(request)
        timer = loop.call_later(TIMEOUT_S, _expire, conn, waiter)
        try:
            return await waiter
        finally:
            timer.cancel()

    def close(self) -> None:
        for idle in self._idle.values():
            for conn in idle:
                if conn.transport is not None:
                    conn.transport.close()
        self._idle.clear()


def _expire(conn: _Conn, waiter: asyncio.Future[Any]) -> None:
    if not waiter.done():
        waiter.set_exception(TimeoutError(f"no answer in {TIMEOUT_S:g} s"))
        conn.waiter = None
        conn.closed = True
        if conn.transport is not None:
            conn.transport.close()
