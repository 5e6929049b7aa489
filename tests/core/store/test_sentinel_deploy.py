"""The Sentinel deployment example (``deploy/compose.sentinel.yml``, ``deploy/sentinel.conf``):
the compose override is wired as the README says (Docker cannot run here), and the
sentinel configuration really runs on Debian's redis-server and watches a master."""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
import redis
import yaml

from core.store.connection import parse_sentinel_url
from tests.load.harness import HOST, RedisServer, free_port, wait_until

ROOT = Path(__file__).resolve().parents[3]
DEPLOY = ROOT / "deploy"


@pytest.fixture(scope="module")
def override() -> dict[str, Any]:
    data = yaml.safe_load((DEPLOY / "compose.sentinel.yml").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def monitored_service() -> tuple[str, str, int, int]:
    text = (DEPLOY / "sentinel.conf").read_text(encoding="utf-8")
    match = re.search(r"^sentinel monitor (\S+) (\S+) (\d+) (\d+)$", text, re.M)
    assert match, "sentinel.conf monitors no master"
    name, host, port, quorum = match.groups()
    return name, host, int(port), int(quorum)


def test_the_app_finds_the_master_through_three_sentinels(override: dict[str, Any]) -> None:
    services = override["services"]
    assert {"redis-replica", "sentinel-1", "sentinel-2", "sentinel-3"} <= set(services)
    target = parse_sentinel_url(services["app"]["environment"]["REDIS_URL"])
    name, host, port, quorum = monitored_service()
    assert target.service == name
    assert target.sentinels == [(f"sentinel-{i}", 26379) for i in (1, 2, 3)]
    assert (host, port, quorum) == ("redis", 6379, 2)  # the base file's Redis; a majority
    for i in (1, 2, 3):
        assert services["app"]["depends_on"][f"sentinel-{i}"] == {"condition": "service_healthy"}


def test_the_replica_follows_the_master_with_its_own_data(override: dict[str, Any]) -> None:
    replica = override["services"]["redis-replica"]
    command = replica["command"]
    assert command[command.index("--replicaof") + 1 :][:2] == ["redis", "6379"]
    assert "./deploy/redis.conf:/usr/local/etc/redis/redis.conf:ro" in replica["volumes"]
    assert "redis-replica-data:/data" in replica["volumes"]  # its own append-only file
    assert "redis-cli ping" in " ".join(replica["healthcheck"]["test"])


def test_each_sentinel_has_its_own_writable_copy(override: dict[str, Any]) -> None:
    volumes = set()
    for i in (1, 2, 3):
        sentinel = override["services"][f"sentinel-{i}"]
        assert "./deploy/sentinel.conf:/etc/sentinel/sentinel.conf:ro" in sentinel["volumes"]
        data = next(v for v in sentinel["volumes"] if v.endswith(":/data"))
        volumes.add(data)
        assert data.split(":")[0] in override["volumes"]
        assert "--sentinel" in " ".join(sentinel["command"])
        assert "26379" in " ".join(sentinel["healthcheck"]["test"])
    assert len(volumes) == 3


@pytest.mark.topology
@pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")
def test_sentinel_conf_runs_and_watches_the_master(tmp_path: Path) -> None:
    """deploy/sentinel.conf as it ships, but for the master's address (a loopback port
    instead of the compose name), its port and its directory."""
    name, _, _, quorum = monitored_service()
    with RedisServer(workdir=tmp_path / "master") as master:
        port = free_port()
        text = (DEPLOY / "sentinel.conf").read_text(encoding="utf-8")
        text = text.replace("port 26379", f"port {port}\nbind {HOST}")
        text = text.replace("dir /data", f"dir {tmp_path}")
        text = text.replace("saboteur redis 6379", f"saboteur {HOST} {master.port}")
        conf = tmp_path / "sentinel.conf"
        conf.write_text(text)
        proc = subprocess.Popen(
            ["redis-server", str(conf), "--sentinel"], stdout=subprocess.DEVNULL
        )
        try:
            client = redis.Redis(host=HOST, port=port, decode_responses=True, socket_timeout=5)
            wait_until(client.ping, 15, "the sentinel")
            state = client.execute_command("SENTINEL", "MASTER", name)
            assert int(state["port"]) == master.port and int(state["quorum"]) == quorum
            assert int(state["down-after-milliseconds"]) == 5000
            deadline = time.monotonic() + 10
            while "master" not in state["flags"] or "disconnected" in state["flags"]:
                assert time.monotonic() < deadline, state
                time.sleep(0.1)
                state = client.execute_command("SENTINEL", "MASTER", name)
            client.close()
        finally:
            proc.terminate()
            proc.wait(10)
