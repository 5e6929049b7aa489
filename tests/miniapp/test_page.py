"""The page in headless Chromium: inside a simulated Telegram, and in local mode.

Telegram's script is intercepted (``page.route``) and replaced by ``tg_stub.js``, which
provides signed initData and theme colours and records MainButton / haptics calls.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

import pytest
from aiohttp.test_utils import TestServer
from playwright.async_api import Browser, BrowserContext, Page, Route, ViewportSize

from core.cells import cell_name
from core.names import names
from core.service import GameService, UserRef
from core.settings import Settings
from miniapp.local import start_local_table
from miniapp.server import create_app
from telegram_bot.i18n import Translator
from tests.conftest import Screenshot
from tests.miniapp.conftest import make_init_data

STUB = (Path(__file__).parent / "tg_stub.js").read_text()
PHONE: ViewportSize = {"width": 390, "height": 844}
LIGHT = {
    "bg_color": "#ffffff",
    "text_color": "#000000",
    "hint_color": "#999999",
    "link_color": "#2481cc",
    "button_color": "#2481cc",
    "button_text_color": "#ffffff",
    "secondary_bg_color": "#efeff3",
}
DARK = {
    "bg_color": "#17212b",
    "text_color": "#f5f5f5",
    "hint_color": "#708499",
    "link_color": "#6ab3f3",
    "button_color": "#5288c1",
    "button_text_color": "#ffffff",
    "secondary_bg_color": "#232e3c",
}
PLAYERS = [(101, "Ann"), (102, "Bob"), (103, "Carl")]


async def telegram_context(
    browser: Browser,
    user_id: int,
    name: str,
    *,
    dark: bool = False,
    start_param: str | None = None,
    language: str = "en",
) -> BrowserContext:
    init = make_init_data(user_id, name, start_param=start_param, language=language)
    config = {
        "initData": init,
        "themeParams": DARK if dark else LIGHT,
        "colorScheme": "dark" if dark else "light",
    }
    context = await browser.new_context(
        viewport=PHONE, color_scheme="dark" if dark else "light", has_touch=True, locale="en-US"
    )

    async def serve_stub(route: Any) -> None:
        await route.fulfill(
            status=200,
            content_type="text/javascript",
            body=STUB.replace("__CONFIG__", json.dumps(config)),
        )

    await context.route("https://telegram.org/js/telegram-web-app.js", serve_stub)
    return context


async def serve(aiohttp_server: Any, service: GameService, settings: Settings) -> TestServer:
    server: TestServer = await aiohttp_server(create_app(service, settings))
    return server


async def wait_view(page: Page, predicate: str, timeout: float = 15_000) -> Any:
    await page.wait_for_function(
        f"() => {{ const v = window.__sab && window.__sab.view; return !!(v && ({predicate})); }}",
        timeout=timeout,
    )
    return await page.evaluate("window.__sab.view")


async def settled_view_box(page: Page, selector: str, quiet_ms: int = 300) -> None:
    """Wait until the element's view box has not changed for `quiet_ms` and no glide is
    running or due (data-moving: the board frames the reader's targets 900 ms after it
    opens on their turn), at most 5 s."""
    await page.evaluate(
        """async ([sel, quiet]) => {
          const read = () => document.querySelector(sel).getAttribute("viewBox");
          let last = read(), since = performance.now();
          const end = since + 5000;
          while (performance.now() < end) {
            await new Promise((r) => setTimeout(r, 50));
            const now = read();
            if (now !== last || document.querySelector(sel).dataset.moving) {
              last = now; since = performance.now();
            }
            else if (performance.now() - since >= quiet) return;
          }
        }""",
        [selector, quiet_ms],
    )


async def game_where_actor_has(service: GameService, card_kind: str) -> tuple[str, int, dict]:
    """A 3-human classic game where the first actor can make a move of ``card_kind``."""
    for _ in range(40):
        lobby = await service.create_lobby(chat=None, creator=UserRef(*PLAYERS[0]))
        game_id = lobby["game_id"]
        for uid, name in PLAYERS[1:]:
            await service.join(game_id, UserRef(uid, name))
        await service.start(game_id, PLAYERS[0][0])
        for uid, _ in PLAYERS:
            view = await service.view(game_id, uid)
            if any(m["type"] == card_kind for m in view["legal_moves"]):
                return game_id, uid, view
    raise AssertionError(f"no game dealt a {card_kind} move to the first actor")


def other(uid: int) -> tuple[int, str]:
    return next(p for p in PLAYERS if p[0] != uid)


def name_of(uid: int) -> str:
    return next(n for u, n in PLAYERS if u == uid)


async def test_telegram_place_card_by_tapping_and_live_update(
    browser: Browser,
    aiohttp_server: Any,
    memory_service: GameService,
    settings: Settings,
    screenshot: Screenshot,
) -> None:
    server = await serve(aiohttp_server, memory_service, settings)
    base = f"http://127.0.0.1:{server.port}"
    game_id, actor, _ = await game_where_actor_has(memory_service, "place_path")
    watcher_id, watcher_name = other(actor)
    # the actor opens the board from the group link (start_param), the other player from a
    # private-chat button (?game=)
    ctx_a = await telegram_context(browser, actor, name_of(actor), start_param=game_id)
    ctx_b = await telegram_context(browser, watcher_id, watcher_name, dark=True)
    try:
        a = await ctx_a.new_page()
        b = await ctx_b.new_page()
        errors: list[str] = []
        for p in (a, b):
            p.on("pageerror", lambda e: errors.append(str(e)))
        await a.goto(base + "/")
        await b.goto(f"{base}/?game={game_id}")
        v0 = await wait_view(a, "v.legal_moves.length > 0")
        await wait_view(b, f"v.version === {v0['version']}")
        await a.wait_for_selector("#board g.card")
        assert await a.locator("#board g.goal").count() == 3
        calls = await a.evaluate("window.__tgCalls.map(c => c[0])")
        assert "ready" in calls and "expand" in calls
        assert (
            await a.evaluate(
                "getComputedStyle(document.documentElement).getPropertyValue('--tg-theme-button-color')"
            )
            == "#2481cc"
        )
        await screenshot(a, "telegram-light-board")
        # pan with a drag (vertical swipes of the Mini App are off meanwhile), wheel zoom;
        # first the board settles: a refit mid-drag (the page still filling in) would change
        # the zoom, which is not what this checks
        await settled_view_box(a, "#board")
        box = await a.locator("#board").bounding_box()
        assert box
        before_vb = await a.get_attribute("#board", "viewBox")
        cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        await a.mouse.move(cx, cy)
        await a.mouse.down()
        await a.mouse.move(cx + 60, cy + 40, steps=6)
        await a.mouse.up()
        panned = await a.get_attribute("#board", "viewBox")
        assert panned != before_vb
        assert before_vb and panned and before_vb.split()[2:] == panned.split()[2:]  # same zoom
        calls = await a.evaluate("window.__tgCalls.map(c => c[0])")
        assert calls.index("disableVerticalSwipes") < calls.index("enableVerticalSwipes")
        await a.mouse.wheel(0, -300)
        zoomed = await a.get_attribute("#board", "viewBox")
        assert zoomed and float(zoomed.split()[2]) < float(panned.split()[2])
        await a.click("#btn-fit")

        move = next(m for m in v0["legal_moves"] if m["type"] == "place_path")
        await a.click(f'.hcard[data-id="{move["card"]}"]')
        glowing = await a.locator("#board .target").count()
        assert glowing == len(
            {(m["x"], m["y"]) for m in v0["legal_moves"] if m.get("card") == move["card"]}
        )
        await a.click(f'#board [data-cell="{move["x"]},{move["y"]}"]')
        await a.wait_for_selector("#board .ghost")
        main = await a.evaluate("window.Telegram.WebApp.MainButton.text")
        assert main == "Place card"
        assert await a.locator("#confirm").count() == 0  # MainButton replaces the plain button
        await screenshot(a, "telegram-light-ghost")
        await a.evaluate("window.__tgPressMain()")
        after = await wait_view(a, f"v.version > {v0['version']}")
        assert len(after["board"]) == len(v0["board"]) + 1
        calls = await a.evaluate("window.__tgCalls")
        assert ["haptic.impact", "light"] in calls
        # the other player's page hears about it over the WebSocket and refetches
        seen = await wait_view(b, f"v.version >= {after['version']}")
        assert {(c["x"], c["y"]) for c in seen["board"]} >= {(move["x"], move["y"])}
        await b.wait_for_function(
            f"() => document.querySelector('#board').dataset.cards == '{len(after['board'])}'"
        )
        await screenshot(b, "telegram-dark-watcher")
        # the watcher's log names the card that was placed, as the bot would
        placed = next(c["card"] for c in v0["you"]["hand"] if c["id"] == move["card"])
        await b.click("#btn-log")
        name = Translator("en").card(placed)
        cell = cell_name(move["x"], move["y"])  # as the group picture names it
        assert f"placed {name} at {cell}" in await b.inner_text("#log-list")
        await b.click("#sheet [data-close]")
        # a refused move: the server's reason in a toast, and an error haptic
        await a.evaluate("window.__sabApi.send({type: 'discard', cards: ['zzzzz']})")
        await a.wait_for_selector("#toast.show")
        assert "Not allowed" in await a.inner_text("#toast")
        assert ["haptic.notification", "error"] in await a.evaluate("window.__tgCalls")
        assert not errors, errors
    finally:
        await ctx_a.close()
        await ctx_b.close()


async def open_actor_board(
    browser: Browser, aiohttp_server: Any, service: GameService, settings: Settings
) -> tuple[BrowserContext, Page, list[str], dict]:
    """A 3-player game whose first actor can place a path card, opened from the group link
    on a phone: (context, page, page errors, the actor's view)."""
    server = await serve(aiohttp_server, service, settings)
    game_id, actor, view = await game_where_actor_has(service, "place_path")
    ctx = await telegram_context(browser, actor, name_of(actor), start_param=game_id)
    page = await ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    await page.goto(f"http://127.0.0.1:{server.port}/")
    await wait_view(page, "v.legal_moves.length > 0")
    await page.wait_for_selector("#board g.card")
    return ctx, page, errors, view


TARGET_UNDER_POINT = """([x, y]) => {
    const el = document.elementFromPoint(x, y);
    if (!el) return null;
    return el.closest("#board") ? el.getAttribute("data-cell") || "board" : el.id || el.tagName;
}"""


async def test_selecting_a_card_never_leaves_a_target_under_the_zoom_buttons(
    browser: Browser, aiohttp_server: Any, memory_service: GameService, settings: Settings
) -> None:
    """A player zooms out and pans so a target sits under a zoom button while every other
    target stays in view; taking the card again brings that target out where a tap reaches
    it (a CI failure once: the board counted the buttons' column as visible and the tap
    hit "zoom out")."""
    ctx, page, errors, view = await open_actor_board(
        browser, aiohttp_server, memory_service, settings
    )
    try:
        first = next(m for m in view["legal_moves"] if m["type"] == "place_path")
        mine = [m for m in view["legal_moves"] if m.get("card") == first["card"]]
        cells = {(m["x"], m["y"]) for m in mine}
        move = max(mine, key=lambda m: m["x"])  # the easternmost: none further right
        card = page.locator(f'.hcard[data-id="{move["card"]}"]')
        for _ in range(3):  # small cards, so one fits inside the buttons' column
            await page.click("#zoom-out")
        await card.click()
        target = page.locator(f'#board .target[data-cell="{move["x"]},{move["y"]}"]')
        button = await page.locator("#zoom-in").bounding_box()
        box = await target.bounding_box()
        svg = await page.locator("#board").bounding_box()
        assert button and box and svg
        assert box["width"] < button["width"] and box["height"] < button["y"] - svg["y"]
        # drag the board so the target's centre lands on the zoom-in button
        dx = button["x"] + button["width"] / 2 - (box["x"] + box["width"] / 2)
        dy = button["y"] + button["height"] / 2 - (box["y"] + box["height"] / 2)
        start = (svg["x"] + svg["width"] / 3, svg["y"] + svg["height"] / 3)
        await page.mouse.move(*start)
        await page.mouse.down()
        await page.mouse.move(start[0] + dx, start[1] + dy, steps=8)
        await page.mouse.up()

        async def under_centre(x: int, y: int) -> tuple[dict, str]:
            box = await page.locator(f'#board .target[data-cell="{x},{y}"]').bounding_box()
            assert box
            centre = [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2]
            return box, await page.evaluate(TARGET_UNDER_POINT, centre)

        box, hit = await under_centre(move["x"], move["y"])
        assert hit == "zoom-in"
        for x, y in cells:  # every target wholly inside the board's box: only a button hides
            box, _ = await under_centre(x, y)
            assert svg["x"] <= box["x"] and box["x"] + box["width"] <= svg["x"] + svg["width"]
            assert svg["y"] <= box["y"] and box["y"] + box["height"] <= svg["y"] + svg["height"]
        await page.click('#buttons [data-act="cancel"]')  # put the card down ...
        await card.click()  # ... and take it again: its targets come out where taps reach
        await page.wait_for_function("() => !document.querySelector('#board').dataset.moving")
        for x, y in cells:
            assert (await under_centre(x, y))[1] == f"{x},{y}"
        await page.click(f'#board [data-cell="{move["x"]},{move["y"]}"]')
        await page.wait_for_selector("#board .ghost")
        assert not errors, errors
    finally:
        await ctx.close()


PROPORTIONS_MATCH = """() => {
  const svg = document.querySelector("#board");
  const r = svg.getBoundingClientRect();
  const vb = (svg.getAttribute("viewBox") || "").split(/\\s+/).map(Number);
  return vb.length === 4 && r.height > 0 && Math.abs(vb[2] / vb[3] - r.width / r.height) < 0.01;
}"""


async def test_board_keeps_its_view_when_the_viewport_changes(
    browser: Browser, aiohttp_server: Any, memory_service: GameService, settings: Settings
) -> None:
    """Telegram resizes the Mini App (expand, keyboard, rotation): an untouched board
    refits; a panned one keeps its centre and scale; the view box always takes the
    element's proportions, so what the board thinks is visible is what is on screen."""
    ctx, page, errors, _ = await open_actor_board(browser, aiohttp_server, memory_service, settings)

    async def view_box() -> list[float]:
        return [float(n) for n in (await page.get_attribute("#board", "viewBox") or "").split()]

    async def proportions_match() -> None:
        # The ResizeObserver runs some frames after the resize, later on a slow machine:
        # wait until the view box has the element's proportions (or time out), then check.
        await page.wait_for_function(PROPORTIONS_MATCH, timeout=5000)
        box = await page.locator("#board").bounding_box()
        assert box
        vb = await view_box()
        assert abs(vb[2] / vb[3] - box["width"] / box["height"]) < 0.01, (vb, box)

    try:
        await proportions_match()
        await page.set_viewport_size({"width": 390, "height": 600})
        await proportions_match()
        await page.click("#zoom-in")
        before, box = await view_box(), await page.locator("#board").bounding_box()
        assert box
        scale = before[2] / box["width"]  # view box units per pixel
        await page.set_viewport_size({"width": 700, "height": 500})
        await proportions_match()
        after, box = await view_box(), await page.locator("#board").bounding_box()
        assert box
        assert abs((before[0] + before[2] / 2) - (after[0] + after[2] / 2)) < 1  # same centre
        assert abs((before[1] + before[3] / 2) - (after[1] + after[3] / 2)) < 1
        assert abs(after[2] / box["width"] - scale) < 0.01 * scale  # same scale
        assert not errors, errors
    finally:
        await ctx.close()


async def test_pinch_zooms_the_board_and_a_finger_tap_still_places(
    browser: Browser, aiohttp_server: Any, memory_service: GameService, settings: Settings
) -> None:
    """Two fingers spreading zoom in around their middle, closing zoom out, and neither is
    taken for a tap; then one finger taps a card and a target, as on a phone (touch
    events through Chromium's DevTools protocol, which turns them into pointer events)."""
    ctx, page, errors, view = await open_actor_board(
        browser, aiohttp_server, memory_service, settings
    )
    try:
        cdp = await ctx.new_cdp_session(page)
        svg = await page.locator("#board").bounding_box()
        assert svg
        cx, cy = svg["x"] + svg["width"] / 2, svg["y"] + svg["height"] / 2

        async def pinch(start: float, end: float) -> None:
            """Two fingers on a horizontal line through the middle, `start` to `end` apart."""
            steps = 8
            for i in range(steps + 1):
                half = (start + (end - start) * i / steps) / 2
                points = [{"x": cx - half, "y": cy, "id": 1}, {"x": cx + half, "y": cy, "id": 2}]
                kind = "touchStart" if i == 0 else "touchMove"
                await cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})
            await cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})

        async def width() -> float:
            return float((await page.get_attribute("#board", "viewBox") or "").split()[2])

        move = next(m for m in view["legal_moves"] if m["type"] == "place_path")
        await page.tap(f'.hcard[data-id="{move["card"]}"]')  # its targets glow
        w0 = await width()
        await pinch(60, 240)
        w1 = await width()
        assert w1 < w0 * 0.6, (w0, w1)  # fingers 4x further apart: zoomed in
        await pinch(200, 100)
        w2 = await width()
        assert w1 * 1.5 < w2, (w1, w2)  # fingers closing: zoomed out again
        # neither gesture chose a cell
        assert await page.evaluate("window.__sab.cell") is None
        assert await page.locator("#board .ghost").count() == 0
        await page.tap("#btn-fit")
        await page.tap(f'#board .target[data-cell="{move["x"]},{move["y"]}"]')
        await page.wait_for_selector(f'#board .ghost[data-cell="{move["x"]},{move["y"]}"]')
        assert not errors, errors
    finally:
        await ctx.close()


