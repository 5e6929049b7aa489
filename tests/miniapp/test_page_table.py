"""The table read at a glance on a phone (390×844 and 320×568, light and dark), checked on
what a person sees: the game's winners, targets big enough to tap, whose turn it is, the
last move, the reader's language everywhere, the small screen, Telegram 8.0's full screen.

Screenshots of the main screens go to ``test-artifacts/`` (the ``screenshot`` fixture).
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestServer
from playwright.async_api import Browser, BrowserContext, Page, ViewportSize

from core.cells import cell_name
from core.service import GameService, UserRef
from core.settings import Settings
from miniapp.server import create_app
from tests.conftest import Screenshot
from tests.miniapp.conftest import make_init_data
from tests.miniapp.finished import PLAYERS, finished_game

STUB = (Path(__file__).parent / "tg_stub.js").read_text()
PHONE: ViewportSize = {"width": 390, "height": 844}
SMALL: ViewportSize = {"width": 320, "height": 568}
SIZES = {"390": PHONE, "320": SMALL}
THEMES = {
    "light": {
        "bg_color": "#ffffff",
        "text_color": "#000000",
        "hint_color": "#999999",
        "link_color": "#2481cc",
        "button_color": "#2481cc",
        "button_text_color": "#ffffff",
        "secondary_bg_color": "#efeff3",
    },
    "dark": {
        "bg_color": "#17212b",
        "text_color": "#f5f5f5",
        "hint_color": "#708499",
        "link_color": "#6ab3f3",
        "button_color": "#5288c1",
        "button_text_color": "#ffffff",
        "secondary_bg_color": "#232e3c",
    },
}
# (size, scheme) pairs: both sizes, both schemes, without running every product
LOOKS = [("390", "light"), ("320", "dark")]
NOT_MOVING = "() => !document.querySelector('#board').dataset.moving"
# is a goal card outside the board's visible part (the zoom buttons' column excluded)?
GOALS_OUT_OF_VIEW = """() => {
  const svg = document.querySelector('#board'), b = svg.getBoundingClientRect();
  const reserve = Number(svg.dataset.reserve || 0);
  return [...svg.querySelectorAll('g.goal')].some((g) => {
    const r = g.getBoundingClientRect();
    return r.right <= b.left + 8 || r.left >= b.right - reserve - 8
      || r.bottom <= b.top + 8 || r.top >= b.bottom - 8;
  });
}"""


async def open_page(
    browser: Browser,
    server: TestServer,
    user: tuple[int, str],
    game_id: str,
    *,
    size: str = "390",
    scheme: str = "light",
    language: str = "en",
    tg: dict[str, Any] | None = None,
    query: str = "",
) -> tuple[BrowserContext, Page, list[str]]:
    """A player's Mini App inside a simulated Telegram, opened on ``game_id``."""
    config = {
        "initData": make_init_data(user[0], user[1], language=language, start_param=game_id),
        "themeParams": THEMES[scheme],
        "colorScheme": scheme,
        **(tg or {}),
    }
    context = await browser.new_context(
        viewport=SIZES[size],
        color_scheme=scheme,
        has_touch=True,
        locale="en-US",  # type: ignore[arg-type]
    )

    async def serve_stub(route: Any) -> None:
        body = STUB.replace("__CONFIG__", json.dumps(config))
        await route.fulfill(status=200, content_type="text/javascript", body=body)

    await context.route("https://telegram.org/js/telegram-web-app.js", serve_stub)
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    await page.goto(f"http://127.0.0.1:{server.port}/{query}")
    await wait_view(page, "true")
    return context, page, errors


async def wait_view(page: Page, predicate: str, timeout: float = 15_000) -> Any:
    await page.wait_for_function(
        f"() => {{ const v = window.__sab && window.__sab.view; return !!(v && ({predicate})); }}",
        timeout=timeout,
    )
    return await page.evaluate("window.__sab.view")


async def serve(aiohttp_server: Any, service: GameService, settings: Settings) -> TestServer:
    server: TestServer = await aiohttp_server(create_app(service, settings))
    return server


async def new_game(service: GameService, players: list[tuple[int, str]], **kw: Any) -> str:
    lobby = await service.create_lobby(chat=None, creator=UserRef(*players[0]), **kw)
    game_id = str(lobby["game_id"])
    for uid, name in players[1:]:
        await service.join(game_id, UserRef(uid, name))
    await service.start(game_id, players[0][0])
    return game_id


async def current_player(service: GameService, game_id: str, players: list[tuple[int, str]]) -> int:
    view = await service.view(game_id, None)
    return players[view["current_seat"]][0]


