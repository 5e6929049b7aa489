"""Shared fixtures: a real Redis with an isolated key space, and a real headless Chromium.

Redis
-----
``redis_url`` (session, sync)
    ``TEST_REDIS_URL`` or ``redis://127.0.0.1:6379/0``. Checked once with a PING; when
    Redis does not answer, every test that needs it fails with a message saying how to
    start one (``./dev test`` starts it by itself).
``redis_prefix`` (function)
    A key prefix unique to the test, ``test:<uuid4 hex>:``. Several people and CI share
    one Redis db: put every key under it and never FLUSHDB/FLUSHALL.
``redis_client`` (function, async)
    A ``redis.asyncio.Redis`` on ``redis_url`` with redis-py's defaults (replies are
    ``bytes``; make your own client from ``redis_url`` for other options). After the test
    every key matching ``redis_prefix + "*"`` is deleted (SCAN, through a fresh client, so
    a test may close or break its client) and the client is closed.

Tests that restart Redis or need persistence start their own ``redis-server`` on a free
port (``unused_tcp_port`` from pytest-asyncio) instead.

Browser
-------
``browser`` (function, async)
    Playwright's async API driving Debian's ``/usr/bin/chromium`` headless (never a
    Playwright-downloaded browser), with the flags CI needs. ``chromium.launch()`` gives
    every launch a fresh temporary profile (user data dir), deleted when it closes.
    Why per test rather than per session: pytest-asyncio runs each loop scope on its own
    event loop, and Playwright objects belong to the loop that made them; a session-wide
    browser would only work for tests pinned to the session loop, together with every
    async fixture they use (``aiohttp_server`` included). A launch costs well under a
    second here. Keep tests on the default (function) loop scope.
``page`` (function, async)
    A page in a new browser context with a phone-sized viewport (390x844, device scale
    1) and ``locale="en-US"``. Ask for ``browser`` yourself for other contexts.
``screenshot`` (function)
    ``await screenshot(page, "name")`` saves ``test-artifacts/<test name>-<name>.png``
    (gitignored) and returns its path; look at it with an image viewer.

Tests using ``browser`` or ``page`` are marked ``browser`` automatically (mark others
with ``@pytest.mark.browser``). ``SKIP_BROWSER=1`` skips them; otherwise a missing
``/usr/bin/chromium`` is a failure that says how to install it (CI installs it).

pytest-asyncio runs in auto mode (``asyncio_mode = "auto"`` in pyproject.toml): plain
``async def`` tests and fixtures need no decorator.
"""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import redis
import redis.asyncio

if TYPE_CHECKING:
    from playwright.async_api import Browser, Page, ViewportSize

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
PHONE_VIEWPORT: ViewportSize = {"width": 390, "height": 844}
BROWSER_FIXTURES = {"browser", "page"}

Screenshot = Callable[["Page", str], Awaitable[Path]]


# --------------------------------------------------------------------------- collection


def _skip_browser() -> bool:
    return os.environ.get("SKIP_BROWSER", "") == "1"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test that uses the browser fixtures, and skip them on SKIP_BROWSER=1."""
    skip = pytest.mark.skip(reason="SKIP_BROWSER=1")
    for item in items:
        uses_browser = BROWSER_FIXTURES & set(getattr(item, "fixturenames", ()))
        if uses_browser and item.get_closest_marker("browser") is None:
            item.add_marker(pytest.mark.browser)
        if _skip_browser() and item.get_closest_marker("browser") is not None:
            item.add_marker(skip)


# ------------------------------------------------------------------------------- Redis


@pytest.fixture(scope="session")
def redis_url() -> str:
    url = os.environ.get("TEST_REDIS_URL") or DEFAULT_REDIS_URL
    client = redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2)
    error: redis.RedisError | None = None
    try:
        client.ping()
    except redis.RedisError as exc:
        error = exc
    finally:
        client.close()
    if error is not None:
        pytest.fail(
            f"Redis is not reachable at {url} ({error}).\n"
            "Start one with: redis-server --daemonize yes --port 6379 --save '' "
            "--appendonly no\n"
            "(./dev test does that by itself), or point TEST_REDIS_URL at another Redis.",
            pytrace=False,
        )
    return url


@pytest.fixture
def redis_prefix() -> str:
    return f"test:{uuid.uuid4().hex}:"


def _glob_escape(text: str) -> str:
    """Escape Redis glob metacharacters so a prefix matches only itself."""
    return re.sub(r"([*?\[\]\\])", r"\\\1", text)


async def delete_prefixed(url: str, prefix: str) -> int:
    """Delete every key starting with ``prefix`` (SCAN, batched); returns how many."""
    client = redis.asyncio.Redis.from_url(url)
    deleted = 0
    try:
        batch: list[bytes] = []
        async for key in client.scan_iter(match=_glob_escape(prefix) + "*", count=1000):
            batch.append(key)
            if len(batch) >= 500:
                deleted += await client.unlink(*batch)
                batch.clear()
        if batch:
            deleted += await client.unlink(*batch)
    finally:
        await client.aclose()
    return deleted


@pytest.fixture
async def redis_client(redis_url: str, redis_prefix: str) -> AsyncIterator[redis.asyncio.Redis]:
    client = redis.asyncio.Redis.from_url(redis_url)
    try:
        yield client
    finally:
        try:
            await client.aclose()
        finally:
            await delete_prefixed(redis_url, redis_prefix)


# ----------------------------------------------------------------------------- browser


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    if _skip_browser():
        pytest.skip("SKIP_BROWSER=1")
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(
            f"{CHROMIUM} is missing: browser tests need Debian's chromium.\n"
            "Install it with: apt-get install chromium (./dev test does that), "
            "or set SKIP_BROWSER=1 to skip browser tests.",
            pytrace=False,
        )
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield launched
        finally:
            await launched.close()


@pytest.fixture
async def page(browser: Browser) -> AsyncIterator[Page]:
    context = await browser.new_context(viewport=PHONE_VIEWPORT, locale="en-US")
    try:
        yield await context.new_page()
    finally:
        await context.close()


@pytest.fixture
def screenshot(request: pytest.FixtureRequest) -> Screenshot:
    test_name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name).strip("_")

    async def save(page: Page, name: str) -> Path:
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / f"{test_name}-{re.sub(r'[^A-Za-z0-9_.-]+', '_', name)}.png"
        await page.screenshot(path=str(path), full_page=True)
        return path

    return save