async def test_map_peek_is_private(
    browser: Browser,
    aiohttp_server: Any,
    memory_service: GameService,
    settings: Settings,
    screenshot: Screenshot,
) -> None:
    server = await serve(aiohttp_server, memory_service, settings)
    base = f"http://127.0.0.1:{server.port}"
    game_id, actor, _ = await game_where_actor_has(memory_service, "map")
    watcher_id, watcher_name = other(actor)
    ctx_a = await telegram_context(browser, actor, name_of(actor), dark=True)
    ctx_b = await telegram_context(browser, watcher_id, watcher_name)
    try:
        a = await ctx_a.new_page()
        b = await ctx_b.new_page()
        await a.goto(f"{base}/?game={game_id}")
        await b.goto(f"{base}/?game={game_id}")
        v0 = await wait_view(a, "v.legal_moves.length > 0")
        move = next(m for m in v0["legal_moves"] if m["type"] == "map")
        await a.click(f'.hcard[data-id="{move["card"]}"]')
        assert await a.locator("#board .goal-target").count() == 3
        await a.click(f'#board .goal-target[data-goal="{move["goal"]}"]')
        assert await a.evaluate("window.Telegram.WebApp.MainButton.text") == "Play"
        await a.evaluate("window.__tgPressMain()")
        mine = await wait_view(a, "v.you.known_goals.length === 1")
        kind = mine["you"]["known_goals"][0]["kind"]
        assert kind in ("gold", "stone")
        await a.wait_for_selector("#flip")  # the goal turns over for its player
        assert await a.get_attribute("#flip", "data-kind") == kind
        await a.wait_for_timeout(1300)
        await screenshot(a, "telegram-dark-map-peek")
        assert await a.evaluate("window.Telegram.WebApp.BackButton.isVisible")
        await a.evaluate("window.__tgPressBack()")
        assert await a.locator("#overlay").is_hidden()
        assert await a.locator("#board .peek").count() == 1
        # the other player sees that a map was used on that goal, never what it showed
        theirs = await wait_view(b, f"v.version >= {mine['version']}")
        assert theirs["you"]["known_goals"] == []
        assert any(e["code"] == "map_used" and e.get("goal") == move["goal"] for e in theirs["log"])
        assert kind not in json.dumps(theirs["log"])
        assert await b.locator("#board .peek").count() == 0
        await b.click("#btn-log")
        await b.wait_for_selector("#log-list li")
        assert f"looked at goal {move['goal'] + 1}" in await b.inner_text("#log-list")
        await screenshot(b, "telegram-light-log")
    finally:
        await ctx_a.close()
        await ctx_b.close()


