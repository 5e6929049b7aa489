"""The HTTP API over a real GameService (memory and Redis stores), on loopback."""

from __future__ import annotations

import asyncio
import re
import socket
import time
from typing import Any

import jsonschema
from aiohttp import ClientResponse
from aiohttp.test_utils import TestClient

from core.names import names
from core.service import GameService, UserRef
from core.store import RedisStore
from tests.miniapp.conftest import ClientMaker, make_init_data, session_token, tma


async def two_player_game(service: GameService) -> tuple[str, dict[str, Any]]:
    """A started classic game: users 1 and 2 seated, plus a computer seat."""
    view = await service.create_lobby(chat=None, creator=UserRef(1, "Ann"), edition="classic")
    game_id = view["game_id"]
    await service.join(game_id, UserRef(2, "Bob"))
    await service.add_computer(game_id, 1)
    view = await service.start(game_id, 1)
    return game_id, view


async def current_actor_headers(
    client: TestClient, game_id: str
) -> tuple[dict[str, str], dict[str, Any]] | None:
    for uid, name in ((1, "Ann"), (2, "Bob")):
        headers = await session_token(client, uid, name)
        view = await (await client.get(f"/api/games/{game_id}", headers=headers)).json()
        if view["legal_moves"]:
            return headers, view
    return None


async def play_first_legal_move(client: TestClient, game_id: str) -> ClientResponse:
    """Wait (up to ~5 s) for a human's turn and play its first legal move: answered 200."""
    found = None
    for _ in range(100):
        found = await current_actor_headers(client, game_id)
        if found:
            break
        await asyncio.sleep(0.05)
    assert found
    headers, view = found
    r = await client.post(
        f"/api/games/{game_id}/moves",
        json={"version": view["version"], "move": view["legal_moves"][0]},
        headers=headers,
    )
    assert r.status == 200
    return r


async def test_initdata_and_session(any_service: GameService, make_client: ClientMaker) -> None:
    client = await make_client(any_service)
    r = await client.post("/api/session", headers=tma(42, "李雷", start_param="abc_DEF-1"))
    assert r.status == 200
    body = await r.json()
    assert body["user_id"] == 42 and body["name"] == "李雷" and body["start_param"] == "abc_DEF-1"
    assert body["expires_at"].endswith("Z") and body["token"]
    # the token works, and refreshes itself
    bearer = {"Authorization": f"Bearer {body['token']}"}
    r = await client.post("/api/session", headers=bearer)
    assert r.status == 200 and (await r.json())["user_id"] == 42
    r = await client.get("/api/games", headers=bearer)
    assert r.status == 200 and (await r.json()) == {"games": []}


async def test_bad_credentials_are_401(
    memory_service: GameService, make_client: ClientMaker
) -> None:
    client = await make_client(memory_service)
    good = make_init_data(7)
    cases = {
        "missing": {},
        "tampered": {"Authorization": "tma " + good.replace("Ann", "Eve")},
        "wrong token": {"Authorization": "tma " + make_init_data(7, token="999:OTHER")},
        "expired": {
            "Authorization": "tma " + make_init_data(7, auth_date=int(time.time()) - 90000)
        },
        "missing user": {"Authorization": "tma " + make_init_data(None)},
        "bad bearer": {"Authorization": "Bearer abc.def"},
        "bad scheme": {"Authorization": "Basic abc"},
    }
    for label, headers in cases.items():
        r = await client.post("/api/session", headers=headers)
        assert r.status == 401, label
        body = await r.json()
        assert set(body["error"]) >= {"code", "message"}, label
    r = await client.post(
        "/api/session",
        headers={"Authorization": "tma " + make_init_data(7, auth_date=int(time.time()) - 90000)},
    )
    assert (await r.json())["error"]["code"] == "expired"
    r = await client.get("/api/games/abc", headers={})
    assert r.status == 401


