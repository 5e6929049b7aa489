"""cards.js in a real headless Chromium: every card of both editions, upright and turned.

The page imports ``miniapp/static/cards.js`` as served over HTTP (no build step), draws the
whole catalogue into one SVG plus a phone-sized maze, and the test counts the parts each
card must have (from its groups) and saves screenshots to ``test-artifacts/``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from core.look import look_json
from telegram_bot.board_picture import catalogue

STATIC = Path(__file__).resolve().parents[2] / "miniapp" / "static"

PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<link rel="icon" href="data:,">
<style>body{margin:0;background:#1f1a17;color:#eee;font:14px system-ui}
.row{display:flex;flex-wrap:wrap;gap:6px;align-items:center;padding:6px;font-size:28px}</style></head>
<body><div id="icons" class="row"></div><div id="maze"></div><div id="sheet"></div>
<script type="module">
window.__errors = [];
window.addEventListener("error", (e) => window.__errors.push(String(e.message)));
import * as C from "/static/cards.js";
try {
  const look = await (await fetch("/look.json")).json();
  const src = new URLSearchParams(location.search).get("src") || "file";
  const cards = await (await fetch("/cards.json?src=" + src)).json();
  C.setLook(look);
  const W = 100, H = 150, G = 6, cols = 10;
  let parts = [], i = 0;
  for (const card of Object.values(cards)) {
    for (const rotated of [false, true]) {
      const x = (i % cols) * (W + G), y = Math.floor(i / cols) * (H + G);
      parts.push(C.cardSvg(card, {rotated, x, y, w: W, h: H}));
      i++;
    }
  }
  const x = (i % cols) * (W + G), y = Math.floor(i / cols) * (H + G);
  parts.push(C.goalBackSvg({x, y, w: W, h: H}));
  parts.push(C.emptyCellSvg({x: x + W + G, y, w: W, h: H}));
  parts.push(C.cardSvg(cards["S1_CROSS"], {x: x + 2 * (W + G), y, w: W, h: H, highlight: true}));
  parts.push(C.emptyCellSvg({x: x + 3 * (W + G), y, w: W, h: H, highlight: "legal"}));
  const rows = Math.ceil((i + 4) / cols);
  document.getElementById("sheet").innerHTML =
    `<svg id="sheet-svg" xmlns="http://www.w3.org/2000/svg" width="100%" ` +
    `viewBox="0 0 ${cols * (W + G)} ${rows * (H + G)}">${parts.join("")}</svg>`;
  // a phone-sized maze: start, a route of cards, goals face down and one revealed
  const cell = (cx, cy) => ({x: (cx + 1) * (W + G), y: (cy + 3) * (H + G), w: W, h: H});
  const placed = [[0, 0, "S1_START", false], [1, 0, "S1_STRAIGHT_EW", false],
    [2, 0, "S2_BRIDGE", false], [3, 0, "S1_T_NEW", true], [3, -1, "S1_DEAD_NS", false],
    [4, 0, "S2_DOOR_BLUE_EW", false], [5, 0, "S2_DOUBLE_CURVE_A", false],
    [5, 1, "S2_CRYSTAL_NES_STUB_W", false], [6, 1, "S1_CURVE_NW", true],
    [6, 0, "S2_LADDER_NE", false], [7, 2, "S1_STRAIGHT_EW", false],
    [8, 2, "S1_GOAL_STONE_NE", true], [2, 1, "S2_DOOR_GREEN_NS_STUB_E", false]];
  const taken = new Set(placed.map(([a, b]) => `${a},${b}`));
  let maze = [];
  for (let cx = -1; cx <= 9; cx++) for (let cy = -3; cy <= 3; cy++) {
    if (!taken.has(`${cx},${cy}`) && !(cx === 8 && (cy === -2 || cy === 0))) {
      maze.push(C.emptyCellSvg(cell(cx, cy)));
    }
  }
  for (const [cx, cy, id, rotated] of placed) {
    maze.push(C.cardSvg(cards[id], {rotated, ...cell(cx, cy), highlight: cy === 0 && cx < 3}));
  }
  maze.push(C.goalBackSvg(cell(8, -2)), C.goalBackSvg(cell(8, 0)));
  document.getElementById("maze").innerHTML =
    `<svg id="maze-svg" xmlns="http://www.w3.org/2000/svg" width="100%" ` +
    `viewBox="0 0 ${11 * (W + G)} ${7 * (H + G)}">${maze.join("")}</svg>`;
  document.getElementById("icons").innerHTML = ["pickaxe", "lantern", "cart"].map(
    (k) => C.toolIconSvg(k) + C.toolIconSvg(k, true)).join("") +
    C.toolIconSvg("TRAPPED", false, {label: "trapped"}) + C.toolIconSvg("THEFT") +
    C.toolIconSvg("BREAK_CART") + C.toolIconSvg("crystal") +
    Object.keys(look.roles).map((r) => C.roleBadgeSvg(r, {size: "40px", label: r})).join("");
} catch (e) { window.__errors.push(String(e && e.stack || e)); }
window.__done = true;
</script></body></html>"""


