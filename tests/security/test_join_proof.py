"""Joining a group's lobby needs proof of membership, through the bot and the Mini App.

The bot runs against the fake Bot API (loopback), whose groups here know their members:
``getChatMember`` answers ``left`` for outsiders, or refuses for everyone when the bot is
no admin (``members_visible=False``). Someone who knows a lobby's id but is not in its
group is refused with a message saying how to join, whether through ``/start j<id>`` or
``POST /api/games/<id>/join``; a press of the lobby's Join button in the group admits.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from core.service.models import ChatKey
from miniapp.auth import sign_init_data
from miniapp.server import create_app
from tests.telegram_bot.bot_driver import is_join, is_lobby, open_lobby, wait_async
from tests.telegram_bot.conftest import BotEnv, running_bot
from tests.telegram_bot.fake_bot_api import BOT_USERNAME, TOKEN, FakeBotAPI, FakeUser


@pytest.fixture
async def env() -> AsyncIterator[BotEnv]:
    api = FakeBotAPI()
    await api.start()
    try:
        async with running_bot(api) as running:
            yield running
    finally:
        await api.stop()


async def seated(env: BotEnv, game_id: str, user: FakeUser) -> bool:
    return user.id in {s.user_id for s in await env.service.seats(game_id)}


async def refused_in_private(env: BotEnv, user: FakeUser) -> dict[str, Any]:
    api = env.api
    message: dict[str, Any] = await api.wait_for(
        lambda: api.last_bot_message(user.id, lambda m: "press Join" in m.get("text", ""))
    )
    return message


async def test_a_link_alone_does_not_seat_an_outsider(env: BotEnv) -> None:
    api = env.api
    alice, bob, mallory = api.user(1, "Alice"), api.user(2, "Bob"), api.user(66, "Mallory")
    group = api.group(-7001, "Dwarves", members={alice.id, bob.id})
    game_id = await open_lobby(env, group, alice)
    mallory.press_start("j" + game_id)  # the id leaked: getChatMember says "left"
    text = (await refused_in_private(env, mallory))["text"]
    assert "belongs to a group" in text
    assert not await seated(env, game_id, mallory)
    assert any(c.method == "getChatMember" for c in api.calls)
    # a member with the same link is seated (getChatMember answers "member")
    bob.press_start("j" + game_id)
    await wait_async(lambda: seated(env, game_id, bob))


async def test_the_join_button_in_the_group_is_the_proof(env: BotEnv) -> None:
    api = env.api
    alice, bob, chen = api.user(1, "Alice"), api.user(2, "Bob"), api.user(3, "Chen")
    group = api.group(
        -7002, "Hidden list", members={alice.id, bob.id, chen.id}, members_visible=False
    )
    game_id = await open_lobby(env, group, alice)
    bob.press_start()  # the bot can write to Bob: one tap seats him
    chen.press_start("j" + game_id)  # no press, and getChatMember is refused: no proof
    await refused_in_private(env, chen)
    assert not await seated(env, game_id, chen)
    lobby = api.last_bot_message(group.id, is_lobby)
    assert lobby is not None
    qid = bob.press(lobby, is_join)
    await wait_async(lambda: seated(env, game_id, bob))
    answer = await api.wait_for(lambda: api.callback_queries[qid]["answer"])
    assert "joined" in answer.get("text", "") and not answer.get("url")
    await api.wait_for(lambda: api.last_bot_message(bob.id, lambda m: "✅" in m.get("text", "")))
    # Dan never opened the private chat: his press leaves a pass and is answered with the
    # deep link, since the bot may not write to him first
    dan = api.user(4, "Dan")
    group.members = (group.members or set()) | {dan.id}
    qid = dan.press(lobby, is_join)
    answer = await api.wait_for(lambda: api.callback_queries[qid]["answer"])
    assert answer["url"] == f"https://t.me/{BOT_USERNAME}?start=j{game_id}"
    assert not await seated(env, game_id, dan)
    dan.press_start(answer["url"].split("?start=", 1)[1])  # the link completes the join
    await wait_async(lambda: seated(env, game_id, dan))
    qid = chen.press(lobby, is_join)  # Chen, who has a private chat: seated at once
    await wait_async(lambda: seated(env, game_id, chen))
    await api.wait_for(lambda: not api.unanswered_queries())


async def test_the_creator_opens_the_lobby_to_anyone(env: BotEnv) -> None:
    api = env.api
    alice, bob, mallory = api.user(1, "Alice"), api.user(2, "Bob"), api.user(66, "Mallory")
    group = api.group(-7003, "Open house", members={alice.id, bob.id})
    game_id = await open_lobby(env, group, alice)
    lobby = api.last_bot_message(group.id, is_lobby)
    assert lobby is not None
    alice.press(lobby, "Settings")
    settings = await api.wait_for(
        lambda: api.last_bot_message(group.id, lambda m: "Only members" in str(m))
    )
    bob.press(settings, "Only members")  # not the creator: refused
    alice.press(settings, "Only members")

    async def opened() -> bool:
        return bool((await env.service.view(game_id, None))["settings"]["open_join"])

    await wait_async(opened)
    await api.wait_for(lambda: api.last_bot_message(group.id, lambda m: "Anyone with" in str(m)))
    mallory.press_start("j" + game_id)
    await wait_async(lambda: seated(env, game_id, mallory))


async def test_a_mini_app_join_of_a_groups_lobby_needs_the_same_proof(
    env: BotEnv, aiohttp_client: Any
) -> None:
    api = env.api
    alice, bob = api.user(1, "Alice"), api.user(2, "Bob")
    mallory = api.user(66, "Mallory")
    group = api.group(-7004, "Board fans", members={alice.id, bob.id}, members_visible=False)
    game_id = await open_lobby(env, group, alice)
    client: TestClient = await aiohttp_client(create_app(env.service, env.settings))

    async def join(user: FakeUser) -> Any:
        fields = {"auth_date": str(int(time.time())), "user": f'{{"id":{user.id}}}'}
        headers = {"Authorization": f"tma {sign_init_data(fields, TOKEN)}"}
        r = await client.post(f"/api/games/{game_id}/join", headers=headers)
        return r.status, await r.json()

    status, body = await join(mallory)  # not in the group, and the list is hidden
    assert status == 403 and body["error"]["code"] == "membership_required"
    assert "press Join" in body["error"]["message"]
    status, body = await join(bob)  # in the group, but nothing shows it yet
    assert status == 403
    lobby = api.last_bot_message(group.id, is_lobby)
    assert lobby is not None
    qid = bob.press(lobby, is_join)  # the press in the group: a pass (and the deep link)
    await api.wait_for(lambda: api.callback_queries[qid]["answered"])
    status, body = await join(bob)
    assert status == 200 and len(body["seats"]) == 2
    assert await env.service.game_for_chat(ChatKey(group.id, None)) == game_id