TARGETED = {
    "break_tool",
    "repair_tool",
    "trap",
    "free",
    "hands_off",
    "swap_hand",
    "inspect",
    "swap_hats",
}


async def tap_target(page: Page, selector: str) -> None:
    """Tap a lit cell of the maze; one far from the framed ones is out of view, as on a
    phone: the whole-maze button brings it back first."""
    await page.wait_for_function("() => !document.querySelector('#board').dataset.moving")
    box = await page.locator(selector).bounding_box()
    svg = await page.locator("#board").bounding_box()
    assert box and svg
    inside = svg["x"] <= box["x"] and box["x"] + box["width"] <= svg["x"] + svg["width"] - 54
    if not inside or not svg["y"] <= box["y"] <= svg["y"] + svg["height"] - box["height"]:
        await page.click("#btn-fit")
    await page.click(selector)


async def play_my_turn(page: Page, view: dict, tried: set[str]) -> str:
    """Make one move through the page, as a person would: by tapping. A path card first
    (the computers may end a round in three turns), then each kind of action card once
    (target buttons, rockfall on the maze, theft); else a path card towards the goals;
    else a discard. Returns the move type."""
    moves = view["legal_moves"]
    first = "place_path" not in tried  # the first turn lays a path card if it can
    tried.add("place_path")
    for move in () if first else moves:
        kind = move["type"]
        if kind in tried or kind not in TARGETED | {"rockfall", "theft"}:
            continue
        tried.add(kind)
        await page.click(f'.hcard[data-id="{move["card"]}"]')
        if kind == "rockfall":
            await tap_target(page, f'#board .card-target[data-cell="{move["x"]},{move["y"]}"]')
        elif kind in TARGETED:
            buttons = page.locator('#buttons [data-act="target"]')
            labels = [m for m in moves if m.get("card") == move["card"]]
            assert await buttons.count() == len(labels)
            await buttons.nth(labels.index(move)).click()
        await page.click("#confirm")
        return kind
    place = [m for m in moves if m["type"] == "place_path"]
    if place:
        # prefer moves towards the goals, so the round tends to end by reaching one
        move = max(place, key=lambda m: (m["x"], -abs(m["y"])))
        await page.click(f'.hcard[data-id="{move["card"]}"]')
        await tap_target(page, f'#board .target[data-cell="{move["x"]},{move["y"]}"]')
        if move["rotated"]:
            await page.click("#board .ghost")  # a second tap turns the card
        await page.click("#confirm")
        return "place_path"
    discard = max((m for m in moves if m["type"] == "discard"), key=lambda m: len(m["cards"]))
    await page.click('#buttons [data-act="discard"]')
    for card in discard["cards"]:
        await page.click(f'.hcard[data-id="{card}"]')
    assert str(len(discard["cards"])) in await page.inner_text("#confirm")
    await page.click("#confirm")
    return "discard"


