"""Redis: a password it requires, a memory ceiling it keeps, and what a game costs in it.

- ``redis_password``: a redis-server started as docker-compose.yml starts it refuses
  clients without the password; the server with REDIS_URL carrying it runs.
- ``redis_full``: Redis at its ``maxmemory`` (``noeviction``): a move is answered 503 with
  ``Retry-After`` and nothing of it is written; reads go on; once memory is freed the
  same move goes through. Never a lost or half-written move.
- ``cleanup_and_sizes``: the clean-up scenarios of tests/security/test_cleanup.py on a
  private Redis (keys without TTL left: 0), and the bytes one game costs live and
  archived — the figures of the README's sizing rule.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import redis

from core.service import ChatKey, GameService, ServiceConfig, UserRef
from core.store import RedisStore
from tests.core.service.service_clock import Clock
from tests.load.harness import ServerGroup
from tests.security.arena import client
from tests.security.attacks_api import ApiArena, _three_player_game
from tests.security.conftest import game_keys_without_ttl
from tests.security.outcome import Outcome


async def redis_password(arena: ApiArena) -> Outcome:
    out = Outcome(
        "redis_password",
        "clients connect to Redis without the password, with a wrong one, and with it",
    )
    port = arena.redis.port
    for password in (None, "wrong-password", arena.redis.password):
        probe = redis.Redis(host="127.0.0.1", port=port, password=password, socket_timeout=5)
        try:
            probe.set("sec:probe", "1", ex=10)
            out.count("ok")
        except redis.AuthenticationError:
            out.count("refused")
        except redis.ResponseError as exc:  # NOAUTH
            out.count("refused" if "NOAUTH" in str(exc) or "WRONGPASS" in str(exc) else "error")
        finally:
            probe.close()
    healthy = await _healthz(arena.server)
    out.figures["server_healthy_with_password_url"] = healthy
    return out.check(
        out.statuses == {"refused": 2, "ok": 1} and healthy,
        "refused without the password and with a wrong one; the server, given it in "
        "REDIS_URL, is healthy",
    )


async def _healthz(server: ServerGroup) -> bool:
    async with client(server.base_url, 70) as api:
        return (await api.call("GET", "/healthz")).status == 200


async def redis_full(arena: ApiArena) -> Outcome:
    """Issue 2: Redis ran noeviction without maxmemory; a full Redis must be a 503."""
    out = Outcome(
        "redis_full",
        "Redis is filled to its maxmemory by someone else; a player moves, reads, and "
        "moves again once memory is freed",
    )
    r = arena.redis.client()
    async with client(arena.direct, 71) as api:
        game_id, tokens = await _three_player_game(arena, api)
        for token in tokens.values():
            view = (await api.view(token, game_id)).body
            if view["legal_moves"]:
                break
        key = f"sec:{{g:{game_id}}}:rec"
        before = r.hgetall(key)
        refused = 0
        i = 0
        while refused < 20:  # well past the ceiling: every write is refused now
            try:
                r.set(f"filler:{i}", "x" * 20_000)
            except redis.ResponseError:
                refused += 1
            i += 1
        # hold it over the ceiling: the server's own clean-up (a timer hint removed, a
        # claim expiring) frees a few bytes now and then, which would let a write through
        ceiling = int(r.config_get("maxmemory")["maxmemory"])
        used = int(r.info("memory")["used_memory"])
        r.config_set("maxmemory", str(used - 4 * 1024 * 1024))
        move = view["legal_moves"][0]
        full = await api.move(token, game_id, view["version"], move)
        out.count(f"expected {full.status}")  # (the answer this attack wants: not a fault)
        read = await api.view(token, game_id)
        out.count(f"read {read.status}")
        unchanged = r.hgetall(key) == before
        for k in r.scan_iter("filler:*", count=1000):
            r.delete(k)
        r.config_set("maxmemory", str(ceiling))
        again = await api.move(token, game_id, view["version"], move)
        out.count(again.status)
    out.figures.update(
        move_when_full=full.status,
        error=full.body.get("error", {}).get("code"),
        record_unchanged=unchanged,
        read_when_full=read.status,
        move_after=again.status,
    )
    ok = full.status == 503 and unchanged and read.status == 200 and again.status == 200
    out.ok = ok  # a 503 is the right answer here
    out.result = (
        "the move was answered 503 store_unavailable (Retry-After) and nothing of it was "
        "written; reads went on; after memory was freed the same move was accepted"
    )
    return out


async def cleanup_and_sizes(redis_url: str) -> Outcome:
    """Issue 7: after a group lobby's /cancel the chat binding and the creator's game list
    stayed, without TTL; a started game expiring by its key's TTL made no commit."""
    out = Outcome(
        "cleanup",
        "lobbies cancelled, expired idle, emptied; a started game left idle; a game played "
        "to the end — then the keys under the prefix are counted",
    )
    figures: dict[str, Any] = {}
    scenarios = ("cancel", "lobby_expiry", "everyone_leaves", "game_expiry", "finished")
    for scenario in scenarios:
        prefix = f"secclean:{scenario}:"
        store = RedisStore.from_url(redis_url, prefix=prefix)
        try:
            left, sizes = await _scenario(store, scenario)
        finally:
            await store.close()
        out.count(scenario)
        figures[scenario] = {"no_ttl_left": left, **sizes}
    out.figures = figures
    leaks = {
        s: f["no_ttl_left"] for s, f in figures.items() if s != "finished" and f["no_ttl_left"]
    }
    archive_only = all(k.startswith("arch:") for k in figures["finished"]["no_ttl_left"])
    for scenario in scenarios:
        figures[scenario]["no_ttl_left"] = len(figures[scenario]["no_ttl_left"])
    out.figures["leaks"] = leaks
    return out.check(
        not leaks and archive_only,
        "0 keys without TTL after each ending; a finished game keeps only its archive "
        "(retention: ARCHIVE_RETENTION_DAYS)",
    )


