"""The game-over sheet's "Share result" (Mini Apps 8.0 ``shareMessage``): offered inside
Telegram 8.0+ when a bot prepares the message, never in local mode, on older clients or
without a bot. Checked at 390×844 on what a person sees and what Telegram is asked."""

from __future__ import annotations

from typing import Any

from aiohttp.test_utils import TestServer
from playwright.async_api import Browser

from core.service import GameService, UserRef
from core.settings import Settings
from miniapp.local import start_local_table
from miniapp.server import create_app
from tests.conftest import Screenshot
from tests.miniapp.finished import PLAYERS, finished_game
from tests.miniapp.test_page_table import PHONE, open_page, serve, wait_view


class RecordingSharing:
    """The bot's port without Telegram: one prepared id per request."""

    def __init__(self) -> None:
        self.calls: list[UserRef] = []

    async def prepare_result(self, user: UserRef, view: dict[str, Any]) -> str:
        self.calls.append(user)
        return f"prepared-{len(self.calls)}"


async def test_share_result_inside_telegram_calls_share_message_with_the_prepared_id(
    browser: Browser,
    aiohttp_server: Any,
    memory_service: GameService,
    settings: Settings,
    screenshot: Screenshot,
) -> None:
    game_id = await finished_game(memory_service, rounds=1, seed=3)
    port = RecordingSharing()
    memory_service.use_sharing(port)
    server = await serve(aiohttp_server, memory_service, settings)
    ctx, page, errors = await open_page(browser, server, PLAYERS[1], game_id, language="zh-hans")
    try:
        button = page.locator("#sheet [data-share]")
        await button.wait_for(state="visible")
        assert (await button.inner_text()).strip() == "分享结果"
        await screenshot(page, "390-share-result")
        await button.click()
        await page.wait_for_function("() => window.__tgCalls.some((c) => c[0] === 'shareMessage')")
        calls = await page.evaluate("window.__tgCalls")
        assert ["shareMessage", "prepared-1"] in calls
        assert [u.user_id for u in port.calls] == [PLAYERS[1][0]]
        assert port.calls[0].language == "zh-hans"
        assert not errors, errors
    finally:
        await ctx.close()


async def test_no_share_button_on_older_clients_or_without_a_bot(
    browser: Browser, aiohttp_server: Any, memory_service: GameService, settings: Settings
) -> None:
    game_id = await finished_game(memory_service, rounds=1, seed=3)
    server = await serve(aiohttp_server, memory_service, settings)
    # Telegram 8.0 but no bot prepares messages (an API-only server)
    ctx, page, errors = await open_page(browser, server, PLAYERS[0], game_id)
    try:
        await page.wait_for_selector("#result-title")
        await page.locator("#sheet [data-again]").wait_for(state="visible")
        assert await page.locator("#sheet [data-share]").count() == 0
        assert not errors, errors
    finally:
        await ctx.close()
    # a bot, but a client older than Mini Apps 8.0 (no shareMessage)
    memory_service.use_sharing(RecordingSharing())
    ctx, page, errors = await open_page(
        browser, server, PLAYERS[0], game_id, tg={"version": "7.10"}
    )
    try:
        await page.wait_for_selector("#result-title")
        await page.locator("#sheet [data-again]").wait_for(state="visible")
        assert await page.locator("#sheet [data-share]").count() == 0
        assert not errors, errors
    finally:
        await ctx.close()


async def test_no_share_button_in_local_mode(
    browser: Browser, aiohttp_server: Any, memory_service: GameService
) -> None:
    memory_service.use_sharing(RecordingSharing())  # even with a port: local mode never shares
    settings = Settings(telegram_bot_token=None, session_secret="local-secret")
    app = create_app(memory_service, settings)
    server: TestServer = await aiohttp_server(app)
    url = await start_local_table(memory_service, settings, app, port=server.port)
    game_id = await finished_game(memory_service, rounds=1, seed=3)
    context = await browser.new_context(viewport=PHONE, locale="en-US")
    try:
        page = await context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        await page.goto(url)
        await wait_view(page, "true")
        await page.goto(f"http://127.0.0.1:{server.port}/?game={game_id}")
        await page.wait_for_selector("#result-title")
        assert await page.locator("#sheet [data-share]").count() == 0
        session = await page.evaluate("JSON.parse(sessionStorage.getItem('sab-session'))")
        assert session["local"] is True and session["can_share"] is False
        assert not errors, errors
    finally:
        await context.close()