async def pass_turn(service: GameService, game_id: str, uid: int, rnd: random.Random) -> dict:
    """The player on turn discards one card (always legal), through the service."""
    view = await service.view(game_id, uid)
    moves = [m for m in view["legal_moves"] if m["type"] == "discard" and len(m["cards"]) == 1]
    result = await service.submit(game_id, uid, rnd.choice(moves), view["version"])
    assert result.status == "ok", result
    return result.view


async def game_with(
    service: GameService, wanted: Any, players: list[tuple[int, str]] = PLAYERS
) -> tuple[str, int, dict]:
    """A classic game whose first actor has a legal move for which ``wanted(move, view)``."""
    for _ in range(60):
        game_id = await new_game(service, players)
        uid = await current_player(service, game_id, players)
        view = await service.view(game_id, uid)
        if any(wanted(m, view) for m in view["legal_moves"]):
            return game_id, uid, view
        # a deal not wanted is cancelled: it would count against its creator's open games
        await service.cancel(game_id, players[0][0])
    raise AssertionError("no deal gave the first actor such a move")


def name_of(uid: int, players: list[tuple[int, str]] = PLAYERS) -> str:
    return next(n for u, n in players if u == uid)


LIT_TARGETS = """() => {
  const svg = document.querySelector('#board').getBoundingClientRect();
  return [...document.querySelectorAll('#board .target')].map((el) => {
    const r = el.getBoundingClientRect();
    return {cell: el.dataset.cell || el.dataset.goal, x: r.x, y: r.y, w: r.width, h: r.height,
      inView: r.right > svg.left && r.left < svg.right && r.bottom > svg.top && r.top < svg.bottom};
  });
}"""


async def check_lit_targets(page: Page, minimum: float) -> int:
    """Every lit target in view is at least ``minimum`` px in its smaller dimension, and no
    two neighbouring targets touch. Returns how many were in view."""
    await page.wait_for_function(NOT_MOVING)
    lit = [t for t in await page.evaluate(LIT_TARGETS) if t["inView"]]
    assert lit, "no lit target in view"
    for t in lit:
        assert min(t["w"], t["h"]) >= minimum, t
    for i, a in enumerate(lit):
        for b in lit[i + 1 :]:
            apart = (
                a["x"] + a["w"] < b["x"]
                or b["x"] + b["w"] < a["x"]
                or a["y"] + a["h"] < b["y"]
                or b["y"] + b["h"] < a["y"]
            )
            assert apart, (a, b)
    return len(lit)


async def check_every_card(
    page: Page, view: dict, minimum: float, shot: Any = None, name: str = ""
) -> None:
    """Select each card that lights cells on the maze, check its targets, put it down
    (``shot(page, name)`` takes a screenshot with the first card's targets lit)."""
    cards = {
        m["card"] for m in view["legal_moves"] if m["type"] in ("place_path", "rockfall", "map")
    }
    assert cards
    for card in sorted(cards):
        await page.click(f'.hcard[data-id="{card}"]')
        await check_lit_targets(page, minimum)
        if shot:
            await shot(page, name)
            shot = None
        await page.click('#buttons [data-act="cancel"]')


# --- 1. the game's winners, play again --------------------------------------------------


@pytest.mark.parametrize(("size", "scheme"), LOOKS)
async def test_game_over_names_the_games_winners_and_plays_again(
    browser: Browser,
    aiohttp_server: Any,
    memory_service: GameService,
    settings: Settings,
    screenshot: Screenshot,
    size: str,
    scheme: str,
) -> None:
    # a game whose last round was won by others than the game (the case the sheet got wrong)
    for seed in range(1, 80):
        game_id = await finished_game(memory_service, rounds=2, seed=seed)
        end = await memory_service.view(game_id, None)
        final = end["final"]
        if sorted(end["round_result"]["winning_seats"]) != sorted(final["winners"]):
            break
    else:
        raise AssertionError("every game was won by its last round's winners")
    server = await serve(aiohttp_server, memory_service, settings)
    ctx, page, errors = await open_page(
        browser, server, PLAYERS[0], game_id, size=size, scheme=scheme
    )
    try:
        await page.wait_for_selector("#result-title")
        starred = await page.eval_on_selector_all(
            "#sheet [data-winner]", "els => els.map((e) => Number(e.dataset.seatResult))"
        )
        assert sorted(starred) == sorted(final["winners"])
        for seat in final["winners"]:
            assert PLAYERS[seat][1] in await page.inner_text("#winners")
        losers = [s for s in range(3) if s not in final["winners"]]
        for seat in losers:
            row = await page.inner_text(f'#sheet [data-seat-result="{seat}"]')
            assert "★" not in row
        # Telegram 8.0: the page offers a place on the home screen after a finished game
        home = page.locator("#sheet [data-home]")
        await home.wait_for(state="visible")
        await screenshot(page, f"{size}-{scheme}-game-over")
        await home.click()
        assert ["addToHomeScreen"] in await page.evaluate("window.__tgCalls")
        # play again, as the group's final message offers: the new lobby opens
        await page.click("#sheet [data-again]")
        lobby = await wait_view(page, f"v.status === 'lobby' && v.game_id !== '{game_id}'")
        assert (await memory_service.view(game_id, None))["rematch"] == lobby["game_id"]
        assert [s["name"] for s in lobby["seats"]] == [n for _, n in PLAYERS]
        await screenshot(page, f"{size}-{scheme}-play-again-lobby")
        assert not errors, errors
    finally:
        await ctx.close()


