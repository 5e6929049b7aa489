"""POST /api/games/{id}/rematch: "play again" from the Mini App, as from the group."""

from __future__ import annotations

from core.service import GameService
from tests.miniapp.conftest import ClientMaker, session_token
from tests.miniapp.finished import PLAYERS, finished_game


async def test_play_again_opens_one_lobby_for_the_table(
    make_client: ClientMaker, memory_service: GameService
) -> None:
    game_id = await finished_game(memory_service)
    client = await make_client(memory_service)
    ann = await session_token(client, *PLAYERS[0])
    bob = await session_token(client, *PLAYERS[1])
    r = await client.post(f"/api/games/{game_id}/rematch", headers=ann)
    assert r.status == 200, await r.text()
    lobby = await r.json()
    assert lobby["status"] == "lobby" and lobby["game_id"] != game_id
    assert lobby["you"]["creator"] is True
    assert [s["name"] for s in lobby["seats"]] == ["Ann", "Bob", "Carl"]
    # a second press (another player) enters the same lobby
    again = await (await client.post(f"/api/games/{game_id}/rematch", headers=bob)).json()
    assert again["game_id"] == lobby["game_id"]
    # the finished game's view names it, so every page can follow
    old = await (await client.get(f"/api/games/{game_id}", headers=bob)).json()
    assert old["rematch"] == lobby["game_id"]


async def test_play_again_refusals(make_client: ClientMaker, memory_service: GameService) -> None:
    game_id = await finished_game(memory_service)
    client = await make_client(memory_service)
    stranger = await session_token(client, 999, "Zed")
    r = await client.post(f"/api/games/{game_id}/rematch", headers=stranger)
    assert r.status == 403 and (await r.json())["error"]["code"] == "not_seated"
    r = await client.post("/api/games/nope/rematch", headers=stranger)
    assert r.status == 404
    r = await client.post(f"/api/games/{game_id}/rematch")
    assert r.status == 401
    lobby = await (await client.post("/api/games", headers=stranger, json={})).json()
    r = await client.post(f"/api/games/{lobby['game_id']}/rematch", headers=stranger)
    assert r.status == 422 and (await r.json())["error"]["code"] == "not_finished"
