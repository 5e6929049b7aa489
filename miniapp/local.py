"""Local mode: one person, a browser on localhost, computer players — no Telegram needed.

``start_local_table`` seats a local user at a ready classic game against four computer
players and returns the URL to print. The URL's one-time code is exchanged by the page at
``POST /api/session``; from then on the page holds a session token and can start new games
from its lobby (``POST /api/games`` with computer seats).
"""

from __future__ import annotations

from aiohttp import web

from core.service import GameService, UserRef
from core.settings import Settings
from miniapp import keys
from miniapp.service_adapter import ServiceAdapter

LOCAL_SEATS = 5


async def start_local_table(
    service: GameService,
    settings: Settings,
    app: web.Application,
    *,
    seats: int = LOCAL_SEATS,
    edition: str = "classic",
    port: int | None = None,
) -> str:
    """Create the local player and a ready game; return ``http://127.0.0.1:<port>/?code=…``."""
    codes = app[keys.CODES]
    user = codes.new_user("You", settings.default_language)
    ref = UserRef(user_id=user.user_id, name=user.name, language=user.language)
    view = await ServiceAdapter(service).create(ref, edition, {}, seats, seats - 1, "normal")
    code = codes.issue(user)
    loopback = settings.host in ("0.0.0.0", "127.0.0.1", "localhost", "")
    host = "127.0.0.1" if loopback else settings.host
    return f"http://{host}:{port or settings.port}/?code={code}&game={view['game_id']}"
