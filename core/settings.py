"""Process configuration read from environment variables.

One place lists every variable with its default (the README repeats this table), so the
bot, the Mini App and the service never read ``os.environ`` themselves.
"""

from __future__ import annotations

import ipaddress
import os
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field

LANGUAGES = ("en", "zh-hans", "zh-hant")
# Telegram's rule for a webhook's secret_token (1-256 of these); we ask for 16 at least.
WEBHOOK_SECRET_RE = re.compile(r"^[A-Za-z0-9_-]{16,256}$")
MIN_SESSION_SECRET = 16
GENERATE = 'python3 -c "import secrets; print(secrets.token_urlsafe(32))"'


def _int(env: Mapping[str, str], name: str, default: int) -> int:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        return int(raw)
    except ValueError as exc:
        raise ValueError(f"{name} must be an integer, got {raw!r}") from exc


def _choice(env: Mapping[str, str], name: str, choices: tuple[str, ...]) -> str:
    """``choices[0]`` when unset; anything else must be one of ``choices``."""
    raw = env.get(name, "").strip().lower()
    if not raw:
        return choices[0]
    if raw not in choices:
        raise ValueError(f"{name} must be one of {', '.join(choices)}, got {raw!r}")
    return raw


def _positive(env: Mapping[str, str], name: str, default: int) -> int:
    """A number of seconds that must be above 0: 0 or less would switch a check off."""
    value = _int(env, name, default)
    if value <= 0:
        raise ValueError(f"{name} must be a number of seconds above 0, got {value}")
    return value


def _networks(env: Mapping[str, str], name: str) -> tuple[str, ...]:
    """Comma-separated addresses or networks (``10.0.0.5``, ``172.30.86.0/24``), checked."""
    out = []
    for item in env.get(name, "").replace(" ", "").split(","):
        if not item:
            continue
        try:
            out.append(str(ipaddress.ip_network(item, strict=False)))
        except ValueError as exc:
            raise ValueError(f"{name}: {item!r} is not an IP address or network") from exc
    return tuple(out)