# --- 2. framing: lit targets big enough to tap ------------------------------------------


@pytest.mark.parametrize(("size", "scheme"), LOOKS)
async def test_lit_targets_are_big_enough_when_the_readers_turn_starts(
    browser: Browser,
    aiohttp_server: Any,
    memory_service: GameService,
    settings: Settings,
    screenshot: Screenshot,
    size: str,
    scheme: str,
) -> None:
    minimum = 44 if size == "390" else 40
    game_id, actor, view = await game_with(memory_service, lambda m, v: m["type"] == "place_path")
    server = await serve(aiohttp_server, memory_service, settings)
    ctx, page, errors = await open_page(
        browser, server, (actor, name_of(actor)), game_id, size=size, scheme=scheme
    )
    rnd = random.Random(7)
    try:
        # at open the whole maze, then (the reader's turn) what they can play
        await page.wait_for_function(
            "() => document.querySelector('#board').dataset.intent === 'targets'"
        )
        await check_every_card(page, view, minimum, screenshot, f"{size}-{scheme}-lit-targets")
        # the last card looked at may have been a map, whose targets are the goals: a path
        # card's targets (next to the start card in this first turn) bring the view back
        path_card = next(m["card"] for m in view["legal_moves"] if m["type"] == "place_path")
        await page.click(f'.hcard[data-id="{path_card}"]')
        await page.wait_for_function(NOT_MOVING)
        await page.click('#buttons [data-act="cancel"]')
        await screenshot(page, f"{size}-{scheme}-first-turn")
        # goals out of view (the maze is too wide for targets this big): a marker at the
        # edge says where; a tap shows them all
        marker = page.locator("[data-edge-goal]")
        assert await page.evaluate(GOALS_OUT_OF_VIEW)
        await marker.wait_for(state="visible", timeout=5000)
        await marker.click()
        await page.wait_for_function(
            "() => document.querySelector('#board').dataset.intent === 'whole'"
        )
        board = await page.locator("#board").bounding_box()
        assert board
        for goal in await page.locator("#board g.goal").all():
            box = await goal.bounding_box()
            assert (
                box
                and board["x"] <= box["x"]
                and box["x"] + box["width"] <= board["x"] + board["width"]
            )
        assert await marker.count() == 0
        # mid-round: the reader places a card, the others play, the reader's turn comes back
        move = max(
            (m for m in view["legal_moves"] if m["type"] == "place_path"), key=lambda m: m["x"]
        )
        result = await memory_service.submit(game_id, actor, move, view["version"])
        assert result.status == "ok"
        for _ in range(4):  # a few rounds of the table, the maze growing meanwhile
            while (uid := await current_player(memory_service, game_id, PLAYERS)) != actor:
                other = await memory_service.view(game_id, uid)
                place = [m for m in other["legal_moves"] if m["type"] == "place_path"]
                if place:
                    pick = max(place, key=lambda m: (m["x"], rnd.random()))
                    await memory_service.submit(game_id, uid, pick, other["version"])
                else:
                    await pass_turn(memory_service, game_id, uid, rnd)
            mine = await memory_service.view(game_id, actor)
            await wait_view(page, f"v.version === {mine['version']}")
            await page.wait_for_timeout(350)  # the framing glides in
            if any(m["type"] in ("place_path", "rockfall", "map") for m in mine["legal_moves"]):
                await check_every_card(page, mine, minimum)
            await pass_turn(memory_service, game_id, actor, rnd)
        mine = await memory_service.view(game_id, actor)
        await screenshot(page, f"{size}-{scheme}-mid-round")
        assert not errors, errors
    finally:
        await ctx.close()


