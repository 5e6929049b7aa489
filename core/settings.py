"""Process configuration read from environment variables.

One place lists every variable with its default (the README repeats this table), so the
bot, the Mini App and the service never read ``os.environ`` themselves.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field

LANGUAGES = ("en", "zh-hans", "zh-hant")


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
    default_language: str = "en"
    board_font: str | None = None
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
        return cls(
            telegram_bot_token=token,
            bot_username=opt("BOT_USERNAME"),
            miniapp_short_name=opt("MINIAPP_SHORT_NAME"),
            public_url=opt("PUBLIC_URL"),
            webhook_url=opt("WEBHOOK_URL"),
            webhook_secret=opt("WEBHOOK_SECRET"),
            telegram_api_base_url=opt("TELEGRAM_API_BASE_URL"),
            redis_url=opt("REDIS_URL"),
            redis_prefix=opt("REDIS_PREFIX") or "sab:",
            redis_replica_wait_ms=max(0, min(60_000, _int(env, "REDIS_REPLICA_WAIT_MS", 0))),
            host=opt("HOST") or ("127.0.0.1" if not token else "0.0.0.0"),
            port=_int(env, "PORT", 8080),
            workers=max(1, _int(env, "WORKERS", 1)),
            session_secret=opt("SESSION_SECRET") or secrets.token_urlsafe(32),
            initdata_max_age=_int(env, "INITDATA_MAX_AGE", 86400),
            default_language=language,
            board_font=opt("BOARD_FONT"),
            api_only=(opt("API_ONLY") or "0").lower() in ("1", "true", "yes"),
            lobby_idle_hours=max(1, _int(env, "LOBBY_IDLE_HOURS", 24)),
            game_idle_hours=max(1, _int(env, "GAME_IDLE_HOURS", 72)),
            archive_retention_days=max(1, _int(env, "ARCHIVE_RETENTION_DAYS", 90)),
            event_loop=_choice(env, "EVENT_LOOP", ("uvloop", "asyncio")),
            timer_process=(opt("TIMER_PROCESS") or "1").lower() in ("1", "true", "yes"),
            timer_process_nice=max(-20, min(19, _int(env, "TIMER_PROCESS_NICE", 0))),
            timer_hang_seconds=max(0, _int(env, "TIMER_HANG_SECONDS", 30)),
        )
