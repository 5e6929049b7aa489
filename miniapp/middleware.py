"""Cross-cutting HTTP behaviour: JSON errors, identity + rate limit, headers, gzip.

One middleware, ``api`` (outermost first: timing → headers and gzip → JSON errors →
identity and rate limit). Identity reads the ``Authorization`` header once, so every
handler finds the caller's session in ``request["session"]`` (or None) and the rate limit
can key on the user.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
import zlib
from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit

from aiohttp import web

from core.service import STORE_FULL, STORE_UNAVAILABLE
from miniapp import keys
from miniapp.auth import AuthError, Session, validate_init_data
from miniapp.errors import ApiError, from_http_exception, unauthorized
from miniapp.ratelimit import Limiter, retry_after

log = logging.getLogger(__name__)
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

TELEGRAM_FRAMERS = "https://web.telegram.org https://*.telegram.org https://telegram.org"
COMPRESS_MIN = 1024
GZIP_LEVEL = 1  # views are repetitive JSON: level 1 gets most of the gain for a third of the CPU
STORE_RETRY_AFTER_S = 2
BODY_TIMEOUT_S = 10.0  # a request body (16 KB at most) arrives within this, or 408
SOCKET_ROUTE = "game_socket"  # the WebSocket route's name (miniapp.server)


@web.middleware
async def api(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Every request's cross-cutting work in one middleware, outermost first: the time spent
    (``Server-Timing``), the security headers and gzip, JSON errors, then identity and the
    rate limit.

    Why one and not four: each aiohttp middleware is one more coroutine and wrapper call
    per request; merged, a request pays the same checks for less CPU.
    """
    began = time.perf_counter()
    try:
        response = await _identify(request, handler)
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        response = from_http_exception(exc).response()
    except Exception as exc:
        response = _error_response(request, exc)
    if response.prepared:  # WebSocket upgrades and streamed answers are already sent
        return response
    _decorate(request, response)
    response.headers["Server-Timing"] = f"app;dur={(time.perf_counter() - began) * 1000:.2f}"
    return response


def _error_response(request: web.Request, exc: Exception) -> web.Response:
    """Every failure becomes ``{"error": {...}}``; unexpected ones are logged, not shown."""
    if isinstance(exc, ApiError):
        return exc.response()
    if isinstance(exc, AuthError):
        return unauthorized(exc.message, exc.code).response()
    if isinstance(exc, STORE_UNAVAILABLE):
        # Redis is restarting, unreachable or full: nothing was written, the client may
        # retry (a full Redis is the operator's to fix: logged as an error).
        level = logging.ERROR if isinstance(exc, STORE_FULL) else logging.WARNING
        log.log(level, "store unavailable on %s %s: %s", request.method, request.path, exc)
        response = ApiError(
            503, "store_unavailable", "the game store is briefly unavailable; try again"
        ).response()
        response.headers["Retry-After"] = str(STORE_RETRY_AFTER_S)
        return response
    log.exception("unhandled error on %s %s", request.method, request.path, exc_info=exc)
    return ApiError(500, "internal_error", "something went wrong on our side").response()


def _csp_for(host: str) -> str:
    """The policy for a Host header (built once per host, through ``_static_headers``)."""
    return "; ".join(
        [
            "default-src 'self'",
            "script-src 'self' https://telegram.org",
            "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data: blob:",
            "font-src 'self' data:",
            f"connect-src 'self' ws://{host} wss://{host}",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'none'",
            f"frame-ancestors 'self' {TELEGRAM_FRAMERS}",
        ]
    )


def _decorate(request: web.Request, response: web.StreamResponse) -> None:
    """Headers on every answer; a CSP that lets Telegram's web clients frame the page;
    JSON bodies of 1 KB or more gzipped when the client accepts it."""
    h = response.headers
    for name, value in _static_headers(
        request.host, _is_https(request.app[keys.SETTINGS].public_url or "")
    ):
        h.setdefault(name, value)
    path = request.path
    if path.startswith("/api/") or path == "/healthz":
        h.setdefault("Cache-Control", "no-store")
    if (
        isinstance(response, web.Response)
        and isinstance(response.body, bytes)
        and len(response.body) >= COMPRESS_MIN
        and _is_json(response.headers.get("Content-Type", ""))
        and "Content-Encoding" not in h
        and "gzip" in request.headers.get("Accept-Encoding", "")
    ):
        gzip_body(response, response.body)


@functools.lru_cache(maxsize=32)
def _is_json(content_type: str) -> bool:
    """``Content-Type`` is JSON, whatever its parameters (what ``response.content_type``
    says, without parsing the header again on every response)."""
    return content_type.partition(";")[0].strip().lower() == "application/json"


@functools.lru_cache(maxsize=64)
def _static_headers(host: str, https: bool) -> tuple[tuple[str, str], ...]:
    """The headers every answer gets for a Host header (a handful of values: built once)."""
    headers = [
        ("Content-Security-Policy", _csp_for(host)),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),  # the local code must not leak onward
        ("Permissions-Policy", "camera=(), microphone=(), geolocation=()"),
        ("Cross-Origin-Resource-Policy", "same-origin"),
    ]
    if https:
        headers.append(("Strict-Transport-Security", "max-age=31536000"))
    return tuple(headers)