async def test_a_manual_pan_is_never_undone_by_a_turn_or_the_button_bar(
    browser: Browser, aiohttp_server: Any, memory_service: GameService, settings: Settings
) -> None:
    game_id, actor, _ = await game_with(memory_service, lambda m, v: m["type"] == "place_path")
    server = await serve(aiohttp_server, memory_service, settings)
    ctx, page, errors = await open_page(browser, server, (actor, name_of(actor)), game_id)
    try:
        await page.wait_for_function(
            "() => document.querySelector('#board').dataset.intent === 'targets'"
        )
        await page.wait_for_function(NOT_MOVING)
        box = await page.locator("#board").bounding_box()
        assert box
        cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        await page.mouse.move(cx, cy)
        await page.mouse.down()
        await page.mouse.move(cx + 50, cy + 30, steps=5)
        await page.mouse.up()
        panned = await page.get_attribute("#board", "viewBox")
        # the discard button bar grows and shrinks: the view stays where the reader put it
        await page.click('#buttons [data-act="discard"]')
        await page.click('#buttons [data-act="cancel"]')
        await page.wait_for_timeout(200)
        assert await page.get_attribute("#board", "viewBox") == panned
        # a turn passes round the table: still where the reader put it
        rnd = random.Random(2)
        await pass_turn(memory_service, game_id, actor, rnd)
        while (uid := await current_player(memory_service, game_id, PLAYERS)) != actor:
            await pass_turn(memory_service, game_id, uid, rnd)
        mine = await memory_service.view(game_id, actor)
        await wait_view(page, f"v.version === {mine['version']}")
        await page.wait_for_timeout(400)
        assert await page.get_attribute("#board", "viewBox") == panned
        assert not errors, errors
    finally:
        await ctx.close()


# --- 3. whose turn: the current seat's chip in view --------------------------------------


def place_of(view_box: str | None) -> tuple[float, float, float]:
    """The centre and the width of a view box: where the maze is and at what scale."""
    x, y, w, h = (float(n) for n in (view_box or "0 0 0 0").split())
    return (x + w / 2, y + h / 2, w)


TWELVE = [(200 + i, f"Player {chr(65 + i)}{chr(97 + i) * 3}") for i in range(12)]
CHIP_IN_VIEW = """() => {
  const chip = document.querySelector('#players .seat.turn');
  if (!chip) return false;
  const r = chip.getBoundingClientRect();
  const s = document.querySelector('#players').getBoundingClientRect();
  return r.left >= s.left - 1 && r.right <= s.right + 1 && r.left >= 0 && r.right <= innerWidth;
}"""


@pytest.mark.parametrize(
    ("size", "scheme", "edition", "seats"),
    [("390", "light", "classic", 10), ("320", "dark", "expansion", 12)],
)
async def test_the_current_seat_is_always_in_view_with_many_seats(
    browser: Browser,
    aiohttp_server: Any,
    memory_service: GameService,
    settings: Settings,
    screenshot: Screenshot,
    size: str,
    scheme: str,
    edition: str,
    seats: int,
) -> None:
    table = TWELVE[:seats]
    game_id = await new_game(memory_service, table, edition=edition)
    server = await serve(aiohttp_server, memory_service, settings)
    ctx, page, errors = await open_page(
        browser, server, table[4], game_id, size=size, scheme=scheme
    )
    rnd = random.Random(5)
    try:
        await page.wait_for_function(CHIP_IN_VIEW, timeout=1000)
        # one script queries and measures: a redraw between a query and its measure
        # leaves detached elements, whose computed font size is "" (NaN)
        sizes = await page.evaluate(
            "() => [...document.querySelectorAll('#players .seat .name')]"
            ".map((e) => parseFloat(getComputedStyle(e).fontSize))"
        )
        assert len(sizes) == seats and min(sizes) >= 14  # readable names
        await page.wait_for_timeout(1300)  # (the reader's own turn may frame at open)
        await page.wait_for_function(NOT_MOVING)
        shown = await page.get_attribute("#board", "viewBox")
        for turn in range(14):
            uid = await current_player(memory_service, game_id, table)
            after = await pass_turn(memory_service, game_id, uid, rnd)
            # within a second of the turn changing, the new current seat's chip is in view
            await page.wait_for_function(
                f"() => window.__sab.view && window.__sab.view.version >= {after['version']}"
                f" && ({CHIP_IN_VIEW})()",
                timeout=1000,
            )
            # the maze neither jumps nor rescales when the turn passes between others
            # (the reader's own turn frames what they can play: that is its one move)
            await page.wait_for_function(NOT_MOVING)
            now = await page.get_attribute("#board", "viewBox")
            if await current_player(memory_service, game_id, table) != table[4][0]:
                # same centre and scale (the box's height follows the board's element,
                # which the button bar makes taller or shorter)
                assert place_of(now) == pytest.approx(place_of(shown), abs=0.5), (turn, shown, now)
            shown = now
            if turn == 6:
                await screenshot(page, f"{size}-{scheme}-{seats}-seats")
        assert not errors, errors
    finally:
        await ctx.close()


