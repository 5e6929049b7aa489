"""``POST /api/games/{id}/moves`` with a client ``submission_id`` (issue 20): a retry after
a lost response answers 200 again and the move is made once; a bad id is a 400."""

from __future__ import annotations

import asyncio
from typing import Any

from core.service import GameService, UserRef
from tests.miniapp.conftest import ClientMaker, session_token


async def human_turn(
    client: Any, service: GameService, game_id: str
) -> tuple[dict[str, str], dict[str, Any]]:
    for _ in range(200):  # the computer seat may act first
        for uid, name in ((1, "Ann"), (2, "Bob")):
            headers = await session_token(client, uid, name)
            view = await (await client.get(f"/api/games/{game_id}", headers=headers)).json()
            if view["legal_moves"]:
                return headers, view
        await service.fire_due()
        await asyncio.sleep(0.02)
    raise AssertionError("no human turn came")


async def test_a_retried_move_with_its_submission_id_is_made_once(
    any_service: GameService, make_client: ClientMaker
) -> None:
    client = await make_client(any_service)
    view = await any_service.create_lobby(chat=None, creator=UserRef(1, "Ann"))
    game_id = view["game_id"]
    await any_service.join(game_id, UserRef(2, "Bob"))
    await any_service.add_computer(game_id, 1)
    await any_service.start(game_id, 1)
    headers, view = await human_turn(client, any_service, game_id)
    url = f"/api/games/{game_id}/moves"
    body = {
        "version": view["version"],
        "move": view["legal_moves"][0],
        "submission_id": "0f8b1c2e-7d4a-4b9e-9c1d-2a6f3e5b7c90",
    }
    first = await client.post(url, json=body, headers=headers)
    assert first.status == 200, await first.text()
    made = await first.json()
    again = await client.post(url, json=body, headers=headers)  # "the answer was lost"
    assert again.status == 200, await again.text()
    assert (await again.json())["version"] >= made["version"]
    moves_at = [e for e in await any_service.move_log(game_id) if e["v"] == made["version"]]
    assert len(moves_at) == 1
    # without the id, the same request is what it always was: stale
    plain = {k: v for k, v in body.items() if k != "submission_id"}
    stale = await client.post(url, json=plain, headers=headers)
    assert stale.status == 409


async def test_a_bad_submission_id_is_a_400(
    memory_service: GameService, make_client: ClientMaker
) -> None:
    client = await make_client(memory_service)
    headers = await session_token(client, 1, "Ann")
    url = "/api/games/nosuchgame01/moves"
    body: dict[str, Any] = {"version": 1, "move": {"type": "discard", "cards": ["a"]}}
    for bad in (7, True, "short", "x" * 65, "has space", "ümlaut-id", ["a" * 8]):
        r = await client.post(url, json={**body, "submission_id": bad}, headers=headers)
        assert r.status == 400, bad
        assert (await r.json())["error"]["code"] == "bad_type"
    r = await client.post(url, json={**body, "submission_id": None}, headers=headers)
    assert r.status == 404  # null: no id; then the game is looked up
