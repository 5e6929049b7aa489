"""Redis Sentinel, real processes (1 master + 1 replica + 3 sentinels, short failover
timeouts): several worker processes racing on one game through the Sentinel URL, and the
master killed -9 mid-stream (``tests/chaos/failover.py``) with and without the replica
wait. The store's contract suite also runs through Sentinel (``conftest.store``)."""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path

import pytest

from core.service import GameService, ServiceConfig
from core.store import RedisStore
from tests.chaos.failover import run_failover
from tests.core.service.test_service_processes import (
    check_integrity,
    racing_submitters,
    read_acks,
    six_humans,
    wait_all,
)
from tests.load.topology import SentinelTopology

pytestmark = [
    pytest.mark.topology,
    pytest.mark.timeout(180),
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server"),
]

# README "What a failover can lose": without the replica wait, only moves acknowledged
# in the last instant before the master died, still in the replication stream
LOSS_WINDOW_MS = 1000


async def test_worker_processes_racing_through_sentinel_keep_one_history(
    sentinel_topology: SentinelTopology, tmp_path: Path
) -> None:
    url, prefix = sentinel_topology.url, f"race{uuid.uuid4().hex[:8]}:"
    store = RedisStore.from_url(url, prefix=prefix)
    try:
        service = GameService(store, ServiceConfig(think_delay_s=0.0, bot_ready_delay_s=0.0))
        game_id, start = await six_humans(service)
        outs = [tmp_path / f"acks{i}.jsonl" for i in range(3)]
        procs = await racing_submitters(url, prefix, game_id, outs, "3")
        await wait_all(procs, 60)
        assert [p.returncode for p in procs] == [0, 0, 0]
        acks = read_acks(outs)
        log = await check_integrity(service, game_id, start, acks)
        assert len(acks) == len(log) >= 20
        assert sum(1 for o in outs if o.exists() and o.read_text()) >= 2  # real contention
    finally:
        await store.close()


def assert_sound(report: dict[str, object]) -> None:
    assert report["games_corrupted"] == 0, report
    assert report["made_twice"] == 0, report
    assert report["log_entries_of_no_submission"] == 0, report
    assert isinstance(report["moves_acknowledged"], int) and report["moves_acknowledged"] > 50
    # the games went on under the new master: players' moves and the computer's timers
    assert report["first_move_ok_after_kill_s"] is not None, report
    assert report["computer_games_moving_after_failover"] == report["computer_games"], report
    assert report["renumbered_games"] == report["games"], report  # one epoch up, each
    assert report["games_last_version_announced"] == report["games"] - report["computer_games"]


async def test_failover_with_the_replica_wait_loses_no_acknowledged_move() -> None:
    report = await run_failover(replica_wait_ms=500, before_s=1.5, after_s=1.5)
    assert_sound(report)
    assert report["acknowledged_then_lost"] == 0, report


async def test_failover_without_the_replica_wait_loses_at_most_the_last_instant() -> None:
    report = await run_failover(replica_wait_ms=0, before_s=1.5, after_s=1.5)
    assert_sound(report)
    lost_ms = report["lost_acknowledged_ms_before_kill"]
    assert isinstance(lost_ms, list)
    assert all(ms <= LOSS_WINDOW_MS for ms in lost_ms), report