# --- 4. the last move -------------------------------------------------------------------


async def test_the_last_move_is_marked_for_the_others(
    browser: Browser,
    aiohttp_server: Any,
    memory_service: GameService,
    settings: Settings,
    screenshot: Screenshot,
) -> None:
    game_id, actor, view = await game_with(memory_service, lambda m, v: m["type"] == "place_path")
    watcher = next(p for p in PLAYERS if p[0] != actor)
    server = await serve(aiohttp_server, memory_service, settings)
    ctx, page, errors = await open_page(browser, server, watcher, game_id, scheme="dark")
    try:
        move = next(m for m in view["legal_moves"] if m["type"] == "place_path")
        result = await memory_service.submit(game_id, actor, move, view["version"])
        assert result.status == "ok"
        cell = f"{move['x']},{move['y']}"
        await page.wait_for_selector(f'#board .last-move[data-last="{cell}"]', timeout=3000)
        seat = next(s["seat"] for s in result.view["seats"] if s["name"] == name_of(actor))
        assert await page.locator(f'#players .seat.acted[data-seat="{seat}"]').count() == 1
        line = await page.inner_text("#lastline")
        assert name_of(actor) in line and cell_name(move["x"], move["y"]) in line
        assert "placed" in line
        await screenshot(page, "390-dark-last-move")
        # a few seconds later the marks are gone
        await page.wait_for_selector("#board .last-move", state="detached", timeout=8000)
        assert await page.locator("#lastline").is_hidden()
        assert not errors, errors
    finally:
        await ctx.close()


async def test_a_rockfall_shows_the_removed_card_fading_out(
    browser: Browser, aiohttp_server: Any, memory_service: GameService, settings: Settings
) -> None:
    rnd = random.Random(11)
    for _ in range(40):  # build a maze until someone can cause a rockfall
        game_id = await new_game(memory_service, PLAYERS)
        for _ in range(30):
            uid = await current_player(memory_service, game_id, PLAYERS)
            view = await memory_service.view(game_id, uid)
            falls = [m for m in view["legal_moves"] if m["type"] == "rockfall"]
            if falls:
                break
            place = [m for m in view["legal_moves"] if m["type"] == "place_path"]
            if place:
                await memory_service.submit(game_id, uid, rnd.choice(place), view["version"])
            else:
                await pass_turn(memory_service, game_id, uid, rnd)
        if falls:
            break
    else:
        raise AssertionError("nobody could cause a rockfall")
    watcher = next(p for p in PLAYERS if p[0] != uid)
    server = await serve(aiohttp_server, memory_service, settings)
    ctx, page, errors = await open_page(browser, server, watcher, game_id)
    try:
        fall = falls[0]
        before = await wait_view(page, f"v.version === {view['version']}")
        await page.wait_for_timeout(300)
        removed = next(
            c["card"] for c in before["board"] if (c["x"], c["y"]) == (fall["x"], fall["y"])
        )
        assert (await memory_service.submit(game_id, uid, fall, view["version"])).status == "ok"
        await page.wait_for_selector("#board .removed-card", timeout=3000)
        cell = f"{fall['x']},{fall['y']}"
        assert await page.locator(f'#board .last-move.removed[data-last="{cell}"]').count() == 1
        assert cell_name(fall["x"], fall["y"]) in await page.inner_text("#lastline")
        assert removed  # the card drawn fading is the one the maze lost
        await page.wait_for_timeout(3200)
        opacity = await page.eval_on_selector(
            "#board .removed-card", "el => Number(getComputedStyle(el).opacity)"
        )
        assert opacity < 0.1
        assert not errors, errors
    finally:
        await ctx.close()


# --- 5. the reader's language everywhere ---------------------------------------------------

LATIN_WORD = re.compile(r"[A-Za-z]{2,}")


def english_left(text: str, names: list[str]) -> list[str]:
    """Latin words in ``text`` apart from the players' names and the language menu's
    "English" (each language is named in its own script)."""
    for name in [*names, "English"]:
        text = text.replace(name, "")
    return LATIN_WORD.findall(text)


