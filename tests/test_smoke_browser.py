"""A page served by aiohttp on loopback, opened in Debian's headless Chromium."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web
from playwright.async_api import Page

from tests.conftest import Screenshot

HTML = """<!doctype html>
<html lang="zh-Hans"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Saboteur smoke</title>
<style>body { font: 20px sans-serif; margin: 16px; }</style></head>
<body>
<h1 id="title">Saboteur</h1>
<p id="hans">矮人淘金：破坏者</p>
<p id="hant">矮人淘金：破壞者</p>
<button id="dig" onclick="document.getElementById('out').textContent = '挖到金子!'">Dig</button>
<p id="out"></p>
</body></html>"""


GLYPH_DIFFERS = """([a, b]) => {
  const draw = (ch) => {
    const c = document.createElement("canvas");
    c.width = c.height = 48;
    const g = c.getContext("2d");
    g.font = "32px sans-serif";
    g.fillText(ch, 4, 36);
    return Array.from(g.getImageData(0, 0, 48, 48).data).join(",");
  };
  return draw(a) !== draw(b);
}"""


async def index(request: web.Request) -> web.Response:
    return web.Response(text=HTML, content_type="text/html")


async def test_page_served_by_aiohttp_renders_in_chromium(
    aiohttp_server: Callable[[web.Application], Awaitable[Any]],
    page: Page,
    screenshot: Screenshot,
) -> None:
    app = web.Application()
    app.router.add_get("/", index)
    server = await aiohttp_server(app)
    assert server.host == "127.0.0.1"

    response = await page.goto(f"http://127.0.0.1:{server.port}/")
    assert response is not None and response.status == 200
    assert await page.title() == "Saboteur smoke"
    assert await page.inner_text("#title") == "Saboteur"
    assert await page.inner_text("#hans") == "矮人淘金：破坏者"
    assert await page.inner_text("#hant") == "矮人淘金：破壞者"
    assert await page.evaluate("window.innerWidth") == 390

    await page.click("#dig")
    assert await page.inner_text("#out") == "挖到金子!"
    # A CJK font is installed: "破" does not draw as the same box as a code point no
    # font has (what a machine without fonts-noto-cjk shows for every Chinese character).
    assert await page.evaluate(GLYPH_DIFFERS, ["破", "\U0010fffd"])

    path = await screenshot(page, "cjk")
    assert path.stat().st_size > 1000