async def test_view_player_spectator_and_not_found(
    any_service: GameService, make_client: ClientMaker
) -> None:
    client = await make_client(any_service)
    game_id, _ = await two_player_game(any_service)
    ann = await session_token(client, 1, "Ann")
    view = await (await client.get(f"/api/games/{game_id}", headers=ann)).json()
    assert view["game_id"] == game_id and view["you"]["seat"] is not None
    assert view["you"]["role"] and len(view["you"]["hand"]) == 6
    stranger = await session_token(client, 99, "Eve")
    r = await client.get(f"/api/games/{game_id}", headers=stranger)
    spectator = await r.json()
    assert r.status == 200 and spectator["you"]["seat"] is None
    assert not spectator["you"].get("hand") and not spectator["you"].get("role")
    assert spectator["legal_moves"] == []
    # a spectator may not move: 403
    r = await client.post(
        f"/api/games/{game_id}/moves",
        json={"version": view["version"], "move": {"type": "discard", "cards": ["x"]}},
        headers=stranger,
    )
    assert r.status == 403 and (await r.json())["error"]["code"] == "not_seated"
    for bad in ("nope", "bad$id"):
        r = await client.get(f"/api/games/{bad}", headers=ann)
        assert r.status == 404 and (await r.json())["error"]["code"] == "not_found"
    r = await client.get(f"/api/games/{game_id}/log?since=0", headers=stranger)
    assert r.status == 200 and isinstance((await r.json())["entries"], list)
    r = await client.get(f"/api/games/{game_id}/log?since=x", headers=stranger)
    assert r.status == 400


async def test_moves_ok_stale_illegal(any_service: GameService, make_client: ClientMaker) -> None:
    client = await make_client(any_service)
    game_id, _ = await two_player_game(any_service)
    found = None
    for _ in range(100):  # the computer seat may be first: wait for a human turn
        found = await current_actor_headers(client, game_id)
        if found:
            break
        await any_service.fire_due()
        await asyncio.sleep(0.02)
    assert found, "no human turn came"
    headers, view = found
    url = f"/api/games/{game_id}/moves"
    version = view["version"]
    # illegal: a card that is not in the hand
    r = await client.post(
        url,
        json={"version": version, "move": {"type": "discard", "cards": ["zzzzz"]}},
        headers=headers,
    )
    assert r.status == 422
    err = (await r.json())["error"]
    assert err["code"] == "illegal_move" and err["reason"] == "card_not_in_hand"
    # stale: an old version answers 409 with the current view
    r = await client.post(
        url, json={"version": version - 1, "move": view["legal_moves"][0]}, headers=headers
    )
    assert r.status == 409
    body = await r.json()
    assert body["error"]["code"] == "stale_version" and body["view"]["version"] == version
    # timeouts are the server's: 403
    r = await client.post(
        url, json={"version": version, "move": {"type": "timeout"}}, headers=headers
    )
    assert r.status == 403
    # a legal move: 200 with the new view
    r = await client.post(
        url, json={"version": version, "move": view["legal_moves"][0]}, headers=headers
    )
    assert r.status == 200, await r.text()
    assert (await r.json())["version"] > version


async def test_malformed_bodies(memory_service: GameService, make_client: ClientMaker) -> None:
    client = await make_client(memory_service)
    game_id, view = await two_player_game(memory_service)
    ann = await session_token(client, 1)
    url = f"/api/games/{game_id}/moves"
    h = {**ann, "Content-Type": "application/json"}
    bodies = [
        "{",
        "[]",
        '"x"',
        "",
        '{"version": "1", "move": {"type": "discard"}}',
        '{"version": true, "move": {"type": "discard"}}',
        '{"version": 1, "move": 5}',
        '{"version": 1, "move": {"type": 3}}',
        "\xff\xfe",
        "[" * 5000 + "]" * 5000,  # deeper than the JSON parser's recursion limit
        '{"version": 1, "move": ' + "[" * 5000 + "]" * 5000 + "}",
    ]
    for body in bodies:
        r = await client.post(url, data=body.encode("latin-1"), headers=h)
        assert r.status == 400, body
        data = await r.json()
        assert "error" in data and "Traceback" not in await r.text()
    r = await client.post(
        url, json={"version": view["version"], "move": {"type": "place_path"}}, headers=ann
    )
    assert r.status in (400, 422)
    # oversized: 413, still JSON
    r = await client.post(url, data=b"{" + b" " * 100_000 + b"}", headers=h)
    assert r.status == 413 and (await r.json())["error"]["code"] == "payload_too_large"
    # unknown route and method: JSON too
    r = await client.get("/api/nothing", headers=ann)
    assert r.status == 404 and "error" in await r.json()
    r = await client.put(url, headers=ann)
    assert r.status == 405 and "error" in await r.json()