async def play_round(page: Page, errors: list[str], service: GameService) -> dict[str, int]:
    made: dict[str, int] = {}
    tried: set[str] = set()
    for _ in range(600):
        view = await page.evaluate("window.__sab.view")
        if view["status"] in ("round_over", "finished"):
            break
        if view["status"] == "stealing" and view["legal_moves"]:
            before = view["version"]
            await page.click('#buttons [data-act="steal"]')
            await wait_view(page, f"v.version > {before}")
            made["steal"] = made.get("steal", 0) + 1
        elif view["legal_moves"] and not await page.evaluate("window.__sab.busy"):
            before = view["version"]
            kind = await play_my_turn(page, view, tried)
            await wait_view(page, f"v.version > {before}")
            made[kind] = made.get(kind, 0) + 1
        else:
            await page.wait_for_timeout(100)
    view = await page.evaluate("window.__sab.view")
    server = await service.view(view["game_id"], None)
    assert view["status"] in ("round_over", "finished"), (
        view["status"],
        view["version"],
        server["version"],
        server["status"],
        server["current_seat"],
        server["turn_deadline"],
        errors,
    )
    print("moves made through the page:", made)
    return made


async def seat_names(page: Page) -> list[str]:
    """The players strip's names, without the computer glyph."""
    names = await page.locator("#players .seat .name").all_inner_texts()
    return [n.strip() for n in names]


