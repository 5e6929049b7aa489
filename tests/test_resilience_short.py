"""Short CI versions of the load, chaos, fuzz and duplicate-delivery runs (loose bounds).

Each test starts its own redis-server on a free port and ``python -m telegram_bot`` with
two workers (real processes, loopback only), so the shared Redis on 6379 is never
touched. The full runs and their figures: docs/benchmarks/load.md. The bounds here are
loose on purpose (the machine is shared); the correctness checks are not: no game lost
or corrupted, no acknowledged move lost, no stuck timer, no 5xx, every forgery 401.
"""

from __future__ import annotations

import asyncio
import shutil
from typing import Any

import aiohttp
import pytest

from tests.chaos.__main__ import verdict
from tests.chaos.duplicates import run_duplicates
from tests.chaos.proxy import ProxyProcess
from tests.chaos.scenarios import cut_redis, kill_workers, restart_redis
from tests.fuzz.hostile import DEEP_KINDS, deep
from tests.fuzz.run import run_fuzz
from tests.load.client import Api
from tests.load.driver import Driver
from tests.load.harness import RedisServer, ServerGroup
from tests.load.run import LoadConfig, run_load

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(240),
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server"),
]


def small(**kw: Any) -> LoadConfig:
    base: dict[str, Any] = dict(
        workers=2, games=24, timed_games=6, rates=[20.0], duration=6.0, settle=2.0
    )
    base.update(kw)
    return LoadConfig(**base)


_RESTART: dict[str, Any] = {}


async def restart_report() -> dict[str, Any]:
    """One Redis-restart run shared by the two tests that read it (saves CI time)."""
    if "report" not in _RESTART:
        _RESTART["report"] = await run_load(
            small(duration=14.0, aof=True), during=restart_redis(1, 4.0)
        )
    return dict(_RESTART["report"])


def assert_intact(report: dict[str, Any]) -> None:
    integrity = report["integrity"]
    assert integrity["games_lost"] == 0, integrity
    assert integrity["games_corrupted"] == 0, integrity
    assert integrity["acknowledged_then_lost"] == 0, integrity
    assert integrity["moves_acknowledged"] > 0, integrity


async def test_load_short() -> None:
    report = await run_load(small(rates=[15.0, 30.0], duration=5.0))
    assert_intact(report)
    for step in report["steps"]:
        assert step["errors"] == 0, step["error_kinds"]
        assert step["achieved_moves_per_s"] >= 0.5 * step["offered_moves_per_s"], step
        assert step["post_move_ms"]["p50"] < 1000, step["post_move_ms"]
        # the per-process CPU split names each process
        assert set(step["worker_cpu_cores_each"]) == {
            "sab-worker-0",
            "sab-worker-1",
            "sab-timers",
        }, step
    assert report["timers"]["stuck_games"] == 0, report["timers"]
    assert report["timers"]["timers_seen_firing"] > 0
    assert report["ws_acked_versions_never_announced"] == 0
    assert report["redis_memory"]["memory_usage_keys_per_game_kb"] > 0
    assert report["resources"]["worker_rss_mb_max_each"] > 0
    assert report["server_error_log_lines"] == 0, report["server_error_examples"]


async def test_load_short_with_hard_tables() -> None:
    """Tables the computer plays at level hard, beside the API games (tests.load.hard):
    the timer process's pool makes their decisions while every API request succeeds."""
    report = await run_load(
        small(games=12, timed_games=0, hard_games=2, hard_think_delay=0.5, duration=8.0)
    )
    assert_intact(report)
    hard = report["hard_tables"]
    assert hard["decisions"] >= 1, hard
    assert hard["errors"] == 0, hard["error_kinds"]
    assert hard["tables_live_min"] == 2, hard
    for step in report["steps"]:
        assert step["errors"] == 0, step["error_kinds"]
        assert set(step["statuses"]) == {"200"}, step["statuses"]
        # the step's own window: the tables kept deciding while the API games ran
        assert step["hard_tables"]["decisions"] >= 1, step["hard_tables"]
        assert step["hard_tables"]["errors"] == 0, step["hard_tables"]
    assert report["server_error_log_lines"] == 0, report["server_error_examples"]