class _Everyone:
    async def is_member(self, chat_id: int, user_id: int) -> bool | None:
        return True


async def _scenario(store: RedisStore, scenario: str) -> tuple[list[str], dict[str, Any]]:
    clock = Clock()
    config = ServiceConfig(
        think_delay_s=0.0,
        bot_ready_delay_s=0.0,
        round_pause_s=0,
        lobby_ttl_s=600,
        game_ttl_s=3600,
        takeover_after=1,
    )
    service = GameService(store, config, clock=clock)
    service.use_membership(_Everyone())
    chat = ChatKey(-1000 - len(scenario), 3)
    people = [UserRef(i, f"P{i}") for i in range(1, 7)]
    sizes: dict[str, Any] = {}
    if scenario == "finished":
        view = await service.create_lobby(
            chat=chat, creator=people[0], seats=6, computers=5, autostart=False
        )
        game_id = view["game_id"]
        await service.configure(game_id, 1, turn_time=5, rounds=3)
        await service.start(game_id, 1)
        for _ in range(5000):
            clock.advance(6)
            await service.fire_due()
            view = await service.view(game_id, None)
            if view["round"] == 2 and "live_6p_round2_bytes" not in sizes:
                sizes["live_6p_round2_bytes"] = await _game_bytes(store, game_id)
            if view["status"] == "finished":
                break
        sizes["archived_6p_3_rounds_bytes"] = await _archive_bytes(store, game_id)
        sizes["moves"] = len(await service.move_log(game_id))
    else:
        view = await service.create_lobby(
            chat=chat, creator=people[0], settings={"countdown": None}
        )
        game_id = view["game_id"]
        for person in people[1:3]:
            await service.join(game_id, person)
        if scenario == "cancel":
            await service.cancel(game_id, 1)
        elif scenario == "lobby_expiry":
            clock.advance(601)
            await service.fire_due()
        elif scenario == "everyone_leaves":
            for person in people[:3]:
                await service.leave(game_id, person.user_id)
        elif scenario == "game_expiry":
            # untimed (a group's default turn clock would time the turns out instead)
            await service.configure(game_id, 1, turn_time=None)
            await service.start(game_id, 1)
            sizes["live_3p_start_bytes"] = await _game_bytes(store, game_id)
            clock.advance(3601)
            await service.fire_due()
            sizes["status_after"] = (await service.view(game_id, None))["status"]
    clock.advance(2)
    await service.fire_due()  # the ended game's repair timer (redoes the clean-up)
    await asyncio.sleep(0.05)
    return await _keys_without_ttl(store), sizes


async def _keys_without_ttl(store: RedisStore) -> list[str]:
    prefix = store.keys.prefix
    left = []
    async for key in store.redis.scan_iter(match=prefix + "*", count=1000):
        if await store.redis.pttl(key) == -1:
            left.append(str(key)[len(prefix) :])
    left = game_keys_without_ttl(left)
    async for key in store.redis.scan_iter(match=prefix + "*", count=1000):
        await store.redis.delete(key)
    return sorted(left)


async def _game_bytes(store: RedisStore, game_id: str) -> int:
    total = 0
    for key in store.keys.game_keys(game_id):
        total += int(await store.redis.memory_usage(key, samples=0) or 0)
    return total


async def _archive_bytes(store: RedisStore, game_id: str) -> int:
    """The finished game's record and move log, and the index entries that point to it
    (alone under this prefix: the index keys hold this game only, key overhead included,
    so this errs high)."""
    k = store.keys
    record = await store.archived(game_id) or {}
    keys = [k.archive(game_id), k.archive_log(game_id), k.archive_index()]
    keys += [k.user_stats(s["user_id"]) for s in record.get("seats", []) if s.get("user_id")]
    if record.get("chat_id") is not None:
        keys.append(k.chat_stats(record["chat_id"]))
    total = 0
    for key in keys:
        total += int(await store.redis.memory_usage(key, samples=0) or 0)
    return total


def password() -> str:
    return "sec-" + str(int(time.time() * 1000))


def dump(outcomes: list[Outcome]) -> str:
    return json.dumps([o.summary() for o in outcomes], indent=2, ensure_ascii=False)
