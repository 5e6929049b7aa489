"""The load generator's raw HTTP/1.1 client reads what an aiohttp server sends.

A real aiohttp server on loopback answers with a Content-Length body, a gzip body, a
chunked (streamed) body, ``Connection: close`` and a large body split over many reads;
the client must give the same status, JSON and Server-Timing as aiohttp's client would,
keep connections alive, and recover from a kept-alive connection the server closed.
"""

from __future__ import annotations

import asyncio
import gzip
import json
from collections.abc import AsyncIterator

import pytest
from aiohttp import web

from tests.load.driver import _notice_version
from tests.load.fastclient import FastApi, HttpError

BIG = {"legal_moves": [{"card": i, "x": "y" * 40} for i in range(3000)], "version": 9}


async def _view(request: web.Request) -> web.StreamResponse:
    game = request.match_info["game"]
    auth = request.headers.get("Authorization", "")
    body = json.dumps(
        {
            "game": game,
            "auth": auth,
            "ae": request.headers.get("Accept-Encoding", ""),
            "peer": _peer_port(request),
        }
    ).encode()
    headers = {"Server-Timing": "app;dur=1.25"}
    if game == "gz":
        return web.Response(
            body=gzip.compress(body),
            content_type="application/json",
            headers={**headers, "Content-Encoding": "gzip"},
        )
    if game == "chunked":
        resp = web.StreamResponse(headers=headers)
        resp.content_type = "application/json"
        resp.enable_chunked_encoding()
        await resp.prepare(request)
        for i in range(0, len(body), 7):
            await resp.write(body[i : i + 7])
        await resp.write_eof()
        return resp
    if game == "close":
        return web.Response(
            body=body, content_type="application/json", headers={**headers, "Connection": "close"}
        )
    if game == "big":
        return web.json_response(BIG, headers=headers)
    return web.Response(body=body, content_type="application/json", headers=headers)


def _peer_port(request: web.Request) -> int:
    assert request.transport is not None
    return int(request.transport.get_extra_info("peername")[1])


async def _move(request: web.Request) -> web.Response:
    data = await request.json()
    return web.json_response(
        {"echo": data, "peer": _peer_port(request)}, status=409 if data["version"] < 0 else 200
    )


async def _start() -> tuple[FastApi, web.AppRunner]:
    app = web.Application()
    app.router.add_get("/api/games/{game}", _view)
    app.router.add_post("/api/games/{game}/moves", _move)
    runner = web.AppRunner(app, keepalive_timeout=0.3)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    return FastApi.for_base_url(f"http://127.0.0.1:{port}"), runner


@pytest.fixture
async def server() -> AsyncIterator[tuple[FastApi, web.AppRunner]]:
    api, runner = await _start()
    yield api, runner
    api.close()
    await runner.cleanup()


async def test_bodies_headers_and_keep_alive(server: tuple[FastApi, web.AppRunner]) -> None:
    api, _ = server
    for game in ("plain", "gz", "chunked", "close", "plain"):
        reply = await api.view("tok", game)
        assert reply.status == 200
        assert reply.body is not None and reply.body.pop("peer") > 0
        assert reply.body == {"game": game, "auth": "Bearer tok", "ae": "gzip, deflate"}
        assert reply.server_ms == 1.25
    big = await api.view("tok", "big")
    assert big.body == BIG
    # one connection reused, one more after the server's "Connection: close"
    assert api.connections_opened == 2
    moved = await api.move("tok", "g1", 3, {"card": "a"})
    assert moved.body is not None and moved.body.pop("peer") > 0
    assert (moved.status, moved.body) == (200, {"echo": {"version": 3, "move": {"card": "a"}}})
    refused = await api.move("tok", "g1", -1, {})
    assert refused.status == 409


async def test_concurrent_requests_get_their_own_answers(
    server: tuple[FastApi, web.AppRunner],
) -> None:
    api, _ = server
    replies = await asyncio.gather(*(api.view(f"t{i}", "plain") for i in range(50)))
    assert [r.body["auth"] for r in replies] == [f"Bearer t{i}" for i in range(50)]


async def test_each_player_keeps_its_own_connection(server: tuple[FastApi, web.AppRunner]) -> None:
    """Per player, like one browser per player: a player's GET and POST share one
    connection (so they reach one worker), and players do not share connections."""
    api = FastApi(server[0].host, server[0].port, per_player=True)
    a_get = await api.view("a", "plain")
    a_post = await api.move("a", "plain", 1, {})
    b_get = await api.view("b", "plain")
    assert a_get.body["peer"] == a_post.body["peer"] != b_get.body["peer"]
    assert api.connections_opened == 2
    api.close()


async def test_a_shared_pool_hands_one_connection_to_every_player() -> None:
    api, runner = await _start()
    shared = FastApi(api.host, api.port)  # the default: as a reverse proxy's pool
    try:
        peers = {(await shared.view(token, "plain")).body["peer"] for token in "abc"}
        assert len(peers) == 1 and shared.connections_opened == 1
    finally:
        api.close()
        shared.close()
        await runner.cleanup()


async def test_a_closed_keep_alive_connection_is_replaced(
    server: tuple[FastApi, web.AppRunner],
) -> None:
    api, _ = server
    assert (await api.view("tok", "plain")).status == 200
    await asyncio.sleep(0.8)  # past the server's keep-alive timeout: it closed the socket
    assert (await api.view("tok", "plain")).status == 200
    assert api.connections_opened == 2


def test_on_uvloop() -> None:
    """The generator runs on uvloop, whose transports differ (no asyncio.Transport
    subclass; connection_made may come after create_connection returns)."""
    uvloop = pytest.importorskip("uvloop")

    async def run() -> None:
        api, runner = await _start()
        try:
            await test_bodies_headers_and_keep_alive((api, runner))
            await test_concurrent_requests_get_their_own_answers((api, runner))
        finally:
            api.close()
            await runner.cleanup()

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(run())


async def test_no_server_is_a_connection_error() -> None:
    api = FastApi("127.0.0.1", 9)  # discard port: nothing listens
    with pytest.raises(ConnectionError):
        await api.view("tok", "x")
    assert issubclass(HttpError, ConnectionError)


def test_notice_version_without_a_json_parse() -> None:
    assert _notice_version('{"game_id":"AbC-_1","version":42}') == 42
    assert _notice_version('{"version": 7, "game_id": "x"}') == 7  # any other shape
