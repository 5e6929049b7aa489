"""Local mode: the printed link signs its player in again for the process's lifetime on
127.0.0.1 (a one-time code elsewhere), and a busy port is one clear line."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from typing import Any

from core.service import GameService
from core.settings import Settings
from miniapp.local import start_local_table
from miniapp.server import create_app
from tests.miniapp.conftest import tma


async def test_the_printed_link_stays_valid_on_loopback(
    memory_service: GameService, aiohttp_client: Any
) -> None:
    settings = Settings(telegram_bot_token=None, session_secret="x", port=8123)
    app = create_app(memory_service, settings)
    url = await start_local_table(memory_service, settings, app)
    assert url.startswith("http://127.0.0.1:8123/?code=") and "game=" not in url
    code = url.split("code=")[1]
    client = await aiohttp_client(app)
    users = set()
    for _ in range(3):  # the tab closed and the link opened again, twice
        r = await client.post("/api/session", json={"code": code})
        assert r.status == 200 and (await r.json())["local"] is True
        body = await r.json()
        users.add(body["user_id"])
        headers = {"Authorization": f"Bearer {body['token']}"}
        games = (await (await client.get("/api/games", headers=headers)).json())["games"]
        assert len(games) == 1  # the page opens the newest game: the same one
        view = await (await client.get(f"/api/games/{games[0]}", headers=headers)).json()
        assert view["you"]["seat"] is not None and len(view["seats"]) == 5
    assert len(users) == 1
    assert (await client.post("/api/session", json={"code": code + "x"})).status == 401
    # initData is refused without a bot token
    assert (await client.post("/api/session", headers=tma(5))).status == 401
    r = await client.get("/")
    assert "telegram-web-app.js" not in await r.text()


async def test_the_link_on_another_host_works_once(
    memory_service: GameService, aiohttp_client: Any
) -> None:
    settings = Settings(telegram_bot_token=None, session_secret="x", host="10.1.2.3", port=8123)
    app = create_app(memory_service, settings)
    url = await start_local_table(memory_service, settings, app)
    assert url.startswith("http://10.1.2.3:8123/?code=")
    code = url.split("code=")[1].split("&")[0]
    game_id = url.split("game=")[1]
    client = await aiohttp_client(app)
    r = await client.post("/api/session", json={"code": code})
    assert r.status == 200
    token = (await r.json())["token"]
    assert (await client.post("/api/session", json={"code": code})).status == 401
    view = await (
        await client.get(f"/api/games/{game_id}", headers={"Authorization": f"Bearer {token}"})
    ).json()
    assert view["you"]["seat"] is not None


def test_a_busy_port_is_one_line_naming_port() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in ("TELEGRAM_BOT_TOKEN", "REDIS_URL", "WORKERS")
        }
        env.update(PORT=str(port), HOST="127.0.0.1", SESSION_SECRET="s" * 24)
        done = subprocess.run(
            [sys.executable, "-m", "telegram_bot"],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert f"Port {port} is already in use" in lines[0] and f"PORT={port + 1}" in lines[0]
    assert "Traceback" not in done.stderr + done.stdout
