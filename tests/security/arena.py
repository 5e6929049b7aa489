"""Real processes for the attack runs: Redis, the server (API, or bot in webhook mode),
Caddy in front of it, and clients that each come from an address of their own.

Everything binds loopback. Linux routes all of 127.0.0.0/8 to the loopback interface, so
a client bound to 127.0.0.7 is a different client address from one bound to 127.0.0.8:
that is how "one client floods, another is not affected" is shown on one machine. The
server trusts X-Forwarded-For from 127.0.0.1 only, the address Caddy connects from.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import psutil
import redis

from tests.load.client import Api
from tests.load.harness import HOST, ROOT, ServerGroup, free_port, wait_until

PROXY_ADDRESS = "127.0.0.1"  # where Caddy (and only Caddy) connects from
WEBHOOK_SECRET = "attack-run-webhook-secret-0123456789"
WEBHOOK_PATH = "/tg/hook"


def client_address(n: int) -> str:
    """A loopback address of client ``n`` (never the proxy's)."""
    return f"127.0.{n // 250}.{2 + n % 250}"


@contextlib.asynccontextmanager
async def client(base_url: str, n: int, *, limit: int = 100) -> AsyncIterator[Api]:
    """An API client whose connections come from ``client_address(n)``."""
    connector = aiohttp.TCPConnector(limit=limit, local_addr=(client_address(n), 0))
    async with aiohttp.ClientSession(connector=connector) as http:
        yield Api(base_url, http)


@dataclass
class RedisProcess:
    """A redis-server of our own, with any options (a password, a memory ceiling)."""

    args: list[str] = field(default_factory=list)
    password: str | None = None
    port: int = 0
    proc: subprocess.Popen[bytes] | None = None
    workdir: Path | None = None

    @property
    def url(self) -> str:
        auth = f":{self.password}@" if self.password else ""
        return f"redis://{auth}{HOST}:{self.port}/0"

    def client(self) -> redis.Redis:
        return redis.Redis.from_url(self.url, decode_responses=True, socket_timeout=10)

    def __enter__(self) -> RedisProcess:
        self.port = self.port or free_port()
        self.workdir = Path(tempfile.mkdtemp(prefix="sab-sec-redis-"))
        args = ["redis-server", "--port", str(self.port), "--bind", HOST, "--save", ""]
        args += ["--appendonly", "no", "--dir", str(self.workdir), "--maxclients", "10000"]
        if self.password:
            args += ["--requirepass", self.password]
        self.proc = subprocess.Popen(
            args + self.args, start_new_session=True, stdout=subprocess.DEVNULL
        )
        try:
            wait_until(lambda: self.client().ping(), 15, "redis-server")
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None:
            self.proc.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(5)
            if self.proc.poll() is None:
                self.proc.kill()
        if self.workdir is not None:
            shutil.rmtree(self.workdir, ignore_errors=True)


def api_server(redis_url: str, *, workers: int = 2, **env: str) -> ServerGroup:
    """The API alone (``API_ONLY``), behind a proxy at ``PROXY_ADDRESS``."""
    extra = {
        "TRUSTED_PROXIES": PROXY_ADDRESS,
        # initData signed up to 8 days ago still signs in: the lifetime check can then be
        # shown in seconds (a sign-in 7 days minus a few seconds old)
        "INITDATA_MAX_AGE": str(8 * 86400),
        "LOAD_LOG_LEVEL": "WARNING",
        **env,
    }
    return ServerGroup(redis_url, workers=workers, prefix="sec:", extra_env=extra)


def bot_server(redis_url: str, bot_api_url: str, *, workers: int = 2) -> ServerGroup:
    """The bot in webhook mode (Telegram is the fake Bot API at ``bot_api_url``)."""
    extra = {
        "TELEGRAM_API_BASE_URL": bot_api_url,
        "WEBHOOK_URL": f"https://saboteur.invalid{WEBHOOK_PATH}",
        "WEBHOOK_SECRET": WEBHOOK_SECRET,
        "BOT_USERNAME": "SaboteurTestBot",
        "TRUSTED_PROXIES": PROXY_ADDRESS,
    }
    return ServerGroup(
        redis_url, workers=workers, prefix="secbot:", extra_env=extra, api_only=False
    )


def caddy_binary() -> str | None:
    for candidate in (Path(sys.executable).parent / "caddy", shutil.which("caddy")):
        if candidate and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


@dataclass
class Caddy:
    """deploy/Caddyfile as shipped, adapted for plain HTTP on a loopback port in front of
    ``upstream`` (only the listener, TLS and the admin endpoint differ)."""

    upstream: str
    port: int = 0
    proc: subprocess.Popen[bytes] | None = None
    home: Path | None = None

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def config(self) -> dict[str, Any]:
        binary = caddy_binary()
        assert binary is not None
        env = {**os.environ, "PUBLIC_URL": self.base_url, "APP_UPSTREAM": self.upstream}
        done = subprocess.run(
            [binary, "adapt", "--config", str(ROOT / "deploy/Caddyfile"), "--adapter", "caddyfile"],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        config: dict[str, Any] = json.loads(done.stdout)
        config["admin"] = {"disabled": True}
        for server in config["apps"]["http"]["servers"].values():
            server["listen"] = [f"{HOST}:{self.port}"]
            server["automatic_https"] = {"disable": True}
        return config

    def __enter__(self) -> Caddy:
        self.port = self.port or free_port()
        self.home = Path(tempfile.mkdtemp(prefix="sab-sec-caddy-"))
        path = self.home / "caddy.json"
        path.write_text(json.dumps(self.config()))
        env = {**os.environ, "HOME": str(self.home), "XDG_DATA_HOME": str(self.home / "d")}
        env["XDG_CONFIG_HOME"] = str(self.home / "c")
        binary = caddy_binary()
        assert binary is not None
        log = (self.home / "caddy.log").open("wb")
        self.proc = subprocess.Popen(
            [binary, "run", "--config", str(path)],
            env=env,
            stdout=log,
            stderr=log,
            start_new_session=True,
        )
        log.close()
        try:
            wait_until(lambda: _healthy(self.base_url), 20, "caddy")
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None:
            self.proc.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(10)
            if self.proc.poll() is None:
                self.proc.kill()
        if self.home is not None:
            shutil.rmtree(self.home, ignore_errors=True)


def _name(proc: psutil.Process) -> str:
    with contextlib.suppress(psutil.Error):
        return str(proc.name())
    return ""


def _healthy(base_url: str) -> bool:
    import urllib.request

    with urllib.request.urlopen(f"{base_url}/healthz", timeout=2) as response:
        return bool(response.status == 200)


@contextlib.contextmanager
def cpu_meter(server: ServerGroup) -> Iterator[dict[str, float]]:
    """CPU seconds the server's HTTP workers spent inside the block (``result["cpu_s"]``;
    the timer process is left out: it serves no request)."""
    out: dict[str, float] = {}
    procs = [p for p in server.worker_procs() if _name(p) != "sab-timers"]

    def total() -> float:
        seconds = 0.0
        for p in procs:
            with contextlib.suppress(psutil.Error):
                t = p.cpu_times()
                seconds += t.user + t.system
        return seconds

    began, wall = total(), time.monotonic()
    try:
        yield out
    finally:
        out["cpu_s"] = total() - began
        out["wall_s"] = time.monotonic() - wall


async def raw_connections(
    host: str, port: int, count: int, n: int, *, send: bytes
) -> list[tuple[asyncio.StreamReader, asyncio.StreamWriter]]:
    """``count`` TCP connections from client ``n``'s address, each sent ``send``."""
    out = []
    for _ in range(count):
        reader, writer = await asyncio.open_connection(
            host, port, local_addr=(client_address(n), 0)
        )
        writer.write(send)
        await writer.drain()
        out.append((reader, writer))
    return out


async def still_open(
    conns: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]], trickle: bytes
) -> int:
    """How many of ``conns`` are open: each sends ``trickle`` (the next slow header byte);
    a closed one has EOF or fails to write."""
    alive = 0
    for reader, writer in conns:
        if reader.at_eof() or writer.is_closing():
            continue
        try:
            writer.write(trickle)
            await writer.drain()
        except (ConnectionError, OSError):
            continue
        await asyncio.sleep(0)
        if not reader.at_eof():
            alive += 1
    return alive
