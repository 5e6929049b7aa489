"""Two independent app hosts (supervisor + 2 workers + timer process each) behind Caddy,
one killed with SIGKILL under load (``tests/chaos/hosts.py``): nothing lost, every game
goes on on the other host, its timers fire there, its WebSockets reconnect."""

from __future__ import annotations

import shutil

import pytest

from tests.chaos.hosts import caddy_binary, run_hosts

pytestmark = [
    pytest.mark.topology,
    pytest.mark.slow,
    pytest.mark.timeout(240),
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server"),
    pytest.mark.skipif(
        caddy_binary() is None, reason="no caddy binary (./dev test puts one in .venv/bin)"
    ),
]


async def test_a_host_killed_under_load_loses_nothing() -> None:
    report = await run_hosts(games=20, timed_games=6, rate=40.0, before_s=4.0, after_s=8.0)
    integrity = report["integrity"]
    assert integrity["games_lost"] == 0, integrity
    assert integrity["games_corrupted"] == 0, integrity
    assert integrity["acknowledged_then_lost"] == 0, integrity
    assert integrity["moves_acknowledged"] > 100, integrity
    moves = report["moves"]
    assert report["moves_ok_after_kill"] > 50, report
    assert report["games_that_did_not_move_after_kill"] == 0, report
    assert report["timers"]["stuck_games"] == 0, report["timers"]
    assert report["timers"]["timers_seen_firing"] > 0, report["timers"]
    assert moves["ws_reconnects"] >= 1, moves  # the sockets host A held came back via B
    assert report["ws_acked_versions_never_announced"] == 0, report["ws_never_announced_examples"]
    # the only client errors are the requests the dying host took with it (moves are sent
    # again with their submission id): none later than a few seconds after the kill
    late = report["errors_after_kill_s"]["max"]
    assert late is None or late < 5.0, report["errors_after_kill_s"]
    assert report["host_b_error_log_lines"] == 0, report["host_b_error_examples"]
