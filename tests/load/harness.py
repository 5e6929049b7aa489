"""Real processes for the load, chaos and fuzz runs: a private redis-server and the server.

Why real processes: the claims under test (several workers share games through Redis, a
killed worker loses nothing, Redis restarts with its AOF) are about processes, sockets and
files, which an in-process test server cannot show. Everything here binds 127.0.0.1 on a
free port, lives in its own temporary directory and process group, and is torn down by
``close()`` (use the context managers, so a failing run still cleans up).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import psutil
import redis

ROOT = Path(__file__).resolve().parents[2]
BOT_TOKEN = "4242424242:LOAD-test-token-not-a-real-bot"
SESSION_SECRET = "load-test-session-secret"
HOST = "127.0.0.1"


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def wait_until(check: object, timeout: float, what: str, interval: float = 0.05) -> None:
    """Poll ``check()`` until truthy; raise TimeoutError naming ``what``."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            if check():  # type: ignore[operator]
                return
        except Exception:
            pass
        time.sleep(interval)
    raise TimeoutError(f"{what} not ready within {timeout:.0f} s")


def _kill_group(proc: subprocess.Popen[bytes], grace: float) -> None:
    """SIGTERM the process group, then SIGKILL whatever is left after ``grace`` seconds."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(grace)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(5)


@dataclass(frozen=True)
class TlsFiles:
    """A self-signed certificate for 127.0.0.1 (its own CA) and its key, as PEM files."""

    cert: Path
    key: Path

    @classmethod
    def make(cls, directory: Path) -> TlsFiles:
        """Made with the ``openssl`` command (EC P-256, cheap handshakes on a shared CPU;
        one day; SAN IP:127.0.0.1)."""
        cert, key = directory / "redis-cert.pem", directory / "redis-key.pem"
        subprocess.run(
            [
                "openssl",
                "req",
                "-x509",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:prime256v1",
                "-nodes",
                "-days",
                "1",
                "-subj",
                f"/CN={HOST}",
                "-addext",
                f"subjectAltName=IP:{HOST}",
                "-keyout",
                str(key),
                "-out",
                str(cert),
            ],
            check=True,
            capture_output=True,
            timeout=60,
        )
        return cls(cert, key)

    def server_args(self) -> list[str]:
        """redis-server / sentinel options: TLS only (the plain port is off), clients
        without certificates, and TLS to the master for replicas and sentinels."""
        return [
            "--tls-cert-file",
            str(self.cert),
            "--tls-key-file",
            str(self.key),
            "--tls-ca-cert-file",
            str(self.cert),
            "--tls-auth-clients",
            "no",
            "--tls-replication",
            "yes",
        ]


@dataclass
class RedisServer:
    """A redis-server of our own (never the shared 6379), optionally with AOF fsync=always,
    TLS only (``tls``: then ``url`` is ``rediss://``), and any further options."""

    aof: bool = False
    port: int = 0
    workdir: Path | None = None
    proc: subprocess.Popen[bytes] | None = None
    tls: TlsFiles | None = None
    extra_args: list[str] = field(default_factory=list)
    _own_dir: bool = False

    @property
    def url(self) -> str:
        if self.tls is not None:
            return f"rediss://{HOST}:{self.port}/0?ssl_ca_certs={self.tls.cert}"
        return f"redis://{HOST}:{self.port}/0"

    def client(self) -> redis.Redis:
        if self.tls is not None:
            return redis.Redis(
                host=HOST,
                port=self.port,
                socket_timeout=10,
                decode_responses=True,
                ssl=True,
                ssl_ca_certs=str(self.tls.cert),
            )
        return redis.Redis(host=HOST, port=self.port, socket_timeout=10, decode_responses=True)

    def start(self) -> RedisServer:
        if self.workdir is None:
            self.workdir = Path(tempfile.mkdtemp(prefix="sab-redis-"))
            self._own_dir = True
        self.workdir.mkdir(parents=True, exist_ok=True)
        if not self.port:
            self.port = free_port()
        args = [
            "redis-server",
            *(["--port", "0", "--tls-port"] if self.tls is not None else ["--port"]),
            str(self.port),
            "--bind",
            HOST,
            "--dir",
            str(self.workdir),
            "--save",
            "",
            "--protected-mode",
            "yes",
            "--loglevel",
            "warning",
            "--logfile",
            str(self.workdir / "redis.log"),
            "--maxclients",
            "10000",
        ]
        if self.aof:
            args += ["--appendonly", "yes", "--appendfsync", "always"]
        else:
            args += ["--appendonly", "no"]
        if self.tls is not None:
            args += self.tls.server_args()
        args += self.extra_args
        self.proc = subprocess.Popen(args, start_new_session=True, stdout=subprocess.DEVNULL)
        wait_until(self._answers, 15, "redis-server")
        return self

    def _answers(self) -> bool:
        if self.proc is not None and self.proc.poll() is not None:
            raise RuntimeError(f"redis-server exited with {self.proc.returncode}")
        client = self.client()
        try:
            return bool(client.ping())
        finally:
            client.close()

    def kill(self) -> None:
        """kill -9: whatever was fsynced to the AOF is what comes back."""
        if self.proc is not None:
            _kill_group(self.proc, 0)
            self.proc = None

    def restart(self) -> float:
        """Kill -9 and start again on the same port and dir; returns seconds it was down."""
        began = time.monotonic()
        self.kill()
        self.start()
        return time.monotonic() - began

    def close(self) -> None:
        if self.proc is not None:
            _kill_group(self.proc, 3)
            self.proc = None
        if self._own_dir and self.workdir is not None:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class ServerGroup:
    """``python -m telegram_bot`` with ``WORKERS`` processes (a supervisor + N workers)."""

    redis_url: str
    workers: int = 2
    port: int = 0
    prefix: str = "load:"
    extra_env: dict[str, str] = field(default_factory=dict)
    api_only: bool = True
    proc: subprocess.Popen[bytes] | None = None
    logdir: Path | None = None
    cpus: list[int] | None = None  # CPU affinity of the supervisor (its workers inherit it)
    _rss_procs: tuple[list[psutil.Process], float] = field(
        default_factory=lambda: ([], 0.0), repr=False
    )

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}"

    @property
    def log_path(self) -> Path:
        assert self.logdir is not None
        return self.logdir / "server.log"

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "WEBHOOK_"))}
        env.update(
            REDIS_URL=self.redis_url,
            REDIS_PREFIX=self.prefix,
            PORT=str(self.port),
            HOST=HOST,
            WORKERS=str(self.workers),
            TELEGRAM_BOT_TOKEN=BOT_TOKEN,
            SESSION_SECRET=SESSION_SECRET,
            LOG_LEVEL=os.environ.get("LOAD_LOG_LEVEL", "WARNING"),
            PYTHONUNBUFFERED="1",
        )
        if self.api_only:
            env["API_ONLY"] = "1"
        env.update(self.extra_env)
        return env

    def start(self, timeout: float = 60) -> ServerGroup:
        if not self.port:
            self.port = free_port()
        self.logdir = Path(tempfile.mkdtemp(prefix="sab-server-"))
        log = self.log_path.open("ab")
        cpus = self.cpus
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "telegram_bot"],
            cwd=ROOT,
            env=self.env(),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=(lambda: os.sched_setaffinity(0, cpus)) if cpus else None,
        )
        log.close()
        wait_until(self._healthy, timeout, f"server on port {self.port}", 0.2)
        if self.workers > 1:
            wait_until(
                lambda: len(self.listening_workers()) == self.workers,
                timeout,
                f"{self.workers} workers listening",
                0.2,
            )
        return self

    def _healthy(self) -> bool:
        if self.proc is not None and self.proc.poll() is not None:
            raise RuntimeError(f"server exited with {self.proc.returncode}:\n{self.log_tail()}")
        with urllib.request.urlopen(f"{self.base_url}/healthz", timeout=2) as resp:
            return bool(resp.status == 200)

    def worker_procs(self) -> list[psutil.Process]:
        """The worker processes (the supervisor itself when WORKERS=1)."""
        if self.proc is None:
            return []
        try:
            top = psutil.Process(self.proc.pid)
            if self.workers <= 1:
                return [top]
            return [
                p
                for p in top.children()
                if "resource_tracker" not in " ".join(_cmdline(p)) and p.is_running()
            ]
        except psutil.Error:
            return []

    def listening_workers(self) -> list[psutil.Process]:
        out = []
        for p in self.worker_procs():
            with contextlib.suppress(psutil.Error):
                if any(
                    c.status == psutil.CONN_LISTEN and c.laddr and c.laddr.port == self.port
                    for c in p.net_connections(kind="tcp")
                ):
                    out.append(p)
        return out

    def kill_worker(self, index: int | None = None) -> int | None:
        """kill -9 one worker (the supervisor restarts it); returns its pid."""
        procs = self.worker_procs()
        if not procs:
            return None
        victim = procs[(index or 0) % len(procs)]
        with contextlib.suppress(psutil.Error):
            victim.send_signal(signal.SIGKILL)
            return int(victim.pid)
        return None

    def rss_mb(self) -> list[float]:
        """Each worker's RSS. Sampled every second during a run, so the list of workers
        is kept for 10 s (or until one is gone): finding a process's children scans all
        of /proc (~7 ms here), a stall of the load generator's loop every second."""
        procs, since = self._rss_procs
        now = time.monotonic()
        if not procs or now - since > 10 or not all(p.is_running() for p in procs):
            procs = self.worker_procs()
            self._rss_procs = (procs, now)
        out = []
        for p in procs:
            with contextlib.suppress(psutil.Error):
                out.append(p.memory_info().rss / 2**20)
        return out

    def cpu_seconds(self) -> float:
        return sum(self.cpu_by_process().values())

    def cpu_by_process(self) -> dict[int, float]:
        """Each worker's (and the timer process's) CPU seconds so far, by pid: how evenly
        the kernel's ``SO_REUSEPORT`` placement spreads the load shows in the split."""
        out = {}
        for p in self.worker_procs():
            with contextlib.suppress(psutil.Error):
                t = p.cpu_times()
                out[p.pid] = t.user + t.system
        return out

    def pool_cpu_by_process(self) -> dict[int, float]:
        """CPU seconds of the AI pool's processes (the children a server process started
        for ``hard`` decisions, core/service/ai_pool.py), by pid: they are not among
        ``worker_procs``, so their CPU is reported beside the workers'."""
        out = {}
        for parent in self.worker_procs():
            with contextlib.suppress(psutil.Error):
                for p in parent.children(recursive=True):
                    if "resource_tracker" in " ".join(_cmdline(p)):
                        continue
                    with contextlib.suppress(psutil.Error):
                        t = p.cpu_times()
                        out[p.pid] = t.user + t.system
        return out

    def process_names(self) -> dict[int, str]:
        """pid -> the name the product gives its processes (``sab-worker-0``,
        ``sab-timers``; see telegram_bot.main._name_process)."""
        out = {}
        for p in self.worker_procs():
            with contextlib.suppress(psutil.Error):
                out[p.pid] = p.name()
        return out

    def log_tail(self, lines: int = 40) -> str:
        if self.logdir is None or not self.log_path.exists():
            return ""
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])

    def log_errors(self) -> list[str]:
        """Lines the server logged at ERROR (tracebacks of unexpected failures)."""
        if self.logdir is None or not self.log_path.exists():
            return []
        return [
            line
            for line in self.log_path.read_text(errors="replace").splitlines()
            if " ERROR " in line or " CRITICAL " in line
        ]

    def close(self) -> None:
        if self.proc is not None:
            _kill_group(self.proc, 10)
            self.proc = None
        if self.logdir is not None and not os.environ.get("LOAD_KEEP_LOGS"):
            shutil.rmtree(self.logdir, ignore_errors=True)

    def __enter__(self) -> ServerGroup:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


def _cmdline(p: psutil.Process) -> list[str]:
    with contextlib.suppress(psutil.Error):
        return p.cmdline()
    return []
