"""Typed keys of the aiohttp application (one module, so handlers and factory agree)."""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

from aiohttp import web

from core.service import GameService
from core.settings import Settings
from miniapp.auth import LocalCodes, SessionSigner
from miniapp.ratelimit import Limiter

if TYPE_CHECKING:
    from miniapp.static_files import StaticCache

SERVICE = web.AppKey("service", GameService)
SETTINGS = web.AppKey("settings", Settings)
SIGNER = web.AppKey("signer", SessionSigner)
CODES = web.AppKey("codes", LocalCodes)
LIMITER = web.AppKey("limiter", Limiter)
SOCKETS: web.AppKey[weakref.WeakSet[web.WebSocketResponse]] = web.AppKey("sockets")
# user id -> that user's open (authenticated) sockets on this worker, oldest first
USER_SOCKETS: web.AppKey[dict[int, list[web.WebSocketResponse]]] = web.AppKey("user_sockets")
# client address -> sockets waiting for their auth frame
PENDING_SOCKETS: web.AppKey[dict[str, int]] = web.AppKey("pending_sockets")
STATIC: web.AppKey[StaticCache] = web.AppKey("static")
CATALOGUE_JSON: web.AppKey[str] = web.AppKey("catalogue_json")

# Per-request storage; typed keys where aiohttp has them (3.13+), plain strings before.
_REQUEST_KEY: Any = getattr(web, "RequestKey", None)
REQ_SESSION: Any = _REQUEST_KEY("session", object) if _REQUEST_KEY else "session"
REQ_INIT_DATA: Any = _REQUEST_KEY("init_data", object) if _REQUEST_KEY else "init_data"
REQ_ADDRESS: Any = _REQUEST_KEY("address", object) if _REQUEST_KEY else "address"
