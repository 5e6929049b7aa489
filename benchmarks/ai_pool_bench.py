"""How long a `hard` computer move stalls the event loop that fires the timers, with the
process pool (AI_POOL_WORKERS=1) and without it (0: a thread of the timer process).

    .venv/bin/python benchmarks/ai_pool_bench.py --moves 40

A coroutine ticks every 1 ms while the service fires computer moves of a 5-seat `hard`
table (MemoryStore, no network), and each tick does ~1 ms of CPU work (a request's share);
prints one JSON line per mode: the moves made, their mean wall time, the loop's longest
and 99th-percentile gap between ticks, and the 99th-percentile wall time of a tick's work
(a thread's search holds the GIL: the loop's work takes turns with it).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.service import GameService, ServiceConfig, UserRef
from core.store import MemoryStore

ANN, BO = UserRef(1, "Ann"), UserRef(2, "Bo")
REQUEST_LOOP = 30_000
FAST = ServiceConfig(think_delay_s=0.0, bot_ready_delay_s=0.0, round_pause_s=0)


async def new_table(service: GameService) -> str:
    lobby = await service.create_lobby(
        chat=None, creator=ANN, seats=5, computers=3, level="hard", autostart=False
    )
    game_id = str(lobby["game_id"])
    await service.join(game_id, BO)
    await service.configure(game_id, ANN.user_id, rounds=1)
    await service.start(game_id, ANN.user_id)
    await service.leave(game_id, BO.user_id)  # four computer seats, Ann plays first moves
    return game_id


async def measure(workers: int, moves: int) -> dict[str, object]:
    service = GameService(MemoryStore(), dataclasses.replace(FAST, ai_pool_workers=workers))
    game_id = await new_table(service)
    gaps: list[float] = []
    work: list[float] = []
    done = asyncio.Event()

    async def tick() -> None:
        last = time.perf_counter()
        while not done.is_set():
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            gaps.append(now - last)
            sum(i * i for i in range(REQUEST_LOOP))  # ~1 ms of CPU
            last = time.perf_counter()
            work.append(last - now)

    made, spent = 0, 0.0
    ticker: asyncio.Task[None] | None = None
    try:
        while made < moves:
            mine = await service.view(game_id, ANN.user_id)
            if mine["status"] == "finished":
                game_id = await new_table(service)
                continue
            if mine["legal_moves"]:
                await service.submit(game_id, ANN.user_id, mine["legal_moves"][0], mine["version"])
                continue
            start = time.perf_counter()
            fired = await service.fire_due()
            if ticker is None:  # the first move starts the pool: not measured
                ticker = asyncio.create_task(tick())
                continue
            made += fired
            spent += time.perf_counter() - start
    finally:
        done.set()
        if ticker is not None:
            await ticker
        service.timers.ai_pool.close()
    gaps.sort()
    work.sort()
    return {
        "ai_pool_workers": workers,
        "moves": made,
        "move_ms_mean": round(1000 * spent / max(1, made), 1),
        "loop_gap_ms_max": round(1000 * gaps[-1], 1),
        "loop_gap_ms_p99": round(1000 * gaps[int(0.99 * (len(gaps) - 1))], 1),
        "work_ms_p50": round(1000 * work[len(work) // 2], 1),
        "work_ms_p99": round(1000 * work[int(0.99 * (len(work) - 1))], 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=40, help="hard computer moves per mode")
    args = parser.parse_args()
    for workers in (1, 0):
        print(json.dumps(asyncio.run(measure(workers, args.moves))), flush=True)


if __name__ == "__main__":
    main()
