"""The page's lobby settings sheet, My games and the replay of any round, in headless
Chromium at 390×844 and 320×568; local mode's link reopening the same game."""

from __future__ import annotations

import re
from typing import Any

import pytest
from aiohttp.test_utils import TestServer
from playwright.async_api import Browser, Page, ViewportSize

from core.service import ChatKey, GameService, UserRef
from core.settings import Settings
from miniapp.local import start_local_table
from miniapp.server import create_app
from tests.conftest import Screenshot
from tests.miniapp.test_api_history import finished_game
from tests.miniapp.test_page import serve, telegram_context, wait_view

SIZES: dict[str, ViewportSize] = {
    "390": {"width": 390, "height": 844},
    "320": {"width": 320, "height": 568},
}
ENGLISH_WORD = re.compile(r"[A-Za-z]{3,}")


async def in_view(page: Page, selector: str) -> bool:
    """The element is inside the viewport (the sheet scrolls; nothing is cut off sideways)."""
    box = await page.locator(selector).bounding_box()
    size = page.viewport_size
    assert box is not None and size is not None
    return box["x"] >= 0 and box["x"] + box["width"] <= size["width"] + 0.5


@pytest.mark.parametrize("size", list(SIZES))
async def test_the_creator_sets_the_lobby_others_read_it(
    browser: Browser,
    aiohttp_server: Any,
    memory_service: GameService,
    settings: Settings,
    screenshot: Screenshot,
    size: str,
) -> None:
    server = await serve(aiohttp_server, memory_service, settings)
    base = f"http://127.0.0.1:{server.port}"
    lobby = await memory_service.create_lobby(chat=None, creator=UserRef(101, "Ann"))
    game_id = lobby["game_id"]
    await memory_service.join(game_id, UserRef(102, "Bob"))
    ann_ctx = await telegram_context(browser, 101, "Ann", start_param=game_id)
    bob_ctx = await telegram_context(
        browser, 102, "Bob", start_param=game_id, language="zh-hans", dark=True
    )
    try:
        errors: list[str] = []
        ann, bob = await ann_ctx.new_page(), await bob_ctx.new_page()
        for page in (ann, bob):
            await page.set_viewport_size(SIZES[size])
            page.on("pageerror", lambda e: errors.append(str(e)))
            await page.goto(base + "/")
            await wait_view(page, "v.status === 'lobby'")
        await ann.click('#buttons [data-act="settings"]')
        await ann.wait_for_selector("#lobby-settings")
        await ann.select_option("#set-rounds", label="2")
        await wait_view(ann, "v.options.rounds === 2")
        await ann.select_option("#set-turn_time", label="1 min")
        await wait_view(ann, "v.settings.turn_time === 60")
        await ann.check("#set-competitive")
        await wait_view(ann, "v.options.competitive === true")
        await ann.check("#set-old_mine")
        await wait_view(ann, "v.options.old_mine === true")
        await ann.select_option("#set-computer_level", label="Hard")
        await wait_view(ann, "v.settings.computer_level === 'hard'")
        await ann.select_option("#set-computers", "2")
        await wait_view(ann, "v.seats.filter((s) => s.computer).length === 2")
        assert await in_view(ann, "#set-computers")
        await screenshot(ann, f"lobby-settings-creator-{size}")
        server_view = await memory_service.view(game_id, None)
        assert server_view["options"]["rounds"] == 2 and server_view["options"]["competitive"]
        assert server_view["settings"]["turn_time"] == 60
        assert server_view["settings"]["computer_level"] == "hard"
        # Saboteur 2: the classic-only variants leave the sheet
        await ann.select_option("#set-edition", label="Saboteur 2")
        await wait_view(ann, "v.edition === 'expansion'")
        await ann.wait_for_selector("#set-bounded_board")
        assert await ann.locator("#set-competitive").count() == 0
        # Bob reads the same settings, read-only, in his language
        await wait_view(bob, "v.edition === 'expansion'")
        await bob.click('#buttons [data-act="settings"]')
        await bob.wait_for_selector("#settings-readonly")
        assert await bob.locator("#set-rounds").is_disabled()
        assert await bob.locator("#set-rounds option:checked").inner_text() == "2"
        assert await bob.locator("#set-turn_time option:checked").inner_text() == "1 分钟"
        assert await bob.locator("#set-computers option:checked").inner_text() == "2"
        sheet = await bob.locator("#sheet").inner_text()
        assert not ENGLISH_WORD.findall(sheet), ENGLISH_WORD.findall(sheet)
        # a change by the creator redraws the open sheet
        await ann.select_option("#set-rounds", label="1")
        await bob.wait_for_function(
            "() => document.querySelector('#set-rounds option:checked').textContent === '1'"
        )
        await screenshot(bob, f"lobby-settings-reader-zh-{size}")
        # the creator's sheet refuses nothing silently: an impossible change is a toast
        assert not errors, errors
    finally:
        await ann_ctx.close()
        await bob_ctx.close()


