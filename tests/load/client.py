"""A thin HTTP/WebSocket client of the game API (API.md), timing every request.

Only what a third-party client may do: sign in with initData (signed here with the test
bot token, as Telegram would), then Bearer tokens; no shortcut into the server.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from typing import Any

import aiohttp
import orjson

from miniapp.auth import sign_init_data
from tests.load.harness import BOT_TOKEN

_SERVER_TIMING = re.compile(r"dur=([0-9.]+)")


def init_data(
    user_id: int, name: str, *, token: str = BOT_TOKEN, auth_date: int | None = None, **extra: str
) -> str:
    """initData as Telegram signs it for ``user_id``."""
    fields = {
        "auth_date": str(int(time.time()) if auth_date is None else auth_date),
        "query_id": f"AAQ{user_id}",
        "user": json.dumps(
            {"id": user_id, "first_name": name, "language_code": "en"}, separators=(",", ":")
        ),
        **extra,
    }
    return sign_init_data(fields, token)


def _parse(payload: bytes) -> Any:
    """JSON bodies with orjson (cheaper for the load generator); what orjson refuses but
    the standard parser reads (NaN, 1e400, integers beyond 64 bits) through the latter;
    anything else as text."""
    if not payload:
        return None
    try:
        return orjson.loads(payload)
    except ValueError:  # orjson.JSONDecodeError is a ValueError
        pass
    try:
        return json.loads(payload)
    except ValueError:
        return payload.decode(errors="replace")


@dataclass(slots=True)
class Reply:
    status: int
    body: Any
    ms: float  # client-side round trip
    server_ms: float | None  # from a Server-Timing header, when the server sends one


class Api:
    def __init__(self, base_url: str, session: aiohttp.ClientSession) -> None:
        self.base = base_url.rstrip("/")
        self.http = session

    async def call(
        self,
        method: str,
        path: str,
        *,
        token: str | None = None,
        body: Any = None,
        headers: dict[str, str] | None = None,
        raw: bytes | None = None,
    ) -> Reply:
        h = dict(headers or {})
        if token:
            h["Authorization"] = f"Bearer {token}"
        data: bytes | None = raw
        if body is not None:
            try:
                data = orjson.dumps(body)
            except TypeError:  # e.g. an integer beyond 64 bits
                data = json.dumps(body, separators=(",", ":")).encode()
        if data is not None:
            h.setdefault("Content-Type", "application/json")
        began = time.perf_counter()
        async with self.http.request(method, self.base + path, data=data, headers=h) as resp:
            payload = await resp.read()
            ms = (time.perf_counter() - began) * 1000
            timing = resp.headers.get("Server-Timing", "")
        match = _SERVER_TIMING.search(timing)
        return Reply(resp.status, _parse(payload), ms, float(match.group(1)) if match else None)

    async def login(self, user_id: int, name: str) -> str:
        reply = await self.call(
            "POST", "/api/session", headers={"Authorization": f"tma {init_data(user_id, name)}"}
        )
        if reply.status != 200:
            raise RuntimeError(f"login of {user_id} failed: {reply.status} {reply.body}")
        return str(reply.body["token"])

    async def create(self, token: str, **body: Any) -> str:
        reply = await self.call("POST", "/api/games", token=token, body=body)
        if reply.status not in (200, 201):
            raise RuntimeError(f"create failed: {reply.status} {reply.body}")
        return str(reply.body["game_id"])

    async def action(self, token: str, game_id: str, what: str) -> dict[str, Any]:
        reply = await self.call("POST", f"/api/games/{game_id}/{what}", token=token, body={})
        if reply.status != 200:
            raise RuntimeError(f"{what} failed: {reply.status} {reply.body}")
        return dict(reply.body)

    async def view(self, token: str, game_id: str) -> Reply:
        return await self.call("GET", f"/api/games/{game_id}", token=token)

    async def move(
        self,
        token: str,
        game_id: str,
        version: int,
        move: dict[str, Any],
        submission_id: str | None = None,
    ) -> Reply:
        body: dict[str, Any] = {"version": version, "move": move}
        if submission_id is not None:
            body["submission_id"] = submission_id
        return await self.call("POST", f"/api/games/{game_id}/moves", token=token, body=body)

    def ws_url(self, game_id: str) -> str:
        return self.base.replace("http://", "ws://") + f"/api/games/{game_id}/ws"

    async def socket(self, token: str, game_id: str) -> aiohttp.ClientWebSocketResponse:
        ws = await self.http.ws_connect(
            self.ws_url(game_id), origin=self.base, heartbeat=None, autoping=True
        )
        await ws.send_str(json.dumps({"auth": token}))
        return ws
