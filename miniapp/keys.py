"""Typed keys of the aiohttp application (one module, so handlers and factory agree)."""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

from aiohttp import web

from core.service import GameService
from core.settings import Settings
from miniapp.auth import LocalCodes, SessionSigner
from miniapp.ratelimit import TokenBucket

if TYPE_CHECKING:
    from miniapp.static_files import StaticCache

SERVICE = web.AppKey("service", GameService)
SETTINGS = web.AppKey("settings", Settings)
SIGNER = web.AppKey("signer", SessionSigner)
CODES = web.AppKey("codes", LocalCodes)
LIMITER = web.AppKey("limiter", TokenBucket)
SOCKETS: web.AppKey[weakref.WeakSet[web.WebSocketResponse]] = web.AppKey("sockets")
STATIC: web.AppKey[StaticCache] = web.AppKey("static")
CATALOGUE_JSON: web.AppKey[str] = web.AppKey("catalogue_json")

# Per-request storage; typed keys where aiohttp has them (3.13+), plain strings before.
_REQUEST_KEY: Any = getattr(web, "RequestKey", None)
REQ_SESSION: Any = _REQUEST_KEY("session", object) if _REQUEST_KEY else "session"
REQ_INIT_DATA: Any = _REQUEST_KEY("init_data", object) if _REQUEST_KEY else "init_data"
