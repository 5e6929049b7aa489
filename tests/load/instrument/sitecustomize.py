"""Server-side timing for the load benchmark, injected into the server processes only.

The harness puts this directory on the workers' ``PYTHONPATH`` (``SERVER_TIMING=1``), so
Python imports it at start-up in every worker: each aiohttp application then gets an
outermost middleware that adds ``Server-Timing: app;dur=<ms>`` — the time from aiohttp
handing the request to the application until the response is ready (routing, auth, the
service, Redis round trips, JSON; not HTTP parsing or time queued before the event loop
picked the request up). The product code is not touched; when the Mini App sends
Server-Timing itself this file can go.
"""

from __future__ import annotations

import time
from typing import Any

from aiohttp import web

_original_init = web.Application.__init__


@web.middleware
async def _server_timing(request: web.Request, handler: Any) -> web.StreamResponse:
    began = time.perf_counter()
    response = await handler(request)
    if not response.prepared:
        response.headers["Server-Timing"] = f"app;dur={(time.perf_counter() - began) * 1000:.2f}"
    return response


def _init(self: web.Application, *args: Any, middlewares: Any = (), **kwargs: Any) -> None:
    _original_init(self, *args, middlewares=[_server_timing, *middlewares], **kwargs)


web.Application.__init__ = _init  # type: ignore[method-assign]