async def test_a_group_lobby_offers_slow_mode_and_refuses_with_a_reason(
    browser: Browser,
    aiohttp_server: Any,
    memory_service: GameService,
    settings: Settings,
    screenshot: Screenshot,
) -> None:
    server = await serve(aiohttp_server, memory_service, settings)
    lobby = await memory_service.create_lobby(
        chat=ChatKey(-1001), creator=UserRef(101, "Ann"), title="Cave"
    )
    game_id = lobby["game_id"]
    ctx = await telegram_context(browser, 101, "Ann", start_param=game_id)
    try:
        page = await ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        await page.goto(f"http://127.0.0.1:{server.port}/")
        await wait_view(page, "v.status === 'lobby'")
        await page.click('#buttons [data-act="settings"]')
        await page.wait_for_selector("#set-slow")
        assert await page.locator("#set-turn_time option:checked").inner_text() == "1.5 min"
        await page.check("#set-slow")
        view = await wait_view(page, "v.settings.slow === true")
        assert view["settings"]["turn_time"] == 4 * 3600 and view["options"]["rounds"] == 1
        await page.wait_for_function(
            "() => document.querySelector('#set-turn_time option:checked').textContent === '4 h'"
        )
        labels = await page.locator("#set-turn_time option").all_inner_texts()
        assert labels == ["1 h", "4 h", "12 h", "24 h"]  # slow mode's turn times
        await page.select_option("#set-turn_time", label="12 h")
        await wait_view(page, "v.settings.turn_time === 12 * 3600")
        # the tournament is for 5 to 9 players: at a table of ten it is refused
        await page.select_option("#set-computers", "9")
        await wait_view(page, "v.seats.length === 10")
        await page.check("#set-tournament")
        await page.wait_for_selector("#toast.show")
        assert await page.inner_text("#toast") == "These settings are not allowed together"
        assert not await page.locator("#set-tournament").is_checked()  # as it still is
        assert not (await memory_service.view(game_id, None))["options"].get("tournament")
        await screenshot(page, "lobby-settings-group-slow")
        assert not errors, errors
    finally:
        await ctx.close()