async def test_local_mode_plays_a_round(
    browser: Browser,
    aiohttp_server: Any,
    memory_service: GameService,
    screenshot: Screenshot,
) -> None:
    settings = Settings(telegram_bot_token=None, session_secret="local-secret")
    app = create_app(memory_service, settings)
    server: TestServer = await aiohttp_server(app)
    url = await start_local_table(memory_service, settings, app, port=server.port)
    context = await browser.new_context(viewport=PHONE, locale="zh-CN")
    blocked: list[str] = []

    async def refuse(route: Route) -> None:
        blocked.append(route.request.url)
        await route.abort()

    await context.route("https://telegram.org/**", refuse)
    try:
        page = await context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        await page.goto(url)
        await wait_view(page, "true")
        assert "code=" not in page.url  # the one-time code leaves the address bar
        assert await page.evaluate("document.documentElement.lang") == "zh-Hans"
        # the server names the seats "You" and "Computer n"; the reader sees them in theirs
        assert await seat_names(page) == ["你", "电脑 1", "电脑 2", "电脑 3", "电脑 4"]
        await screenshot(page, "local-zh-start")
        made = await play_round(page, errors, memory_service)
        assert made.get("place_path", 0) + made.get("discard", 0) > 0, made
        view = await page.evaluate("window.__sab.view")
        await page.wait_for_selector("#result-title")
        assert all(s["role"] for s in view["seats"])  # roles revealed at round end
        assert await page.locator("[data-seat-result]").count() == 5
        assert "电脑 1" in await page.inner_text("#sheet")
        await screenshot(page, "local-zh-round-end")
        await page.click("#sheet [data-replay]")
        await page.wait_for_function(
            "() => window.__sab.replay && window.__sab.replay.steps.length > 1"
        )
        await page.click('#buttons [data-act="next"]')
        await page.click('#buttons [data-act="next"]')
        assert await page.evaluate("window.__sab.replay.i") == 2
        await screenshot(page, "local-zh-replay")
        await page.click('#buttons [data-act="close-replay"]')
        assert not blocked  # local mode never asks telegram.org for its script
        assert not errors, errors
    finally:
        await context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
