"""Building and running the bot: ``build_application``, polling or webhook, the web route.

For the coordinator (``telegram_bot/main.py``)::

    application = build_application(settings, service)
    attach_bot(web_app, application, settings)   # before the aiohttp app starts

``attach_bot`` adds the webhook route (when ``WEBHOOK_URL`` is set) and a ``cleanup_ctx``
that starts the bot with the web server and stops it with it: polling by default, or
``setWebhook`` with the secret in webhook mode (several workers need webhook mode). Without
aiohttp, ``run_bot(application, settings)`` runs polling until cancelled.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from aiohttp import web
from telegram import Update
from telegram.ext import (
    AIORateLimiter,
    Application,
    ApplicationBuilder,
    ApplicationHandlerStop,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
    InlineQueryHandler,
    TypeHandler,
)

from core.service import GameService
from core.settings import Settings
from telegram_bot import commands, kick, pause
from telegram_bot.board import on_callback
from telegram_bot.deps import BotDeps, deps_of
from telegram_bot.inline import on_inline
from telegram_bot.menus import set_global_menus
from telegram_bot.notifier import Notifier
from telegram_bot.port import ServicePort
from telegram_bot.runtime import Runtime

log = logging.getLogger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
DEFAULT_WEBHOOK_PATH = "/telegram/webhook"
BOT_KEY: web.AppKey[Application] = web.AppKey("telegram_application", Application)


@dataclass(frozen=True, slots=True)
class BotOptions:
    """Knobs tests turn down (the defaults suit production)."""

    poll_timeout: int = 10
    autostart_s: int = 180  # a group lobby's countdown (the service's lobby timer runs it)
    warn_before_s: int = 15
    group_burst: int = 5
    group_period_s: float = 20.0
    max_retries: int = 3


def _api_base(url: str) -> tuple[str, str]:
    """``TELEGRAM_API_BASE_URL`` as PTB's base_url and base_file_url (…/bot, …/file/bot)."""
    base = url.rstrip("/")
    root = base[: -len("/bot")] if base.endswith("/bot") else base
    return root + "/bot", root + "/file/bot"


def build_application(
    settings: Settings, service: GameService, options: BotOptions | None = None
) -> Application:
    """The PTB Application with every handler; game state stays in the service."""
    if not settings.telegram_bot_token:
        raise ValueError("TELEGRAM_BOT_TOKEN is required for the bot")
    opts = options or BotOptions()
    builder = (
        ApplicationBuilder()
        .token(settings.telegram_bot_token)
        .rate_limiter(AIORateLimiter(max_retries=opts.max_retries))
        .concurrent_updates(True)
    )
    if settings.telegram_api_base_url:
        base, files = _api_base(settings.telegram_api_base_url)
        builder = builder.base_url(base).base_file_url(files)
    if settings.webhook_url:
        builder = builder.updater(None)
    else:
        builder = builder.get_updates_read_timeout(opts.poll_timeout + 10)
    application = builder.build()
    runtime = Runtime(service, burst=opts.group_burst, period=opts.group_period_s)
    deps = BotDeps(
        settings, ServicePort(service), runtime, bot_username=settings.bot_username or ""
    )
    deps.extra["options"] = opts
    application.bot_data["deps"] = deps
    add_handlers(application)
    return application


def add_handlers(application: Application) -> None:
    application.add_handler(TypeHandler(Update, _dedupe), group=-1)
    application.add_handler(CommandHandler("start", commands.cmd_start))
    application.add_handler(CommandHandler(["new", "newgame"], commands.cmd_new))
    application.add_handler(CommandHandler("help", commands.cmd_help))
    application.add_handler(CommandHandler("rules", commands.cmd_rules))
    application.add_handler(CommandHandler("lang", commands.cmd_lang))
    application.add_handler(CommandHandler("leave", commands.cmd_leave))
    application.add_handler(CommandHandler("kick", kick.cmd_kick))
    application.add_handler(CommandHandler("pause", pause.cmd_pause))
    application.add_handler(CommandHandler("resume", pause.cmd_resume))
    application.add_handler(CommandHandler("cancel", commands.cmd_cancel))
    application.add_handler(CommandHandler("stats", commands.cmd_stats))
    application.add_handler(CommandHandler("hand", commands.cmd_start))
    application.add_handler(CallbackQueryHandler(on_callback))
    application.add_handler(InlineQueryHandler(on_inline))
    application.add_handler(TypeHandler(Update, commands.traditional_member_menu), group=1)
    application.add_error_handler(_on_error)


