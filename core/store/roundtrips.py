"""Count Redis round trips made by this process (tests and the store benchmark).

Why: the issue's target is "1 round trip per commit, at most 1 read"; counting packets sent
is the honest measure (a pipeline or a script is one send, one reply).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from redis.asyncio.connection import AbstractConnection

from core.store.connection import Checked


@dataclass(slots=True)
class RoundTripCounter:
    count: int = 0


@contextlib.contextmanager
def count_round_trips() -> Iterator[RoundTripCounter]:
    counter = RoundTripCounter()
    original = AbstractConnection.send_packed_command
    unbuffered = Checked._send_unbuffered  # the store's own write path (every topology)

    async def counting(self: AbstractConnection, command: Any, check_health: bool = True) -> None:
        counter.count += 1
        await original(self, command, check_health)

    async def counting_unbuffered(self: Checked, writer: Any, command: Any) -> None:
        counter.count += 1
        await unbuffered(self, writer, command)

    AbstractConnection.send_packed_command = counting  # type: ignore[method-assign]
    Checked._send_unbuffered = counting_unbuffered  # type: ignore[method-assign]
    try:
        yield counter
    finally:
        AbstractConnection.send_packed_command = original  # type: ignore[method-assign]
        Checked._send_unbuffered = unbuffered  # type: ignore[method-assign]
