"""Live updates: a WebSocket that pushes ``{"game_id", "version"}`` when a game changes.

The socket carries no game state: a client that hears a new version fetches its own view
(views are per player). Authentication is the first frame, ``{"auth": "<session token>"}``,
so the token never appears in a URL (and so in no access log); a browser cannot set headers
on a WebSocket. The Origin check stops other sites from opening sockets with a user's
browser.

Bounds (``miniapp.ratelimit.Limits``): an address may have only so many sockets waiting
for their first frame; a failed first frame spends the address's budget like any failed
sign-in (and an address without budget is refused before its token is checked); an
authenticated socket spends its user's budget, and a user keeps a few open sockets per
worker, the oldest closing (4429) when a new one opens beyond that.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import weakref
from urllib.parse import urlsplit

from aiohttp import WSCloseCode, WSMsgType, web

from miniapp import keys
from miniapp.auth import AuthError, Session
from miniapp.errors import ApiError, forbidden
from miniapp.middleware import too_many
from miniapp.routes import game_id_of
from miniapp.service_adapter import ServiceAdapter

log = logging.getLogger(__name__)
AUTH_TIMEOUT = 5.0
CLOSE_UNAUTHORIZED = 4401
CLOSE_NOT_FOUND = 4404
CLOSE_RATE_LIMITED = 4429
SETTLE = 0.02  # seconds for a new listener to register before the greeting
RESYNC = 10.0  # seconds of silence after which the store's version is checked


def allowed_origins(request: web.Request) -> set[str]:
    """The page's own origin: as the browser reached us, and PUBLIC_URL behind a proxy."""
    origins = {f"{request.scheme}://{request.host}"}
    public = request.app[keys.SETTINGS].public_url
    if public:
        parts = urlsplit(public)
        origins.add(f"{parts.scheme}://{parts.netloc}")
    forwarded = request.headers.get("X-Forwarded-Proto")
    if forwarded in ("http", "https"):
        origins.add(f"{forwarded}://{request.host}")
    return origins


def notice(game_id: str, version: int) -> str:
    """``{"game_id":"…","version":N}``, built directly: the id matched ``GAME_ID`` (letters,
    digits, ``_``, ``-``), so it needs no escaping, and this runs once per socket per move."""
    return f'{{"game_id":"{game_id}","version":{int(version)}}}'


async def game_socket(request: web.Request) -> web.StreamResponse:
    game_id = game_id_of(request)
    origin = request.headers.get("Origin", "")
    if origin.rstrip("/") not in allowed_origins(request):
        raise forbidden("WebSocket origin not allowed", "bad_origin")
    app = request.app
    limits = app[keys.LIMITER].limits
    address: str = request.get(keys.REQ_ADDRESS) or app[keys.LIMITER].client_address(request)
    pending = app[keys.PENDING_SOCKETS]
    if pending.get(address, 0) >= limits.pending_sockets_per_address:
        raise too_many(AUTH_TIMEOUT)
    ws = web.WebSocketResponse(heartbeat=25.0, max_msg_size=4096)
    pending[address] = pending.get(address, 0) + 1
    try:
        await ws.prepare(request)
        app[keys.SOCKETS].add(ws)
        session = await _authenticate(request, ws, address)
    finally:
        left = pending.get(address, 1) - 1
        if left > 0:
            pending[address] = left
        else:
            pending.pop(address, None)
    if session is None:
        app[keys.SOCKETS].discard(ws)
        return ws
    mine = _register(app, session.user_id, ws)
    try:
        service = ServiceAdapter(app[keys.SERVICE])
        try:
            view = await service.view(game_id, session.user_id)
        except ApiError as exc:
            await ws.close(code=CLOSE_NOT_FOUND, message=exc.code.encode()[:100])
            return ws
        pusher = asyncio.create_task(_push(service, game_id, ws, int(view["version"])))
        try:
            async for msg in ws:  # the client may ping; anything else is ignored
                if msg.type == WSMsgType.TEXT and msg.data == "ping":
                    await ws.send_str("pong")
        finally:
            pusher.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await pusher
    finally:
        app[keys.SOCKETS].discard(ws)
        with contextlib.suppress(ValueError):
            mine.remove(ws)
        if not mine:
            app[keys.USER_SOCKETS].pop(session.user_id, None)
    return ws


