"""Two app hosts behind one proxy; one of them dies under load.

``run_hosts`` starts a private redis-server, two independent ``python -m telegram_bot``
process groups — two "hosts", each a supervisor with ``WORKERS`` workers and its own timer
process on its own port, sharing nothing but Redis and ``SESSION_SECRET`` — and Caddy in
front of them with the repository's own ``deploy/Caddyfile`` (``APP_UPSTREAM`` = both
hosts). It plays human games through the proxy (one WebSocket per game) beside games the
computer plays on timers, and kills host A's whole process group with SIGKILL (the host
is gone: supervisor, workers and timer process at once) mid-run.

Checked afterwards: no game lost or corrupted, no acknowledged move lost (a move whose
answer the dying host took with it is sent again with its ``submission_id``: made once);
every game moved on after the kill (on host B); no stuck timer (host A's leases run out
and host B's timer process fires them); every acknowledged version was announced on its
game's WebSocket (the sockets host A held reconnected through the proxy to host B).

``python -m tests.chaos hosts`` prints the report.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import redis

from core.store import Keys
from tests.load.client import Api
from tests.load.driver import Driver
from tests.load.fastclient import FastApi
from tests.load.harness import HOST, ROOT, RedisServer, ServerGroup, free_port, wait_until
from tests.load.monitor import TimerWatch
from tests.load.stats import dist
from tests.load.verify import verify


def caddy_binary() -> str | None:
    """Debian's caddy that ./dev test unpacks into .venv/bin, or one on the PATH."""
    for candidate in (Path(sys.executable).parent / "caddy", shutil.which("caddy")):
        if candidate and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