@functools.lru_cache(maxsize=8)
def _is_https(url: str) -> bool:
    return urlsplit(url).scheme == "https"


def gzip_body(response: web.Response, body: bytes) -> None:
    """Compress here, at once, rather than with ``enable_compression``: aiohttp would
    hand every body over 1 KB to a thread pool (a thread hop and a wake-up per response
    for less work than the hop) at zlib's default level.

    The window and hash table are sized to the body (a view is a few KB): zlib's default
    ones cost more to set up than compressing a view does; a window at least as long as
    the body finds the same matches, so the output is the same size
    (docs/benchmarks/hotpath.md)."""
    bits = min(zlib.MAX_WBITS, max(10, len(body).bit_length()))  # window >= the body
    packer = zlib.compressobj(GZIP_LEVEL, zlib.DEFLATED, 16 + bits, bits - 7)
    response.body = packer.compress(body) + packer.flush()
    response.headers["Content-Encoding"] = "gzip"
    response.headers.add("Vary", "Accept-Encoding")


def _session_from_header(request: web.Request, address: str) -> Session | None:
    """Read the Authorization header: ``tma <initData>`` or ``Bearer <token>``.

    A token this worker verified before costs a dict lookup. Anything else is checked
    only while ``address`` has budget left: an address that sent too many requests without
    valid credentials gets 429 before its next credential is even looked at, and each
    failure spends from its budget (the limiter's docstring says why)."""
    header = request.headers.get("Authorization", "").strip()
    if not header:
        return None
    scheme, _, credential = header.partition(" ")
    credential = credential.strip()
    scheme = scheme.lower()
    app = request.app
    signer = app[keys.SIGNER]
    if scheme == "bearer" and credential and signer.known(credential):
        return signer.verify(credential)
    limiter = app[keys.LIMITER]
    _refuse_if_spent(limiter, address)
    try:
        return _check_credential(request, scheme, credential)
    except AuthError:
        limiter.take_address(address)
        raise


def _check_credential(request: web.Request, scheme: str, credential: str) -> Session:
    app = request.app
    if scheme == "bearer" and credential:
        return app[keys.SIGNER].verify(credential)
    if scheme == "tma" and credential:
        settings = app[keys.SETTINGS]
        if not settings.telegram_bot_token:
            raise AuthError("unauthorized", "this server runs without Telegram")
        data = validate_init_data(
            credential, settings.telegram_bot_token, settings.initdata_max_age
        )
        request[keys.REQ_INIT_DATA] = data
        return Session(
            data.user_id, data.name, data.language, 0, False, data.start_param, data.auth_date
        )
    raise AuthError("unauthorized", "unsupported Authorization scheme")


def _refuse_if_spent(limiter: Limiter, address: str) -> None:
    wait = limiter.address_wait(address)
    if wait > 0:
        raise too_many(wait)


def too_many(wait: float) -> ApiError:
    """429 with ``Retry-After`` (whole seconds)."""
    retry = retry_after(wait)
    return ApiError(
        429,
        "rate_limited",
        "too many requests; slow down",
        headers={"Retry-After": str(retry)},
        retry_after=retry,
    )


async def _identify(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Authenticate when a header is present, then spend one request of the caller's
    budget: the user's once signed in, else the client address's. A WebSocket upgrade
    carries no credentials (its first frame does): ``miniapp.ws`` counts it itself."""
    if not request.path.startswith("/api/"):
        request[keys.REQ_SESSION] = None
        return await handler(request)
    limiter = request.app[keys.LIMITER]
    address = limiter.client_address(request)
    request[keys.REQ_ADDRESS] = address
    session = _session_from_header(request, address)
    request[keys.REQ_SESSION] = session
    if session is not None:
        wait = limiter.take_user(session.user_id)
    elif request.match_info.route.name == SOCKET_ROUTE:
        wait = 0.0
    else:
        wait = limiter.take_address(address)
    if wait > 0:
        raise too_many(wait)
    if request.body_exists:
        await _read_body(request)
    return await handler(request)


async def _read_body(request: web.Request) -> None:
    """Read the body now, within ``BODY_TIMEOUT_S`` (the handlers' ``request.read()``
    then returns it at once): a client trickling its body is answered 408 instead of
    holding a handler open. The size is bounded by ``client_max_size`` (413)."""
    try:
        async with asyncio.timeout(BODY_TIMEOUT_S):
            await request.read()
    except TimeoutError:
        raise ApiError(408, "request_timeout", "the request body came too slowly") from None


def require_session(request: web.Request) -> Session:
    session: Session | None = request.get(keys.REQ_SESSION)
    if session is None:
        raise unauthorized("sign in first: send Authorization: tma <initData> or Bearer <token>")
    return session