@pytest.mark.parametrize(("size", "scheme"), LOOKS)
async def test_a_chinese_page_has_no_english_left(
    browser: Browser,
    aiohttp_server: Any,
    memory_service: GameService,
    settings: Settings,
    screenshot: Screenshot,
    size: str,
    scheme: str,
) -> None:
    names = [n for _, n in PLAYERS]
    server = await serve(aiohttp_server, memory_service, settings)
    # a game in play: the table, the log and the secrets sheet; a map shows its peek marker
    game_id, actor, view = await game_with(memory_service, lambda m, v: m["type"] == "map")
    ctx, page, errors = await open_page(
        browser,
        server,
        (actor, name_of(actor)),
        game_id,
        size=size,
        scheme=scheme,
        language="zh-hans",
    )
    try:
        assert await page.evaluate("document.documentElement.lang") == "zh-Hans"
        move = next(m for m in view["legal_moves"] if m["type"] == "map")
        await page.click(f'.hcard[data-id="{move["card"]}"]')
        await page.click(f'#board .goal-target[data-goal="{move["goal"]}"]')
        await page.evaluate("window.__tgPressMain()")
        await page.wait_for_selector("#flip")
        assert not english_left(await page.inner_text("#sheet"), names)
        await page.evaluate("window.__tgPressBack()")
        # the peeked-goal marker: readable, in the reader's language
        peek = page.locator("#board .peek text")
        await page.click("#btn-fit")
        box = await peek.bounding_box()
        assert box and box["height"] >= 11, box
        assert (await peek.text_content()) in ("★ 金矿", "石头")
        assert not english_left(await page.inner_text("body"), names)
        await screenshot(page, f"{size}-{scheme}-zh-table")
        await page.click("#btn-log")
        await page.wait_for_selector("#log-list li")
        assert not english_left(await page.inner_text("#sheet"), names)
        await page.click("#sheet [data-close]")
        await page.click("#btn-secrets")
        await page.wait_for_selector("#my-role")
        assert not english_left(await page.inner_text("#sheet"), names)
        await page.click("#sheet [data-close]")
        await ctx.close()
        # a finished game: the results sheet
        done = await finished_game(memory_service, rounds=1, seed=5)
        ctx, page, errors = await open_page(
            browser, server, PLAYERS[1], done, size=size, scheme=scheme, language="zh-hans"
        )
        await page.wait_for_selector("#result-title")
        assert not english_left(await page.inner_text("body"), names)
        await screenshot(page, f"{size}-{scheme}-zh-game-over")
        assert not errors, errors
    finally:
        await ctx.close()


async def test_switching_language_redraws_the_open_sheet(
    browser: Browser, aiohttp_server: Any, memory_service: GameService, settings: Settings
) -> None:
    game_id = await finished_game(memory_service, rounds=1, seed=2)
    server = await serve(aiohttp_server, memory_service, settings)
    ctx, page, errors = await open_page(browser, server, PLAYERS[0], game_id)
    try:
        await page.wait_for_selector("#result-title")
        assert await page.inner_text("#result-title") == "Game over"
        await page.select_option("#lang", "zh-hant", force=True)
        assert await page.inner_text("#result-title") == "遊戲結束"
        assert not english_left(await page.inner_text("#sheet"), [n for _, n in PLAYERS])
        assert not errors, errors
    finally:
        await ctx.close()


# --- 6. choosing and turning a card ----------------------------------------------------------


def _both_ways(m: dict, v: dict) -> bool:
    if m["type"] != "place_path":
        return False
    here = [
        n
        for n in v["legal_moves"]
        if n.get("card") == m["card"] and (n.get("x"), n.get("y")) == (m["x"], m["y"])
    ]
    return len(here) == 2


async def test_rotation_prompt_and_tapping_the_selected_card_turns_it(
    browser: Browser, aiohttp_server: Any, memory_service: GameService, settings: Settings
) -> None:
    game_id, actor, view = await game_with(memory_service, _both_ways)
    server = await serve(aiohttp_server, memory_service, settings)
    ctx, page, errors = await open_page(browser, server, (actor, name_of(actor)), game_id)
    try:
        move = next(m for m in view["legal_moves"] if _both_ways(m, view))
        card = page.locator(f'.hcard[data-id="{move["card"]}"]')
        await card.click()
        await page.wait_for_function(NOT_MOVING)
        await page.click(f'#board .target[data-cell="{move["x"]},{move["y"]}"]')
        assert "turn it" in await page.inner_text("#prompt")
        rotated = await page.evaluate("window.__sab.rotated")
        await card.click()  # the selected card turns; it stays selected
        assert await page.evaluate("window.__sab.rotated") != rotated
        assert await page.evaluate("window.__sab.sel") == move["card"]
        now = await page.evaluate("window.__sab.rotated")
        assert ("turned" in (await card.get_attribute("class") or "")) == bool(now)
        # a card that fits one way only at a cell: no "turn it" prompt
        one_way = [
            m for m in view["legal_moves"] if m["type"] == "place_path" and not _both_ways(m, view)
        ]
        if one_way:
            m = one_way[0]
            await page.click('#buttons [data-act="cancel"]')
            await page.click(f'.hcard[data-id="{m["card"]}"]')
            await page.wait_for_function(NOT_MOVING)
            await page.click(f'#board .target[data-cell="{m["x"]},{m["y"]}"]')
            assert "turn" not in await page.inner_text("#prompt")
            assert await page.inner_text("#prompt") == "Confirm to place it here"
        assert not errors, errors
    finally:
        await ctx.close()


