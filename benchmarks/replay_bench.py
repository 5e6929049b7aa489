"""Archive-served replay latency: a finished game whose live record is gone, served from
its archived record and move log (GET .../replay, GET /api/games/{id}, GET .../log).

    .venv/bin/python benchmarks/replay_bench.py [--players 10] [--requests 200] [--redis URL]

The game: classic, 3 rounds, ``--players`` humans each playing a random legal move (not a
discard when another move exists) until it is over; then its live record is deleted, so
every answer rebuilds the game from its seed and move log (core/service/history.py).
Each figure: ``--requests`` sequential requests on loopback, p50/p99 in ms, and the size
of one answer (raw JSON, and gzip as served). Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import random
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import aiohttp

from benchmarks.miniapp_bench import serve, tokens
from core.service import GameService, ServiceConfig, UserRef
from core.settings import Settings
from core.store import MemoryStore, RedisStore


async def finished_game(service: GameService, users: list[int], rng: random.Random) -> str:
    view = await service.create_lobby(chat=None, creator=UserRef(users[0], f"P{users[0]}"))
    game_id = str(view["game_id"])
    for uid in users[1:]:
        await service.join(game_id, UserRef(uid, f"P{uid}"))
    await service.start(game_id, users[0])
    while True:
        views = [await service.view(game_id, uid) for uid in users]
        if views[0]["status"] == "finished":
            return game_id
        for uid, v in zip(users, views, strict=True):
            moves = v["legal_moves"]
            if moves:
                plays = [m for m in moves if m["type"] != "discard"] or moves
                await service.submit(game_id, uid, rng.choice(plays), v["version"])
                break


async def timed(
    http: aiohttp.ClientSession, url: str, token: str, count: int
) -> tuple[list[float], int, int]:
    headers = {"Authorization": f"Bearer {token}", "Accept-Encoding": "gzip"}
    times = []
    served = b""
    for _ in range(count):
        began = time.perf_counter()
        async with http.get(url, headers=headers) as r:
            assert r.status == 200, (url, r.status, await r.text())
            served = await r.read()
        times.append((time.perf_counter() - began) * 1000)
    raw = gzip.decompress(served) if served[:2] == b"\x1f\x8b" else served
    return times, len(raw), len(served)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def measure(store: Any, label: str, players: int, count: int) -> list[str]:
    service = GameService(store, ServiceConfig())
    settings = Settings(telegram_bot_token="1:BENCH", session_secret="bench-secret-0123456789")
    runner, base, _app = await serve(service, settings)
    users = list(range(1, players + 1))
    try:
        game_id = await finished_game(service, users, random.Random(7))
        moves = len(await store.read_log(game_id))
        await store.delete_game(game_id)  # the live record's hour is over
        rows = []
        async with aiohttp.ClientSession(auto_decompress=False) as http:
            token = (await tokens(http, base, users[:1]))[users[0]]
            for path in ("/replay", "", "/log"):
                url = f"{base}/api/games/{game_id}{path}"
                times, raw, served = await timed(http, url, token, count)
                rows.append(
                    f"| {label} | GET /api/games/{{id}}{path} | {players} players, "
                    f"{moves} moves | p50 **{statistics.median(times):.1f} ms**, "
                    f"p99 {pct(times, 0.99):.1f} ms | {raw / 1024:.1f} KB raw, "
                    f"{served / 1024:.1f} KB served |"
                )
        return rows
    finally:
        await runner.cleanup()
        await store.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=10)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--redis", default=None, help="also measure with RedisStore at URL")
    args = parser.parse_args()
    print("| store | request | game | latency | answer |")
    print("|---|---|---|---|---|")
    for row in await measure(MemoryStore(), "memory", args.players, args.requests):
        print(row)
    if args.redis:
        store = RedisStore.from_url(args.redis, prefix=f"bench:{uuid.uuid4().hex[:8]}:")
        for row in await measure(store, "Redis", args.players, args.requests):
            print(row)


if __name__ == "__main__":
    asyncio.run(main())
