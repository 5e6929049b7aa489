"""Several OS processes on one game (real Redis): conflicts, kill -9, timers of dead workers."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from core import engine
from core.service import GameService, ServiceConfig, UserRef
from core.service.records import Loaded, Plan
from core.store import RedisStore

WORKER = Path(__file__).with_name("proc_worker.py")
ROOT = Path(__file__).resolve().parents[3]


def spawn(*args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, str(WORKER), *args], cwd=ROOT)


@pytest.fixture
async def service(redis_url: str, redis_prefix: str, redis_client: object):  # type: ignore[no-untyped-def]
    store = RedisStore.from_url(redis_url, prefix=redis_prefix)
    yield GameService(store, ServiceConfig(think_delay_s=0.0, bot_ready_delay_s=0.0))
    await store.close()


async def six_humans(service: GameService) -> tuple[str, int]:
    users = [UserRef(i, f"P{i}") for i in range(1, 7)]
    view = await service.create_lobby(chat=None, creator=users[0])
    for user in users[1:]:
        await service.join(view["game_id"], user)
    view = await service.start(view["game_id"], 1)
    return view["game_id"], view["version"]


def read_acks(paths: list[Path]) -> list[dict[str, Any]]:
    acks = []
    for path in paths:
        if path.exists():
            acks += [json.loads(line) for line in path.read_text().splitlines() if line]
    return acks


async def check_integrity(
    service: GameService, game_id: str, start_version: int, acks: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    log = await service.move_log(game_id)
    loaded = await service.records.load(game_id)
    versions = [e["v"] for e in log]
    # no gaps, no duplicates, and the record's version is the last logged one
    assert versions == list(range(start_version + 1, start_version + 1 + len(log)))
    assert loaded.version == start_version + len(log)
    # every acknowledged move is in the log exactly once, at its version
    by_version = {e["v"]: e for e in log}
    assert len({a["v"] for a in acks}) == len(acks)
    for ack in acks:
        entry = by_version[ack["v"]]
        assert (entry["seat"], entry["move"]) == (ack["seat"], ack["move"])
    # the stored state is the replay of the log
    moves = [{k: v for k, v in e.items() if k != "v"} for e in log]
    replayed = engine.replay(loaded.state.config, loaded.meta.seed, moves)
    assert engine.state_to_json(replayed) == engine.state_to_json(loaded.state)
    return log


async def racing_submitters(
    redis_url: str, redis_prefix: str, game_id: str, outs: list[Path], seconds: str
) -> list[subprocess.Popen[bytes]]:
    """One submitting process per ``outs`` file, released together once all have started."""
    go = outs[0].parent / "go"
    procs = [
        spawn("submit", redis_url, redis_prefix, game_id, str(o), seconds, str(go)) for o in outs
    ]
    end = time.monotonic() + 60
    while not all(o.with_suffix(".ready").exists() for o in outs):
        assert time.monotonic() < end, "the submitting processes did not start"
        assert all(p.poll() is None for p in procs), "a submitting process died"
        await asyncio.sleep(0.02)
    go.touch()
    return procs


async def wait_all(procs: list[subprocess.Popen[bytes]], timeout: float) -> None:
    end = time.monotonic() + timeout
    while any(p.poll() is None for p in procs) and time.monotonic() < end:
        await asyncio.sleep(0.05)
    for p in procs:
        if p.poll() is None:
            p.kill()
            p.wait()


async def test_conflicting_workers_keep_one_history(
    service: GameService, redis_url: str, redis_prefix: str, tmp_path: Path
) -> None:
    game_id, start = await six_humans(service)
    heard: list[int] = []

    async def listen() -> None:
        async for version in service.listen(game_id):
            heard.append(version)

    listener = asyncio.create_task(listen())
    await asyncio.sleep(0.2)  # subscribed
    outs = [tmp_path / f"acks{i}.jsonl" for i in range(3)]
    procs = await racing_submitters(redis_url, redis_prefix, game_id, outs, "4")
    await wait_all(procs, 60)
    assert [p.returncode for p in procs] == [0, 0, 0]
    acks = read_acks(outs)
    log = await check_integrity(service, game_id, start, acks)
    await asyncio.sleep(0.2)
    listener.cancel()
    # pub/sub carried the other processes' commits here, in order, up to the last one
    assert heard and heard == sorted(heard) and heard[-1] == start + len(log)
    assert len(acks) == len(log) >= 20
    assert sum(1 for o in outs if o.exists() and o.read_text()) >= 2  # real contention


async def test_kill_minus_nine_mid_stream(
    service: GameService, redis_url: str, redis_prefix: str, tmp_path: Path
) -> None:
    game_id, start = await six_humans(service)
    outs = [tmp_path / f"acks{i}.jsonl" for i in range(3)]
    procs = await racing_submitters(redis_url, redis_prefix, game_id, outs, "6")
    end = time.monotonic() + 30
    while len(read_acks(outs)) < 3 and time.monotonic() < end:  # mid-stream
        await asyncio.sleep(0.01)
    # the victim: a worker still submitting (whichever wins the races varies with load)
    victim = next(p for p in procs if p.poll() is None)
    others = [p for p in procs if p is not victim]
    victim.send_signal(signal.SIGKILL)
    victim.wait()
    at_kill = (await service.view(game_id, None))["version"]
    await wait_all(others, 60)
    assert victim.returncode == -signal.SIGKILL
    assert [p.returncode for p in others] == [0, 0]
    final = await service.view(game_id, None)
    assert final["version"] > at_kill or final["status"] == "finished"  # the others went on
    await check_integrity(service, game_id, start, read_acks(outs))


async def test_timer_of_a_killed_worker_fires_once_elsewhere(
    service: GameService, redis_url: str, redis_prefix: str, tmp_path: Path
) -> None:
    out = tmp_path / "armed.json"
    armer = spawn("arm", redis_url, redis_prefix, "-", str(out))
    end = time.monotonic() + 30
    while not out.exists() or not out.read_text():
        assert time.monotonic() < end and armer.poll() is None
        await asyncio.sleep(0.05)
    armer.send_signal(signal.SIGKILL)
    armer.wait()
    armed = json.loads(out.read_text())
    game_id, version = armed["game_id"], armed["version"]
    record = await service.store.load(game_id)
    assert record is not None and record.version == version and record.deadline_ms is not None
    # a second worker claims the due timer and dies before firing it: its lease runs out
    while int(time.time() * 1000) < record.deadline_ms:
        await asyncio.sleep(0.05)
    claims = await service.store.claim_due(int(time.time() * 1000), lease_ms=1000)
    assert [(c.game_id, c.version) for c in claims] == [(game_id, version)]
    claimed_at = time.monotonic()
    # two live workers race for it: exactly one move is made at the armed version
    procs = [
        spawn("timers", redis_url, redis_prefix, game_id, "-", "20", str(version + 1))
        for _ in range(2)
    ]
    await wait_all(procs, 40)
    assert [p.returncode for p in procs] == [0, 0]
    assert time.monotonic() - claimed_at >= 0.9  # not before the dead claimer's lease ended
    log = await service.move_log(game_id)
    assert [e["v"] for e in log][:1] == [version + 1]
    assert sum(1 for e in log if e["v"] == version + 1) == 1
    await check_integrity(service, game_id, version, [])


async def test_timer_workers_play_a_computer_game_together(
    service: GameService, redis_url: str, redis_prefix: str
) -> None:
    view = await service.create_lobby(
        chat=None,
        creator=UserRef(1, "Ann"),
        seats=4,
        computers=3,
        settings={"think_delay": 0, "round_pause": 0, "rounds": 1},
    )
    game_id = view["game_id"]

    def hand_over(loaded: Loaded) -> Plan:
        # as if the human had timed out: the computer plays seat 0 too
        loaded.meta.seats[0].auto = True
        loaded.meta.bumps.append(loaded.state.seq)
        deadline = service.timing.deadline(loaded.meta, loaded.state, service.now_ms())
        return Plan(loaded.meta, loaded.state, [], deadline, state_changed=False)

    start = (await service.records.mutate(game_id, hand_over)).version
    procs = [spawn("timers", redis_url, redis_prefix, game_id, "-", "30") for _ in range(2)]
    await wait_all(procs, 60)
    assert [p.returncode for p in procs] == [0, 0]
    assert (await service.view(game_id, None))["status"] == "finished"
    log = await check_integrity(service, game_id, start, [])
    assert len(log) >= 5
