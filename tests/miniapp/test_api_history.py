"""Replays and "My games" over the API: any round of a game, and a finished game served
from its archive once the live record is gone, with the privacy of a finished round."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import jsonschema

from core.service import ChatKey, GameService, UserRef
from tests.miniapp.conftest import ClientMaker, session_token

HIDDEN = ("hand", "known_goals", "known_roles")


async def finished_game(
    service: GameService, rounds: int = 2, user: int = 1, chat: ChatKey | None = None
) -> str:
    """A classic game of ``rounds`` rounds, user ``user`` against two computer seats, the
    human playing their first legal move each turn until the game is over."""
    view = await service.create_lobby(
        chat=chat,
        title="Cave" if chat else None,
        creator=UserRef(user, "Ann"),
        edition="classic",
        seats=3,
        computers=2,
        settings={"rounds": rounds, "think_delay": 0, "round_pause": 0},
    )
    game_id = view["game_id"]
    deadline = time.monotonic() + 60
    while view["status"] != "finished":
        assert time.monotonic() < deadline, "the game did not finish"
        if view["legal_moves"]:
            moves = view["legal_moves"]
            move = next((m for m in moves if m["type"] != "discard"), moves[0])
            await service.submit(game_id, user, move, view["version"])
        else:
            await asyncio.sleep(0.01)
        view = await service.view(game_id, user)
    while await service.store.archived(game_id) is None:  # the close-out follows the commit
        assert time.monotonic() < deadline, "the game was not archived"
        await asyncio.sleep(0.01)
    return game_id


async def test_archived_game_is_viewable_and_replayable(
    any_service: GameService, make_client: ClientMaker
) -> None:
    game_id = await finished_game(any_service, rounds=2)
    client = await make_client(any_service)
    ann = await session_token(client, 1, "Ann")
    bob = await session_token(client, 2, "Bob")
    live = await (await client.get(f"/api/games/{game_id}", headers=ann)).json()
    live_log = await (await client.get(f"/api/games/{game_id}/log", headers=ann)).json()
    live_replay = await (await client.get(f"/api/games/{game_id}/replay", headers=ann)).json()
    await any_service.store.delete_game(game_id)  # the live record's hour is over
    with_live_gone = await client.get(f"/api/games/{game_id}", headers=ann)
    assert with_live_gone.status == 200
    view = await with_live_gone.json()
    assert view["archived"] is True and view["status"] == "finished"
    assert view["final"] == live["final"] and view["version"] == live["version"]
    assert view["you"]["role"] == live["you"]["role"] and view["legal_moves"] == []
    assert [s["name"] for s in view["seats"]] == [s["name"] for s in live["seats"]]
    # a reader who did not play sees the spectator's view: nothing of anyone's hand
    other = await (await client.get(f"/api/games/{game_id}", headers=bob)).json()
    assert other["you"]["seat"] is None
    assert all(not other["you"][k] for k in HIDDEN)
    log = await (await client.get(f"/api/games/{game_id}/log", headers=ann)).json()
    assert log["entries"] == live_log["entries"]
    replay = await (await client.get(f"/api/games/{game_id}/replay", headers=bob)).json()
    assert replay == live_replay
    assert [r["round"] for r in replay["rounds"]] == [1, 2] and replay["finished"]
    for r in replay["rounds"]:
        assert r["entries"][0]["code"] == "round_started" and r["end"]["round_result"]
        assert {c["card"] for c in r["start"]["board"]} <= {"S1_START"}
        assert not any(g["kind"] for g in r["start"]["goals"])  # face down at the start
        assert all(g["kind"] for g in r["end"]["goals"])  # all shown at round end
    text = repr(replay)
    assert "'hand'" not in text and "known_goals" not in text and "user_id" not in text
    assert replay["final"]["gold"] == live["final"]["gold"]
    doc = await (await client.get("/api/openapi.json")).json()
    documented = doc["paths"]["/api/games/{game_id}/replay"]["get"]["responses"]["200"]
    schema = documented["content"]["application/json"]["schema"]
    jsonschema.validate(replay, {**schema, "components": doc["components"]})


async def test_any_round_of_a_live_game_is_replayable(
    memory_service: GameService, make_client: ClientMaker
) -> None:
    view = await memory_service.create_lobby(
        chat=None, creator=UserRef(3, "Cy"), edition="expansion", seats=3, computers=2
    )
    client = await make_client(memory_service)
    cy = await session_token(client, 3, "Cy")
    replay = await (await client.get(f"/api/games/{view['game_id']}/replay", headers=cy)).json()
    assert [r["round"] for r in replay["rounds"]] == [1]
    assert replay["rounds"][0]["end"] is None and not replay["finished"]
    assert replay["final"] is None
    lobby = await memory_service.create_lobby(chat=None, creator=UserRef(3, "Cy"))
    r = await client.get(f"/api/games/{lobby['game_id']}/replay", headers=cy)
    assert r.status == 409 and (await r.json())["error"]["code"] == "not_started"
    r = await client.get("/api/games/nosuchgame/replay", headers=cy)
    assert r.status == 404


async def test_my_games_lists_archived_games_newest_first(
    any_service: GameService, make_client: ClientMaker
) -> None:
    first = await finished_game(any_service, rounds=1, user=7)
    second = await finished_game(any_service, rounds=1, user=7)
    client = await make_client(any_service)
    me = await session_token(client, 7, "Di")
    games: list[dict[str, Any]] = (await (await client.get("/api/history", headers=me)).json())[
        "games"
    ]
    assert [g["game_id"] for g in games] == [second, first]
    for g in games:
        assert g["edition"] == "classic" and g["rounds"] == 1 and g["seat"] == 0
        assert g["result"] in ("won", "lost") and isinstance(g["gold"], int)
        assert g["replayable"] and g["finished_at"] > 0
    doc = await (await client.get("/api/openapi.json")).json()
    documented = doc["paths"]["/api/history"]["get"]["responses"]["200"]["content"]
    jsonschema.validate({"games": games}, documented["application/json"]["schema"])
    nobody = await session_token(client, 8, "Ed")
    assert (await (await client.get("/api/history", headers=nobody)).json()) == {"games": []}
    assert (await client.get("/api/history")).status == 401


async def test_a_game_archived_without_its_deal_is_listed_not_opened(
    memory_service: GameService, make_client: ClientMaker
) -> None:
    game_id = await finished_game(memory_service, rounds=1, user=9)
    record = await memory_service.store.archived(game_id)
    assert record is not None and record["replay"]["seed"] is not None
    del record["replay"]  # as records were archived before replays were kept
    await memory_service.store.archive(
        game_id, record, user_ids=[9], chat_id=None, finished_ms=record["finished_ms"]
    )
    await memory_service.store.delete_game(game_id)
    client = await make_client(memory_service)
    me = await session_token(client, 9, "Fay")
    games = (await (await client.get("/api/history", headers=me)).json())["games"]
    assert [g["replayable"] for g in games] == [False]
    for path in ("", "/log", "/replay"):
        r = await client.get(f"/api/games/{game_id}{path}", headers=me)
        assert r.status == 404 and (await r.json())["error"]["code"] == "not_found", path