async def _dedupe(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Telegram redelivers a webhook update it got no 2xx for: handle each id once."""
    deps = deps_of(context)
    if await deps.port.seen_update(update.update_id):
        raise ApplicationHandlerStop
    await deps.remember_user(update.effective_user)


async def _on_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    log.error("update %s failed", getattr(update, "update_id", "?"), exc_info=context.error)


async def setup_bot(application: Application) -> None:
    """After ``initialize``: learn our username, register commands, start the notifier."""
    deps: BotDeps = application.bot_data["deps"]
    opts: BotOptions = deps.extra.get("options", BotOptions())
    if not deps.bot_username:
        deps.bot_username = application.bot.username
    await set_global_menus(application.bot)
    deps.notifier = Notifier(application.bot, deps, warn_before_s=opts.warn_before_s)
    await deps.notifier.start()


async def start_bot(application: Application, settings: Settings) -> None:
    deps: BotDeps = application.bot_data["deps"]
    opts: BotOptions = deps.extra.get("options", BotOptions())
    await application.initialize()
    await setup_bot(application)
    await application.start()
    if settings.webhook_url:
        await application.bot.set_webhook(
            settings.webhook_url,
            secret_token=settings.webhook_secret,
            allowed_updates=Update.ALL_TYPES,
        )
    elif application.updater is not None:
        await application.updater.start_polling(
            poll_interval=0.0, timeout=opts.poll_timeout, allowed_updates=Update.ALL_TYPES
        )


async def stop_bot(application: Application) -> None:
    deps: BotDeps = application.bot_data["deps"]
    if application.updater is not None and application.updater.running:
        await application.updater.stop()
    if deps.notifier is not None:
        await deps.notifier.stop()
    if application.running:
        await application.stop()
    await application.shutdown()


async def run_bot(application: Application, settings: Settings) -> None:
    """Run until cancelled (polling, or webhook with the route mounted elsewhere)."""
    await start_bot(application, settings)
    try:
        await asyncio.Event().wait()
    finally:
        await stop_bot(application)


def webhook_route(
    application: Application, secret: str | None
) -> Callable[[web.Request], Awaitable[web.Response]]:
    """aiohttp handler: check Telegram's secret header, queue the update, answer 200."""

    async def handle(request: web.Request) -> web.Response:
        if secret is not None:
            got = request.headers.get(SECRET_HEADER, "")
            if not hmac.compare_digest(got.encode(), secret.encode()):
                return web.json_response(
                    {"error": {"code": "forbidden", "message": "bad secret token"}}, status=403
                )
        try:
            data = await request.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            return web.json_response(
                {"error": {"code": "bad_request", "message": "body is not JSON"}}, status=400
            )
        if not isinstance(data, dict) or not isinstance(data.get("update_id"), int):
            return web.json_response(
                {"error": {"code": "bad_request", "message": "not an update"}}, status=400
            )
        update = Update.de_json(data, application.bot)
        await application.update_queue.put(update)
        return web.json_response({"ok": True})

    return handle


def webhook_path(settings: Settings) -> str:
    if not settings.webhook_url:
        return DEFAULT_WEBHOOK_PATH
    return urlsplit(settings.webhook_url).path or DEFAULT_WEBHOOK_PATH


def attach_bot(web_app: web.Application, application: Application, settings: Settings) -> None:
    """Mount the webhook route (webhook mode) and run the bot with the web server."""
    web_app[BOT_KEY] = application
    if settings.webhook_url:
        web_app.router.add_post(
            webhook_path(settings), webhook_route(application, settings.webhook_secret)
        )

    async def lifecycle(_app: web.Application) -> AsyncIterator[None]:
        await start_bot(application, settings)
        try:
            yield
        finally:
            await stop_bot(application)

    web_app.cleanup_ctx.append(lifecycle)