def _secrets(env: Mapping[str, str], token: str | None, webhook: bool) -> tuple[str, str | None]:
    """SESSION_SECRET and WEBHOOK_SECRET, refusing a deployment that would run open.

    With a bot token the session secret must be set (a random one per process would log
    every player out at each restart); in webhook mode the webhook secret must be set, or
    anyone could post updates "from" any user. Without a token (local mode) a random
    session secret is fine: the table lives as long as the process.
    """
    session = env.get("SESSION_SECRET", "").strip()
    if token and not session:
        raise ValueError(
            f"SESSION_SECRET is required with TELEGRAM_BOT_TOKEN; make one: {GENERATE}"
        )
    if session and len(session) < MIN_SESSION_SECRET:
        raise ValueError(
            f"SESSION_SECRET is too short: use {MIN_SESSION_SECRET} characters or more"
        )
    hook = env.get("WEBHOOK_SECRET", "").strip() or None
    if webhook and hook is None:
        raise ValueError(
            f"WEBHOOK_SECRET is required with WEBHOOK_URL (webhook mode); make one: {GENERATE}"
        )
    if hook is not None and not WEBHOOK_SECRET_RE.fullmatch(hook):
        raise ValueError(
            "WEBHOOK_SECRET must be 16 to 256 characters of A-Z, a-z, 0-9, _ and - "
            f"(Telegram's alphabet); make one: {GENERATE}"
        )
    return session or secrets.token_urlsafe(32), hook


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything a process needs to know about its environment."""

    telegram_bot_token: str | None = None
    bot_username: str | None = None
    miniapp_short_name: str | None = None
    public_url: str | None = None
    webhook_url: str | None = None
    webhook_secret: str | None = None
    telegram_api_base_url: str | None = None
    redis_url: str | None = None
    redis_prefix: str = "sab:"
    # > 0: a commit waits up to this many ms for a replica to have it before it is
    # acknowledged (Redis WAIT); 0: acknowledged once the master has it
    redis_replica_wait_ms: int = 0
    host: str = "127.0.0.1"
    port: int = 8080
    workers: int = 1
    session_secret: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    initdata_max_age: int = 86400
    # a sign-in's absolute lifetime: tokens refresh until this long after the Telegram
    # sign-in (initData's auth_date), then the Mini App must be opened again
    session_max_age: int = 7 * 86400
    # addresses (or networks) of reverse proxies whose X-Forwarded-For is believed
    trusted_proxies: tuple[str, ...] = ()
    default_language: str = "en"
    board_font: str | None = None
    log_level: str = "info"  # debug, info, warning or error
    api_only: bool = False
    lobby_idle_hours: int = 24
    game_idle_hours: int = 72
    archive_retention_days: int = 90
    event_loop: str = "uvloop"
    timer_process: bool = True  # WORKERS > 1: turn timers in a process of their own
    # its nice value relative to the workers': < 0 ahead of them (when allowed), > 0 behind
    timer_process_nice: int = 0
    # seconds without a timer-loop pass before the supervisor replaces the timer process
    # (hung, not exited; 0 = never)
    timer_hang_seconds: int = 30
    # worker processes for `hard` computer decisions, beside whichever process fires the
    # timers (0 = run them in a thread of that process)
    ai_pool_workers: int = 1
    # the workers' cyclic garbage collector: "tuned" (fewer, larger young collections) or
    # Python's "default" thresholds
    miniapp_gc: str = "tuned"
    miniapp_profile: str | None = None  # a benchmark aid: cProfile dumps to <this>.<pid>
    # the whole bot's Telegram sends per second, shared by every worker and host through
    # Redis (Telegram allows about 30; paid broadcasts raise it)
    bot_send_rate: int = 30

    @property
    def runs_bot(self) -> bool:
        """A token and not ``API_ONLY``: the API validates initData without running the bot."""
        return bool(self.telegram_bot_token) and not self.api_only

    @property
    def local_mode(self) -> bool:
        """No bot token: a browser table on localhost against computer players."""
        return not self.telegram_bot_token

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env

        def opt(name: str) -> str | None:
            value = env.get(name, "").strip()
            return value or None

        language = (opt("DEFAULT_LANGUAGE") or "en").lower()
        if language not in LANGUAGES:
            raise ValueError(f"DEFAULT_LANGUAGE must be one of {', '.join(LANGUAGES)}")
        token = opt("TELEGRAM_BOT_TOKEN")
        api_only = (opt("API_ONLY") or "0").lower() in ("1", "true", "yes")
        webhook = bool(token) and not api_only and bool(opt("WEBHOOK_URL"))
        session_secret, webhook_secret = _secrets(env, token, webhook)
        return cls(
            telegram_bot_token=token,
            bot_username=opt("BOT_USERNAME"),
            miniapp_short_name=opt("MINIAPP_SHORT_NAME"),
            public_url=opt("PUBLIC_URL"),
            webhook_url=opt("WEBHOOK_URL"),
            webhook_secret=webhook_secret,
            telegram_api_base_url=opt("TELEGRAM_API_BASE_URL"),
            redis_url=opt("REDIS_URL"),
            redis_prefix=opt("REDIS_PREFIX") or "sab:",
            redis_replica_wait_ms=max(0, min(60_000, _int(env, "REDIS_REPLICA_WAIT_MS", 0))),
            host=opt("HOST") or ("127.0.0.1" if not token else "0.0.0.0"),
            port=_int(env, "PORT", 8080),
            workers=max(1, _int(env, "WORKERS", 1)),
            session_secret=session_secret,
            initdata_max_age=_positive(env, "INITDATA_MAX_AGE", 86400),
            session_max_age=_positive(env, "SESSION_MAX_AGE", 7 * 86400),
            trusted_proxies=_networks(env, "TRUSTED_PROXIES"),
            default_language=language,
            board_font=opt("BOARD_FONT"),
            log_level=_choice(env, "LOG_LEVEL", ("info", "debug", "warning", "error")),
            api_only=api_only,
            lobby_idle_hours=max(1, _int(env, "LOBBY_IDLE_HOURS", 24)),
            game_idle_hours=max(1, _int(env, "GAME_IDLE_HOURS", 72)),
            archive_retention_days=max(1, _int(env, "ARCHIVE_RETENTION_DAYS", 90)),
            event_loop=_choice(env, "EVENT_LOOP", ("uvloop", "asyncio")),
            timer_process=(opt("TIMER_PROCESS") or "1").lower() in ("1", "true", "yes"),
            timer_process_nice=max(-20, min(19, _int(env, "TIMER_PROCESS_NICE", 0))),
            timer_hang_seconds=max(0, _int(env, "TIMER_HANG_SECONDS", 30)),
            ai_pool_workers=max(0, min(64, _int(env, "AI_POOL_WORKERS", 1))),
            miniapp_gc=_choice(env, "MINIAPP_GC", ("tuned", "default")),
            miniapp_profile=opt("MINIAPP_PROFILE"),
            bot_send_rate=max(1, min(1000, _int(env, "BOT_SEND_RATE", 30))),
        )