def _register(
    app: web.Application, user_id: int, ws: web.WebSocketResponse
) -> list[web.WebSocketResponse]:
    """Count the socket as the user's; beyond the cap the user's oldest one closes."""
    cap = app[keys.LIMITER].limits.sockets_per_user
    mine = app[keys.USER_SOCKETS].setdefault(user_id, [])
    mine.append(ws)
    while len(mine) > cap:
        oldest = mine.pop(0)
        closing = asyncio.get_running_loop().create_task(
            oldest.close(code=CLOSE_RATE_LIMITED, message=b"too many connections")
        )
        _CLOSING.add(closing)  # (a task nobody holds may be collected before it runs)
        closing.add_done_callback(_CLOSING.discard)
    return mine


_CLOSING: set[asyncio.Task[bool]] = set()


async def _authenticate(
    request: web.Request, ws: web.WebSocketResponse, address: str
) -> Session | None:
    """The first frame's session, or None (the socket is closed, the address charged)."""
    try:
        msg = await asyncio.wait_for(ws.receive(), AUTH_TIMEOUT)
    except TimeoutError:
        await ws.close(code=CLOSE_UNAUTHORIZED, message=b"auth timeout")
        return None
    token = None
    if msg.type == WSMsgType.TEXT:
        try:
            data = json.loads(msg.data)
            token = data.get("auth") if isinstance(data, dict) else None
        except (ValueError, RecursionError):
            token = None
    limiter = request.app[keys.LIMITER]
    signer = request.app[keys.SIGNER]
    if not (isinstance(token, str) and signer.known(token)) and limiter.address_wait(address):
        await ws.close(code=CLOSE_RATE_LIMITED, message=b"too many requests")
        return None
    if not isinstance(token, str):
        limiter.take_address(address)
        await ws.close(code=CLOSE_UNAUTHORIZED, message=b"auth required")
        return None
    try:
        session = signer.verify(token)
    except AuthError:
        limiter.take_address(address)
        await ws.close(code=CLOSE_UNAUTHORIZED, message=b"bad token")
        return None
    if limiter.take_user(session.user_id):
        await ws.close(code=CLOSE_RATE_LIMITED, message=b"too many requests")
        return None
    return session


async def _push(
    service: ServiceAdapter, game_id: str, ws: web.WebSocketResponse, version: int
) -> None:
    """Greet with the current version once subscribed, then push every newer version.

    The greeting is sent only after the subscription is registered, so no commit can fall
    between "what the client fetches" and "what it hears about". Pub/sub notices may still
    be lost (a Redis reconnect, a full queue): after RESYNC seconds of silence the current
    version is read from the store and pushed if it moved.

    One relay task per socket forwards the notices as they come; this coroutine only
    wakes when RESYNC seconds have passed without one (a task and a timed wait per
    notice cost more than the notice itself when every game moves every few seconds).
    """
    loop = asyncio.get_running_loop()
    last = version
    heard = loop.time()

    async def send_if_newer(current: int) -> None:
        nonlocal last
        if current > last:
            last = current  # before the send: the two senders never go backwards
            await ws.send_str(notice(game_id, current))

    async def relay(first: asyncio.Future[int]) -> None:
        nonlocal heard
        current = await first
        while True:
            heard = loop.time()
            await send_if_newer(current)
            current = await stream.__anext__()

    stream = service.listen(game_id).__aiter__()
    first: asyncio.Future[int] = asyncio.ensure_future(stream.__anext__())
    relaying: asyncio.Task[None] | None = None
    try:
        await asyncio.sleep(SETTLE)  # the listener registers its queue (and subscribes)
        last = max(version, await service.version(game_id))
        await ws.send_str(notice(game_id, last))
        heard = loop.time()
        relaying = asyncio.create_task(relay(first))
        while not ws.closed:
            wait = heard + RESYNC - loop.time()
            if wait > 0:
                done, _ = await asyncio.wait({relaying}, timeout=wait)
                if done:
                    relaying.result()  # the stream ended or failed: raise or stop
                    return
                continue
            heard = loop.time()  # silence: look at the store, then wait another RESYNC
            await send_if_newer(await service.version(game_id))
    except (ConnectionError, RuntimeError, StopAsyncIteration):
        pass
    except asyncio.CancelledError:
        raise
    except Exception:
        log.exception("live updates for a game stopped")
        await ws.close(code=WSCloseCode.TRY_AGAIN_LATER, message=b"updates stopped")
    finally:
        for task in (relaying, first):
            if task is not None and not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        with contextlib.suppress(Exception):
            await stream.aclose()  # type: ignore[attr-defined]


async def close_all(app: web.Application) -> None:
    """On shutdown: tell clients to reconnect (to another worker) instead of hanging."""
    sockets: weakref.WeakSet[web.WebSocketResponse] = app[keys.SOCKETS]
    for ws in list(sockets):
        with contextlib.suppress(Exception):
            await ws.close(code=WSCloseCode.GOING_AWAY, message=b"server shutdown")
