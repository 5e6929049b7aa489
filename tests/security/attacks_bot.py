"""Attacks on the bot's webhook and its lobbies (real server processes in webhook mode).

The server runs the bot against the fake Bot API, which lives in this process on
loopback; updates are POSTed to the workers' webhook as Telegram would (with or without
the secret header). The fake records everything the bot sends, so "a forged /new opened
no lobby" is read off its record, and the games off Redis.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

import aiohttp

from core.service import ChatKey, GameService, ServiceConfig
from core.store import RedisStore
from tests.load.client import init_data
from tests.load.harness import ServerGroup
from tests.security.arena import WEBHOOK_PATH, WEBHOOK_SECRET, RedisProcess, client, client_address
from tests.security.outcome import Outcome
from tests.telegram_bot.fake_bot_api import FakeBotAPI, FakeChat, FakeUser


@dataclass
class BotArena:
    redis: RedisProcess
    server: ServerGroup
    api: FakeBotAPI
    service: GameService  # on the server's Redis keys, for reading what happened

    @property
    def hook(self) -> str:
        return f"{self.server.base_url}{WEBHOOK_PATH}"

    async def post(
        self, http: aiohttp.ClientSession, update: Any, *, secret: str | None = WEBHOOK_SECRET
    ) -> int:
        headers = {"Content-Type": "application/json"}
        if secret is not None:
            headers["X-Telegram-Bot-Api-Secret-Token"] = secret
        data = update if isinstance(update, bytes) else json.dumps(update).encode()
        async with http.post(self.hook, data=data, headers=headers) as resp:
            await resp.read()
            return resp.status


def reader_service(redis_url: str, prefix: str) -> GameService:
    return GameService(RedisStore.from_url(redis_url, prefix=prefix), ServiceConfig())


async def _session(n: int) -> aiohttp.ClientSession:
    connector = aiohttp.TCPConnector(local_addr=(client_address(n), 0))
    return aiohttp.ClientSession(connector=connector)


def _group_and_people(api: FakeBotAPI, chat_id: int) -> tuple[FakeChat, FakeUser, FakeUser]:
    alice = api.users.get(1) or api.user(1, "Alice")
    mallory = api.users.get(66) or api.user(66, "Mallory")
    alice.started = mallory.started = True
    group = api.group(chat_id, "Dwarves", members={alice.id, 2})
    return group, alice, mallory


async def forged_updates(arena: BotArena) -> Outcome:
    """Issue 1: with no WEBHOOK_SECRET a forged /new "from Alice" opened a lobby in her
    group and a forged /cancel closed it (200 both)."""
    out = Outcome(
        "forged_webhook_updates",
        "a forged /new and /cancel from Alice, without the secret and with a wrong one",
    )
    group, alice, _ = _group_and_people(arena.api, -9101)
    http = await _session(60)
    try:
        for text in ("/new", "/cancel"):
            update = arena.api.take_update(alice.message_update(group.id, text))
            out.count(await arena.post(http, update, secret=None))
            update = arena.api.take_update(alice.message_update(group.id, text))
            out.count(await arena.post(http, update, secret="not-the-secret-at-all-0000"))
    finally:
        await http.close()
    await asyncio.sleep(1.0)
    opened = await arena.service.game_for_chat(ChatKey(group.id, None))
    sent = [c for c in arena.api.calls_to(group.id) if c.method == "sendMessage"]
    out.figures.update(lobby_opened=opened is not None, bot_messages_in_group=len(sent))
    return out.check(
        out.statuses == {"403": 4} and opened is None and not sent,
        "all 403; no lobby opened, nothing sent to the group",
    )


async def wrong_secret_flood(arena: BotArena, posts: int = 60) -> Outcome:
    out = Outcome("webhook_secret_guessing", f"{posts} webhook POSTs with guessed secrets")
    http = await _session(61)
    try:
        for i in range(posts):
            out.count(await arena.post(http, {"update_id": i}, secret=f"guess-{i:024d}"))
    finally:
        await http.close()
    return out.check(
        out.statuses["403"] > 0 and out.statuses["429"] > 0 and set(out.statuses) <= {"403", "429"},
        f"{out.statuses['403']} × 403, then 429 ({out.statuses['429']}): guessing costs the "
        "address its budget",
    )


async def malformed_updates(arena: BotArena) -> Outcome:
    """Issue 8: malformed updates with the right secret were 500s (Telegram retries those)."""
    out = Outcome(
        "malformed_webhook_updates",
        "updates with the right secret that cannot be handled, then a real /new",
    )
    group, alice, _ = _group_and_people(arena.api, -9102)
    deep = b'{"update_id": 7, "message": ' + b"[" * 5000 + b"]" * 5000 + b"}"
    cases: list[Any] = [
        {"update_id": 1, "message": "a string"},
        deep,
        {"update_id": 2, "callback_query": {"id": "q", "chat_instance": "c", "data": "x"}},
        {"update_id": 3, "message": {"message_id": 1, "date": 0, "text": "/new"}},
        {"update_id": 4, "inline_query": {"id": "i", "query": "", "offset": ""}},
        b"not json at all",
        b"[1, 2, 3]",
        {"message": {"text": "no update id"}},
        {"update_id": "5"},
        b'{"update_id": 6, "message": {"text": "\\ud800"}}',
        b'{"update_id": 8, "pad": "' + b"x" * 1_100_000 + b'"}',
    ]
    http = await _session(62)
    try:
        for case in cases:
            out.count(await arena.post(http, case))
        real = arena.api.take_update(alice.message_update(group.id, "/new"))
        out.count(await arena.post(http, real))
    finally:
        await http.close()
    lobby = await arena.api.wait_for(lambda: arena.api.bot_messages(group.id), timeout=20)
    out.figures["lobby_message_after"] = bool(lobby)
    return out.check(
        out.statuses == {"200": len(cases) + 1} and bool(lobby),
        f"all {len(cases)} answered 200 and dropped (logged); the /new after them opened a "
        "lobby: the update loop is alive",
    )


async def join_without_membership(arena: BotArena) -> Outcome:
    """Issue 10: anyone who knew a group lobby's id could join it (API, /start j<id>)."""
    out = Outcome(
        "join_without_membership",
        "a non-member with the lobby's id joins by /start j<id> and by the API; a member "
        "presses Join in the group",
    )
    api = arena.api
    group, alice, mallory = _group_and_people(api, -9103)
    bob = api.users.get(2) or api.user(2, "Bob")
    http = await _session(63)
    try:
        out.count(await arena.post(http, api.take_update(alice.message_update(group.id, "/new"))))
        lobby = await api.wait_for(
            lambda: api.last_bot_message(group.id, lambda m: ":jn" in str(m.get("reply_markup"))),
            timeout=20,
        )
        game_id = await arena.service.game_for_chat(ChatKey(group.id, None))
        assert game_id is not None
        start = mallory.message_update(mallory.id, f"/start j{game_id}")
        out.count(await arena.post(http, api.take_update(start)))
        refusal = await api.wait_for(
            lambda: api.last_bot_message(mallory.id, lambda m: "press Join" in m.get("text", "")),
            timeout=20,
        )
        async with client(arena.server.base_url, 64) as mini:
            token = init_data(mallory.id, "Mallory")
            reply = await mini.call(
                "POST",
                f"/api/games/{game_id}/join",
                headers={"Authorization": f"tma {token}"},
                body={},
            )
            out.count(reply.status)
            out.figures["api_refusal"] = reply.body.get("error", {}).get("code")
        press = bob.callback_update(lobby, f"L:{game_id[:16]}:0:jn")
        out.count(await arena.post(http, api.take_update(press)))
    finally:
        await http.close()
    qid = press["callback_query"]["id"]
    answer = await api.wait_for(lambda: api.callback_queries[qid]["answer"], timeout=20)
    seats = {s.user_id for s in await arena.service.seats(game_id)}
    out.figures.update(private_refusal=refusal["text"][:80], join_answer_url=answer.get("url"))
    return out.check(
        mallory.id not in seats
        and reply.status == 403
        and str(answer.get("url", "")).endswith(f"?start=j{game_id}"),
        "refused both ways with how to join (bot: the message, API: 403 membership_required); "
        "the member's press answered with the deep link that completes the join",
    )
