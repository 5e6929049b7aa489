"""A Redis Sentinel topology of real processes: 1 master, 1 replica, 3 sentinels.

Debian's ``redis-server`` on free loopback ports (a sentinel is ``redis-server
<config> --sentinel``), each in its own directory and process group, with short failover
timeouts (down after 0.5 s, failover timeout 2 s) so that a test sees a whole failover in
a few seconds. ``tls`` runs every process TLS-only with one self-signed certificate.
``url`` is the ``redis+sentinel://`` URL the store takes; ``kill_master()`` is kill -9,
``wait_failover()`` waits until every sentinel names the replica as the master.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import redis

from tests.load.harness import HOST, RedisServer, TlsFiles, _kill_group, free_port, wait_until

TOPOLOGY_MARKER = (
    "topology: starts its own Redis topology (Sentinel, TLS) or several app hosts, real "
    "processes on free ports; part of ./dev test (pytest -m topology runs them alone)"
)
SERVICE = "sabmaster"
DOWN_AFTER_MS = 500
FAILOVER_TIMEOUT_MS = 2000


@dataclass
class SentinelProcess:
    """One ``redis-server --sentinel`` watching ``SERVICE`` at the given master port."""

    master_port: int
    workdir: Path
    quorum: int = 2
    tls: TlsFiles | None = None
    port: int = 0
    proc: subprocess.Popen[bytes] | None = None

    def start(self) -> SentinelProcess:
        self.port = self.port or free_port()
        self.workdir.mkdir(parents=True, exist_ok=True)
        conf = self.workdir / "sentinel.conf"  # a sentinel rewrites its config: our own copy
        lines = [
            f"bind {HOST}",
            f"port {0 if self.tls else self.port}",
            f"dir {self.workdir}",
            f"logfile {self.workdir / 'sentinel.log'}",
            f"sentinel monitor {SERVICE} {HOST} {self.master_port} {self.quorum}",
            f"sentinel down-after-milliseconds {SERVICE} {DOWN_AFTER_MS}",
            f"sentinel failover-timeout {SERVICE} {FAILOVER_TIMEOUT_MS}",
            f"sentinel parallel-syncs {SERVICE} 1",
        ]
        if self.tls is not None:
            lines.append(f"tls-port {self.port}")
            args = self.tls.server_args()
            lines += [f"{args[i][2:]} {args[i + 1]}" for i in range(0, len(args), 2)]
        conf.write_text("\n".join(lines) + "\n")
        self.proc = subprocess.Popen(
            ["redis-server", str(conf), "--sentinel"],
            start_new_session=True,
            stdout=subprocess.DEVNULL,
        )
        wait_until(lambda: self.client().ping(), 15, "redis-sentinel")
        return self

    def client(self) -> redis.Redis:
        kwargs = {"ssl": True, "ssl_ca_certs": str(self.tls.cert)} if self.tls else {}
        return redis.Redis(
            host=HOST, port=self.port, socket_timeout=5, decode_responses=True, **kwargs
        )

    def master(self) -> dict[str, object]:
        client = self.client()
        try:
            return dict(client.execute_command("SENTINEL", "MASTER", SERVICE))
        finally:
            client.close()

    def master_port_now(self) -> int | None:
        client = self.client()
        try:
            addr = client.execute_command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", SERVICE)
        finally:
            client.close()
        return int(addr[1]) if addr else None

    def close(self) -> None:
        if self.proc is not None:
            _kill_group(self.proc, 3)
            self.proc = None


@dataclass
class SentinelTopology:
    """1 master + ``replicas`` replicas + ``sentinels`` sentinels (quorum: a majority)."""

    replicas: int = 1
    sentinels: int = 3
    tls: bool = False
    workdir: Path | None = None
    servers: list[RedisServer] = field(default_factory=list)  # [0] is the first master
    watchers: list[SentinelProcess] = field(default_factory=list)
    tls_files: TlsFiles | None = None

    @property
    def url(self) -> str:
        hosts = ",".join(f"{HOST}:{s.port}" for s in self.watchers)
        if self.tls_files is not None:
            return f"rediss+sentinel://{hosts}/{SERVICE}/0?ssl_ca_certs={self.tls_files.cert}"
        return f"redis+sentinel://{hosts}/{SERVICE}/0"

    def start(self) -> SentinelTopology:
        self.workdir = Path(tempfile.mkdtemp(prefix="sab-sentinel-"))
        if self.tls:
            self.tls_files = TlsFiles.make(self.workdir)
        common = ["--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0"]
        master = RedisServer(
            workdir=self._dir("redis-0"), tls=self.tls_files, extra_args=list(common)
        ).start()
        self.servers.append(master)
        for i in range(self.replicas):
            replica = RedisServer(
                workdir=self._dir(f"redis-{i + 1}"),
                tls=self.tls_files,
                extra_args=[*common, "--replicaof", HOST, str(master.port)],
            ).start()
            self.servers.append(replica)
        quorum = self.sentinels // 2 + 1
        for i in range(self.sentinels):
            self.watchers.append(
                SentinelProcess(
                    master.port, self._dir(f"sentinel-{i}"), quorum, tls=self.tls_files
                ).start()
            )
        wait_until(self._ready, 30, "sentinels that know the replicas and each other", 0.1)
        return self

    def _dir(self, name: str) -> Path:
        assert self.workdir is not None
        path = self.workdir / name
        path.mkdir(parents=True, exist_ok=True)
        return path

    def _ready(self) -> bool:
        for watcher in self.watchers:
            state = watcher.master()
            if int(str(state["num-slaves"])) < self.replicas:
                return False
            if int(str(state["num-other-sentinels"])) < self.sentinels - 1:
                return False
        return self._replicas_in_sync()

    def _replicas_in_sync(self) -> bool:
        client = self.master_server().client()
        try:
            info = client.info("replication")
        finally:
            client.close()
        return int(info.get("connected_slaves", 0)) >= self.replicas

    def master_server(self) -> RedisServer:
        port = self.watchers[0].master_port_now()
        return next(s for s in self.servers if s.port == port)

    def kill_master(self) -> RedisServer:
        """kill -9 the current master (its process, not its directory); returns it."""
        master = self.master_server()
        master.kill()
        return master

    def wait_failover(self, old_port: int, timeout: float = 30) -> float:
        """Seconds until every sentinel names another master than ``old_port``."""
        began = time.monotonic()

        def moved() -> bool:
            ports = {w.master_port_now() for w in self.watchers}
            return len(ports) == 1 and old_port not in ports

        wait_until(moved, timeout, "a failover", 0.05)
        return time.monotonic() - began

    def restart(self, server: RedisServer, timeout: float = 30) -> None:
        """Start a killed server again (empty: no persistence here) as a replica of the
        current master, and wait until it is in sync. (The sentinels would make it one by
        themselves, within the 10 s they take to poll a demoted master's INFO: an
        operator's restart script names the master at once, as this does.)"""
        master = self.master_server()
        server.start()
        client = server.client()
        try:
            client.execute_command("REPLICAOF", HOST, str(master.port))
        finally:
            client.close()
        wait_until(self._replicas_in_sync, timeout, "the restarted server as a replica", 0.1)

    def close(self) -> None:
        for watcher in self.watchers:
            watcher.close()
        for server in self.servers:
            server.close()
        if self.workdir is not None:
            with contextlib.suppress(OSError):
                shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self) -> SentinelTopology:
        try:
            return self.start()
        except BaseException:
            self.close()
            raise

    def __exit__(self, *exc: object) -> None:
        self.close()
