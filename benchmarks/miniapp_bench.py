"""Mini App benchmark: view size, page weight, move round trip, time to a drawn board.

    .venv/bin/python benchmarks/miniapp_bench.py [--moves 300] [--opens 5] [--redis URL]

- view: a 10-player classic game in mid-round (humans playing random legal moves until half
  the draw pile is gone), the player's view as served (JSON, gzip) by GET /api/games/{id};
- page weight: every file the page loads, raw and gzip;
- move round trip: POST /api/games/{id}/moves on loopback, p50/p99 (memory store, and Redis
  when --redis is given: a unique key prefix, deleted afterwards);
- open → drawn board: headless Debian Chromium, from navigation start until the maze's
  first card is in the DOM (local mode URL, i.e. including the session exchange, the
  catalogue, the view and the WebSocket handshake).

Prints a Markdown report (the one in docs/benchmarks/miniapp.md).
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import platform
import random
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import aiohttp
from aiohttp import web

from core.service import GameService, ServiceConfig, UserRef
from core.settings import Settings
from core.store import MemoryStore, RedisStore
from miniapp.auth import sign_init_data
from miniapp.local import start_local_table
from miniapp.server import create_app

TOKEN = "1:BENCH"
STATIC = Path(__file__).resolve().parents[1] / "miniapp" / "static"
PAGE_FILES = [
    "index.html",
    "style.css",
    "app.js",
    "api.js",
    "board.js",
    "cards.js",
    "i18n.js",
    "icons.js",
    "tg.js",
    "ui.js",
    "sheets.js",
    "cells.js",
    "lastmove.js",
    "lobby.js",
    "history.js",
]

# a tap on a hand card until the page shows it selected (the next frame after the click)
TAP_FEEDBACK = """() => new Promise((resolve) => {
  const card = document.querySelector('#hand .hcard:not(.dim)')
    || document.querySelector('#hand .hcard');
  if (!card) { resolve(-1); return; }
  const t0 = performance.now();
  card.click();
  requestAnimationFrame(() => resolve(
    document.querySelector('#hand .hcard.sel') ? performance.now() - t0 : -1));
})"""


def init_data(user_id: int) -> str:
    user = json.dumps({"id": user_id, "first_name": f"P{user_id}", "language_code": "en"})
    return sign_init_data({"auth_date": str(int(time.time())), "user": user}, TOKEN)


async def serve(service: GameService, settings: Settings) -> tuple[web.AppRunner, str, Any]:
    app = create_app(service, settings, rate_burst=1e9, rate_per_second=1e9)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    return runner, f"http://127.0.0.1:{port}", app


async def tokens(http: aiohttp.ClientSession, base: str, users: list[int]) -> dict[int, str]:
    out = {}
    for uid in users:
        async with http.post(
            f"{base}/api/session", headers={"Authorization": f"tma {init_data(uid)}"}
        ) as r:
            out[uid] = (await body_json(r))["token"]
    return out


async def new_game(service: GameService, users: list[int]) -> str:
    view = await service.create_lobby(chat=None, creator=UserRef(users[0], f"P{users[0]}"))
    for uid in users[1:]:
        await service.join(view["game_id"], UserRef(uid, f"玩家{uid}"))
    await service.start(view["game_id"], users[0])
    return str(view["game_id"])


async def body_json(r: aiohttp.ClientResponse) -> Any:
    data = await r.read()
    if data[:2] == b"\x1f\x8b":  # sessions made with auto_decompress=False
        data = gzip.decompress(data)
    return json.loads(data)


async def actor_view(
    http: aiohttp.ClientSession, base: str, game: str, toks: dict[int, str]
) -> tuple[int, dict[str, Any]] | None:
    for uid, tok in toks.items():
        async with http.get(
            f"{base}/api/games/{game}", headers={"Authorization": f"Bearer {tok}"}
        ) as r:
            view = await body_json(r)
        if view["legal_moves"]:
            return uid, view
    return None


async def served_view(
    http: aiohttp.ClientSession, base: str, game: str, tok: str
) -> tuple[int, int, dict[str, Any]]:
    """(bytes as served with gzip, raw JSON bytes, view)."""
    async with http.get(
        f"{base}/api/games/{game}",
        headers={"Authorization": f"Bearer {tok}", "Accept-Encoding": "gzip"},
    ) as r:
        served = await r.read()
    raw = gzip.decompress(served) if served[:2] == b"\x1f\x8b" else served
    return len(served), len(raw), json.loads(raw)


async def view_size(service: GameService, base: str) -> dict[str, Any]:
    """Mid-round (half the pile drawn) and the largest view seen until the round ends."""
    users = list(range(1000, 1010))
    rnd = random.Random(7)
    mid: dict[str, Any] | None = None
    largest = (0, 0, "")
    async with aiohttp.ClientSession(auto_decompress=False) as http:
        toks = await tokens(http, base, users)
        game = await new_game(service, users)
        first = None
        while True:
            found = await actor_view(http, base, game, toks)
            if not found:
                break
            uid, view = found
            gz, raw, _ = await served_view(http, base, game, toks[uid])
            if gz > largest[0]:
                largest = (gz, raw, view["status"])
            first = first or view["deck_size"]
            if mid is None and view["deck_size"] <= first // 2:
                mid = {
                    "gzip": gz,
                    "raw": raw,
                    "cards": len(view["board"]),
                    "legal_moves": len(view["legal_moves"]),
                    "log": len(view["log"]),
                }
            if view["status"] != "playing":
                break
            moves = view["legal_moves"]
            places = [m for m in moves if m["type"] == "place_path"]
            move = rnd.choice(places if places and rnd.random() < 0.7 else moves)
            async with http.post(
                f"{base}/api/games/{game}/moves",
                headers={"Authorization": f"Bearer {toks[uid]}"},
                json={"version": view["version"], "move": move},
            ) as r:
                await r.read()
        for uid in users:  # round over: every player's view, roles and route included
            gz, raw, view = await served_view(http, base, game, toks[uid])
            if gz > largest[0]:
                largest = (gz, raw, view["status"])
    assert mid is not None
    return {**mid, "max_gzip": largest[0], "max_raw": largest[1], "max_status": largest[2]}


def page_weight() -> dict[str, int]:
    raw = sum((STATIC / f).stat().st_size for f in PAGE_FILES)
    gz = sum(len(gzip.compress((STATIC / f).read_bytes(), 9)) for f in PAGE_FILES)
    return {"raw": raw, "gzip": gz, "files": len(PAGE_FILES)}


async def round_trips(service: GameService, base: str, count: int) -> dict[str, float]:
    users = [2001, 2002, 2003]
    rnd = random.Random(3)
    times: list[float] = []
    async with aiohttp.ClientSession() as http:
        toks = await tokens(http, base, users)
        game = await new_game(service, users)
        while len(times) < count:
            found = await actor_view(http, base, game, toks)
            if not found:
                game = await new_game(service, users)
                continue
            uid, view = found
            move = rnd.choice(view["legal_moves"])
            t0 = time.perf_counter()
            async with http.post(
                f"{base}/api/games/{game}/moves",
                headers={"Authorization": f"Bearer {toks[uid]}"},
                json={"version": view["version"], "move": move},
            ) as r:
                await r.read()
                assert r.status == 200, r.status
            times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    return {
        "n": len(times),
        "p50": statistics.median(times),
        "p99": times[min(len(times) - 1, int(len(times) * 0.99))],
    }


async def open_to_board(opens: int) -> tuple[list[float], list[float]]:
    from playwright.async_api import async_playwright

    args = [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
    ]
    service = GameService(MemoryStore(), ServiceConfig(think_delay_s=5))
    settings = Settings(telegram_bot_token=None, session_secret="bench")
    runner, base, app = await serve(service, settings)
    port = int(base.rsplit(":", 1)[1])
    out = []
    taps: list[float] = []
    try:
        async with async_playwright() as p:
            browser = await p.chromium.launch(
                executable_path="/usr/bin/chromium", headless=True, args=args
            )
            for _ in range(opens):
                url = await start_local_table(service, settings, app, port=port)
                context = await browser.new_context(viewport={"width": 390, "height": 844})
                page = await context.new_page()
                await page.goto(url)
                await page.wait_for_selector("#board g.card")
                out.append(await page.evaluate("performance.now()"))
                await page.wait_for_selector("#hand .hcard")
                for _ in range(5):  # select, then put down (Cancel), five times
                    tap = await page.evaluate(TAP_FEEDBACK)
                    if tap >= 0:
                        taps.append(tap)
                    await page.evaluate(
                        "document.querySelector('#buttons [data-act=cancel]')?.click()"
                    )
                await context.close()
            await browser.close()
    finally:
        await runner.cleanup()
    return out, taps


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=300)
    parser.add_argument("--opens", type=int, default=5)
    parser.add_argument("--redis", default=None, help="also measure with RedisStore at URL")
    args = parser.parse_args()
    settings = Settings(telegram_bot_token=TOKEN, session_secret="bench")
    config = ServiceConfig(think_delay_s=60)
    service = GameService(MemoryStore(), config)
    runner, base, _ = await serve(service, settings)
    try:
        size = await view_size(service, base)
        rt_memory = await round_trips(service, base, args.moves)
    finally:
        await runner.cleanup()
    rt_redis = None
    if args.redis:
        prefix = f"bench:{uuid.uuid4().hex}:"
        store = RedisStore.from_url(args.redis, prefix=prefix)
        service = GameService(store, config)
        runner, base, _ = await serve(service, settings)
        try:
            rt_redis = await round_trips(service, base, args.moves)
        finally:
            await runner.cleanup()
            keys = [k async for k in store.redis.scan_iter(match=prefix + "*")]
            if keys:
                await store.redis.delete(*keys)
            await store.close()
    weight = page_weight()
    opens, taps = await open_to_board(args.opens)

    print(
        f"Machine: {platform.machine()}, Python {platform.python_version()}, "
        f"{time.strftime('%Y-%m-%d')}\n"
    )
    print("| figure | value | target |\n|---|---|---|")
    print(
        f"| view JSON, 10-player classic mid-round ({size['cards']} cards on the maze, "
        f"{size['legal_moves']} legal moves, {size['log']} log entries) | "
        f"{size['raw'] / 1024:.1f} KB raw, **{size['gzip'] / 1024:.1f} KB gzip** "
        f"as served | ≤ 30 KB gzip |"
    )
    print(
        f"| largest view of that round (status {size['max_status']}, log capped at 50) | "
        f"{size['max_raw'] / 1024:.1f} KB raw, **{size['max_gzip'] / 1024:.1f} KB gzip** | "
        f"≤ 30 KB gzip |"
    )
    print(
        f"| page weight ({weight['files']} files) | **{weight['raw'] / 1024:.1f} KB** raw, "
        f"{weight['gzip'] / 1024:.1f} KB gzip | ≤ 200 KB raw |"
    )
    print(
        f"| move round trip, loopback, memory store ({rt_memory['n']} moves) | "
        f"p50 **{rt_memory['p50']:.1f} ms**, p99 {rt_memory['p99']:.1f} ms | — |"
    )
    if rt_redis:
        print(
            f"| move round trip, loopback, Redis store ({rt_redis['n']} moves) | "
            f"p50 **{rt_redis['p50']:.1f} ms**, p99 {rt_redis['p99']:.1f} ms | — |"
        )
    print(
        f"| open → drawn board, headless Chromium ({len(opens)} opens) | "
        f"median **{statistics.median(opens):.0f} ms** (min {min(opens):.0f}, "
        f"max {max(opens):.0f}) | — |"
    )
    if taps:
        print(
            f"| tap on a hand card → shown selected ({len(taps)} taps) | "
            f"median **{statistics.median(taps):.1f} ms** (max {max(taps):.1f}) | — |"
        )


if __name__ == "__main__":
    asyncio.run(main())
