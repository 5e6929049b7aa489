"""Fixtures of the bot's tests: the fake Bot API server on loopback."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from fake_bot_api import FakeBotAPI  # noqa: E402


@pytest.fixture
async def fake_api() -> AsyncIterator[FakeBotAPI]:
    api = FakeBotAPI()
    await api.start()
    try:
        yield api
    finally:
        await api.stop()