@dataclass
class CaddyProxy:
    """Caddy on loopback with ``deploy/Caddyfile``, plain HTTP, in front of ``upstreams``."""

    upstreams: list[int]
    port: int = 0
    proc: subprocess.Popen[bytes] | None = None
    workdir: Path | None = None

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def start(self) -> CaddyProxy:
        caddy = caddy_binary()
        assert caddy is not None, "no caddy binary"
        self.port = self.port or free_port()
        self.workdir = Path(tempfile.mkdtemp(prefix="sab-caddy-"))
        env = {
            **os.environ,
            "PUBLIC_URL": self.base_url,
            "APP_UPSTREAM": " ".join(f"{HOST}:{p}" for p in self.upstreams),
            "HOME": str(self.workdir),
            "XDG_DATA_HOME": str(self.workdir / "data"),
            "XDG_CONFIG_HOME": str(self.workdir / "config"),
        }
        adapted = subprocess.run(
            [caddy, "adapt", "--config", str(ROOT / "deploy" / "Caddyfile")],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        config = json.loads(adapted.stdout)
        config["admin"] = {"disabled": True}
        for server in config["apps"]["http"]["servers"].values():
            server["listen"] = [f"{HOST}:{self.port}"]
            server["automatic_https"] = {"disable": True}
            if not os.environ.get("LOAD_KEEP_LOGS"):
                server.pop("logs", None)  # (the Caddyfile's access log: not needed here)
        path = self.workdir / "caddy.json"
        path.write_text(json.dumps(config))
        log = (self.workdir / "caddy.log").open("wb")
        self.proc = subprocess.Popen(
            [caddy, "run", "--config", str(path)],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()
        wait_until(self._listening, 15, "caddy")
        return self

    def _listening(self) -> bool:
        import socket

        with socket.create_connection((HOST, self.port), 1):
            return True

    def close(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(10)
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait(5)
            self.proc = None
        if self.workdir is not None and not os.environ.get("LOAD_KEEP_LOGS"):
            shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self) -> CaddyProxy:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class KillNotes:
    killed_at: float = 0.0  # time.monotonic()
    killed_wall_ms: float = 0.0
    versions_at_kill: dict[str, int] = field(default_factory=dict)


def _versions(redis_url: str, prefix: str, game_ids: list[str]) -> dict[str, int]:
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    keys = Keys(prefix)
    try:
        with client.pipeline(transaction=False) as pipe:
            for game_id in game_ids:
                pipe.hget(keys.game(game_id), "v")
            raw = pipe.execute()
        return {g: int(v) for g, v in zip(game_ids, raw, strict=True) if v is not None}
    finally:
        client.close()


def _finished(redis_url: str, prefix: str, game_ids: list[str]) -> set[str]:
    """Games whose record is gone from the live keys but archived (finished)."""
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    keys = Keys(prefix)
    try:
        return {g for g in game_ids if client.exists(keys.archive(g))}
    finally:
        client.close()


async def run_hosts(
    *,
    workers: int = 2,
    games: int = 24,
    timed_games: int = 6,
    rate: float = 20.0,
    before_s: float = 5.0,
    after_s: float = 10.0,
) -> dict[str, Any]:
    """One run (see the module docstring); the report as a dict."""
    prefix = f"hosts{uuid.uuid4().hex[:8]}:"
    report: dict[str, Any] = {"workers_per_host": workers, "hosts": 2}
    with RedisServer() as redis_server:
        url = redis_server.url
        hosts = [ServerGroup(url, workers=workers, prefix=prefix) for _ in range(2)]
        try:
            began = time.monotonic()
            await asyncio.gather(*(asyncio.to_thread(h.start) for h in hosts))
            report["hosts_up_s"] = round(time.monotonic() - began, 1)
            with CaddyProxy([h.port for h in hosts]) as proxy:
                report.update(
                    await _drive(
                        url, prefix, hosts, proxy, games, timed_games, rate, before_s, after_s
                    )
                )
            report["host_b_error_log_lines"] = len(hosts[1].log_errors())
            report["host_b_error_examples"] = hosts[1].log_errors()[:5]
        finally:
            for host in hosts:
                host.close()
    return report


async def _drive(
    url: str,
    prefix: str,
    hosts: list[ServerGroup],
    proxy: CaddyProxy,
    games: int,
    timed_games: int,
    rate: float,
    before_s: float,
    after_s: float,
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    notes = KillNotes()
    connector = aiohttp.TCPConnector(limit=0, limit_per_host=0)
    async with aiohttp.ClientSession(
        connector=connector, timeout=aiohttp.ClientTimeout(total=30)
    ) as http:
        driver = Driver(Api(proxy.base_url, http), seed=7)
        driver.move_retries = 6
        fast = FastApi.for_base_url(proxy.base_url)
        driver.hot = fast
        out["setup_s"] = round(
            await driver.setup(games - timed_games, timed_games, redis_url=url, prefix=prefix), 1
        )
        ids = [g.game_id for g in driver.games]
        driver.open_sockets()
        await driver.sockets_greeted(60.0)
        out["sockets"] = len(driver._sockets)
        stop = asyncio.Event()
        watch = TimerWatch(url, prefix, lambda: [g.game_id for g in driver.games if g.timed])
        watcher = asyncio.create_task(watch.run(stop))

        async def kill_host_a() -> None:
            await asyncio.sleep(before_s)
            notes.versions_at_kill = await asyncio.to_thread(_versions, url, prefix, ids)
            notes.killed_at, notes.killed_wall_ms = time.monotonic(), time.time() * 1000
            victim = hosts[0]
            assert victim.proc is not None
            with contextlib.suppress(ProcessLookupError):
                os.killpg(victim.proc.pid, signal.SIGKILL)  # the host is gone, all of it
            victim.proc.wait(10)

        killer = asyncio.create_task(kill_host_a())
        try:
            stats = await driver.play(rate, before_s + after_s)
            await killer
            await asyncio.sleep(2.0)  # the last timers and notices
            delays, missed, examples = driver.push_figures()
        finally:
            stop.set()
            await watcher
            await driver.close_sockets()
            fast.close()
        step = stats.summary(rate)
        after = [t for t in stats.ok_times if t > notes.killed_at]
        out["moves"] = {
            k: step[k]
            for k in (
                "achieved_moves_per_s",
                "moves_ok",
                "errors",
                "error_kinds",
                "statuses",
                "ws_reconnects",
                "moves_resent",
                "post_move_ms",
            )
        }
        out["moves_ok_after_kill"] = len(after)
        out["first_move_ok_after_kill_s"] = (
            round(min(after) - notes.killed_at, 2) if after else None
        )
        out["errors_after_kill_s"] = dist([t - notes.killed_at for t in stats.error_times])
        end_versions = await asyncio.to_thread(_versions, url, prefix, ids)
        finished = await asyncio.to_thread(_finished, url, prefix, ids)
        stalled = [
            g
            for g in ids
            if g not in finished and end_versions.get(g, 0) <= notes.versions_at_kill.get(g, 0)
        ]
        out["games_that_did_not_move_after_kill"] = len(stalled)
        out["ws_push_ms"] = dist(delays)
        out["ws_acked_versions_never_announced"] = missed
        out["ws_never_announced_examples"] = examples
        out["timers"] = watch.summary()
        every = [g.game_id for g in driver.games]  # (finished games were replaced)
        out["integrity"] = (await verify(url, prefix, every, driver.acks)).summary()
    return out
