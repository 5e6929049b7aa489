"""In-process fan-out of "game G is at version V" notices.

One pub/sub subscription per process feeds this; every websocket or board updater that
listens to a game gets its own small queue. A slow listener never blocks the others:
when its queue is full the oldest notice is dropped (only the latest version matters,
principle 6).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from core.store.base import Change

QUEUE_SIZE = 16


def _put_latest(queue: asyncio.Queue[Change], change: Change) -> None:
    while True:
        try:
            queue.put_nowait(change)
            return
        except asyncio.QueueFull:
            with contextlib.suppress(asyncio.QueueEmpty):
                queue.get_nowait()


class Fanout:
    def __init__(self) -> None:
        self._by_game: dict[str, set[asyncio.Queue[Change]]] = {}
        self._all: set[asyncio.Queue[Change]] = set()

    @property
    def games(self) -> list[str]:
        return list(self._by_game)

    def dispatch(self, change: Change) -> None:
        for queue in self._by_game.get(change.game_id, ()):
            _put_latest(queue, change)
        for queue in self._all:
            _put_latest(queue, change)

    async def listen(self, game_id: str) -> AsyncIterator[int]:
        queue: asyncio.Queue[Change] = asyncio.Queue(QUEUE_SIZE)
        self._by_game.setdefault(game_id, set()).add(queue)
        try:
            while True:
                change = await queue.get()
                yield change.version
        finally:
            listeners = self._by_game.get(game_id)
            if listeners is not None:
                listeners.discard(queue)
                if not listeners:
                    del self._by_game[game_id]

    async def listen_all(self) -> AsyncIterator[Change]:
        queue: asyncio.Queue[Change] = asyncio.Queue(QUEUE_SIZE * 16)
        self._all.add(queue)
        try:
            while True:
                yield await queue.get()
        finally:
            self._all.discard(queue)
