"""``ServiceAdapter.version``: the sockets' resync reads one field, never the whole record."""

from __future__ import annotations

from typing import Any

import pytest

from core.service import GameService, UserRef
from core.store import MemoryStore
from miniapp.errors import ApiError
from miniapp.service_adapter import ServiceAdapter


async def test_version_reads_the_version_without_loading_the_game(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = MemoryStore()
    service = GameService(store)
    view = await service.create_lobby(
        chat=None,
        creator=UserRef(user_id=1, name="Ann", language="en"),
        edition="classic",
        options={},
        seats=3,
        computers=0,
        level="normal",
    )
    adapter = ServiceAdapter(service)

    async def no_load(*_args: Any) -> None:
        raise AssertionError("the resync must not load the whole record")

    monkeypatch.setattr(store, "load", no_load)
    assert await adapter.version(view["game_id"]) == view["version"]
    with pytest.raises(ApiError) as caught:
        await adapter.version("no-such-game")
    assert caught.value.status == 404
