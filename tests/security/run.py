"""The attack run: every attack of the security issue against real processes, one report.

Three arenas, each its own processes on loopback:

- **api**: a password-protected Redis with a memory ceiling, two API workers (trusting
  X-Forwarded-For from 127.0.0.1 only) and Caddy with the shipped Caddyfile in front;
- **bot**: Redis, two workers running the bot in webhook mode against the fake Bot API;
- **store**: clean-up scenarios and game sizes on a private Redis (in this process).

``run_all(scale)`` returns the outcomes; ``python -m tests.security`` prints them (and
writes the JSON report), the test suite (tests/security/test_attacks.py) asserts them.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from tests.load.harness import RedisServer, ServerGroup
from tests.security import attacks_api as api
from tests.security import attacks_bot as bot
from tests.security import attacks_store as store
from tests.security.arena import Caddy, RedisProcess, api_server, bot_server, caddy_binary, client
from tests.security.outcome import Outcome
from tests.telegram_bot.fake_bot_api import FakeBotAPI

# Redis for the API arena: a password, and a ceiling low enough to reach in a test
# (the same policy as deploy/redis.conf)
API_REDIS_ARGS = ["--maxmemory", "64mb", "--maxmemory-policy", "noeviction"]


async def _guarded(out: list[Outcome], name: str, attack: Awaitable[Outcome]) -> None:
    """Run one attack; a crash of the attack code is a failed outcome, not a lost run."""
    try:
        out.append(await attack)
    except Exception as exc:  # the report must say which attack broke, and go on
        failed = Outcome(name, "the attack itself failed")
        failed.result = f"{type(exc).__name__}: {exc}"
        out.append(failed)


async def api_arena(scale: float = 1.0) -> list[Outcome]:
    outcomes: list[Outcome] = []
    redis_ctx = RedisProcess(args=API_REDIS_ARGS, password=store.password())
    with redis_ctx as redis_proc, _started(api_server(redis_proc.url)) as server:
        caddy_ctx = (
            Caddy(f"127.0.0.1:{server.port}") if caddy_binary() else contextlib.nullcontext()
        )
        with caddy_ctx as caddy:
            arena = api.ApiArena(redis_proc, server, caddy)
            steps: list[tuple[str, Callable[[], Awaitable[Outcome]]]] = [
                ("redis_password", lambda: store.redis_password(arena)),
                ("lobby_flood", lambda: api.lobby_flood(arena, int(100 * scale), 20)),
                ("junk_moves", lambda: api.junk_moves(arena)),
                ("anonymous_flood_vs_sockets", lambda: api.flood_and_sockets(arena)),
                ("x_forwarded_for_spoofing", lambda: api.forwarded_for_spoofing(arena)),
                (
                    "failed_login_flood",
                    lambda: api.failed_login_flood(arena, seconds=max(2.0, 5.0 * scale)),
                ),
                ("sockets_per_user", lambda: api.socket_cap(arena)),
                ("unauthenticated_sockets", lambda: api.pending_sockets(arena)),
                ("lone_surrogates", lambda: api.lone_surrogates(arena)),
                ("unsigned_webhook_at_proxy", lambda: api.unsigned_webhook_at_the_proxy(arena)),
                ("redis_full", lambda: store.redis_full(arena)),
            ]
            # the slow ones wait on timeouts: they run beside the others
            slow = asyncio.gather(
                _guarded(outcomes, "slow_headers_and_bodies", api.slow_connections(arena)),
                _guarded(outcomes, "session_lifetime", api.session_lifetime(arena)),
            )
            for name, step in steps:
                await _guarded(outcomes, name, step())
            await slow
            outcomes.append(await _left_behind(arena))
            outcomes[-1].figures["server_error_log_lines"] = server.log_errors()[:5]
    return outcomes


@contextlib.contextmanager
def _started(server: ServerGroup) -> Iterator[ServerGroup]:
    """The server, started, and closed in any case (a start that times out leaves its
    processes running: ``ServerGroup``'s own ``with`` would not close them)."""
    try:
        yield server.start()
    finally:
        server.close()


async def _left_behind(arena: api.ApiArena) -> Outcome:
    """Every game the attacks made is ended by its players; what keys stay without TTL?"""
    out = Outcome(
        "left_behind_after_the_run",
        "every game the run made is left by all its players; the keys under the server's "
        "prefix are counted",
    )
    async with client(arena.direct, 90, limit=32) as c:
        gate = asyncio.Semaphore(16)

        async def leave(game_id: str, token: str) -> None:
            async with gate:
                reply = await c.call("POST", f"/api/games/{game_id}/leave", token=token, body={})
                out.count(reply.status)

        await asyncio.gather(*(leave(g, t) for g, tokens in arena.games for t in tokens))
    await asyncio.sleep(3.0)  # the repair timers of the ended games
    r = arena.redis.client()
    no_ttl = []
    for key in r.scan_iter("sec:*", count=1000):
        if r.pttl(key) == -1:
            no_ttl.append(key)
    kept = [k for k in no_ttl if k.startswith(("sec:pref:", "sec:arch:"))]
    leaked = sorted(set(no_ttl) - set(kept))
    out.figures.update(
        games=len(arena.games), keys_without_ttl=len(leaked), examples=leaked[:5], kept=len(kept)
    )
    return out.check(
        not leaked and set(out.statuses) <= {"200", "403", "404", "409"},
        f"{len(arena.games)} games ended; {len(leaked)} keys without TTL left "
        f"({len(kept)} archive/preference keys, kept by design)",
    )


async def bot_arena() -> list[Outcome]:
    outcomes: list[Outcome] = []
    fake = FakeBotAPI()
    await fake.start()
    try:
        with RedisServer() as redis_server:
            server = bot_server(redis_server.url, fake.base_url)
            try:
                # from a thread: the fake Bot API answers the bot's start-up in this loop
                # (closed in any case: a start that timed out leaves its processes running)
                await asyncio.to_thread(server.start)
                reader = bot.reader_service(redis_server.url, "secbot:")
                arena = bot.BotArena(redis_proc_like(redis_server), server, fake, reader)
                for name, attack in (
                    ("forged_webhook_updates", bot.forged_updates(arena)),
                    ("webhook_secret_guessing", bot.wrong_secret_flood(arena)),
                    ("malformed_webhook_updates", bot.malformed_updates(arena)),
                    ("join_without_membership", bot.join_without_membership(arena)),
                ):
                    await _guarded(outcomes, name, attack)
                await reader.store.close()
                outcomes[-1].figures["server_error_log_lines"] = server.log_errors()[:5]
            finally:
                await asyncio.to_thread(server.close)
    finally:
        await fake.stop()
    return outcomes


def redis_proc_like(server: RedisServer) -> RedisProcess:
    """The harness's RedisServer seen as a RedisProcess (its port; no password)."""
    return RedisProcess(port=server.port)


async def store_arena() -> list[Outcome]:
    outcomes: list[Outcome] = []
    with RedisServer() as redis_server:
        await _guarded(outcomes, "cleanup", store.cleanup_and_sizes(redis_server.url))
    return outcomes


async def startup_refusals() -> Outcome:
    from tests.security import misconfig

    return await asyncio.to_thread(misconfig.refusals)


async def run_all(scale: float = 1.0) -> dict[str, Any]:
    began = time.monotonic()
    outcomes: list[Outcome] = []
    await _guarded(outcomes, "misconfiguration_refused", startup_refusals())
    outcomes += await store_arena()
    outcomes += await bot_arena()
    outcomes += await api_arena(scale)
    return {
        "seconds": round(time.monotonic() - began),
        "attacks": len(outcomes),
        "held": sum(o.ok for o in outcomes),
        "5xx": sum(o.server_errors for o in outcomes if o.name != "redis_full"),
        "outcomes": [o.summary() for o in outcomes],
        "pass": all(o.ok for o in outcomes),
    }