async def test_create_game_against_computers_and_lobby(
    any_service: GameService, make_client: ClientMaker
) -> None:
    client = await make_client(any_service)
    ann = await session_token(client, 1)
    r = await client.post(
        "/api/games", json={"edition": "classic", "seats": 4, "computer_seats": 3}, headers=ann
    )
    assert r.status == 201, await r.text()
    created = await r.json()
    view = await (await client.get(f"/api/games/{created['game_id']}", headers=ann)).json()
    assert view["status"] in ("playing", "round_over") and len(view["seats"]) == 4
    assert sum(1 for s in view["seats"] if s.get("computer")) == 3
    # a lobby: join, start by a non-creator is 403, then the creator starts
    r = await client.post("/api/games", json={"edition": "classic"}, headers=ann)
    lobby_id = (await r.json())["game_id"]
    bob = await session_token(client, 2, "Bob")
    carl = await session_token(client, 3, "Carl")
    assert (await client.post(f"/api/games/{lobby_id}/join", headers=bob)).status == 200
    assert (await client.post(f"/api/games/{lobby_id}/join", headers=carl)).status == 200
    r = await client.post(f"/api/games/{lobby_id}/start", headers=bob)
    assert r.status == 403 and (await r.json())["error"]["code"] == "not_creator"
    r = await client.post(f"/api/games/{lobby_id}/start", headers=ann)
    assert r.status == 200 and (await r.json())["status"] == "playing"
    games = (await (await client.get("/api/games", headers=ann)).json())["games"]
    assert set(games) >= {lobby_id, created["game_id"]}
    # wrong types and configurations
    for body, status in (
        ({"edition": "chess"}, 400),
        ({"seats": "4"}, 400),
        ({"seats": 40}, 422),
        ({"seats": 3, "computer_seats": 3}, 422),
        ({"options": []}, 400),
    ):
        r = await client.post("/api/games", json=body, headers=ann)
        assert r.status == status, body


async def test_table_limits_are_the_services_codes(
    memory_service: GameService, make_client: ClientMaker
) -> None:
    """The Mini App checks JSON types only: a table size or a count of computer seats out
    of range is refused by the service, with the code the bot gets for it."""
    client = await make_client(memory_service)
    ann = await session_token(client, 1)
    for body in (
        {"edition": "classic", "seats": 11},
        {"edition": "expansion", "seats": 13},
        {"seats": 3, "computer_seats": 3},
        {"computer_seats": -1},
    ):
        r = await client.post("/api/games", json=body, headers=ann)
        assert r.status == 422, body
        assert (await r.json())["error"]["code"] == "bad_setting", body


async def test_rate_limit(memory_service: GameService, make_client: ClientMaker) -> None:
    client = await make_client(memory_service, rate_burst=5, rate_per_second=0.5)
    ann = await session_token(client, 1)
    statuses = [(await client.get("/api/games", headers=ann)).status for _ in range(8)]
    assert statuses[:4] == [200] * 4 and statuses[-1] == 429
    r = await client.get("/api/games", headers=ann)
    assert r.status == 429 and int(r.headers["Retry-After"]) >= 1
    assert (await r.json())["error"]["code"] == "rate_limited"
    # another user has their own budget
    bob_init = tma(2, "Bob")
    assert (await client.post("/api/session", headers=bob_init)).status == 200


