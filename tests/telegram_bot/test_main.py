"""The process entry point: configuration checks, local mode, supervised workers."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from core.settings import Settings
from telegram_bot.main import check_settings

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_check_settings_explains_bad_combinations() -> None:
    assert check_settings(Settings()) == []
    problems = check_settings(Settings(workers=2))
    assert any("REDIS_URL" in p for p in problems)
    problems = check_settings(Settings(workers=2, redis_url="redis://x", telegram_bot_token="1:A"))
    assert any("WEBHOOK_URL" in p for p in problems)
    api_only = Settings(workers=2, redis_url="redis://x", telegram_bot_token="1:A", api_only=True)
    assert check_settings(api_only) == []
    assert any(
        "https" in p
        for p in check_settings(Settings(telegram_bot_token="1:A", webhook_url="http://x/hook"))
    )


def _start(env: dict[str, str]) -> subprocess.Popen[str]:
    full = {**os.environ, "LOG_LEVEL": "WARNING", **env}
    full.pop("TELEGRAM_BOT_TOKEN", None) if "TELEGRAM_BOT_TOKEN" not in env else None
    return subprocess.Popen(
        [sys.executable, "-m", "telegram_bot"],
        cwd=ROOT,
        env=full,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


def _stop(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _get(url: str, data: bytes | None = None, headers: dict[str, str] | None = None) -> tuple:
    request = urllib.request.Request(url, data=data, headers=headers or {})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, response.read()


def test_local_mode_prints_a_playable_url() -> None:
    port = free_port()
    proc = _start({"PORT": str(port), "REDIS_URL": ""})
    try:
        assert proc.stdout is not None
        url = None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and url is None:
            line = proc.stdout.readline()
            if not line and proc.poll() is not None:
                break
            # the link names no game: the page opens the player's newest
            match = re.search(r"http://127\.0\.0\.1:\d+/\?code=([\w-]+)", line)
            if match:
                url, code = match.group(0), match.group(1)
        assert url is not None, "local mode printed no URL"
        status, body = _get(url)
        assert status == 200 and b"<html" in body.lower()
        for _ in range(2):  # the link signs its player in again (the tab was closed)
            status, body = _get(
                f"http://127.0.0.1:{port}/api/session",
                data=json.dumps({"code": code}).encode(),
                headers={"Content-Type": "application/json"},
            )
            token = json.loads(body)["token"]
        status, body = _get(
            f"http://127.0.0.1:{port}/api/games", headers={"Authorization": f"Bearer {token}"}
        )
        (game_id,) = json.loads(body)["games"]
        status, body = _get(
            f"http://127.0.0.1:{port}/api/games/{game_id}",
            headers={"Authorization": f"Bearer {token}"},
        )
        view = json.loads(body)
        assert view["game_id"] == game_id
        assert view["you"]["seat"] is not None
        assert sum(1 for seat in view["seats"] if seat["computer"]) == len(view["seats"]) - 1
        assert b"seed" not in body
    finally:
        _stop(proc)


def _children(parent: Any, port: int) -> tuple[list[Any], list[Any]]:
    """The supervisor's live children: (HTTP workers listening on ``port``, the others —
    the timer process)."""
    import psutil

    workers: list[Any] = []
    others: list[Any] = []
    for child in parent.children():
        try:  # a killed child is a zombie until the supervisor reaps it
            if child.status() == psutil.STATUS_ZOMBIE or "spawn_main" not in " ".join(
                child.cmdline()
            ):
                continue
            listening = any(
                c.status == psutil.CONN_LISTEN and c.laddr and c.laddr.port == port
                for c in child.net_connections(kind="tcp")
            )
        except psutil.Error:
            continue
        (workers if listening else others).append(child)
    return workers, others


def _healthy(port: int) -> bool:
    try:
        return _get(f"http://127.0.0.1:{port}/healthz")[0] == 200
    except OSError:
        return False


def _wait(check: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


def _multi_worker_env(port: int, redis_url: str, redis_prefix: str) -> dict[str, str]:
    return {
        "PORT": str(port),
        "WORKERS": "2",
        "REDIS_URL": redis_url,
        "REDIS_PREFIX": redis_prefix,
        "TELEGRAM_BOT_TOKEN": "42:TEST",
        "SESSION_SECRET": "main-test-session-secret",
        "API_ONLY": "1",
    }


def test_supervisor_restarts_a_killed_worker(redis_url: str, redis_prefix: str) -> None:
    """A killed worker is replaced; the timer process runs behind the workers when
    ``TIMER_PROCESS_NICE`` is positive (raising nice needs no privilege)."""
    psutil = pytest.importorskip("psutil")
    port = free_port()
    proc = _start({**_multi_worker_env(port, redis_url, redis_prefix), "TIMER_PROCESS_NICE": "5"})
    try:
        parent = psutil.Process(proc.pid)

        def ready() -> bool:
            workers, timers = _children(parent, port)
            return len(workers) == 2 and len(timers) == 1 and _healthy(port)

        _wait(ready, 60, "2 workers and the timer process")
        first, [timer] = _children(parent, port)
        assert timer.nice() == first[0].nice() + 5
        # named for ps, top and the load report
        assert timer.name() == "sab-timers"
        assert sorted(w.name() for w in first) == ["sab-worker-0", "sab-worker-1"]
        os.kill(first[0].pid, signal.SIGKILL)

        def replaced() -> bool:
            workers, _ = _children(parent, port)
            return ready() and first[0].pid not in {w.pid for w in workers}

        _wait(replaced, 60, "a replacement worker")
    finally:
        _stop(proc)


def test_one_worker_runs_no_timer_process(redis_url: str, redis_prefix: str) -> None:
    """WORKERS=1 (and TIMER_PROCESS=0 with several) keep the timers in the workers."""
    psutil = pytest.importorskip("psutil")
    port = free_port()
    env = {**_multi_worker_env(port, redis_url, redis_prefix), "TIMER_PROCESS": "0"}
    proc = _start(env)
    try:
        parent = psutil.Process(proc.pid)
        _wait(lambda: len(_children(parent, port)[0]) == 2 and _healthy(port), 60, "workers")
        time.sleep(1.0)
        assert _children(parent, port)[1] == []
    finally:
        _stop(proc)
    assert not Settings.from_env({"TIMER_PROCESS": "0"}).timer_process
    assert Settings.from_env({}).timer_process
    assert Settings.from_env({}).timer_process_nice == 0
    assert Settings.from_env({"TIMER_PROCESS_NICE": "-2"}).timer_process_nice == -2
    assert Settings.from_env({"TIMER_PROCESS_NICE": "7"}).timer_process_nice == 7
    assert Settings.from_env({"TIMER_PROCESS_NICE": "40"}).timer_process_nice == 19


def test_turns_advance_while_the_timer_process_is_stopped_or_killed(
    redis_url: str, redis_prefix: str, redis_client: object
) -> None:
    """The timer process frozen (SIGSTOP: starved, hung) or killed: the workers' fallback
    fires every overdue turn within its deadline + 2 s, and the supervisor restarts it."""
    psutil = pytest.importorskip("psutil")
    port = free_port()
    proc = _start({**_multi_worker_env(port, redis_url, redis_prefix), "TIMER_PROCESS_NICE": "-3"})
    try:
        parent = psutil.Process(proc.pid)
        _wait_for_workers_and_timer(parent, port)
        game_id = asyncio.run(_computer_game(redis_url, redis_prefix))
        [timer] = _children(parent, port)[1]
        workers = _children(parent, port)[0]
        if os.geteuid() == 0:  # allowed to: the timer process runs ahead of the workers
            # (set by the timer process itself once it runs: it may still be starting)
            _wait(lambda: timer.nice() < workers[0].nice(), 20, "the timer process ahead")
        # the human's first turn times out (5 s), then the computer plays every seat
        healthy_late = asyncio.run(_watch(redis_url, redis_prefix, game_id, 7.0))
        assert len(healthy_late) >= 2 and max(healthy_late) < 2000, healthy_late
        timer.send_signal(signal.SIGSTOP)
        try:
            stopped_late = asyncio.run(_watch(redis_url, redis_prefix, game_id, 4.0))
        finally:
            timer.send_signal(signal.SIGCONT)
        assert len(stopped_late) >= 2, stopped_late  # the fallback kept the game going
        # the target is 2 s (the fallback takes ~1.3 s); a little slack for a busy CI box
        assert max(stopped_late) < 2500, stopped_late
        timer.send_signal(signal.SIGKILL)
        killed_late = asyncio.run(_watch(redis_url, redis_prefix, game_id, 4.0))
        assert len(killed_late) >= 2 and max(killed_late) < 2500, killed_late

        def restarted() -> bool:
            others = _children(parent, port)[1]
            return len(others) == 1 and others[0].pid != timer.pid

        _wait(restarted, 30, "a new timer process")
    finally:
        _stop(proc)


def _wait_for_workers_and_timer(parent: Any, port: int) -> None:
    _wait(
        lambda: (
            len(_children(parent, port)[0]) == 2
            and len(_children(parent, port)[1]) == 1
            and _healthy(port)
        ),
        60,
        "2 workers and the timer process",
    )


def test_a_hung_timer_process_is_replaced(redis_url: str, redis_prefix: str) -> None:
    """A timer process that stops making loop passes without exiting (SIGSTOP here; a
    stuck call alike) is killed and replaced after ``TIMER_HANG_SECONDS``."""
    psutil = pytest.importorskip("psutil")
    port = free_port()
    proc = _start({**_multi_worker_env(port, redis_url, redis_prefix), "TIMER_HANG_SECONDS": "2"})
    try:
        parent = psutil.Process(proc.pid)
        _wait_for_workers_and_timer(parent, port)
        [timer] = _children(parent, port)[1]
        time.sleep(3)  # a healthy timer process passes its loop: it is left alone
        assert [t.pid for t in _children(parent, port)[1]] == [timer.pid]
        timer.send_signal(signal.SIGSTOP)

        def replaced() -> bool:
            others = _children(parent, port)[1]
            return len(others) == 1 and others[0].pid != timer.pid and not timer.is_running()

        _wait(replaced, 30, "the hung timer process replaced")
        assert _healthy(port)
    finally:
        _stop(proc)


def test_hang_check_waits_for_the_first_pass() -> None:
    from telegram_bot.main import _hung

    now = time.monotonic()
    assert not _hung(0.0, 30)  # not started yet: imports and connecting may take long
    assert not _hung(now - 10, 30)
    assert _hung(now - 31, 30)
    assert not _hung(now - 3600, 0)  # 0: never


async def _computer_game(redis_url: str, prefix: str) -> str:
    """A started game of one silent human and two computer seats thinking 0.3 s: a
    deadline every few hundred ms, fired by whichever process's timers take it."""
    from core.service import GameService, ServiceConfig, UserRef
    from core.store import RedisStore

    store = RedisStore.from_url(redis_url, prefix=prefix)
    try:
        service = GameService(store, ServiceConfig())
        view = await service.create_lobby(
            chat=None,
            creator=UserRef(1, "P1"),
            seats=3,
            computers=2,
            autostart=False,
            settings={
                "turn_time": 5,
                "think_delay": 0.3,
                "round_pause": 1,
                "rounds": 3,
                "takeover_after": 1,
            },
        )
        await service.start(view["game_id"], 1)
        return str(view["game_id"])
    finally:
        await store.close()


