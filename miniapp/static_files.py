"""The page's files: small, served from memory with an ETag and gzip.

Files carry no content hash in their names (no build step), so they are revalidated on
every load (``Cache-Control: no-cache`` + ETag = a cheap 304); the catalogue, which only
changes with a release, is cached for an hour by the API route.
"""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
import re
from dataclasses import dataclass
from pathlib import Path

from aiohttp import web

from miniapp import keys

STATIC_DIR = Path(__file__).parent / "static"
NAME = re.compile(r"^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.(js|css|html|svg|png|ico|json)$")
TYPES = {
    ".js": "text/javascript",
    ".css": "text/css",
    ".html": "text/html",
    ".svg": "image/svg+xml",
    ".json": "application/json",
}


TELEGRAM_SCRIPT = b'<script defer src="https://telegram.org/js/telegram-web-app.js"></script>'


@dataclass(frozen=True, slots=True)
class Asset:
    body: bytes
    gzipped: bytes | None
    etag: str
    content_type: str
    mtime: float


class StaticCache:
    def __init__(self, root: Path = STATIC_DIR) -> None:
        self.root = root
        self._assets: dict[str, Asset] = {}

    def get(self, name: str, *, local: bool = False) -> Asset | None:
        """``local``: the page without Telegram's script (local mode has no internet to wait on)."""
        if local:
            return self._local_variant(name)
        path = self.root / name
        try:
            mtime = path.stat().st_mtime
        except OSError:
            return None
        cached = self._assets.get(name)
        if cached is not None and cached.mtime == mtime:
            return cached
        body = path.read_bytes()
        ctype = TYPES.get(path.suffix) or mimetypes.guess_type(name)[0] or "image/png"
        textual = ctype.startswith(("text/", "image/svg", "application/json"))
        gz = gzip.compress(body, 9, mtime=0) if textual else None
        etag = '"' + hashlib.sha256(body).hexdigest()[:20] + '"'
        asset = Asset(body, gz if gz and len(gz) < len(body) else None, etag, ctype, mtime)
        self._assets[name] = asset
        return asset

    def _local_variant(self, name: str) -> Asset | None:
        base = self.get(name)
        if base is None:
            return None
        key = "local:" + name
        cached = self._assets.get(key)
        if cached is not None and cached.mtime == base.mtime:
            return cached
        body = base.body.replace(TELEGRAM_SCRIPT, b"")
        gz = gzip.compress(body, 9, mtime=0)
        etag = '"' + hashlib.sha256(body).hexdigest()[:20] + '"'
        asset = Asset(body, gz, etag, base.content_type, base.mtime)
        self._assets[key] = asset
        return asset


def _serve(request: web.Request, name: str, *, local: bool = False) -> web.Response:
    asset = request.app[keys.STATIC].get(name, local=local)
    if asset is None:
        raise web.HTTPNotFound(reason="no such file")
    headers = {"ETag": asset.etag, "Cache-Control": "no-cache", "Vary": "Accept-Encoding"}
    if asset.etag in request.headers.get("If-None-Match", ""):
        return web.Response(status=304, headers=headers)
    body = asset.body
    if asset.gzipped is not None and "gzip" in request.headers.get("Accept-Encoding", ""):
        body = asset.gzipped
        headers["Content-Encoding"] = "gzip"
    charset = "utf-8" if asset.content_type.startswith("text/") else None
    return web.Response(
        body=body, headers=headers, content_type=asset.content_type, charset=charset
    )


async def index(request: web.Request) -> web.Response:
    return _serve(request, "index.html", local=request.app[keys.SETTINGS].local_mode)


async def static_file(request: web.Request) -> web.Response:
    name = request.match_info["name"]
    if not NAME.match(name):
        raise web.HTTPNotFound(reason="no such file")
    return _serve(request, name)


def setup_static(app: web.Application) -> None:
    app[keys.STATIC] = StaticCache()
    app.router.add_get("/", index)
    app.router.add_get("/static/{name}", static_file)