async def test_screens_outside_telegram(
    browser: Browser,
    aiohttp_server: Any,
    memory_service: GameService,
    scheme: Literal["light", "dark"],
    screenshot: Screenshot,
) -> None:
    settings = Settings(telegram_bot_token=None, session_secret="s")
    app = create_app(memory_service, settings)
    server: TestServer = await aiohttp_server(app)
    url = await start_local_table(memory_service, settings, app, port=server.port)
    context = await browser.new_context(viewport=PHONE, color_scheme=scheme, locale="en-US")
    try:
        page = await context.new_page()
        await page.goto(url)
        await wait_view(page, "true")
        assert await page.evaluate("document.documentElement.dataset.scheme") == scheme
        assert (await seat_names(page))[:2] == ["You", "Computer 1"]
        first = page.locator("#hand .hcard").first
        card = await first.get_attribute("data-card")
        assert card and await first.get_attribute("aria-label") == names("en")["card"][card]
        await page.click("#btn-secrets")
        await page.wait_for_selector("#my-role")
        await screenshot(page, f"local-{scheme}-secrets")
        await page.click("#sheet [data-close]")
        # pinch-free zoom controls and a language switch
        await page.click("#zoom-in")
        await page.select_option("#lang", "zh-hant")
        assert await page.evaluate("document.documentElement.lang") == "zh-Hant"
        assert (await seat_names(page))[:2] == ["你", "電腦 1"]
        # the chrome's labels (screen readers, long press) follow the language too
        assert await page.get_attribute("#zoom-in", "aria-label") == "放大"
        assert await page.get_attribute("#board", "aria-label") == "迷宮"
        # the cards keep the bot's names (core/locales, sent with the catalogue)
        assert await first.get_attribute("aria-label") == names("zh_Hant")["card"][card]
        await screenshot(page, f"local-{scheme}-zh-hant")
    finally:
        await context.close()