async def test_headers_openapi_health_catalogue(
    any_service: GameService, make_client: ClientMaker
) -> None:
    client = await make_client(any_service)
    r = await client.get("/")
    assert r.status == 200 and "text/html" in r.headers["Content-Type"]
    csp = r.headers["Content-Security-Policy"]
    assert "frame-ancestors" in csp and "https://web.telegram.org" in csp
    assert "script-src 'self' https://telegram.org" in csp
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    assert "X-Frame-Options" not in r.headers  # it would stop Telegram Web from framing us
    assert "telegram-web-app.js" in await r.text()
    etag = r.headers["ETag"]
    r = await client.get("/", headers={"If-None-Match": etag})
    assert r.status == 304
    r = await client.get("/static/app.js", headers={"Accept-Encoding": "gzip"})
    assert r.status == 200 and r.headers.get("Content-Encoding") == "gzip"
    assert r.headers["Cache-Control"] == "no-cache"
    assert (await client.get("/static/../server.py")).status == 404
    assert (await client.get("/static/nothing.js")).status == 404
    doc = await (await client.get("/api/openapi.json")).json()
    assert doc["openapi"].startswith("3.1")
    for path in (
        "/api/session",
        "/api/games",
        "/api/games/{game_id}/moves",
        "/api/games/{game_id}/ws",
        "/api/games/{game_id}/log",
        "/healthz",
    ):
        assert path in doc["paths"], path
    r = await client.get("/healthz")
    assert r.status == 200 and (await r.json()) == {"ok": True}
    cat = await (await client.get("/api/catalogue")).json()
    assert cat["cards"]["S2_BRIDGE"]["groups"] == ["NS", "EW"]
    assert cat["look"]["card"]["w"] > 0
    assert cat["names"]["zh-hant"]["cards"]["S2_BRIDGE"] == names("zh_Hant")["card"]["S2_BRIDGE"]
    schema = doc["paths"]["/api/catalogue"]["get"]["responses"]["200"]["content"]
    jsonschema.validate(cat, schema["application/json"]["schema"])  # as documented


async def test_websocket_auth_origin_and_push(
    any_service: GameService, make_client: ClientMaker, monkeypatch: Any
) -> None:
    import aiohttp

    from miniapp import ws as ws_module

    monkeypatch.setattr(ws_module, "AUTH_TIMEOUT", 0.3)
    client = await make_client(any_service)
    game_id, _ = await two_player_game(any_service)
    url = f"/api/games/{game_id}/ws"
    origin = f"http://{client.server.host}:{client.server.port}"
    # a foreign Origin is refused before the upgrade
    for bad in ("https://evil.example", ""):
        headers = {"Origin": bad} if bad else {}
        try:
            await client.ws_connect(url, headers=headers)
            raise AssertionError("connected with a foreign origin")
        except aiohttp.WSServerHandshakeError as exc:
            assert exc.status == 403
    # no auth frame in time: closed with 4401
    sock = await client.ws_connect(url, headers={"Origin": origin})
    msg = await sock.receive(timeout=3)
    assert msg.type == aiohttp.WSMsgType.CLOSE and msg.data == 4401
    # a bad token: 4401
    sock = await client.ws_connect(url, headers={"Origin": origin})
    await sock.send_json({"auth": "nope.nope"})
    msg = await sock.receive(timeout=3)
    assert msg.type == aiohttp.WSMsgType.CLOSE and msg.data == 4401
    # a good token: the current version, then a push when the game changes
    ann = await session_token(client, 1)
    token = ann["Authorization"].split(" ", 1)[1]
    sock = await client.ws_connect(url, headers={"Origin": origin})
    await sock.send_json({"auth": token})
    hello = await sock.receive_json(timeout=3)
    assert hello["game_id"] == game_id
    r = await play_first_legal_move(client, game_id)
    new_version = (await r.json())["version"]
    pushed: list[int] = []
    while not pushed or pushed[-1] < new_version:
        pushed.append((await sock.receive_json(timeout=3))["version"])
    assert pushed[-1] == new_version
    await sock.close()


