"""Process entry point: one web server carrying the Mini App, the bot and the game timers.

``python -m telegram_bot`` (or the ``saboteur`` console script):

- no ``TELEGRAM_BOT_TOKEN``: local mode — an in-process store (unless ``REDIS_URL``), the
  Mini App on localhost and a printed URL where one person plays against computer seats;
- a token: the bot (polling, or webhook with ``WEBHOOK_URL``) and the Mini App's API on the
  same aiohttp server;
- a token with ``API_ONLY=1``: the Mini App's API alone (initData is checked with the token,
  Telegram is never called) — what load tests run;
- ``WORKERS`` > 1: a supervisor starts that many worker processes sharing the port
  (``SO_REUSEPORT``) and restarts any that dies. Several workers need Redis (the only store
  they can share) and, with a token, webhook mode (two pollers would steal each other's
  updates). Unless ``TIMER_PROCESS=0``, the supervisor also runs one **timer process** (no
  HTTP) that fires turn deadlines and plays the computer seats, so timers do not queue
  behind hundreds of requests on a busy worker's event loop; the workers keep a fallback
  that fires a deadline overdue by more than a second, so turns still advance while the
  timer process is down (it is restarted like a worker, and replaced when its loop has
  made no pass for ``TIMER_HANG_SECONDS``). One process (``WORKERS=1``,
  local mode) fires its own timers.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import multiprocessing
import os
import signal
import sys
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from typing import Protocol

from aiohttp import web

from core.service import GameService, ServiceConfig
from core.service.models import TimerRole
from core.settings import Settings
from core.store import GameStore, open_store
from miniapp.server import create_app

log = logging.getLogger(__name__)

RESTART_BACKOFF_S = 1.0
# A connection is closed once it has sent no complete request for this long: an idle
# keep-alive connection, and one that trickles its request headers (aiohttp's keep-alive
# timer also runs from the connection's start). Above the proxy's own upstream idle
# timeout (deploy/Caddyfile: 20 s), so that the proxy, not the app, closes idle ones.
IDLE_CONNECTION_S = 30.0
TIMER_SLOT = -1  # the supervisor's key for the timer process (workers are 0..N-1)
TIMER_PROCESS_INTERVAL_S = 0.1
TIMER_PROCESS_LEASE_MS = 500


def check_settings(settings: Settings) -> list[str]:
    """Configuration mistakes that would make the product misbehave, as sentences."""
    problems = []
    if settings.workers > 1 and not settings.redis_url:
        problems.append("WORKERS > 1 needs REDIS_URL: workers share games only through Redis.")
    if settings.workers > 1 and settings.runs_bot and not settings.webhook_url:
        problems.append(
            "WORKERS > 1 with a bot token needs WEBHOOK_URL: several pollers would steal "
            "each other's updates."
        )
    if settings.webhook_url and not settings.webhook_url.startswith("https://"):
        problems.append("WEBHOOK_URL must be an https:// URL (Telegram requires HTTPS).")
    if settings.runs_bot and settings.webhook_url and not settings.webhook_secret:
        problems.append("WEBHOOK_SECRET is required in webhook mode (WEBHOOK_URL).")
    if settings.initdata_max_age <= 0 or settings.session_max_age <= 0:
        problems.append("INITDATA_MAX_AGE and SESSION_MAX_AGE must be above 0 seconds.")
    return problems


def uses_timer_process(settings: Settings) -> bool:
    """Several workers on Redis: timers get a process of their own (``TIMER_PROCESS``)."""
    return settings.workers > 1 and bool(settings.redis_url) and settings.timer_process


def build_store(settings: Settings) -> GameStore:
    """The store of one process (Redis, or in-process without ``REDIS_URL``)."""
    return open_store(
        settings.redis_url,
        prefix=settings.redis_prefix,
        archive_retention_s=settings.archive_retention_days * 86400,
        replica_wait_ms=settings.redis_replica_wait_ms,
    )


def build_service(settings: Settings, role: TimerRole, store: GameStore) -> GameService:
    """The game service of one process; ``role`` says which timers it fires."""
    config = ServiceConfig(
        lobby_ttl_s=settings.lobby_idle_hours * 3600,
        game_ttl_s=settings.game_idle_hours * 3600,
        timer_role=role,
        ai_pool_workers=settings.ai_pool_workers,
    )
    if settings.local_mode:  # one person on localhost: no caps on the games they open
        config = replace(config, max_open_lobbies=None, max_open_games=None)
    if role == "turns":  # a process of its own: polling Redis often costs it nothing else;
        # a short lease (renewed while a fire runs) lets the workers' fallback take over
        # a killed timer process's claims soon
        config = replace(
            config, timer_interval_s=TIMER_PROCESS_INTERVAL_S, timer_lease_ms=TIMER_PROCESS_LEASE_MS
        )
    return GameService(store, config)


def build_web_app(settings: Settings) -> web.Application:
    """The aiohttp application of one worker: service, API, static page, bot and timers
    (all of them, or only the fallback when a timer process runs next to the workers)."""
    store = build_store(settings)
    service = build_service(settings, "fallback" if uses_timer_process(settings) else "all", store)
    app = create_app(service, settings)

    async def store_and_timers(_app: web.Application) -> AsyncIterator[None]:
        await store.start()
        stop = asyncio.Event()
        timers = asyncio.create_task(service.run_timers(stop), name="game-timers")
        try:
            yield
        finally:
            stop.set()
            timers.cancel()
            await asyncio.gather(timers, return_exceptions=True)
            await store.close()

    app.cleanup_ctx.append(store_and_timers)

    if settings.runs_bot:
        from telegram_bot.app import attach_bot, build_application

        attach_bot(app, build_application(settings, service), settings)
    return app


async def serve(settings: Settings, *, worker: int = 0) -> None:
    """Serve until SIGINT/SIGTERM; several workers bind the same port with SO_REUSEPORT.

    The local table's URL is printed only once the socket listens, so it always opens.
    """
    app = build_web_app(settings)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    runner = web.AppRunner(
        app,
        handle_signals=False,
        access_log=None,
        shutdown_timeout=5.0,
        keepalive_timeout=IDLE_CONNECTION_S,
    )
    await runner.setup()
    try:
        site = web.TCPSite(runner, settings.host, settings.port, reuse_port=settings.workers > 1)
        try:
            await site.start()
        except OSError as exc:
            if exc.errno != errno.EADDRINUSE:
                raise
            from miniapp.local import port_in_use

            raise SystemExit(port_in_use(settings.port)) from None
        if settings.local_mode and worker == 0:
            await announce_local_table(app, settings)
        await stop.wait()
    finally:
        await runner.cleanup()


async def announce_local_table(app: web.Application, settings: Settings) -> None:
    """Local mode: create a game against computer players and print its URL."""
    from miniapp.keys import SERVICE
    from miniapp.local import start_local_table

    url = await start_local_table(app[SERVICE], settings, app)
    print(
        "\nSaboteur is running in local mode (no TELEGRAM_BOT_TOKEN).\n"
        f"Open this link in your browser to play against computer players:\n\n  {url}\n\n"
        "Press Ctrl+C to stop.",
        flush=True,
    )


class Heartbeat(Protocol):
    """The shared value the timer process writes (``multiprocessing.Value("d")``)."""

    value: float


async def serve_timers(settings: Settings, heartbeat: Heartbeat | None = None) -> None:
    """The timer process: fire turn deadlines and computer moves until SIGINT/SIGTERM.

    No HTTP: the supervisor restarts it if it dies, and the workers' fallback fires
    whatever falls overdue meanwhile. Everything it commits reaches the workers (and so
    the sockets and the bot) through the store's change notices, like any commit.
    """
    store = build_store(settings)
    service = build_service(settings, "turns", store)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)

    def beat() -> None:
        if heartbeat is not None:
            heartbeat.value = time.monotonic()  # CLOCK_MONOTONIC: one clock for all processes

    timers = asyncio.create_task(service.run_timers(stop, on_pass=beat), name="game-timers")
    try:
        await stop.wait()
    finally:
        stop.set()
        try:
            await asyncio.wait_for(timers, 10)
        except Exception:  # a timeout included: it is cancelled
            timers.cancel()
            await asyncio.gather(timers, return_exceptions=True)
        await store.close()


def _name_process(name: str) -> None:
    """Give this process a name that ``ps``, ``top`` and the load report show (Linux:
    /proc/self/comm, 15 bytes); spawned workers are otherwise all "python3"."""
    with contextlib.suppress(OSError), open("/proc/self/comm", "w") as comm:
        comm.write(name[:15])


def run_timer_process(settings: Settings, heartbeat: Heartbeat | None = None) -> None:
    _configure_logging(settings)
    _name_process("sab-timers")
    _shift_priority(settings.timer_process_nice)
    with asyncio.Runner(loop_factory=_loop_factory(settings)) as runner:
        runner.run(serve_timers(settings, heartbeat))


def _shift_priority(step: int) -> None:
    """Run the timer process ahead of the workers (``step`` < 0) or behind them (> 0).

    Ahead: past saturation the CPU is shared fairly between the processes, and a deadline
    (or a computer seat's move) is a promise to players that should not queue behind HTTP
    requests; lowering nice needs root or CAP_SYS_NICE, without it the process keeps the
    workers' priority (logged). Behind: the computer seats' decisions (most of this
    process's CPU) then wait for the players' requests, which keeps the requests' tail
    short on a busy CPU; a deadline that slips over 1 s is fired by the workers anyway
    (docs/benchmarks/load.md measured both)."""
    if step == 0:
        return
    try:
        current = os.getpriority(os.PRIO_PROCESS, 0)
        os.setpriority(os.PRIO_PROCESS, 0, max(-20, min(19, current + step)))
    except (OSError, AttributeError) as exc:
        log.info("timer process keeps its priority (%s)", exc)


def run_worker(settings: Settings, worker: int = 0) -> None:
    _configure_logging(settings)
    if settings.workers > 1:
        _name_process(f"sab-worker-{worker}")
    with asyncio.Runner(loop_factory=_loop_factory(settings)) as runner:
        runner.run(serve(settings, worker=worker))


def _loop_factory(settings: Settings) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop when installed (``EVENT_LOOP=uvloop``, the default): its C event loop and
    socket transports take a good share off each request's CPU; ``EVENT_LOOP=asyncio``
    (or no uvloop, e.g. on Windows) keeps the standard loop."""
    if settings.event_loop != "uvloop":
        return None
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def supervise(settings: Settings) -> None:
    """Start ``WORKERS`` processes (and the timer process, see ``uses_timer_process``) and
    keep them alive until SIGINT/SIGTERM."""
    ctx = multiprocessing.get_context("spawn")
    procs: dict[int, multiprocessing.process.BaseProcess] = {}
    stopping = False
    # the timer process's last loop pass (time.monotonic), 0 until its first: a process
    # that hangs without exiting (a stuck call, SIGSTOP) is replaced like a dead one
    heartbeat = ctx.Value("d", 0.0, lock=False)

    def name(worker: int) -> str:
        return "timer process" if worker == TIMER_SLOT else f"worker {worker}"

    def spawn(worker: int) -> None:
        if worker == TIMER_SLOT:
            heartbeat.value = 0.0
            proc = ctx.Process(target=run_timer_process, args=(settings, heartbeat), name="timers")
        else:
            proc = ctx.Process(target=run_worker, args=(settings, worker), name=f"worker-{worker}")
        proc.start()
        procs[worker] = proc
        log.info("%s started (pid %s)", name(worker), proc.pid)

    def stop(signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    for worker in range(settings.workers):
        spawn(worker)
    timers = uses_timer_process(settings)
    if timers:
        spawn(TIMER_SLOT)
    print(
        f"Saboteur: {settings.workers} workers on http://{settings.host}:{settings.port}"
        + (" and a timer process" if timers else ""),
        flush=True,
    )
    while not stopping:
        time.sleep(0.2)
        timer = procs.get(TIMER_SLOT)
        if timer is not None and _hung(heartbeat.value, settings.timer_hang_seconds):
            log.warning(
                "timer process silent for %.0f s (hung); replacing it",
                time.monotonic() - heartbeat.value,
            )
            timer.kill()  # SIGKILL also ends a stopped process
            timer.join(timeout=5)
        for worker, proc in list(procs.items()):
            if not proc.is_alive() and not stopping:
                log.warning("%s exited with %s; restarting", name(worker), proc.exitcode)
                time.sleep(RESTART_BACKOFF_S)
                spawn(worker)
    for proc in procs.values():
        if proc.is_alive() and proc.pid is not None:
            os.kill(proc.pid, signal.SIGTERM)
    for proc in procs.values():
        proc.join(timeout=10)
        if proc.is_alive():
            proc.kill()


def _hung(last_pass: float, limit_s: int) -> bool:
    """Has a started timer loop (``last_pass`` > 0) gone ``limit_s`` without a pass?"""
    return limit_s > 0 and last_pass > 0 and time.monotonic() - last_pass > limit_s


def _configure_logging(settings: Settings) -> None:
    logging.basicConfig(
        level=settings.log_level.upper(),
        format="%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s",
    )
    # httpx logs every Bot API call with the token in the URL: keep it quiet.
    logging.getLogger("httpx").setLevel(logging.WARNING)


def main() -> None:
    try:
        settings = Settings.from_env()
    except ValueError as exc:
        sys.exit(f"Configuration error: {exc}")
    problems = check_settings(settings)
    if problems:
        sys.exit("Configuration error:\n- " + "\n- ".join(problems))
    if settings.workers > 1:
        _configure_logging(settings)
        supervise(settings)
    else:
        run_worker(settings)