async def test_the_selected_card_is_the_one_discarded(
    browser: Browser,
    aiohttp_server: Any,
    memory_service: GameService,
) -> None:
    """Tap a card, then Discard: that card is picked already, one tap on the confirm
    button throws it away (classic: exactly one card, so no "1-1 cards" prompt)."""
    settings = Settings(telegram_bot_token=None, session_secret="s")
    app = create_app(memory_service, settings)
    server: TestServer = await aiohttp_server(app)
    url = await start_local_table(memory_service, settings, app, port=server.port)
    context = await browser.new_context(viewport=PHONE, locale="zh-TW")
    try:
        page = await context.new_page()
        await page.goto(url)
        view = await wait_view(page, "v.legal_moves.some((m) => m.type === 'discard')")
        card = view["you"]["hand"][1]["id"]
        await page.click(f'.hcard[data-id="{card}"]')
        await page.click('#buttons [data-act="discard"]')
        assert await page.inner_text("#prompt") == "點選要棄掉的牌"
        assert await page.get_attribute(f'.hcard[data-id="{card}"]', "aria-pressed") == "true"
        assert await page.inner_text("#confirm") == "棄 1 張"
        await page.click("#confirm")
        after = await wait_view(page, f"v.version > {view['version']}")
        assert card not in [c["id"] for c in after["you"]["hand"]]
        assert any(e.get("code") == "passed" for e in after["log"])
    finally:
        await context.close()