def test_openapi_document_is_valid_openapi_3_1() -> None:
    from openapi_spec_validator import validate

    from miniapp.openapi import document

    doc = document()
    validate(doc)  # raises on any schema violation
    assert doc["openapi"] == "3.1.0"
    move_types = doc["components"]["schemas"]["Move"]["properties"]["type"]["enum"]
    assert {"place_path", "discard_to_remove", "steal", "next_round"} <= set(move_types)


async def test_store_outage_is_503_with_retry_after(make_client: ClientMaker) -> None:
    """Redis away (here: nothing listens on the port) answers 503, never a 500 or a trace."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        dead_port = sock.getsockname()[1]
    store = RedisStore.from_url(
        f"redis://127.0.0.1:{dead_port}/0", prefix="test:outage:", pool_timeout=1.0
    )
    service = GameService(store)
    client = await make_client(service)
    ann = await session_token(client, 1)
    r = await client.get("/api/games/abcdefghijkl", headers=ann)
    assert r.status == 503, await r.text()
    assert r.headers["Retry-After"].isdigit()
    assert (await r.json())["error"]["code"] == "store_unavailable"
    r = await client.get("/healthz")
    assert r.status == 503 and "error" in await r.json()
    await store.close()


async def test_server_timing_header(memory_service: GameService, make_client: ClientMaker) -> None:
    client = await make_client(memory_service)
    r = await client.get("/healthz")
    assert re.fullmatch(r"app;dur=\d+\.\d\d", r.headers["Server-Timing"])


async def test_views_are_gzipped_when_asked(
    memory_service: GameService, make_client: ClientMaker
) -> None:
    """A view (several KB) goes out gzipped to clients that accept it, plain otherwise."""
    client = await make_client(memory_service)
    game_id, _ = await two_player_game(memory_service)
    ann = await session_token(client, 1, "Ann")
    r = await client.get(f"/api/games/{game_id}", headers={**ann, "Accept-Encoding": "gzip"})
    assert r.status == 200 and r.headers.get("Content-Encoding") == "gzip"
    assert "Accept-Encoding" in r.headers.get("Vary", "")
    zipped = await r.json()  # the client inflates it
    r = await client.get(f"/api/games/{game_id}", headers={**ann, "Accept-Encoding": "identity"})
    assert r.status == 200 and "Content-Encoding" not in r.headers
    assert await r.json() == zipped and zipped["game_id"] == game_id
    small = await client.get("/healthz", headers={"Accept-Encoding": "gzip"})
    assert "Content-Encoding" not in small.headers  # tiny bodies are not worth it


async def test_websocket_resyncs_from_the_store_when_notices_are_lost(
    memory_service: GameService, make_client: ClientMaker, monkeypatch: Any
) -> None:
    """A notice that never arrives (a pub/sub reconnect) is made up for by reading the
    store's version after RESYNC seconds of silence; a notice resets that clock."""
    from collections.abc import AsyncIterator as AIt

    from miniapp import ws as ws_module

    monkeypatch.setattr(ws_module, "RESYNC", 0.3)
    client = await make_client(memory_service)
    game_id, _ = await two_player_game(memory_service)

    async def deaf(_game_id: str) -> AIt[int]:  # subscribed, but hears nothing
        await asyncio.Event().wait()
        yield 0

    monkeypatch.setattr(memory_service, "listen", deaf)
    origin = f"http://{client.server.host}:{client.server.port}"
    token = (await session_token(client, 1))["Authorization"].split(" ", 1)[1]
    sock = await client.ws_connect(f"/api/games/{game_id}/ws", headers={"Origin": origin})
    await sock.send_json({"auth": token})
    hello = await sock.receive_json(timeout=3)
    r = await play_first_legal_move(client, game_id)
    pushed = await sock.receive_json(timeout=3)  # from the resync, not from a notice
    assert pushed["game_id"] == game_id
    # (a timer of the running service may have moved the game on again meanwhile)
    assert pushed["version"] >= (await r.json())["version"] > hello["version"]
    await sock.close()