async def test_a_broken_tool_says_why_a_path_card_cannot_be_played(
    browser: Browser, aiohttp_server: Any, memory_service: GameService, settings: Settings
) -> None:
    def breaks_next(m: dict, v: dict) -> bool:
        return bool(m["type"] == "break_tool" and m["target_seat"] == (v["you"]["seat"] + 1) % 3)

    game_id, uid, view = await game_with(memory_service, breaks_next)
    nxt = (view["you"]["seat"] + 1) % 3
    breaks = [m for m in view["legal_moves"] if breaks_next(m, view)]
    result = await memory_service.submit(game_id, uid, breaks[0], view["version"])
    assert result.status == "ok"
    victim = PLAYERS[nxt]
    mine = await memory_service.view(game_id, victim[0])
    path = [
        c["id"]
        for c in mine["you"]["hand"]
        if not any(m.get("card") == c["id"] for m in mine["legal_moves"])
        and not c["card"].startswith(("BREAK", "REPAIR", "MAP", "ROCKFALL"))
    ]
    if not path:
        pytest.skip("the victim holds no path card in this deal")
    server = await serve(aiohttp_server, memory_service, settings)
    ctx, page, errors = await open_page(browser, server, victim, game_id)
    try:
        await wait_view(page, "v.legal_moves.length > 0")
        # what just happened to them, in a line: "Ann broke your lantern"
        tool = next(e["tool"] for e in reversed(result.view["log"]) if e["code"] == "tool_broken")
        line = f"{name_of(uid)} broke your {tool}"
        assert await page.inner_text("#lastline") == line
        await page.click(f'.hcard[data-id="{path[0]}"]')
        assert await page.inner_text("#prompt") == "You have a broken tool"
        assert not errors, errors
    finally:
        await ctx.close()


# --- 7. the small screen -------------------------------------------------------------------