async def test_telegram_lobby_join_start_and_countdown(
    browser: Browser,
    aiohttp_server: Any,
    memory_service: GameService,
    settings: Settings,
    screenshot: Screenshot,
) -> None:
    server = await serve(aiohttp_server, memory_service, settings)
    base = f"http://127.0.0.1:{server.port}"
    lobby = await memory_service.create_lobby(chat=None, creator=UserRef(*PLAYERS[0]))
    game_id = lobby["game_id"]
    await memory_service.join(game_id, UserRef(*PLAYERS[2]))
    await memory_service.configure(game_id, PLAYERS[0][0], turn_time=90)
    ctx_a = await telegram_context(browser, *PLAYERS[0], start_param=game_id)
    ctx_b = await telegram_context(browser, *PLAYERS[1], start_param=game_id, language="zh-hant")
    try:
        a = await ctx_a.new_page()
        b = await ctx_b.new_page()
        await a.goto(base + "/")
        await b.goto(base + "/")
        await wait_view(a, "v.status === 'lobby'")
        await wait_view(b, "v.status === 'lobby' && v.you.seat === null")
        assert await b.evaluate("document.documentElement.lang") == "zh-Hant"
        assert await b.locator('#buttons [data-act="start"]').count() == 0
        # a refusal says why in the reader's language (the server's message is English)
        await b.evaluate("window.__sabApi.lobbyAction('start')")
        await b.wait_for_selector("#toast.show")
        assert await b.inner_text("#toast") == "只有建立者或群組管理員可以這樣做"
        await b.click('#buttons [data-act="join"]')
        await wait_view(b, "v.you.seat !== null")
        await wait_view(a, "v.seats.length === 3")  # live: Ann sees Bob sit down
        assert await a.locator("#players .seat").count() == 3
        await screenshot(a, "telegram-light-lobby")
        await a.click('#buttons [data-act="start"]')
        started = await wait_view(b, "v.status === 'playing'")
        assert started["you"]["hand"] and started["turn_deadline"]
        await a.wait_for_selector("#players .seat.turn .clock b:not(:empty)")
        clock = await a.inner_text("#players .seat.turn .clock b")
        assert clock.startswith("1:") or clock.startswith("0:")
        await screenshot(b, "telegram-zh-hant-started")
    finally:
        await ctx_a.close()
        await ctx_b.close()


async def test_local_new_expansion_game_from_the_lobby(
    browser: Browser,
    aiohttp_server: Any,
    memory_service: GameService,
    screenshot: Screenshot,
) -> None:
    """Saboteur 2 from local mode's "new game" sheet: discard 1-3, action cards by tapping."""
    settings = Settings(telegram_bot_token=None, session_secret="local-secret")
    app = create_app(memory_service, settings)
    server: TestServer = await aiohttp_server(app)
    url = await start_local_table(memory_service, settings, app, port=server.port)
    context = await browser.new_context(viewport=PHONE, locale="en-US")
    try:
        page = await context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        await page.goto(url)
        await wait_view(page, "true")  # the link's game; a new one from "My games"
        await page.click("#btn-history")
        await page.click("#sheet [data-new]")
        await page.select_option("#ng-edition", "expansion")
        await page.select_option("#ng-seats", "4")
        await page.select_option("#ng-level", "hard")
        await screenshot(page, "local-new-game-sheet")
        await page.click("#ng-start")
        view = await wait_view(page, "v.edition === 'expansion'")
        assert len(view["seats"]) == 4 and "game=" in page.url
        assert view["settings"]["computer_level"] == "hard"  # the computers play at hard
        made = await play_round(page, errors, memory_service)
        assert sum(made.values()) > 0
        await page.wait_for_selector("#result-title")
        await screenshot(page, "local-expansion-round-end")
        assert not errors, errors
    finally:
        await context.close()


async def test_outside_telegram_without_code_says_where_to_open(
    page: Page, aiohttp_server: Any, memory_service: GameService, settings: Settings
) -> None:
    async def refuse(route: Route) -> None:
        await route.abort()

    await page.route("https://telegram.org/**", refuse)  # no Telegram around, no initData
    server = await serve(aiohttp_server, memory_service, settings)
    await page.goto(f"http://127.0.0.1:{server.port}/?game=whatever")
    await page.wait_for_selector("#message:not([hidden])")
    assert "Open this board from Telegram" in await page.inner_text("#message")
