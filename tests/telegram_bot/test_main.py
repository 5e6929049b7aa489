"""The process entry point: configuration checks, local mode, supervised workers."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

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
            match = re.search(r"http://127\.0\.0\.1:\d+/\?code=([\w-]+)&game=([\w-]+)", line)
            if match:
                url, code, game_id = match.group(0), match.group(1), match.group(2)
        assert url is not None, "local mode printed no URL"
        status, body = _get(url)
        assert status == 200 and b"<html" in body.lower()
        status, body = _get(
            f"http://127.0.0.1:{port}/api/session",
            data=json.dumps({"code": code}).encode(),
            headers={"Content-Type": "application/json"},
        )
        token = json.loads(body)["token"]
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


def test_supervisor_restarts_a_killed_worker(redis_url: str, redis_prefix: str) -> None:
    psutil = pytest.importorskip("psutil")
    port = free_port()
    proc = _start(
        {
            "PORT": str(port),
            "WORKERS": "2",
            "REDIS_URL": redis_url,
            "REDIS_PREFIX": redis_prefix,
            "TELEGRAM_BOT_TOKEN": "42:TEST",
            "API_ONLY": "1",
        }
    )
    try:
        parent = psutil.Process(proc.pid)
        deadline = time.monotonic() + 60

        def workers() -> list:
            alive = []
            for child in parent.children():
                try:  # a killed worker is a zombie until the supervisor reaps it
                    if child.status() != psutil.STATUS_ZOMBIE and "spawn_main" in " ".join(
                        child.cmdline()
                    ):
                        alive.append(child)
                except psutil.Error:
                    continue
            return alive

        def healthy() -> bool:
            try:
                return _get(f"http://127.0.0.1:{port}/healthz")[0] == 200
            except OSError:
                return False

        while time.monotonic() < deadline and not (len(workers()) == 2 and healthy()):
            time.sleep(0.3)
        first = workers()
        assert len(first) == 2 and healthy()
        os.kill(first[0].pid, signal.SIGKILL)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            now = workers()
            if len(now) == 2 and first[0].pid not in {w.pid for w in now} and healthy():
                break
            time.sleep(0.3)
        now = workers()
        assert len(now) == 2 and first[0].pid not in {w.pid for w in now}
        assert healthy()
    finally:
        _stop(proc)


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
