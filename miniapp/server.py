"""``create_app(service, settings)``: the Mini App's aiohttp application.

The process entry point (``telegram_bot.main``) builds one ``GameService`` and mounts this
application (or adds its routes) on its web server; tests build it around a service with a
memory or Redis store.
"""

from __future__ import annotations

import gc
import json
import os
import weakref
from collections.abc import AsyncIterator
from dataclasses import replace

from aiohttp import web

from core.service import GameService
from core.settings import Settings
from miniapp import keys, logfilter
from miniapp.auth import LocalCodes, SessionSigner
from miniapp.catalogue import catalogue_document
from miniapp.middleware import SOCKET_ROUTE, api
from miniapp.ratelimit import Limiter, Limits
from miniapp.routes import setup_routes
from miniapp.static_files import setup_static
from miniapp.ws import close_all, game_socket

MAX_BODY = 16 * 1024  # a move is a few hundred bytes; nothing legitimate comes near this
RATE_BURST = Limits().user_burst
RATE_PER_SECOND = Limits().user_rate


def create_app(
    service: GameService,
    settings: Settings,
    *,
    rate_burst: float = RATE_BURST,
    rate_per_second: float = RATE_PER_SECOND,
    limits: Limits | None = None,
    codes: LocalCodes | None = None,
) -> web.Application:
    """Build the application around the process's one game service.

    ``limits``: the per-client bounds (``miniapp.ratelimit.Limits``); ``rate_burst`` and
    ``rate_per_second`` override its per-user budget (tests, benchmarks)."""
    logfilter.install()  # malformed HTTP from clients: an INFO line, not an ERROR traceback
    app = web.Application(middlewares=[api], client_max_size=MAX_BODY)
    app[keys.SERVICE] = service
    app[keys.SETTINGS] = settings
    app[keys.SIGNER] = SessionSigner(settings.session_secret, max_age=settings.session_max_age)
    app[keys.CODES] = codes or LocalCodes()
    bounds = replace(limits or Limits(), user_burst=rate_burst, user_rate=rate_per_second)
    app[keys.LIMITER] = Limiter(bounds, settings.trusted_proxies)
    app[keys.SOCKETS] = weakref.WeakSet()
    app[keys.USER_SOCKETS] = {}
    app[keys.PENDING_SOCKETS] = {}
    app[keys.CATALOGUE_JSON] = json.dumps(
        catalogue_document(), ensure_ascii=False, separators=(",", ":")
    )
    setup_routes(app)
    app.router.add_get("/api/games/{game_id}/ws", game_socket, name=SOCKET_ROUTE)
    setup_static(app)
    app.on_shutdown.append(close_all)
    if settings.miniapp_profile:
        app.on_startup.append(_start_profiler)
    if settings.miniapp_gc != "default":
        app.cleanup_ctx.append(_tuned_gc)
    return app


GC_THRESHOLDS = (20_000, 50, 100)


async def _tuned_gc(app: web.Application) -> AsyncIterator[None]:
    """Collect cyclic garbage less often (``MINIAPP_GC=default`` keeps Python's settings).

    Why: requests build views of small dicts and lists that reference counting frees at
    once, so little is left for the cycle collector; Python's default thresholds pause
    every request in the loop many times a second for it, fewer and larger young
    collections cost less in all and keep the tail short (docs/benchmarks/load.md). The
    previous thresholds come back when the application stops (tests build many)."""
    previous = gc.get_threshold()
    gc.set_threshold(*GC_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*previous)


async def _start_profiler(app: web.Application) -> None:
    """``MINIAPP_PROFILE=<prefix>``: cProfile this worker, dumping ``<prefix>.<pid>`` every
    10 s (a benchmark aid for docs/benchmarks/load.md; off unless the variable is set)."""
    import asyncio
    import cProfile
    import time

    profiler = cProfile.Profile(time.process_time)  # CPU time (user + system), not wall
    profiler.enable()
    path = f"{app[keys.SETTINGS].miniapp_profile}.{os.getpid()}"

    async def dump() -> None:
        while True:
            await asyncio.sleep(10)
            profiler.dump_stats(path)  # (stops the profiler)
            profiler.enable()

    app["profile_dump"] = asyncio.get_running_loop().create_task(dump())