CONTRAST = """(sel) => {
  const lum = (c) => {
    const [r, g, b] = c.match(/[\\d.]+/g).slice(0, 3).map((v) => {
      v = Number(v) / 255;
      return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const st = getComputedStyle(document.querySelector(sel));
  const [a, b] = [lum(st.color), lum(st.backgroundColor)].sort((x, y) => y - x);
  return (a + 0.05) / (b + 0.05);
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
async def test_small_screen_header_hand_and_buttons(
    browser: Browser,
    aiohttp_server: Any,
    memory_service: GameService,
    settings: Settings,
    screenshot: Screenshot,
    scheme: str,
) -> None:
    game_id, actor, view = await game_with(
        memory_service, lambda m, v: m["type"] == "break_tool" and len(v["you"]["hand"]) == 6
    )
    server = await serve(aiohttp_server, memory_service, settings)
    ctx, page, errors = await open_page(
        browser,
        server,
        (actor, name_of(actor)),
        game_id,
        size="320",
        scheme=scheme,
        language="zh-hans",
    )
    try:
        await wait_view(page, "v.legal_moves.length > 0")
        # the header: nothing cut off or pushed out of the screen
        for sel in ("#round", "#btn-secrets", "#btn-log", "#lang"):
            box = await page.locator(sel).bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= 320 + 0.5, (sel, box)
        assert await page.evaluate(
            "(() => { const e = document.querySelector('#info'); "
            "return e.scrollWidth <= e.clientWidth + 1; })()"
        )
        # the sixth card: on screen, or a visible hint that scrolls to it
        sixth = page.locator("#hand .hcard").nth(5)
        box = await sixth.bounding_box()
        assert box
        if box["x"] + box["width"] > 320:
            await page.click("#hand-more")
            await page.wait_for_timeout(500)
            box = await sixth.bounding_box()
            assert box and box["x"] + box["width"] <= 320
        # target buttons wrap inside the bar
        move = next(m for m in view["legal_moves"] if m["type"] == "break_tool")
        await page.click(f'.hcard[data-id="{move["card"]}"]')
        boxes = [await b.bounding_box() for b in await page.locator("#buttons button").all()]
        assert boxes and all(b and b["x"] >= 0 and b["x"] + b["width"] <= 320.5 for b in boxes)
        # zoom buttons readable on the maze in either theme
        for sel in ("#zoom-in", "#zoom-out", "#btn-fit"):
            assert await page.evaluate(CONTRAST, sel) >= 4.5, sel
        await screenshot(page, f"320-{scheme}-targets-bar")
        assert not errors, errors
    finally:
        await ctx.close()


# --- 8. Telegram 8.0: full screen, safe areas; older clients -----------------------------------


async def test_full_screen_and_safe_areas(
    browser: Browser,
    aiohttp_server: Any,
    memory_service: GameService,
    settings: Settings,
    screenshot: Screenshot,
) -> None:
    game_id = await new_game(memory_service, PLAYERS)
    server = await serve(aiohttp_server, memory_service, settings)
    ctx, page, errors = await open_page(browser, server, PLAYERS[0], game_id, scheme="dark")
    try:
        full = page.locator("#btn-full")
        await full.wait_for(state="visible")
        await full.click()
        assert ["requestFullscreen"] in await page.evaluate("window.__tgCalls")
        assert await page.evaluate("document.documentElement.classList.contains('fullscreen')")
        # the header clears the status bar and Telegram's own controls (47 + 46 px)
        await page.wait_for_timeout(100)
        top = await page.locator("#top").bounding_box()
        assert top and top["y"] >= 93, top
        await screenshot(page, "390-dark-fullscreen")
        await full.click()
        assert ["exitFullscreen"] in await page.evaluate("window.__tgCalls")
        await ctx.close()
        # a mode=fullscreen link opens full screen at once
        ctx, page, errors = await open_page(
            browser, server, PLAYERS[0], game_id, query="?mode=fullscreen"
        )
        assert ["requestFullscreen"] in await page.evaluate("window.__tgCalls")
        await ctx.close()
        # an older client: no full-screen button, no home-screen offer, no errors
        ctx, page, errors = await open_page(
            browser, server, PLAYERS[0], game_id, tg={"version": "7.10"}
        )
        await page.wait_for_selector("#board g.card")
        assert await page.locator("#btn-full").is_hidden()
        calls = [c[0] for c in await page.evaluate("window.__tgCalls")]
        assert "requestFullscreen" not in calls
        assert not errors, errors
    finally:
        await ctx.close()


# --- 9. the local table: play again ------------------------------------------------------------


async def test_local_table_plays_again_with_the_same_settings(
    browser: Browser, aiohttp_server: Any, memory_service: GameService, screenshot: Screenshot
) -> None:
    """Outside Telegram, at the local table: a finished game against the computers offers
    play again, which starts a new game with the same seats and level at once."""
    import asyncio

    from miniapp.local import start_local_table

    settings = Settings(telegram_bot_token=None, session_secret="local-secret")
    app = create_app(memory_service, settings)
    server: TestServer = await aiohttp_server(app)
    url = await start_local_table(memory_service, settings, app, port=server.port)
    context = await browser.new_context(viewport=SMALL, locale="en-US")
    try:
        page = await context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        await page.goto(url)
        await wait_view(page, "true")
        uid = await page.evaluate("JSON.parse(sessionStorage.getItem('sab-session')).user_id")
        lobby = await memory_service.create_lobby(
            chat=None,
            creator=UserRef(uid, "You"),
            options={"rounds": 1},
            seats=3,
            computers=2,
            level="easy",
        )
        game_id = str(lobby["game_id"])
        rnd = random.Random(4)
        for _ in range(3000):
            view = await memory_service.view(game_id, uid)
            if view["status"] == "finished":
                break
            moves = [m for m in view["legal_moves"] if m["type"] != "discard"]
            moves = moves or view["legal_moves"]
            if moves:
                await memory_service.submit(game_id, uid, rnd.choice(moves), view["version"])
            else:
                await asyncio.sleep(0.02)  # the computers play
        assert view["status"] == "finished"
        await page.goto(f"http://127.0.0.1:{server.port}/?game={game_id}")
        await page.wait_for_selector("#result-title")
        assert await page.locator("#sheet [data-home]").is_hidden()  # no Telegram: no offer
        await screenshot(page, "320-local-game-over")
        await page.click("#sheet [data-again]")
        again = await wait_view(page, f"v.game_id !== '{game_id}' && v.status === 'playing'")
        assert len(again["seats"]) == 3 and again["settings"]["computer_level"] == "easy"
        assert not errors, errors
    finally:
        await context.close()
