"""POST /api/games/{id}/share: a finished game's result, prepared by the bot's port for
``Telegram.WebApp.shareMessage``; refused while the game goes on and without a port."""

from __future__ import annotations

from typing import Any

from core.service import GameService, UserRef
from tests.miniapp.conftest import ClientMaker, session_token, tma
from tests.miniapp.finished import PLAYERS, finished_game
from tests.miniapp.test_api_history import finished_game as archived_game


class RecordingSharing:
    """The port as the bot implements it, without Telegram: one id per request."""

    def __init__(self) -> None:
        self.calls: list[tuple[UserRef, dict[str, Any]]] = []

    async def prepare_result(self, user: UserRef, view: dict[str, Any]) -> str:
        self.calls.append((user, view))
        return f"prepared-{len(self.calls)}"


class RefusingSharing:
    async def prepare_result(self, user: UserRef, view: dict[str, Any]) -> str:
        raise RuntimeError("Bad Request: user not found")


async def _can_share(client: Any, user_id: int) -> bool:
    r = await client.post("/api/session", headers=tma(user_id, "Ann"))
    return bool((await r.json())["can_share"])


async def test_a_finished_game_is_shared_through_the_port(
    make_client: ClientMaker, memory_service: GameService
) -> None:
    game_id = await finished_game(memory_service)
    port = RecordingSharing()
    memory_service.use_sharing(port)
    client = await make_client(memory_service)
    assert await _can_share(client, PLAYERS[0][0])
    ann = await session_token(client, *PLAYERS[0])
    r = await client.post(f"/api/games/{game_id}/share", headers=ann)
    assert r.status == 200, await r.text()
    assert await r.json() == {"game_id": game_id, "prepared_message_id": "prepared-1"}
    user, view = port.calls[0]
    assert user.user_id == PLAYERS[0][0]
    assert view["status"] == "finished" and view["final"]["winners"] is not None


async def test_sharing_refusals(make_client: ClientMaker, memory_service: GameService) -> None:
    game_id = await finished_game(memory_service)
    client = await make_client(memory_service)
    ann = await session_token(client, *PLAYERS[0])
    # no port (local mode, an API-only server): unavailable, and the session says so
    assert not await _can_share(client, PLAYERS[0][0])
    r = await client.post(f"/api/games/{game_id}/share", headers=ann)
    assert r.status == 503 and (await r.json())["error"]["code"] == "sharing_unavailable"
    assert "Retry-After" not in r.headers  # not a moment's trouble: do not retry
    port = RecordingSharing()
    memory_service.use_sharing(port)
    # a game still being played
    lobby = await (await client.post("/api/games", headers=ann, json={})).json()
    r = await client.post(f"/api/games/{lobby['game_id']}/share", headers=ann)
    assert r.status == 409 and (await r.json())["error"]["code"] == "game_in_progress"
    r = await client.post("/api/games/nope/share", headers=ann)
    assert r.status == 404
    r = await client.post(f"/api/games/{game_id}/share")
    assert r.status == 401
    assert port.calls == []
    # Telegram refused to prepare it: a clear 503, not a crash
    memory_service.use_sharing(RefusingSharing())
    r = await client.post(f"/api/games/{game_id}/share", headers=ann)
    assert r.status == 503 and (await r.json())["error"]["code"] == "sharing_unavailable"


async def test_an_archived_game_is_shared_after_its_live_record_is_gone(
    make_client: ClientMaker, memory_service: GameService
) -> None:
    game_id = await archived_game(memory_service)
    port = RecordingSharing()
    memory_service.use_sharing(port)
    await memory_service.store.delete_game(game_id)  # the live record's hour is over
    client = await make_client(memory_service)
    ann = await session_token(client, 1, "Ann")
    r = await client.post(f"/api/games/{game_id}/share", headers=ann)
    assert r.status == 200, await r.text()
    _, view = port.calls[0]
    assert view["archived"] is True and view["status"] == "finished"
