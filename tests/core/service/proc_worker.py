"""A worker OS process for the multi-process tests (run as a script, not collected).

python proc_worker.py submit URL PREFIX GAME_ID OUT SECONDS
    play random legal moves for whichever seat acts (all seats are humans here),
    at the version read, appending every acknowledged move to OUT (one JSON line,
    flushed, so a kill -9 keeps what was acknowledged)
python proc_worker.py timers URL PREFIX GAME_ID OUT SECONDS [UNTIL_VERSION]
    run the service's timer loop until the game reaches UNTIL_VERSION or time is up
python proc_worker.py arm URL PREFIX - OUT
    create a game against computers (deadline armed at the start) and wait to be killed
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from core import engine
from core.service import GameService, ServiceConfig, UserRef
from core.store import RedisStore


async def submit(
    service: GameService, game_id: str, out: Path, seconds: float, go: Path | None = None
) -> None:
    """Random legal moves for ``seconds``. With ``go``: first say ready (``<out>.ready``)
    and wait for the test to create ``go``, so that the processes begin together and
    really race (one started early would finish the whole game before the others have
    imported anything; a cold start takes seconds)."""
    if go is not None:
        out.with_suffix(".ready").touch()
        while not go.exists():
            await asyncio.sleep(0.01)
    rng = random.Random(os.getpid())
    end = time.monotonic() + seconds
    with out.open("a") as acks:
        while time.monotonic() < end:
            # a little jitter, as real players have: in lockstep the process that won one
            # commit tends to win every next one, and the others only ever see "stale"
            await asyncio.sleep(rng.random() * 0.003)
            loaded = await service.records.load(game_id)
            state = loaded.state
            assert state is not None
            phase = engine.phase(state)
            if phase == "finished":
                return
            if phase == "round_over":
                seat = rng.choice(sorted(engine.waiting_on(state)))
                move = {"type": "next_round"}
            else:
                seat = engine.actor(state)
                assert seat is not None
                move = rng.choice(engine.legal_moves(state, seat))
            user_id = loaded.meta.seats[seat].user_id
            assert user_id is not None
            result = await service.submit(game_id, user_id, move, loaded.version)
            if result.status == "ok":
                assert result.view is not None
                acks.write(
                    json.dumps({"v": result.view["version"], "seat": seat, "move": move}) + "\n"
                )
                acks.flush()
            elif result.status != "stale":
                raise AssertionError(f"unexpected {result}")


async def timers(service: GameService, game_id: str, seconds: float, until: int) -> None:
    stop = asyncio.Event()
    task = asyncio.create_task(service.run_timers(stop))
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        view = await service.view(game_id, None)
        if view["version"] >= until or view["status"] == "finished":
            break
        await asyncio.sleep(0.02)
    stop.set()
    await task


async def arm(service: GameService, out: Path) -> None:
    view = await service.create_lobby(
        chat=None,
        creator=UserRef(1, "Ann"),
        seats=4,
        computers=3,
        settings={"think_delay": 1.0, "turn_time": 5},
    )
    out.write_text(json.dumps({"game_id": view["game_id"], "version": view["version"]}))
    await asyncio.sleep(3600)


async def main() -> None:
    mode, url, prefix, game_id, out = sys.argv[1:6]
    config = ServiceConfig(
        think_delay_s=0.0, bot_ready_delay_s=0.0, timer_interval_s=0.05, timer_lease_ms=1000
    )
    store = RedisStore.from_url(url, prefix=prefix)
    service = GameService(store, config)
    try:
        if mode == "submit":
            go = Path(sys.argv[7]) if len(sys.argv) > 7 else None
            await submit(service, game_id, Path(out), float(sys.argv[6]), go)
        elif mode == "timers":
            until = int(sys.argv[7]) if len(sys.argv) > 7 else 10**9
            await timers(service, game_id, float(sys.argv[6]), until)
        elif mode == "arm":
            await arm(service, Path(out))
    finally:
        await store.close()


if __name__ == "__main__":
    asyncio.run(main())