@pytest.fixture
async def site() -> AsyncIterator[str]:
    """miniapp/static plus the test page, the look table and the catalogue, on loopback."""

    async def page(_r: web.Request) -> web.Response:
        return web.Response(text=PAGE, content_type="text/html")

    async def look(_r: web.Request) -> web.Response:
        return web.json_response(look_json())

    async def cards(request: web.Request) -> web.Response:
        return web.json_response(_cards(request.query.get("src", "file")))

    app = web.Application()
    app.router.add_get("/", page)
    app.router.add_get("/look.json", look)
    app.router.add_get("/cards.json", cards)
    app.router.add_static("/static/", STATIC)
    runner = web.AppRunner(app)
    await runner.setup()
    tcp = web.TCPSite(runner, "127.0.0.1", 0)
    await tcp.start()
    port = tcp._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        await runner.cleanup()


COUNT_JS = """() => {
  const out = {};
  for (const g of document.querySelectorAll('#sheet-svg g.card[data-card]')) {
    const id = g.dataset.card;
    const q = (s) => g.querySelectorAll(s).length;
    (out[id] = out[id] || []).push({
      tunnels: q('g.tunnel:not(.stub)'), stubs: q('g.stub'), caps: q('ellipse.cap'),
      curves: q('g.curve'), shadow: q('.bridge-shadow'), doors: q('g.door'),
      letters: [...g.querySelectorAll('g.door text')].map((t) => t.textContent),
      ladders: q('g.ladder'), gems: q('g.gem'), nuggets: q('.nugget'), lumps: q('.lump'),
      capY: [...g.querySelectorAll('ellipse.cap')].map((e) => +e.getAttribute('cy')),
      route: q('rect.route'),
    });
  }
  return out;
}"""


def _cards(src: str) -> dict[str, dict[str, Any]]:
    """Path cards as cards.json has them, or as the Mini App serves them from the engine."""
    if src == "engine":
        from miniapp.catalogue import catalogue_document

        served = catalogue_document()["cards"]
        return {k: v for k, v in served.items() if v.get("category") != "action"}
    return catalogue()


def _expected(card: dict[str, Any]) -> dict[str, Any]:
    groups = card["groups"]
    multi = [g for g in groups if len(g) > 1]
    singles = [g for g in groups if len(g) == 1]
    ladder = bool(card.get("ladder") or card.get("source") or card["kind"] == "start")
    return {
        "tunnels": len(multi) + (len(singles) if ladder else 0),
        "stubs": 0 if ladder else len(singles),
        "caps": 0 if ladder else len(singles),
        "curves": 2 if card["kind"] == "doublecurve" else 0,
        "shadow": 1 if card["kind"] == "bridge" else 0,
        "doors": 1 if card.get("door") else 0,
        "letters": [{"blue": "B", "green": "G"}[card["door"]]] if card.get("door") else [],
        "ladders": 1 if ladder else 0,
        "gems": 1 if card.get("crystals") else 0,
        "nuggets": len(look_json()["card"]["gold_nuggets"]) if card.get("treasure") else 0,
        "lumps": (
            2 * sum(len(g) for g in multi)
            if card["kind"] == "goal" and not card.get("treasure")
            else 0
        ),
    }


