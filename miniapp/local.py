"""Local mode: one person, a browser on localhost, computer players — no Telegram needed.

``start_local_table`` seats a local user at a ready classic game against four computer
players and returns the URL to print. The URL's code is exchanged by the page at
``POST /api/session``; from then on the page holds a session token and can start new games
from its lobby (``POST /api/games`` with computer seats). On 127.0.0.1 the code stands for
the process's lifetime: the printed link signs its one player in again after the tab was
closed, and the page opens their newest game (the URL names none, so a game started from
the page is the one it comes back to). Elsewhere (a ``HOST`` others can reach) it works
once.
"""

from __future__ import annotations

from aiohttp import web

from core.service import GameService, UserRef
from core.settings import Settings
from miniapp import keys
from miniapp.service_adapter import ServiceAdapter

LOCAL_SEATS = 5
# where the printed link is for this machine only (0.0.0.0 listens there too)
LOOPBACK = ("0.0.0.0", "127.0.0.1", "localhost", "")


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
    loopback = settings.host in LOOPBACK
    host = "127.0.0.1" if loopback else settings.host
    if loopback:
        return f"http://{host}:{port or settings.port}/?code={codes.standing(user)}"
    code = codes.issue(user)
    return f"http://{host}:{port or settings.port}/?code={code}&game={view['game_id']}"


def port_in_use(port: int) -> str:
    """The one line a busy port gets (instead of a traceback)."""
    return (
        f"Port {port} is already in use (another server, or Saboteur already running): "
        f"stop it, or choose another port, e.g. PORT={port + 1} ./dev run"
    )