@pytest.mark.parametrize("size", list(SIZES))
async def test_my_games_opens_an_archived_game_and_replays_any_round(
    browser: Browser,
    aiohttp_server: Any,
    memory_service: GameService,
    settings: Settings,
    screenshot: Screenshot,
    size: str,
) -> None:
    server = await serve(aiohttp_server, memory_service, settings)
    base = f"http://127.0.0.1:{server.port}"
    game_id = await finished_game(memory_service, rounds=2, user=101)
    final = (await memory_service.view(game_id, 101))["final"]
    await memory_service.store.delete_game(game_id)  # only the archive is left
    zh = size == "320"  # the small phone reads Traditional Chinese
    ctx = await telegram_context(browser, 101, "Ann", language="zh-hant" if zh else "en")
    try:
        page = await ctx.new_page()
        await page.set_viewport_size(SIZES[size])
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        await page.goto(base + "/")
        await page.click("#message button")  # no game opened: "My games"
        await page.wait_for_selector("#my-games")
        await page.goto(base + "/?view=history")  # the bot's link opens the list at once
        await page.wait_for_selector("#my-games")
        rows = page.locator("#sheet [data-game]")
        assert await rows.count() == 1
        text = await rows.first.inner_text()
        assert ("矮人礦坑" if zh else "Saboteur") in text and str(final["gold"][0]) in text
        if zh:
            sheet = await page.inner_text("#sheet")
            assert not ENGLISH_WORD.findall(sheet), sheet
        assert await in_view(page, "#sheet [data-game]")
        await screenshot(page, f"my-games-{size}")
        await rows.first.click()
        view = await wait_view(page, "v.status === 'finished'")
        assert view["archived"] is True and view["game_id"] == game_id
        await page.wait_for_selector("#result-title")
        await page.click("#sheet [data-close]")
        await page.click('#buttons [data-act="replay"]')
        await page.wait_for_selector("#replay-rounds")
        if zh:
            sheet = await page.inner_text("#sheet")
            assert not ENGLISH_WORD.findall(sheet) and "第 2 輪" in sheet, sheet
        await screenshot(page, f"replay-rounds-{size}")
        await page.click('#sheet [data-round="1"]')
        await page.wait_for_function("() => window.__sab.replay && window.__sab.replay.round === 1")
        head = "第 1 輪 · 第 {i}/" if zh else "Round 1 · Step {i}/"
        assert (await page.inner_text("#prompt")).startswith(head.format(i=0))
        for _ in range(3):
            await page.click('#buttons [data-act="next"]')
        prompt = await page.inner_text("#prompt")
        assert prompt.startswith(head.format(i=3)) and ": " in prompt
        # the last step shows the round's end: every goal turned
        steps = await page.evaluate("window.__sab.replay.steps.length")
        for _ in range(steps):
            await page.click('#buttons [data-act="next"]')
        goals = await page.evaluate("window.__sab.replay.view.goals")
        assert all(g["kind"] for g in goals)
        await screenshot(page, f"replay-round-1-end-{size}")
        await page.click('#buttons [data-act="close-replay"]')
        await page.wait_for_function("() => !window.__sab.replay")
        assert not errors, errors
    finally:
        await ctx.close()


async def test_the_local_link_reopens_the_same_game(
    browser: Browser,
    aiohttp_server: Any,
    memory_service: GameService,
    screenshot: Screenshot,
) -> None:
    settings = Settings(telegram_bot_token=None, session_secret="local-secret")
    app = create_app(memory_service, settings)
    server: TestServer = await aiohttp_server(app)
    url = await start_local_table(memory_service, settings, app, port=server.port)
    first = None
    for _ in range(2):  # open the link, close the tab, open the link again
        context = await browser.new_context(viewport=SIZES["390"], locale="en-US")
        try:
            page = await context.new_page()
            await page.goto(url)
            view = await wait_view(page, "v.status === 'playing'")
            assert view["you"]["seat"] is not None
            first = first or view["game_id"]
            assert view["game_id"] == first
        finally:
            await context.close()
    # a new game from the page, with settings: the link then comes back to that one
    context = await browser.new_context(viewport=SIZES["320"], locale="en-US")
    try:
        page = await context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        await page.goto(url)
        await wait_view(page, "true")
        await page.click("#btn-history")
        await page.click("#sheet [data-new]")
        await page.wait_for_selector("#new-game")
        await page.select_option("#ng-rounds", label="1")
        await page.select_option("#ng-turn_time", label="2 min")
        await page.check("#ng-tournament")
        await page.select_option("#ng-seats", "6")
        assert await page.locator("#ng-slow").count() == 0  # slow mode is for groups
        await screenshot(page, "local-new-game-settings-320")
        await page.click("#ng-start")
        view = await wait_view(page, f"v.game_id !== '{first}'")
        assert view["options"]["rounds"] == 1 and view["options"]["tournament"] is True
        assert view["settings"]["turn_time"] == 120 and len(view["seats"]) == 6
        second = view["game_id"]
        assert not errors, errors
    finally:
        await context.close()
    context = await browser.new_context(viewport=SIZES["390"], locale="en-US")
    try:
        page = await context.new_page()
        await page.goto(url)
        view = await wait_view(page, "v.status === 'playing'")
        assert view["game_id"] == second
    finally:
        await context.close()
