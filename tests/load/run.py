"""One load run end to end: Redis + server processes, games, rate steps, checks, report.

``LoadConfig`` is what the command line sets; ``run_load`` returns the report as a dict
(the CLI prints it as JSON). ``chaos`` hooks in through ``during``: a coroutine run
concurrently with the last rate step, given the live ``Env``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
import uuid
from collections.abc import Callable, Coroutine
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import psutil
import redis

from tests.load.client import Api
from tests.load.driver import Driver
from tests.load.fastclient import FastApi
from tests.load.hard import HardTables
from tests.load.harness import RedisServer, ServerGroup
from tests.load.monitor import Sampler, TimerWatch, redis_memory_per_game
from tests.load.selfwatch import SelfWatch, alignment
from tests.load.verify import verify

# seconds the report waits for the notices of moves acknowledged in the last step's final
# moment before it counts a version as never announced (below the sockets' RESYNC, 10 s)
NOTICE_GRACE = 3.0


@dataclass
class LoadConfig:
    workers: int = 2
    games: int = 1000
    timed_games: int = 0
    rates: list[float] = field(default_factory=lambda: [500.0])
    duration: float = 30.0
    redis_url: str | None = None  # None: start a private redis-server
    aof: bool = False
    websockets: bool = True
    seed: int = 1
    settle: float = 0.0  # seconds to keep the timer watch running after the last step
    # workaround for the store's redis-py pool (100 connections, then MaxConnectionsError
    # instead of waiting): pass ?max_connections=N in the workers' REDIS_URL; 0 = as is
    redis_max_connections: int = 0
    # the slots' GET + POST: "raw" (tests.load.fastclient, ~half the CPU) or "aiohttp"
    client: str = "raw"
    client_gc: str = "freeze"  # "freeze": collector off during a step; "default"
    # "shared": one pool for every player, as the deployment's proxy keeps to the shared
    # port; "per-player": each player's own connections, as browsers straight at the port
    connections: str = "shared"
    # CPU placement, reported with the figures: e.g. generator_cpus=[1], server_cpus=[0, 1]
    generator_cpus: list[int] | None = None
    server_cpus: list[int] | None = None  # workers and supervisor (not Redis)
    generator_nice: int = 0  # added to the generator's niceness (0: unchanged)
    # beside the games above: tables the computer plays at level hard (tests.load.hard),
    # with this think delay between its moves (None: the deployment's default)
    hard_games: int = 0
    hard_think_delay: float | None = None


@dataclass
class Env:
    """What a chaos hook may act on."""

    redis: RedisServer | None
    server: ServerGroup
    driver: Driver
    redis_url: str  # what the checker uses (the real Redis, not a proxy)
    prefix: str
    watch: TimerWatch
    notes: dict[str, Any] = field(default_factory=dict)


Hook = Callable[[Env], Coroutine[Any, Any, None]]


def _delete_prefix(url: str, prefix: str) -> None:
    client = redis.Redis.from_url(url)
    try:
        batch = list(client.scan_iter(match=prefix + "*", count=1000))
        for i in range(0, len(batch), 500):
            client.unlink(*batch[i : i + 500])
    finally:
        client.close()


def _redis_cpu(url: str) -> float:
    """CPU seconds the redis-server process has used (INFO cpu)."""
    try:
        info = redis.Redis.from_url(url, socket_timeout=5).info("cpu")
        return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])
    except redis.RedisError:
        return 0.0


def _own_cpu() -> float:
    t = os.times()
    return t.user + t.system


def _autogroup(pid: int | str = "self") -> str | None:
    """``/autogroup-N nice K`` of a process, when the kernel groups by session."""
    try:
        if Path("/proc/sys/kernel/sched_autogroup_enabled").read_text().strip() != "1":
            return None
        return Path(f"/proc/{pid}/autogroup").read_text().strip()
    except OSError:
        return None


def _place_generator(cfg: LoadConfig, server: ServerGroup) -> dict[str, Any]:
    """Apply the generator's CPU affinity and priority; what was applied, for the report.

    With the kernel's autogroup scheduling (``sched_autogroup_enabled``, on here) CPU is
    shared fairly between *sessions* first, and a process's nice value only ranks it
    within its own session: the server (started in its own session) never saw a plain
    ``nice`` of the generator. So the generator moves to a session of its own and sets
    that group's nice (``/proc/self/autogroup``) as well as its own.
    """
    if cfg.generator_cpus:
        os.sched_setaffinity(0, cfg.generator_cpus)
    if cfg.generator_nice:
        os.nice(cfg.generator_nice)
        if _autogroup() is not None:
            with contextlib.suppress(OSError):
                os.setsid()  # a new session = a new autogroup, only this process in it
            with contextlib.suppress(OSError):
                Path("/proc/self/autogroup").write_text(str(cfg.generator_nice))
    top = server.proc.pid if server.proc is not None else None
    return {
        "generator_cpus": sorted(os.sched_getaffinity(0)),
        "generator_nice": os.nice(0),
        "generator_autogroup": _autogroup(),
        "server_cpus": sorted(os.sched_getaffinity(top)) if top else None,
        "server_nice": os.getpriority(os.PRIO_PROCESS, top) if top else None,
        "server_autogroup": _autogroup(top) if top else None,
        "client": cfg.client,
        "client_gc": cfg.client_gc,
        "connections": cfg.connections,
    }


async def run_load(
    cfg: LoadConfig,
    *,
    during: Hook | None = None,
    server_redis_url: Callable[[str], str] | None = None,
) -> dict[str, Any]:
    """Start everything, run the steps, verify, tear down; the report as a dict."""
    prefix = f"load{uuid.uuid4().hex[:8]}:"
    own_redis = RedisServer(aof=cfg.aof) if cfg.redis_url is None else None
    report: dict[str, Any] = {"config": asdict(cfg)}
    try:
        if own_redis is not None:
            own_redis.start()
        redis_url = own_redis.url if own_redis else str(cfg.redis_url)
        served_url = server_redis_url(redis_url) if server_redis_url else redis_url
        if cfg.redis_max_connections:
            sep = "&" if "?" in served_url else "?"
            served_url += f"{sep}max_connections={cfg.redis_max_connections}"
        report["load_average_before"] = [round(x, 2) for x in os.getloadavg()]
        with ServerGroup(
            served_url, workers=cfg.workers, prefix=prefix, cpus=cfg.server_cpus
        ) as server:
            # after Redis and the server started: they must not inherit the generator's
            report["placement"] = _place_generator(cfg, server)
            report.update(await _drive(cfg, own_redis, server, redis_url, prefix, during))
            report["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
            report["server_error_log_lines"] = len(server.log_errors())
            report["server_error_examples"] = server.log_errors()[:5]
    finally:
        if own_redis is not None:
            own_redis.close()
        elif cfg.redis_url:
            _delete_prefix(cfg.redis_url, prefix)
    return report


async def _drive(
    cfg: LoadConfig,
    own_redis: RedisServer | None,
    server: ServerGroup,
    redis_url: str,
    prefix: str,
    during: Hook | None,
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    baseline = int(redis.Redis.from_url(redis_url).info("memory")["used_memory"])
    connector = aiohttp.TCPConnector(limit=0, limit_per_host=0)
    timeout = aiohttp.ClientTimeout(total=30)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as http:
        api = Api(server.base_url, http)
        driver = Driver(api, seed=cfg.seed)
        driver.use_ws = cfg.websockets
        fast = (
            FastApi.for_base_url(server.base_url, cfg.connections == "per-player")
            if cfg.client == "raw"
            else None
        )
        if fast is not None:
            driver.hot = fast
        humans = cfg.games - cfg.timed_games
        out["setup_s"] = round(
            await driver.setup(humans, cfg.timed_games, redis_url=redis_url, prefix=prefix), 1
        )
        stop = asyncio.Event()
        hard = HardTables(api, cfg.hard_games, redis_url, prefix, cfg.hard_think_delay)
        background: list[asyncio.Task[None]] = []
        if cfg.hard_games:  # playing from now on: their hand-overs happen before the steps
            out["hard_setup_s"] = round(await hard.start(), 1)
            background.append(asyncio.create_task(hard.run(stop)))
        if cfg.websockets:
            driver.open_sockets()
            # every socket greeted before the first step (was a fixed pause of up to
            # 10 s: on a busy machine some sockets were still opening when moves began)
            out["ws_open_s"] = round(await driver.sockets_greeted(60.0), 1)
            out["ws_not_greeted_at_start"] = len(driver._sockets) - driver.greeted
            await asyncio.sleep(1.0)
        me = SelfWatch(gc_policy=cfg.client_gc)
        me.install()
        sampler = Sampler(redis_url, server.rss_mb)
        watch = TimerWatch(redis_url, prefix, lambda: [g.game_id for g in driver.games if g.timed])
        background += [
            asyncio.create_task(sampler.run(stop)),
            asyncio.create_task(watch.run(stop)),
            asyncio.create_task(me.run(stop)),
        ]
        env = Env(own_redis, server, driver, redis_url, prefix, watch)
        steps = []
        try:
            for i, rate in enumerate(cfg.rates):
                me.before_step()  # its collection is not counted in the step's CPU
                each0, t0 = server.cpu_by_process(), time.monotonic()
                cpu0 = sum(each0.values())
                redis0, me0 = _redis_cpu(redis_url), _own_cpu()
                pool0, hard0 = server.pool_cpu_by_process(), hard.mark()
                chaos: asyncio.Task[None] | None = None
                if during is not None and i == len(cfg.rates) - 1:
                    chaos = asyncio.create_task(during(env))
                try:
                    stats = await driver.play(rate, cfg.duration)
                finally:
                    me.after_step()
                if chaos is not None:
                    with contextlib.suppress(asyncio.CancelledError):
                        await chaos
                step = stats.summary(rate)
                each1 = server.cpu_by_process()
                cpu = sum(each1.values()) - cpu0
                secs = max(1e-9, time.monotonic() - t0)
                step["worker_cpu_cores"] = round(cpu / secs, 2)
                # per process by the name the product gives it, busiest first
                names = server.process_names()
                step["worker_cpu_cores_each"] = dict(
                    sorted(
                        (
                            (
                                names.get(pid, str(pid)),
                                round((used - each0.get(pid, 0.0)) / secs, 2),
                            )
                            for pid, used in each1.items()
                        ),
                        key=lambda kv: -kv[1],
                    )
                )
                step["redis_cpu_cores"] = round((_redis_cpu(redis_url) - redis0) / secs, 2)
                # the AI pool's processes (children of the timer process), beside the workers
                pool = server.pool_cpu_by_process()
                step["ai_pool_cpu_cores"] = round(
                    sum(used - pool0.get(pid, 0.0) for pid, used in pool.items()) / secs, 2
                )
                if cfg.hard_games:
                    step["hard_tables"] = hard.window(hard0)
                gen_cpu = _own_cpu() - me0
                step["load_generator_cpu_cores"] = round(gen_cpu / secs, 2)
                step["load_generator_cpu_ms_per_move"] = round(
                    gen_cpu * 1000 / max(1, stats.moves_ok), 3
                )
                step["load_generator"] = {
                    **me.window(stats.started, stats.ended),
                    "rss_mb": round(psutil.Process().memory_info().rss / 2**20, 1),
                    "server_tail_vs_generator_stalls": alignment(
                        me.stalls(stats.started, stats.ended), stats.server_sent, stats.server_ms
                    ),
                }
                # CPU the workers spent per move (its GET view + POST + timers, WS pushes):
                # the capacity figure least disturbed by other load on a shared machine
                step["worker_cpu_ms_per_move"] = round(cpu * 1000 / max(1, stats.moves_ok), 2)
                steps.append(step)
            if cfg.settle:
                await asyncio.sleep(cfg.settle)
            out["ws_in_flight_at_end"] = await driver.announced(NOTICE_GRACE)
            delays, missed, examples = driver.push_figures()
            from tests.load.stats import dist

            out["ws_push_ms"] = dist(delays)
            out["ws_acked_versions_never_announced"] = missed
            out["ws_never_announced_examples"] = examples
        finally:
            stop.set()
            await asyncio.gather(*background, return_exceptions=True)
            me.uninstall()
            await hard.close()
            await driver.close_sockets()
            if fast is not None:
                out["raw_client_connections_opened"] = fast.connections_opened
                fast.close()
        out["steps"] = steps
        out["chaos"] = env.notes
        out["resources"] = sampler.summary()
        out["timers"] = watch.summary()
        if cfg.hard_games:
            out["hard_tables"] = hard.summary()
        ids = [g.game_id for g in driver.games] + hard.game_ids
        live = [g.game_id for g in driver.games if not g.done]
        out["redis_memory"] = await redis_memory_per_game(redis_url, prefix, live, baseline)
        verdict = await verify(redis_url, prefix, ids, driver.acks)
        out["integrity"] = verdict.summary()
    return out
