"""Attacks on the Mini App's API and the proxy in front of it (real processes, loopback).

Each function takes the running arena (``ApiArena``: Redis, two API workers trusting the
proxy at 127.0.0.1, Caddy with the shipped Caddyfile) and returns an ``Outcome``. Sizes
are parameters: the report runs them larger than the test suite does.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

import aiohttp

from miniapp.ratelimit import Limits
from tests.load.client import Api, init_data
from tests.load.harness import HOST, ServerGroup
from tests.security.arena import (
    Caddy,
    RedisProcess,
    client,
    cpu_meter,
    raw_connections,
    still_open,
)
from tests.security.outcome import Outcome

SEVEN_DAYS = 7 * 86400
LIMITS = Limits()  # the server's defaults (miniapp.ratelimit)


@dataclass
class ApiArena:
    redis: RedisProcess
    server: ServerGroup
    caddy: Caddy | None
    games: list[tuple[str, list[str]]] = field(default_factory=list)  # (game, tokens)
    _users: int = 0

    @property
    def direct(self) -> str:
        return self.server.base_url

    @property
    def proxied(self) -> str:
        return self.caddy.base_url if self.caddy else self.server.base_url

    def user(self) -> int:
        self._users += 1
        return 500_000_000 + self._users


async def _login(api: Api, user_id: int, name: str = "P", **initdata: Any) -> str:
    reply = await api.call(
        "POST",
        "/api/session",
        headers={"Authorization": f"tma {init_data(user_id, name, **initdata)}"},
    )
    if reply.status != 200:
        raise RuntimeError(f"login failed: {reply.status} {reply.body}")
    return str(reply.body["token"])


async def _three_player_game(arena: ApiArena, api: Api) -> tuple[str, dict[int, str]]:
    """A started classic game of three humans: (game id, token by seat)."""
    users = [arena.user() for _ in range(3)]
    tokens = [await _login(api, u, f"N{u}") for u in users]
    game_id = await api.create(tokens[0], edition="classic", seats=3)
    for token in tokens[1:]:
        await api.action(token, game_id, "join")
    view = await api.action(tokens[0], game_id, "start")
    names = {f"N{u}": tokens[i] for i, u in enumerate(users)}
    arena.games.append((game_id, tokens))
    return game_id, {s["seat"]: names[s["name"]] for s in view["seats"]}


# ---------------------------------------------------------------------- bounded per client


async def lobby_flood(arena: ApiArena, accounts: int = 100, per_account: int = 20) -> Outcome:
    """Issue 2: 100 accounts made 16,858 lobbies in 30 s (1.1 KB each, living 25 h)."""
    out = Outcome(
        "lobby_flood",
        f"{accounts} accounts each try to open {per_account} lobbies as fast as they can",
    )
    redis = arena.redis.client()
    before = int(redis.info("memory")["used_memory"])
    created: list[tuple[str, str]] = []
    async with client(arena.direct, 30, limit=64) as api:
        tokens = await asyncio.gather(*(_login(api, arena.user()) for _ in range(accounts)))

        async def one(token: str) -> None:
            for _ in range(per_account):
                reply = await api.call("POST", "/api/games", token=token, body={})
                out.count(reply.status)
                if reply.status == 201:
                    created.append((reply.body["game_id"], token))
                else:
                    out.figures.setdefault("refusal", reply.body["error"]["code"])

        began = time.monotonic()
        await asyncio.gather(*(one(t) for t in tokens))
        out.figures["seconds"] = round(time.monotonic() - began, 1)
    grown = int(redis.info("memory")["used_memory"]) - before
    out.figures.update(
        lobbies_created=len(created),
        per_account_max=max((sum(1 for _, t in created if t == tok) for tok in tokens), default=0),
        redis_growth_kb=round(grown / 1024),
    )
    for game_id, token in created:
        arena.games.append((game_id, [token]))
    cap = 3
    return out.check(
        len(created) <= accounts * cap and out.statuses["409"] > 0,
        f"{len(created)} lobbies ({cap} per account at most), the rest refused 409 "
        f"too_many_lobbies; Redis grew {grown // 1024} KB",
    )


async def junk_moves(arena: ApiArena, moves: int = 11) -> Outcome:
    """Issue 2: 11 moves with a 15 KB junk field made a 152 KB move log (kept 90 days)."""
    out = Outcome("junk_moves", f"{moves} legal moves, each with an extra 15 KB field")
    async with client(arena.direct, 31) as api:
        game_id, tokens = await _three_player_game(arena, api)
        for _ in range(moves):
            for token in tokens.values():
                view = (await api.view(token, game_id)).body
                if view.get("legal_moves"):
                    break
            move = {**view["legal_moves"][0], "junk": "x" * 15_000}
            reply = await api.move(token, game_id, view["version"], move)
            out.count(reply.status)
    redis = arena.redis.client()
    key = f"sec:{{g:{game_id}}}:log"
    entries = redis.lrange(key, 0, -1)
    size = int(redis.memory_usage(key, samples=0) or 0)
    out.figures.update(
        log_entries=len(entries), log_bytes=size, longest_entry=max(map(len, entries))
    )
    return out.check(
        out.statuses["200"] == moves and len(entries) == moves and size < 2048,
        f"all {moves} moves played; the log holds the moves alone: {size} B for "
        f"{moves} entries, the longest {max(map(len, entries))} B",
    )


async def flood_and_sockets(arena: ApiArena, opens: int = 20, seconds: float = 6.0) -> Outcome:
    """Issue 3: behind the proxy one client's anonymous flood made another logged-in user's
    WebSocket opens fail with 429 (one bucket for everyone the proxy forwarded)."""
    out = Outcome(
        "anonymous_flood_vs_sockets",
        f"through the proxy, one client floods anonymous requests for {seconds:.0f} s while "
        f"another, signed in, opens {opens} WebSockets",
    )
    flood_statuses: dict[str, int] = {}
    stop = asyncio.Event()

    async def flood() -> None:
        async with client(arena.proxied, 40, limit=20) as api:

            async def worker() -> None:
                while not stop.is_set():
                    reply = await api.call("GET", "/api/catalogue")
                    flood_statuses[str(reply.status)] = flood_statuses.get(str(reply.status), 0) + 1

            await asyncio.gather(*(worker() for _ in range(20)))

    flooding = asyncio.create_task(flood())
    greeted = 0
    try:
        async with client(arena.proxied, 41) as api:
            token = await _login(api, arena.user())
            game_id = await api.create(token, seats=3, computer_seats=2)
            arena.games.append((game_id, [token]))
            await asyncio.sleep(1.0)  # the flood has spent its bucket by now
            for _ in range(opens):
                try:
                    ws = await api.socket(token, game_id)
                except aiohttp.WSServerHandshakeError as exc:
                    out.count(exc.status)
                    continue
                msg = await ws.receive(timeout=5)
                ok = msg.type == aiohttp.WSMsgType.TEXT and "version" in msg.data
                out.count(101 if ok else f"closed {ws.close_code}")
                greeted += ok
                await ws.close()
                await asyncio.sleep(seconds / opens / 2)
    finally:
        stop.set()
        await flooding
    out.figures.update(flood_statuses=flood_statuses, socket_opens_greeted=greeted)
    return out.check(
        greeted == opens and flood_statuses.get("429", 0) > 0,
        f"{greeted} of {opens} sockets opened and greeted; the flooder got "
        f"{flood_statuses.get('429', 0)} × 429 of {sum(flood_statuses.values())}",
    )


async def forwarded_for_spoofing(arena: ApiArena, requests: int = 100) -> Outcome:
    """A client talking to the app directly cannot pick its address with X-Forwarded-For."""
    out = Outcome(
        "x_forwarded_for_spoofing",
        f"{requests} anonymous requests straight to the app, each with a new forged "
        "X-Forwarded-For",
    )
    async with client(arena.direct, 42) as api:
        for i in range(requests):
            forged = {"X-Forwarded-For": f"10.{i % 250}.{i // 250}.1"}
            reply = await api.call("GET", "/api/catalogue", headers=forged)
            out.count(reply.status)
    limited = out.statuses["429"]
    return out.check(
        limited > 0,
        f"the header is ignored from an untrusted peer: {limited} of {requests} answered 429",
    )


async def failed_login_flood(
    arena: ApiArena, seconds: float = 5.0, concurrency: int = 32
) -> Outcome:
    """Issue 4: failed logins were never rate-limited: 10,851 bad tokens/s kept ~40 % of
    both workers busy.

    Two phases of the same flood: from one address (what an attacker has), then with
    every request from an address of its own (through the proxy's X-Forwarded-For, as a
    botnet would be), so each is checked: the workers' CPU per request shows what
    answering before the check saves."""
    out = Outcome(
        "failed_login_flood",
        f"one client sends forged tokens and initData as fast as it can for {seconds:.0f} s "
        "while a signed-in player keeps playing",
    )
    stop = asyncio.Event()
    latencies: list[float] = []
    victim_statuses: dict[str, int] = {}

    async def victim() -> None:
        async with client(arena.direct, 44) as api:
            token = await _login(api, arena.user())
            game_id = await api.create(token, seats=3, computer_seats=2)
            arena.games.append((game_id, [token]))
            while not stop.is_set():
                reply = await api.view(token, game_id)
                victim_statuses[str(reply.status)] = victim_statuses.get(str(reply.status), 0) + 1
                latencies.append(reply.ms)
                await asyncio.sleep(0.05)

    async def flood(api: Api, statuses: Outcome | None, spread: bool) -> int:
        rng = random.Random(4)
        sent = 0

        async def worker() -> None:
            nonlocal sent
            while not stop.is_set():
                if rng.random() < 0.5:
                    header = f"Bearer {rng.randbytes(30).hex()}.{rng.randbytes(8).hex()}"
                else:
                    header = f"tma {init_data(rng.randrange(10**9), 'Eve', token='1:forged')}"
                headers = {"Authorization": header}
                if spread:
                    r = rng.randrange
                    headers["X-Forwarded-For"] = f"10.{r(256)}.{r(256)}.{r(1, 255)}"
                reply = await api.call("GET", "/api/games", headers=headers)
                sent += 1
                if statuses is not None:
                    statuses.count(reply.status)

        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return sent

    with cpu_meter(arena.server) as cpu:
        async with client(arena.direct, 43, limit=concurrency) as api:
            tasks = [asyncio.create_task(victim()), asyncio.create_task(flood(api, out, False))]
            await asyncio.sleep(seconds)
            stop.set()
            await asyncio.gather(*tasks)
    checked = Outcome("checked", "")
    stop.clear()
    connector = aiohttp.TCPConnector(limit=concurrency, local_addr=("127.0.0.1", 0))
    with cpu_meter(arena.server) as cpu_checked:
        async with aiohttp.ClientSession(connector=connector) as http:
            task = asyncio.create_task(flood(Api(arena.direct, http), checked, True))
            await asyncio.sleep(seconds)
            stop.set()
            await task
    workers = arena.server.workers
    share = cpu["cpu_s"] / cpu["wall_s"] / workers
    out.figures.update(
        per_second=round(out.tried / cpu["wall_s"]),
        answered_401=out.statuses["401"],
        answered_429=out.statuses["429"],
        worker_cpu_share=round(share, 2),
        worker_cpu_us_per_request=round(cpu["cpu_s"] / max(1, out.tried) * 1e6),
        each_checked_cpu_us_per_request=round(cpu_checked["cpu_s"] / max(1, checked.tried) * 1e6),
        each_checked_statuses=dict(checked.statuses),
        victim=victim_statuses,
        victim_p50_ms=round(statistics.median(latencies), 1) if latencies else None,
        victim_max_ms=round(max(latencies), 1) if latencies else None,
    )
    only_ok = set(victim_statuses) == {"200"}
    return out.check(
        only_ok and out.statuses["429"] > 0.9 * out.tried,
        f"{out.statuses['429']} of {out.tried} answered 429 before any check "
        f"({out.statuses['401']} checked and refused 401), "
        f"{out.figures['worker_cpu_us_per_request']} µs of worker CPU each (checked: "
        f"{out.figures['each_checked_cpu_us_per_request']} µs); the player's "
        f"{sum(victim_statuses.values())} requests all 200",
    )


async def socket_cap(arena: ApiArena, sockets: int = 60) -> Outcome:
    """Issue 5: one account held 1,000 WebSockets."""
    out = Outcome("sockets_per_user", f"one account opens {sockets} WebSockets and keeps them")
    async with client(arena.direct, 45, limit=sockets + 10) as api:
        token = await _login(api, arena.user())
        game_id = await api.create(token, seats=3, computer_seats=2)
        arena.games.append((game_id, [token]))
        opened = []
        for _ in range(sockets):
            try:
                ws = await api.socket(token, game_id)
            except aiohttp.WSServerHandshakeError as exc:
                out.count(exc.status)
                continue
            out.count(101)
            opened.append(ws)
        await asyncio.sleep(2.0)
        codes: dict[str, int] = {}
        alive = 0
        for ws in opened:
            code = await _close_code(ws, 0.3)
            if code is None:
                alive += 1
            else:
                codes[str(code)] = codes.get(str(code), 0) + 1
        for ws in opened:
            await ws.close()
    workers = arena.server.workers
    cap = LIMITS.sockets_per_user
    out.figures.update(open_after=alive, closed=codes, cap_per_worker=cap, workers=workers)
    return out.check(
        alive <= cap * workers and codes.get("4429", 0) >= sockets - cap * workers,
        f"{alive} stay open ({cap} per worker, {workers} workers); the others closed 4429",
    )


async def _close_code(ws: aiohttp.ClientWebSocketResponse, wait: float) -> int | None:
    """The close code the server sent (its CLOSE frame's data), None if still open after
    ``wait`` seconds of silence (notices are read and skipped)."""
    while True:
        try:
            msg = await ws.receive(timeout=wait)
        except TimeoutError:
            return None
        if msg.type == aiohttp.WSMsgType.CLOSE:
            return int(msg.data)
        if msg.type in (aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR):
            return ws.close_code or 1006


async def pending_sockets(arena: ApiArena, sockets: int = 200) -> Outcome:
    """Sockets that never send their auth frame: bounded per address, closed after 5 s."""
    out = Outcome(
        "unauthenticated_sockets",
        f"one address opens {sockets} WebSockets and never authenticates",
    )
    async with client(arena.direct, 46, limit=sockets + 10) as api:
        game = arena.games[0][0]
        opened = []
        for _ in range(sockets):
            try:
                ws = await api.http.ws_connect(api.ws_url(game), origin=api.base, heartbeat=None)
            except aiohttp.WSServerHandshakeError as exc:
                out.count(exc.status)
                continue
            out.count(101)
            opened.append(ws)
        codes: dict[str, int] = {}
        for ws in opened:
            code = await _close_code(ws, 10)
            codes[str(code)] = codes.get(str(code), 0) + 1
    workers = arena.server.workers
    cap = LIMITS.pending_sockets_per_address
    out.figures.update(accepted=len(opened), closed=codes, cap_per_worker=cap)
    return out.check(
        len(opened) <= cap * workers and out.statuses["429"] > 0 and codes == {"4401": len(opened)},
        f"{len(opened)} accepted ({cap} waiting per address and worker), the rest 429; "
        "every accepted one closed 4401 after 5 s",
    )


async def slow_connections(arena: ApiArena, count: int = 100) -> Outcome:
    """Issue 5: 350 slow-header connections were all still open after 90 s."""
    out = Outcome(
        "slow_headers_and_bodies",
        f"{count} connections trickle their request headers to the app, {count} to the "
        "proxy; one trickles a request body to each",
    )
    partial = b"GET /api/catalogue HTTP/1.1\r\nHost: x\r\n"
    body = b"POST /api/session HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    body += b"Content-Length: 2000\r\n\r\n{"
    assert arena.server.port
    direct = await raw_connections(HOST, arena.server.port, count, 47, send=partial)
    via = []
    if arena.caddy is not None:
        via = await raw_connections(HOST, arena.caddy.port, count, 48, send=partial)
    slow_body = await raw_connections(HOST, arena.server.port, 1, 49, send=body)
    answer_task = asyncio.create_task(slow_body[0][0].read(200))
    began = time.monotonic()
    closed_at: dict[str, float] = {}
    while time.monotonic() - began < 45:
        await asyncio.sleep(1.0)
        t = round(time.monotonic() - began)
        if "app" not in closed_at and await still_open(direct, b"X-A: b\r\n") == 0:
            closed_at["app"] = t
        if via and "proxy" not in closed_at and await still_open(via, b"X-A: b\r\n") == 0:
            closed_at["proxy"] = t
        if "body" not in closed_at:
            if answer_task.done():
                closed_at["body"] = t
            else:
                with contextlib.suppress(ConnectionError, OSError):
                    slow_body[0][1].write(b" ")  # one more byte of the body, now and then
                    await slow_body[0][1].drain()
        if len(closed_at) == (3 if via else 2):
            break
    answer = b""
    if answer_task.done() and not answer_task.exception():
        answer = answer_task.result()
    else:
        answer_task.cancel()
    for _reader, writer in direct + via + slow_body:
        writer.close()
    out.tried = len(direct) + len(via) + 1
    status_line = answer.split(b"\r\n")[0].decode(errors="replace")
    out.figures.update(closed_after_s=closed_at, slow_body_answer=status_line)
    ok = closed_at.get("app", 99) <= 35 and (not via or closed_at.get("proxy", 99) <= 15)
    ok = ok and " 408 " in status_line
    return out.check(
        ok,
        f"the app closed every slow-header connection after {closed_at.get('app')} s, the "
        f"proxy after {closed_at.get('proxy')} s; the slow body got {status_line!r} after "
        f"{closed_at.get('body')} s",
    )


async def session_lifetime(arena: ApiArena) -> Outcome:
    """Issue 6: session tokens refreshed for ever."""
    out = Outcome(
        "session_lifetime",
        "a sign-in made 7 days minus 4 s ago refreshes its token, then tries again 5 s later",
    )
    async with client(arena.direct, 50) as api:
        signed = int(time.time()) - SEVEN_DAYS + 4
        token = await _login(api, arena.user(), auth_date=signed)
        first = await api.call("POST", "/api/session", token=token, body={})
        out.count(first.status)
        await asyncio.sleep(5.5)
        again = await api.call(
            "POST", "/api/session", token=first.body.get("token", token), body={}
        )
        out.count(again.status)
        old = await api.call("GET", "/api/games", token=token)
        out.count(old.status)
    out.figures.update(expires_at=first.body.get("expires_at"), after=again.body)
    return out.check(
        first.status == 200 and again.status == 401 and old.status == 401,
        "refreshed once within the lifetime; past it the refresh and the old token are 401 "
        f"({again.body.get('error', {}).get('code')})",
    )


# ---------------------------------------------------------------------- malformed requests


def _surrogate_initdata(user_id: int) -> str:
    """initData whose user's name is a lone surrogate (a JSON escape, signed correctly)."""
    from miniapp.auth import sign_init_data

    user = json.dumps({"id": user_id, "first_name": "\ud800Eve", "last_name": "\udfff"})
    return sign_init_data({"auth_date": str(int(time.time())), "user": user}, _bot_token())


def _bot_token() -> str:
    from tests.load.harness import BOT_TOKEN

    return BOT_TOKEN


async def lone_surrogates(arena: ApiArena) -> Outcome:
    """Issue 8: a lone surrogate in a name was a 500 on POST /api/session, join, create."""
    out = Outcome(
        "lone_surrogates",
        "names that are lone surrogates (session, create, join), and surrogates in bodies",
    )
    async with client(arena.direct, 51) as api:
        users = [arena.user(), arena.user()]
        tokens = []
        for user in users:
            reply = await api.call(
                "POST",
                "/api/session",
                headers={"Authorization": f"tma {_surrogate_initdata(user)}"},
            )
            out.count(reply.status)
            tokens.append(reply.body.get("token", ""))
            out.figures.setdefault("name", reply.body.get("name"))
        reply = await api.call("POST", "/api/games", token=tokens[0], body={})
        out.count(reply.status)
        game_id = reply.body.get("game_id", "x")
        arena.games.append((game_id, tokens))
        for path in (f"/api/games/{game_id}/join", f"/api/games/{game_id}"):
            method = "POST" if path.endswith("join") else "GET"
            reply = await api.call(
                method, path, token=tokens[1], body={} if method == "POST" else None
            )
            out.count(reply.status)
        bodies = [
            b'{"options": {"\\ud800": true}}',
            b'{"edition": "\\udfff"}',
            b'{"level": "\\ud83d"}',
        ]
        for raw in bodies:
            reply = await api.call("POST", "/api/games", token=tokens[1], raw=raw)
            out.count(reply.status)
        reply = await api.call(
            "POST",
            f"/api/games/{game_id}/moves",
            token=tokens[1],
            raw=b'{"version": 1, "move": {"type": "\\ud800"}}',
        )
        out.count(reply.status)
    return out.check(
        out.server_errors == 0 and out.statuses["200"] >= 3,
        f"no 5xx; names stored as {out.figures.get('name')!r}; malformed bodies 4xx",
    )


async def unsigned_webhook_at_the_proxy(arena: ApiArena, posts: int = 20) -> Outcome:
    """Issue 1: the proxy passed webhook POSTs without the header through to the app."""
    out = Outcome(
        "unsigned_webhook_at_proxy", f"{posts} POSTs to the webhook path without the header"
    )
    if arena.caddy is None:
        return out.check(True, "skipped: no caddy binary")
    async with client(arena.proxied, 52) as api:
        for path in ("/telegram/webhook", "/tg/hook", "/", "/anything"):
            for _ in range(posts // 4):
                reply = await api.call("POST", path, raw=b'{"update_id": 1, "message": {}}')
                out.count(reply.status)
        out.figures["answer"] = reply.body
    return out.check(
        out.statuses == {"403": out.tried},
        f"all {out.tried} refused 403 by the proxy itself",
    )
