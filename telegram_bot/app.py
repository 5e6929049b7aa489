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
from telegram import Chat, Update, User
from telegram.ext import (
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
from miniapp.keys import LIMITER
from miniapp.ratelimit import retry_after
from telegram_bot import commands, kick, pause
from telegram_bot.budget import SharedRateLimiter
from telegram_bot.deps import BotDeps, deps_of
from telegram_bot.inline import on_inline
from telegram_bot.join import TelegramMembership
from telegram_bot.menus import set_global_menus
from telegram_bot.notifier import Notifier
from telegram_bot.port import ServicePort
from telegram_bot.router import on_callback
from telegram_bot.runtime import Runtime
from telegram_bot.share import TelegramSharing

log = logging.getLogger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
MAX_UPDATE_BYTES = 1 << 20  # the proxy's limit too (deploy/Caddyfile)
UPDATE_READ_TIMEOUT_S = 10.0
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
    limiter = SharedRateLimiter(max_retries=opts.max_retries)
    builder = (
        ApplicationBuilder()
        .token(settings.telegram_bot_token)
        .rate_limiter(limiter)
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
    # the service asks the bot whether a joiner is in a lobby's group (getChatMember)
    service.use_membership(TelegramMembership(application.bot))
    # the Mini App's "Share result" asks the bot to prepare the message (shareMessage)
    service.use_sharing(TelegramSharing(application.bot))
    runtime = Runtime(
        service, burst=opts.group_burst, period=opts.group_period_s, rate=settings.bot_send_rate
    )
    limiter.runtime = runtime  # every send pays the budget all workers share
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
    application.add_handler(CommandHandler("history", commands.cmd_history))
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
    """aiohttp handler: check Telegram's secret header, queue the update, answer 200.

    Closed by default: without a secret nothing is accepted (the settings refuse to start
    webhook mode without one). A wrong or missing secret gets 403, and spends the sender's
    address budget like a failed sign-in (429 once it is spent). With the right secret the
    answer is always 200, because Telegram redelivers anything else and holds back the
    updates behind it: an update that cannot be read (not JSON, nested too deep, a
    message that is not an object, a button press with no sender) is logged and dropped.
    """
    expected = (secret or "").encode()

    async def handle(request: web.Request) -> web.Response:
        got = request.headers.get(SECRET_HEADER, "").encode("utf-8", "replace")
        if not expected or not hmac.compare_digest(got, expected):
            return _refuse(request)
        update = _parse_update(await _read_update(request), application)
        if update is not None:
            await application.update_queue.put(update)
        return web.json_response({"ok": True})

    return handle


def _refuse(request: web.Request) -> web.Response:
    limiter = request.app.get(LIMITER)
    if limiter is not None:  # the Mini App's limiter, on the shared web server
        address = limiter.client_address(request)
        wait = limiter.address_wait(address)
        if wait > 0:
            return web.json_response(
                {"error": {"code": "rate_limited", "message": "too many requests"}},
                status=429,
                headers={"Retry-After": str(retry_after(wait))},
            )
        limiter.take_address(address)
    return web.json_response(
        {"error": {"code": "forbidden", "message": "bad secret token"}}, status=403
    )


async def _read_update(request: web.Request) -> bytes | None:
    """The body, at most MAX_UPDATE_BYTES, within UPDATE_READ_TIMEOUT_S (None: not read).

    Read here rather than with ``request.read()``: the Mini App's 16 KB body limit is for
    API calls, and a long message with its reply can be larger than that."""
    chunks: list[bytes] = []
    size = 0
    try:
        async with asyncio.timeout(UPDATE_READ_TIMEOUT_S):
            while chunk := await request.content.readany():
                size += len(chunk)
                if size > MAX_UPDATE_BYTES:
                    log.warning("webhook: dropped an update of more than %d bytes", size)
                    return None
                chunks.append(chunk)
    except (TimeoutError, ConnectionError) as exc:
        log.warning("webhook: update body not read (%s)", type(exc).__name__)
        return None
    return b"".join(chunks)


def _parse_update(body: bytes | None, application: Application) -> Update | None:
    """The update, or None (logged) when it cannot be handled."""
    if body is None:
        return None
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):  # (UnicodeDecodeError is a ValueError)
        log.warning("webhook: dropped a body that is not JSON (%d bytes)", len(body))
        return None
    if not isinstance(data, dict) or not isinstance(data.get("update_id"), int):
        log.warning("webhook: dropped a body that is not an update")
        return None
    try:
        update = Update.de_json(data, application.bot)
    except Exception as exc:  # PTB raises whatever the malformed field makes it raise
        kind = type(exc).__name__
        log.warning("webhook: dropped update %s (%s: %s)", data["update_id"], kind, exc)
        return None
    problem = _unusable(update)
    if problem:
        log.warning("webhook: dropped update %s (%s)", update.update_id, problem)
        return None
    return update


def _unusable(update: Update) -> str:
    """What makes a parsed update unfit for the handlers ('' when nothing): PTB builds an
    object from any dict, so a press without a sender or a message without a chat only
    fails later, inside a handler."""
    for name in ("callback_query", "inline_query", "chosen_inline_result"):
        item = getattr(update, name)
        if item is not None and not isinstance(getattr(item, "from_user", None), User):
            return f"{name} without a sender"
    for name in ("message", "edited_message", "channel_post", "edited_channel_post"):
        message = getattr(update, name)
        if message is not None and not isinstance(getattr(message, "chat", None), Chat):
            return f"{name} without a chat"
    query = update.callback_query
    if query is not None and query.message is not None and not isinstance(query.message.chat, Chat):
        return "callback_query on a message without a chat"
    return ""


def webhook_path(settings: Settings) -> str:
    if not settings.webhook_url:
        return DEFAULT_WEBHOOK_PATH
    return urlsplit(settings.webhook_url).path or DEFAULT_WEBHOOK_PATH


def attach_bot(web_app: web.Application, application: Application, settings: Settings) -> None:
    """Mount the webhook route (webhook mode) and run the bot with the web server."""
    web_app[BOT_KEY] = application
    if settings.webhook_url:
        if not settings.webhook_secret:
            raise ValueError("webhook mode needs WEBHOOK_SECRET (nothing would be accepted)")
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