async def _watch(redis_url: str, prefix: str, game_id: str, seconds: float) -> list[float]:
    """Poll the game's record every 50 ms for ``seconds``: how late (ms) each deadline that
    passed was fired (the version moved on). A deadline still pending 2 s after it passed
    counts as late by that much."""
    import redis.asyncio as aioredis

    from core.store import Keys

    client = aioredis.Redis.from_url(redis_url, decode_responses=True)
    key = Keys(prefix).game(game_id)
    late: list[float] = []
    last: tuple[int, int | None] | None = None
    end = time.monotonic() + seconds
    try:
        while time.monotonic() < end:
            v, dl = await client.hmget(key, ["v", "dl"])
            now = time.time() * 1000
            if v is None:
                break
            current = (int(v), int(dl) if dl else None)
            if last is not None and current[0] != last[0] and last[1] is not None:
                late.append(max(0.0, now - last[1]))
            elif current[1] is not None and now - current[1] > 2000:
                late.append(now - current[1])
                break
            last = current
            await asyncio.sleep(0.05)
    finally:
        await client.aclose()
    return late


def test_event_loop_setting_picks_uvloop_or_the_standard_loop() -> None:
    from telegram_bot.main import _loop_factory

    assert Settings.from_env({}).event_loop == "uvloop"
    assert Settings.from_env({"EVENT_LOOP": "AsyncIO"}).event_loop == "asyncio"
    with pytest.raises(ValueError, match="EVENT_LOOP must be one of uvloop, asyncio"):
        Settings.from_env({"EVENT_LOOP": "trio"})
    assert _loop_factory(Settings(event_loop="asyncio")) is None
    factory = _loop_factory(Settings(event_loop="uvloop"))
    assert factory is not None
    loop = factory()
    try:
        assert type(loop).__module__.startswith("uvloop")
    finally:
        loop.close()
