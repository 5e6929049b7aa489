"""Store and service benchmark on a real Redis (results: docs/benchmarks/store.md).

    .venv/bin/python benchmarks/store_bench.py [--redis-url URL] [--seconds 5] [--json]
    .venv/bin/python benchmarks/store_bench.py --only memory    # one measurement of four

Measures: Redis round trips per committed move (submit and timer-fired), commit latency
p50/p99 (raw store commit and full service submit), commits per second from 2 OS processes
on one game and on many games (raw store commits and real engine moves), and Redis bytes
per live game (MEMORY USAGE of its keys) for a 6-player classic game mid-round.
Keys live under a unique ``bench:<hex>:`` prefix and are deleted at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import random
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import redis.asyncio as aioredis

from core import engine
from core.service import GameService, ServiceConfig, UserRef
from core.service.records import Loaded
from core.store import Deadline, RedisStore
from core.store.roundtrips import count_round_trips

PLAYERS = 6
# (one user opens every benchmark game: no cap on open games, core.service.guards)
FAST = ServiceConfig(
    think_delay_s=0.0,
    bot_ready_delay_s=0.0,
    round_pause_s=0,
    max_open_lobbies=None,
    max_open_games=None,
)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def human_game(service: GameService, players: int = PLAYERS) -> str:
    users = [UserRef(i, f"Player {i}") for i in range(1, players + 1)]
    view = await service.create_lobby(chat=None, creator=users[0])
    for user in users[1:]:
        await service.join(view["game_id"], user)
    await service.start(view["game_id"], 1)
    return str(view["game_id"])


def pick(loaded: Loaded, rng: random.Random) -> tuple[int, dict[str, Any]] | None:
    """A random legal move for whoever may act (None when the game is over)."""
    state = loaded.state
    assert state is not None
    phase = engine.phase(state)
    if phase == "finished":
        return None
    if phase == "round_over":
        return rng.choice(sorted(engine.waiting_on(state))), {"type": "next_round"}
    seat = engine.actor(state)
    assert seat is not None
    return seat, rng.choice(engine.legal_moves(state, seat))


async def play_one(service: GameService, game_id: str, rng: random.Random) -> str:
    """One attempt: 'ok', 'stale' or 'finished'."""
    loaded = await service.records.load(game_id)
    choice = pick(loaded, rng)
    if choice is None:
        return "finished"
    seat, move = choice
    user_id = loaded.meta.seats[seat].user_id
    assert user_id is not None
    result = await service.submit(game_id, user_id, move, loaded.version)
    return result.status


# ---------------------------------------------------------------------------- round trips
async def round_trips(url: str, prefix: str) -> dict[str, Any]:
    store = RedisStore.from_url(url, prefix=prefix)
    service = GameService(store, FAST)
    rng = random.Random(1)
    game_id = await human_game(service)
    await play_one(service, game_id, rng)  # scripts cached, connections open
    per_submit = []
    for _ in range(30):
        loaded = await service.records.load(game_id)
        choice = pick(loaded, rng)
        assert choice is not None
        seat, move = choice
        user_id = loaded.meta.seats[seat].user_id
        assert user_id is not None
        with count_round_trips() as counter:
            result = await service.submit(game_id, user_id, move, loaded.version)
        assert result.status == "ok"
        per_submit.append(counter.count)
    # a timer-fired computer move: claim + load + commit
    view = await service.create_lobby(
        chat=None,
        creator=UserRef(99, "Ann"),
        seats=4,
        computers=3,
        settings={"think_delay": 0, "turn_time": 5},
    )
    timer_game = view["game_id"]
    await asyncio.sleep(0.01)
    fired = []
    for _ in range(10):
        with count_round_trips() as counter:
            due = await store.claim_due(service.now_ms() + 6000, limit=1, lease_ms=1)
            for claim in due:
                await service.timers.fire(claim)
        if due:
            fired.append(counter.count)  # the claim (index + game record) + load + commit
    await store.close()
    return {
        "submit": statistics.mean(per_submit),
        "submit_max": max(per_submit),
        "timer_move": statistics.mean(fired) if fired else None,
        "timer_game": timer_game,
    }


# ------------------------------------------------------------------------------- latency
async def latency(url: str, prefix: str, n: int) -> dict[str, Any]:
    store = RedisStore.from_url(url, prefix=prefix)
    service = GameService(store, FAST)
    await store.create("lat", "x" * 1500, "y" * 700, ttl_s=600)
    version, raw = 1, []
    state, meta = "s" * 1500, "m" * 700
    for i in range(n):
        t0 = time.perf_counter()
        result = await store.commit(
            "lat", version, state, meta, ['{"seat":1,"move":{}}'], Deadline(10**13 + i), ttl_s=600
        )
        raw.append((time.perf_counter() - t0) * 1000)
        assert result.ok
        version = result.version or version
    rng = random.Random(2)
    game_id = await human_game(service)
    submits: list[float] = []
    while len(submits) < n // 4:
        t0 = time.perf_counter()
        status = await play_one(service, game_id, rng)
        if status == "finished":
            game_id = await human_game(service)
            continue
        submits.append((time.perf_counter() - t0) * 1000)
    await store.close()
    return {
        "commit_ms": {"p50": pct(raw, 0.5), "p99": pct(raw, 0.99), "n": len(raw)},
        "submit_ms": {"p50": pct(submits, 0.5), "p99": pct(submits, 0.99), "n": len(submits)},
    }


# ---------------------------------------------------------------------------- throughput
def _worker(
    kind: str, url: str, prefix: str, game_ids: list[str], seconds: float, start_at: float, out: Any
) -> None:
    out.put(asyncio.run(_work(kind, url, prefix, game_ids, seconds, start_at)))


async def _work(
    kind: str, url: str, prefix: str, game_ids: list[str], seconds: float, start_at: float
) -> dict[str, int]:
    store = RedisStore.from_url(url, prefix=prefix)
    service = GameService(store, FAST)
    counts = {"ok": 0, "stale": 0}
    rng = random.Random()
    await store.ping()
    while time.time() < start_at:
        await asyncio.sleep(0.001)
    end = time.monotonic() + seconds

    async def raw_loop(game_id: str) -> None:
        while time.monotonic() < end:
            record = await store.load(game_id)
            assert record is not None
            result = await store.commit(
                game_id,
                record.version,
                record.state,
                record.meta,
                ['{"seat":0,"move":{"type":"discard"}}'],
                None,
                ttl_s=600,
            )
            counts["ok" if result.ok else "stale"] += 1

    async def game_loop(queue: list[str]) -> None:
        while time.monotonic() < end and queue:
            status = await play_one(service, queue[0], rng)
            if status == "finished":
                queue.pop(0)
            elif status in counts:
                counts[status] += 1

    if kind == "raw-one":
        await raw_loop(game_ids[0])
    elif kind == "raw-many":
        await asyncio.gather(*(raw_loop(g) for g in game_ids))
    elif kind == "moves-one":
        await game_loop(list(game_ids))
    elif kind == "moves-many":
        await asyncio.gather(*(game_loop([g]) for g in game_ids))
    await store.close()
    return counts


async def make_games(url: str, prefix: str, kind: str, count: int) -> list[str]:
    store = RedisStore.from_url(url, prefix=prefix)
    service = GameService(store, FAST)
    ids = []
    for i in range(count):
        if kind.startswith("raw"):
            game_id = f"raw{uuid.uuid4().hex[:10]}{i}"
            await store.create(game_id, "s" * 1500, "m" * 700, ttl_s=600)
        else:
            game_id = await human_game(service)
        ids.append(game_id)
    await store.close()
    return ids


def throughput(
    url: str, prefix: str, kind: str, seconds: float, per_process: int, processes: int = 2
) -> dict[str, Any]:
    shared = kind.endswith("one")
    ids = asyncio.run(make_games(url, prefix, kind, per_process * (1 if shared else processes)))
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    start_at = time.time() + 2.0
    procs = []
    for p in range(processes):
        mine = ids if shared else ids[p * per_process : (p + 1) * per_process]
        proc = ctx.Process(target=_worker, args=(kind, url, prefix, mine, seconds, start_at, out))
        proc.start()
        procs.append(proc)
    results = [out.get(timeout=seconds + 60) for _ in procs]
    for proc in procs:
        proc.join()
    ok = sum(r["ok"] for r in results)
    stale = sum(r["stale"] for r in results)
    return {
        "commits_per_s": ok / seconds,
        "stale_per_s": stale / seconds,
        "per_process": [r["ok"] for r in results],
        "games": len(ids),
    }


# -------------------------------------------------------------------------------- memory
async def memory(url: str, prefix: str) -> dict[str, Any]:
    store = RedisStore.from_url(url, prefix=prefix)
    service = GameService(store, FAST)
    rng = random.Random(3)
    game_id = await human_game(service)
    await store.set_adapter(game_id, "board_message", "123456789")
    samples: dict[str, Any] = {}
    moves = 0
    marks = {"round 1, move 25": (1, 25), "round 2, move 25": (2, 25), "round 3, move 25": (3, 25)}
    round_moves = 0
    current_round = 1
    for label, (round_no, at) in marks.items():
        while True:
            loaded = await service.records.load(game_id)
            assert loaded.state is not None
            if loaded.state.round != current_round:
                current_round, round_moves = loaded.state.round, 0
            if current_round == round_no and round_moves >= at:
                break
            if engine.phase(loaded.state) == "finished":
                break
            status = await play_one(service, game_id, rng)
            moves += status == "ok"
            round_moves += status == "ok" and engine.phase(loaded.state) == "playing"
        sizes = {
            k.split(":")[-1]: await store.redis.memory_usage(k, samples=0) or 0
            for k in store.keys.game_keys(game_id)
        }
        samples[label] = {
            "bytes": sum(sizes.values()),
            "keys": sizes,
            "moves_logged": moves,
            "state_json": len(loaded.state_json),
            "meta_json": len(loaded.meta.to_json()),
            "meta_stored": len(loaded.meta.to_stored()),
        }
    await store.close()
    return samples


async def cleanup(url: str, prefix: str) -> int:
    client = aioredis.Redis.from_url(url)
    deleted = 0
    async for key in client.scan_iter(match=prefix + "*", count=1000):
        deleted += await client.delete(key)
    await client.aclose()
    return deleted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--latency-n", type=int, default=2000)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--only", choices=["round_trips", "latency", "throughput", "memory"])
    args = parser.parse_args()
    wanted = {args.only} if args.only else {"round_trips", "latency", "throughput", "memory"}
    prefix = f"bench:{uuid.uuid4().hex}:"
    url = args.redis_url
    report: dict[str, Any] = {}
    try:
        if "round_trips" in wanted:
            report["round_trips"] = asyncio.run(round_trips(url, prefix))
        if "latency" in wanted:
            report["latency"] = asyncio.run(latency(url, prefix, args.latency_n))
        if "throughput" in wanted:
            report["throughput"] = {
                "raw commits, 2 processes, one game": throughput(
                    url, prefix, "raw-one", args.seconds, 1
                ),
                "raw commits, 2 processes, 2x16 games": throughput(
                    url, prefix, "raw-many", args.seconds, 16
                ),
                "engine moves, 2 processes, one game": throughput(
                    url, prefix, "moves-one", args.seconds, 20
                ),
                "engine moves, 2 processes, 2x16 games": throughput(
                    url, prefix, "moves-many", args.seconds, 16
                ),
            }
        if "memory" in wanted:
            report["memory"] = asyncio.run(memory(url, prefix))
    finally:
        asyncio.run(cleanup(url, prefix))
    if args.json:
        print(json.dumps(report, indent=2, default=str))
        return
    if "round_trips" in report:
        rt = report["round_trips"]
        print(
            f"round trips per submitted move: {rt['submit']:.2f} (max {rt['submit_max']}); "
            f"per timer-fired move: {rt['timer_move']}"
        )
    for name, lat in report.get("latency", {}).items():
        print(f"{name}: p50 {lat['p50']:.3f} ms, p99 {lat['p99']:.3f} ms (n={lat['n']})")
    for name, tp in report.get("throughput", {}).items():
        print(
            f"{name}: {tp['commits_per_s']:.0f} commits/s "
            f"({tp['stale_per_s']:.0f} stale/s, per process {tp['per_process']})"
        )
    for name, mem in report.get("memory", {}).items():
        print(
            f"memory {name}: {mem['bytes']} B {mem['keys']} state {mem['state_json']} B stored, "
            f"meta {mem['meta_json']} B JSON, {mem['meta_stored']} B stored, "
            f"{mem['moves_logged']} moves logged"
        )


if __name__ == "__main__":
    main()