@pytest.mark.parametrize("src", ["file", "engine"])
async def test_every_card_draws_in_chromium(
    browser: Any, site: str, screenshot: Any, src: str
) -> None:
    if src == "engine":
        pytest.importorskip("core.engine")
    context = await browser.new_context(
        viewport={"width": 390, "height": 844}, device_scale_factor=3
    )
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    await page.goto(f"{site}/?src={src}")
    await page.wait_for_function("window.__done === true", timeout=15000)
    errors += await page.evaluate("window.__errors")
    assert errors == []

    drawn = await page.evaluate(COUNT_JS)
    cards = _cards(src)
    assert set(drawn) == set(cards)
    for cid, card in cards.items():
        upright, turned = drawn[cid][:2]
        want = _expected(card)
        for got in (upright, turned):
            assert {k: got[k] for k in want} == want, cid
    # turning a card turns its drawing: the lone north stub's cap moves to the south half
    assert drawn["S1_DEAD_N"][0]["capY"][0] < 75 < drawn["S1_DEAD_N"][1]["capY"][0]
    assert drawn["S2_BRIDGE"][0]["tunnels"] == 2
    assert drawn["S1_DEAD_CROSS"][0]["caps"] == 4
    assert [d["route"] for d in drawn["S1_CROSS"]] == [0, 0, 1]
    assert await page.locator("#sheet-svg rect.route").count() == 1
    assert await page.locator("#sheet-svg g.goal-back text").text_content() == "?"
    assert await page.locator("#icons svg.tool-icon").count() == 10
    assert await page.locator("#icons svg.tool-icon.broken").count() == 4
    badges = page.locator("#icons svg.role-badge")
    assert await badges.count() == len(look_json()["roles"]) == 8
    letters = await page.locator("#icons svg.role-badge text").all_text_contents()
    assert letters == [r["letter"] for r in look_json()["roles"].values()]
    # the maze fits the phone's width and its cards are big enough to read
    box = await page.locator("#maze-svg").bounding_box()
    assert box is not None and box["width"] <= 390
    cell = await page.locator("#maze-svg g.card[data-card='S2_BRIDGE']").bounding_box()
    assert cell is not None and cell["width"] >= 30

    if src == "engine":
        await context.close()
        return
    await screenshot(page, "phone")
    await page.set_viewport_size({"width": 1100, "height": 1000})
    shot = await screenshot(page, "sheet")
    await page.locator("#sheet-svg").screenshot(path=str(shot.with_name(shot.stem + "-cards.png")))
    await context.close()


async def test_missing_look_is_a_clear_error(page: Any, site: str) -> None:
    await page.goto(site + "/")
    await page.wait_for_function("window.__done === true", timeout=15000)
    message = await page.evaluate("""async () => {
      const C = await import('/static/cards.js');
      C.setLook(null);
      try { C.cardSvg({id: 'X', groups: ['NS']}); return 'no error'; }
      catch (e) { return String(e.message); }
    }""")
    assert "no look table" in message
    # and with a look passed explicitly, integer group masks are understood too
    svg = await page.evaluate("""async () => {
      const C = await import('/static/cards.js');
      const look = await (await fetch('/look.json')).json();
      return C.cardSvg({id: 'M', kind: 'path', groups: [5, 2]}, {look});
    }""")
    assert svg.count('class="cap"') == 1 and 'data-group="NS"' in svg
    # the engine's catalogue marks the start as a source rather than a ladder: same drawing
    start = await page.evaluate("""async () => {
      const C = await import('/static/cards.js');
      const look = await (await fetch('/look.json')).json();
      return C.cardSvg({id: 'S1_START', kind: 'start', groups: ['NESW'], ladder: false,
                        source: true}, {look});
    }""")
    assert 'class="ladder"' in start and 'class="start-mark"' in start