async def test_chaos_kill_short() -> None:
    report = await run_load(small(duration=14.0), during=kill_workers(3, 2.5))
    assert_intact(report)
    assert report["chaos"]["kills"] == 3
    # the third kill hits the timer process: the workers' fallback fires its deadlines
    assert report["chaos"]["timer_process_kills"] == 1, report["chaos"]
    assert report["chaos"]["timer_process_back_s"]["n"] == 1, report["chaos"]
    assert report["chaos"]["workers_not_back_within_30s"] == 0
    assert report["timers"]["stuck_games"] == 0, report["timers"]
    assert verdict(report)


async def test_chaos_redis_restart_no_stuck_turns() -> None:
    report = await restart_report()
    assert report["timers"]["stuck_games"] == 0, report["timers"]


async def test_chaos_redis_restart_loses_nothing() -> None:
    """The integrity half of the same restart run, which holds (AOF, fsync always)."""
    report = await restart_report()
    assert_intact(report)
    restart = report["chaos"]["restarts"][0]
    assert restart["first_move_ok_after_s"] is not None and restart["first_move_ok_after_s"] < 10


async def test_chaos_redis_drop_short() -> None:
    holder: dict[str, ProxyProcess] = {}

    def via_proxy(url: str) -> str:
        holder["p"] = ProxyProcess(int(url.rsplit(":", 1)[1].split("/")[0])).start()
        return holder["p"].url

    async def hook(env: Any) -> None:
        await cut_redis(holder["p"], 1, 4.0, 2.0)(env)

    try:
        report = await run_load(small(duration=20.0), during=hook, server_redis_url=via_proxy)
    finally:
        if "p" in holder:
            holder["p"].close()
    assert_intact(report)
    assert report["chaos"]["cuts"][0]["first_move_ok_after_s"] is not None
    assert report["chaos"]["client_kill"]["first_move_ok_after_s"] is not None
    assert report["ws_acked_versions_never_announced"] == 0


async def test_fuzz_short() -> None:
    report = await run_fuzz(
        requests=1200,
        games=4,
        schemathesis_examples=5,
        schemathesis_time=25,
        wait_auth_timeout=False,
        skip=DEEP_KINDS,
    )
    hand = report["hand_made"]
    assert hand["hostile_requests"] >= 1200
    assert hand["5xx"] == 0, hand["5xx_examples"]
    assert hand["forgeries_not_401"] == 0, hand["forgery_examples"]
    assert hand["by_kind"]["forgery"] > 50
    assert report["schemathesis"]["requests"] > 0, report["schemathesis"]["output_tail"]
    assert report["schemathesis"]["5xx"] == 0, report["schemathesis"]["output_tail"]
    ws = report["websocket"]
    assert ws["bad_origin"] == "refused 403"
    assert ws["binary_first"] == ws["forged_token"] == "close 4401"
    assert ws["garbage_after_auth"]["after_200"] == "pong"
    assert report["healthy_after"] and report["pass"], report


async def test_duplicates_short() -> None:
    with RedisServer() as redis_server:
        report = await run_duplicates(redis_server.url, updates=2, deliveries=10, copies=100)
    assert report["webhook"]["processed_once"], report["webhook"]
    move = report["move"]
    assert move["statuses"].get("200") == 1, move
    assert move["log_entries"] == 1 and move["only_refusals_otherwise"], move


# ------------------------------------------------------------- known bugs (others' code)


@pytest.fixture
async def server_and_game() -> Any:
    with RedisServer() as redis_server, ServerGroup(redis_server.url, workers=1) as server:
        async with aiohttp.ClientSession() as http:
            api = Api(server.base_url, http)
            driver = Driver(api)
            game = await driver.new_human_game()
            yield api, game


async def test_deeply_nested_json_is_a_400(server_and_game: Any) -> None:
    api, game = server_and_game
    token = next(iter(game.tokens.values()))
    reply = await api.call("POST", f"/api/games/{game.game_id}/moves", token=token, raw=deep(5000))
    assert reply.status == 400, reply


async def test_many_concurrent_requests_on_one_worker(server_and_game: Any) -> None:
    api, game = server_and_game
    tokens = list(game.tokens.values())
    replies = await asyncio.gather(*(api.view(tokens[i % 3], game.game_id) for i in range(150)))
    statuses = {r.status for r in replies}
    assert statuses <= {200, 429}, statuses
