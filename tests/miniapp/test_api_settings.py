"""Lobby settings over the API: the one schema of ``core.service.lobby_settings``, set by
the lobby's creator, every value checked by the service (its codes in 4xx JSON)."""

from __future__ import annotations

import asyncio
import contextlib

import jsonschema

from core.service import ChatKey, GameService, UserRef
from core.service.lobby_settings import OPTION_SETTINGS, SCHEMA
from tests.miniapp.conftest import ClientMaker, session_token


async def test_schema_is_the_service_schema(
    memory_service: GameService, make_client: ClientMaker
) -> None:
    client = await make_client(memory_service)
    doc = await (await client.get("/api/settings/schema")).json()
    assert [s["name"] for s in doc["settings"]] == [s.name for s in SCHEMA]
    assert doc["context"] == "private" and doc["players"]["classic"] == [3, 10]
    slow = {s["name"]: s for s in doc["settings"]}["slow"]
    assert slow["offered"] is False  # group lobbies only
    group = await (await client.get("/api/settings/schema?context=group")).json()
    assert {s["name"]: s for s in group["settings"]}["slow"]["offered"] is True
    assert {s["name"]: s for s in group["settings"]}["turn_time"]["default"] == 90
    documented = (await (await client.get("/api/openapi.json")).json())["paths"]
    schema = documented["/api/settings/schema"]["get"]["responses"]["200"]["content"]
    jsonschema.validate(group, schema["application/json"]["schema"])
    r = await client.get("/api/settings/schema?context=moon")
    assert r.status == 400 and (await r.json())["error"]["code"] == "bad_type"


async def test_creator_sets_everything_others_are_refused(
    any_service: GameService, make_client: ClientMaker
) -> None:
    view = await any_service.create_lobby(chat=None, creator=UserRef(1, "Ann"))
    game_id = view["game_id"]
    await any_service.join(game_id, UserRef(2, "Bob"))
    client = await make_client(any_service)
    ann = await session_token(client, 1, "Ann")
    bob = await session_token(client, 2, "Bob")
    url = f"/api/games/{game_id}/settings"
    sheet = await (await client.get(url, headers=ann)).json()
    assert sheet["editable"] is True and sheet["context"] == "private"
    assert sheet["values"]["edition"] == "classic" and sheet["values"]["rounds"] == 3
    assert sheet["computers"] == 0
    assert (await (await client.get(url, headers=bob)).json())["editable"] is False
    # every classic variant (the tournament needs 5 to 9 players: refused for 4, below)
    variants = {
        s.name: True for s in OPTION_SETTINGS if s.applies_to("classic") and s.name != "tournament"
    }
    body = {
        "settings": {
            "rounds": 2,
            "turn_time": 60,
            "computer_level": "hard",
            "options": {"competitive": True, "old_mine": True},
        },
        "computers": 2,
    }
    r = await client.patch(url, json=body, headers=ann)
    assert r.status == 200, await r.text()
    new = await r.json()
    assert new["options"]["rounds"] == 2 and new["options"]["competitive"] is True
    assert new["settings"]["turn_time"] == 60 and new["settings"]["computer_level"] == "hard"
    assert sum(s["computer"] for s in new["seats"]) == 2
    sheet = await (await client.get(url, headers=bob)).json()
    assert sheet["values"]["old_mine"] is True and sheet["computers"] == 2
    assert set(variants) <= set(sheet["values"])
    # every variant on at once, then Saboteur 2 (the classic-only variants go)
    r = await client.patch(url, json={"settings": {"options": variants}}, headers=ann)
    assert r.status == 200, await r.text()
    options = (await r.json())["options"]
    assert all(options[name] for name in variants)
    r = await client.patch(
        url, json={"settings": {"edition": "expansion"}, "computers": 1}, headers=ann
    )
    assert r.status == 200, await r.text()
    new = await r.json()
    assert new["edition"] == "expansion" and not new["options"].get("competitive")
    assert sum(s["computer"] for s in new["seats"]) == 1
    # refused: not the creator, bad values (the service's codes), bad shapes
    r = await client.patch(url, json={"settings": {"rounds": 1}}, headers=bob)
    assert r.status == 403 and (await r.json())["error"]["code"] == "not_creator"
    for settings, code in (
        ({"rounds": 7}, "bad_setting"),
        ({"turn_time": 1}, "bad_setting"),
        ({"computer_level": "godlike"}, "bad_setting"),
        ({"colour": "red"}, "bad_setting"),
        ({"edition": "classic", "options": {"competitive": "yes"}}, "invalid_config"),
    ):
        r = await client.patch(url, json={"settings": settings}, headers=ann)
        assert r.status == 422, (settings, await r.text())
        assert (await r.json())["error"]["code"] == code, settings
    r = await client.patch(url, json={"computers": 99}, headers=ann)
    assert r.status == 422 and (await r.json())["error"]["code"] == "bad_setting"
    r = await client.patch(url, json={"computers": "2"}, headers=ann)
    assert r.status == 422 and (await r.json())["error"]["code"] == "bad_setting"
    r = await client.patch(url, json={"settings": [1]}, headers=ann)
    assert r.status == 400 and (await r.json())["error"]["code"] == "bad_type"
    r = await client.patch(url, data=b"{nope", headers=ann)
    assert r.status == 400 and (await r.json())["error"]["code"] == "malformed_json"
    assert (await client.patch(url, json={})).status == 401
    assert (await client.patch("/api/games/nope/settings", json={}, headers=ann)).status == 404
    # nothing refused was kept
    sheet = await (await client.get(url, headers=ann)).json()
    assert sheet["values"]["edition"] == "expansion" and sheet["computers"] == 1
    # once started, the settings are fixed
    await any_service.start(game_id, 1)
    r = await client.patch(url, json={"settings": {"rounds": 1}}, headers=ann)
    assert r.status == 409 and (await r.json())["error"]["code"] == "already_started"


async def test_a_change_from_the_mini_app_reaches_the_bots_change_feed(
    memory_service: GameService, make_client: ClientMaker
) -> None:
    """The bot redraws a group's lobby message on every change notice of its game
    (telegram_bot.notifier listens to ``listen_all``): a Mini App change sends one."""
    view = await memory_service.create_lobby(
        chat=ChatKey(-100, None), creator=UserRef(1, "Ann"), title="Cave"
    )
    game_id = view["game_id"]
    client = await make_client(memory_service)
    ann = await session_token(client, 1, "Ann")
    heard: list[tuple[str, int]] = []

    async def listen() -> None:
        async for change in memory_service.listen_all():
            heard.append((change.game_id, change.version))

    task = asyncio.create_task(listen())
    await asyncio.sleep(0.05)
    sheet = await (await client.get(f"/api/games/{game_id}/settings", headers=ann)).json()
    assert sheet["context"] == "group" and sheet["values"]["turn_time"] == 90
    r = await client.patch(
        f"/api/games/{game_id}/settings",
        json={"settings": {"slow": True}},
        headers=ann,
    )
    new = await r.json()
    assert new["settings"]["slow"] is True and new["settings"]["turn_time"] == 4 * 3600
    for _ in range(50):
        if (game_id, new["version"]) in heard:
            break
        await asyncio.sleep(0.02)
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    assert (game_id, new["version"]) in heard
    # and what the bot then reads is what the Mini App set
    assert (await memory_service.view(game_id, None))["settings"]["slow"] is True
