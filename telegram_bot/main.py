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
  updates).
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import signal
import sys
import time
from collections.abc import AsyncIterator, Callable

from aiohttp import web

from core.service import GameService, ServiceConfig
from core.settings import Settings
from core.store import open_store
from miniapp.server import create_app

log = logging.getLogger(__name__)

RESTART_BACKOFF_S = 1.0


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
    return problems


def build_web_app(settings: Settings) -> web.Application:
    """The aiohttp application of one worker: service, API, static page, bot and timers."""
    store = open_store(
        settings.redis_url,
        prefix=settings.redis_prefix,
        archive_retention_s=settings.archive_retention_days * 86400,
    )
    service = GameService(
        store,
        ServiceConfig(
            lobby_ttl_s=settings.lobby_idle_hours * 3600,
            game_ttl_s=settings.game_idle_hours * 3600,
        ),
    )
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
    runner = web.AppRunner(app, handle_signals=False, access_log=None, shutdown_timeout=5.0)
    await runner.setup()
    try:
        site = web.TCPSite(
            runner, settings.host, settings.port, reuse_port=settings.workers > 1
        )
        await site.start()
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


def run_worker(settings: Settings, worker: int = 0) -> None:
    _configure_logging()
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
    """Start ``WORKERS`` processes and keep that many alive until SIGINT/SIGTERM."""
    ctx = multiprocessing.get_context("spawn")
    procs: dict[int, multiprocessing.process.BaseProcess] = {}
    stopping = False

    def spawn(worker: int) -> None:
        proc = ctx.Process(target=run_worker, args=(settings, worker), name=f"worker-{worker}")
        proc.start()
        procs[worker] = proc
        log.info("worker %d started (pid %s)", worker, proc.pid)

    def stop(signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    for worker in range(settings.workers):
        spawn(worker)
    print(
        f"Saboteur: {settings.workers} workers on http://{settings.host}:{settings.port}",
        flush=True,
    )
    while not stopping:
        time.sleep(0.2)
        for worker, proc in list(procs.items()):
            if not proc.is_alive() and not stopping:
                log.warning("worker %d exited with %s; restarting", worker, proc.exitcode)
                time.sleep(RESTART_BACKOFF_S)
                spawn(worker)
    for proc in procs.values():
        if proc.is_alive() and proc.pid is not None:
            os.kill(proc.pid, signal.SIGTERM)
    for proc in procs.values():
        proc.join(timeout=10)
        if proc.is_alive():
            proc.kill()


def _configure_logging() -> None:
    level = os.environ.get("LOG_LEVEL", "INFO").upper()
    logging.basicConfig(
        level=level,
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
        _configure_logging()
        supervise(settings)
    else:
        run_worker(settings)
