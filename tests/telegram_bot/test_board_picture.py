"""The group's board picture: size, bytes, CJK names, nothing private, route, every card."""

from __future__ import annotations

import asyncio
import copy
import io
import random
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageChops

from telegram_bot import board_picture
from telegram_bot.board_picture import catalogue, render_board, render_board_async
from telegram_bot.fonts import find_font, load_font, printable

NAMES = [
    "Alice",
    "张伟",
    "李小龙的哥哥和他的朋友们",
    "Bob",
    "王芳",
    "Дмитрий",
    "Zoë",
    "陳大文",
    "Mohammed Al-Hassan bin Abdullah",
    "Eve",
    "小明",
    "Ola",
]
IN_FRONT = [
    ["BREAK_PICKAXE"],
    [],
    ["BREAK_LANTERN", "BREAK_CART"],
    ["TRAPPED"],
    ["THEFT"],
    [],
    [],
    ["BREAK_PICKAXE", "BREAK_LANTERN", "BREAK_CART"],
    [],
    [],
    [],
    [],
]


def spectator_view(
    players: int = 10,
    cards: int = 20,
    seed: int = 1,
    *,
    status: str = "playing",
    route: list[list[int]] | None = None,
) -> dict[str, Any]:
    """A hand-made spectator view (API.md) of a mid-round game with ``cards`` placed."""
    rnd = random.Random(seed)
    ids = [i for i, c in catalogue().items() if c["kind"] not in ("start", "goal")]
    cells = [(x, y) for x in range(1, 8) for y in range(-2, 3)]
    cells += [(x, y) for x in range(-1, 10) for y in (-4, -3, 3, 4) if len(cells) < cards + 2]
    rnd.shuffle(cells)
    board = [{"x": 0, "y": 0, "card": "S1_START", "rotated": False}]
    board += [
        {"x": x, "y": y, "card": rnd.choice(ids), "rotated": rnd.random() < 0.5}
        for x, y in cells[:cards]
    ]
    return {
        "game_id": "g1",
        "version": 17,
        "status": status,
        "edition": "expansion",
        "options": {"rounds": 3},
        "round": 2,
        "rounds": 3,
        "you": {"seat": None},
        "seats": [
            {
                "seat": i,
                "name": NAMES[i % len(NAMES)],
                "hand_size": 4 - i % 3,
                "in_front": IN_FRONT[i % len(IN_FRONT)],
                "online": True,
                "computer": i == 3,
                "has_gold": None,
                "role": None,
                "gold": None,
            }
            for i in range(players)
        ],
        "board": board,
        "goals": [
            {"goal": k, "x": 8, "y": y, "revealed": False, "kind": None}
            for k, y in enumerate((-2, 0, 2))
        ],
        "deck_size": 23,
        "discard_size": 4,
        "current_seat": 2,
        "turn_deadline": None,
        "log": [],
        "legal_moves": [],
        "round_result": {"winners": "diggers", "route": route} if route else None,
    }


def _decode(data: bytes) -> Image.Image:
    img = Image.open(io.BytesIO(data))
    img.load()
    return img.convert("RGB")


def _differs(a: bytes, b: bytes) -> int:
    """How many pixels differ between two pictures of the same size."""
    diff = ImageChops.difference(_decode(a), _decode(b)).convert("L").point(lambda v: v > 24)
    return diff.histogram()[1]


@pytest.mark.parametrize(("players", "cards"), [(3, 0), (10, 20), (12, 60)])
def test_size_and_bytes(players: int, cards: int) -> None:
    data, mime = render_board(spectator_view(players, cards))
    assert mime in ("image/png", "image/jpeg")
    assert len(data) < 1_000_000
    img = _decode(data)
    assert max(img.size) <= 1280
    assert min(img.size) >= 500  # readable on a phone, not a thumbnail
    assert data[:4] == (b"\x89PNG" if mime == "image/png" else b"\xff\xd8\xff\xe0")


def test_crop_follows_the_maze_and_always_shows_start_and_goals() -> None:
    small = _decode(render_board(spectator_view(4, 0))[0])
    view = spectator_view(4, 0)
    view["board"].append({"x": -6, "y": 5, "card": "S1_CROSS", "rotated": False})
    wide = _decode(render_board(view)[0])
    assert board_picture._extent(board_picture._public(view)) == (-7, -3, 9, 6)
    assert wide.size != small.size and max(wide.size) <= 1280


def test_cjk_font_is_found_and_has_the_glyphs() -> None:
    found = find_font()
    assert found is not None, "install fonts-noto-cjk or fonts-wqy-microhei"
    font = load_font(40)

    def mask(text: str) -> bytes:
        return bytes(font.getmask(text))

    tofu_a, tofu_b = mask("\U000f0001"), mask("\U000f0002")  # private use: no glyph anywhere
    assert tofu_a == tofu_b  # every missing glyph draws the same box
    zhang, wei, chen = mask("张"), mask("伟"), mask("陳")
    assert len({zhang, wei, chen, tofu_a}) == 4  # real, distinct glyphs, none of them a box


def test_chinese_names_are_drawn_as_glyphs_not_boxes() -> None:
    # Two different two-character names: drawn as boxes they would be pixel-identical.
    a = spectator_view(4)
    b = copy.deepcopy(a)
    a["seats"][1]["name"] = "张伟"
    b["seats"][1]["name"] = "李娜"
    assert _differs(render_board(a)[0], render_board(b)[0]) > 30
    font = load_font(30)
    for name in ("张伟", "李小龙的哥哥和他的朋友们", "陳大文", "繁體中文", "Zoë", "Дмитрий"):
        assert printable(name, font) == name


def test_emoji_and_unknown_scripts_are_dropped_not_boxed() -> None:
    font = load_font(30)
    assert printable("Alice 🌸", font) == "Alice"
    assert printable("张伟👍🏻", font) == "张伟"
    assert printable("👨\u200d👩\u200d👧 family", font) == "family"
    a = spectator_view(4)
    b = copy.deepcopy(a)
    a["seats"][0]["name"] = "Alice 🌸🌸"
    b["seats"][0]["name"] = "Alice"
    assert render_board(a) == render_board(b)
    a["seats"][0]["name"] = "🔥🔥🔥"  # nothing drawable left: the seat number
    b["seats"][0]["name"] = "#1"
    assert render_board(a) == render_board(b)


def test_nothing_private_is_drawn() -> None:
    public = spectator_view(6, 25)
    private = copy.deepcopy(public)
    private["you"] = {
        "seat": 1,
        "role": "SABOTEUR",
        "gold": 7,
        "hand": [{"id": "a1", "card": "S1_CROSS"}, {"id": "a2", "card": "MAP"}],
        "known_goals": [{"goal": 0, "kind": "gold"}],
        "known_roles": [{"seat": 4, "role": "GOLD_DIGGER", "stale": False}],
    }
    for s in private["seats"]:
        s.update(role="SABOTEUR", gold=9, hand=["S1_CROSS"], secret="x")
    private["goals"][0]["kind"] = "gold"  # known to a map peek, still face down
    private["legal_moves"] = [{"type": "discard", "cards": ["a1"]}]
    private["seed"] = 12345
    assert render_board(private) == render_board(public)


def test_gold_route_is_highlighted_at_round_end() -> None:
    plain = spectator_view(5, 20, status="round_over")
    routed = spectator_view(
        5, 20, status="round_over", route=[[0, 0], [1, 0], [2, 0], [3, 0], [4, 0]]
    )
    assert _differs(render_board(plain)[0], render_board(routed)[0]) > 5000


def test_who_has_gold_shows_while_stealing() -> None:
    a = spectator_view(6, 10, status="stealing")
    b = copy.deepcopy(a)
    b["seats"][1]["has_gold"] = True
    assert _differs(render_board(a)[0], render_board(b)[0]) > 100


def test_whose_turn_is_highlighted() -> None:
    a = spectator_view(6, 10)
    b = copy.deepcopy(a)
    b["current_seat"] = 4
    assert _differs(render_board(a)[0], render_board(b)[0]) > 1000


@pytest.mark.parametrize("rotated", [False, True])
def test_every_card_of_both_editions_renders(rotated: bool) -> None:
    view = spectator_view(4, 0)
    ids = list(catalogue())
    cols = 14
    view["board"] = [
        {"x": i % cols - 3, "y": i // cols - 3, "card": cid, "rotated": rotated}
        for i, cid in enumerate(ids)
    ]
    view["goals"] = [
        {"goal": 0, "x": 8, "y": -2, "revealed": True, "kind": "gold"},
        {"goal": 1, "x": 8, "y": 0, "revealed": True, "kind": "stone"},
        {"goal": 2, "x": 8, "y": 2, "revealed": False, "kind": None},
    ]
    data, _ = render_board(view)
    assert max(_decode(data).size) <= 1280


def test_bad_entries_do_not_crash() -> None:
    view = spectator_view(3, 3)
    view["board"].append({"x": 2, "y": 3, "card": "NO_SUCH_CARD", "rotated": False})
    view["seats"][0]["in_front"] = ["BREAK_PICKAXE", "SOMETHING_NEW"]
    view["seats"][1]["name"] = ""
    view["round_result"] = {"route": [[99, 99], [0, 0], "x", [1], None]}
    view["board"] += [{"x": "1", "y": 2, "card": "S1_CROSS"}, {"y": 1}, None]
    view["goals"].append({"x": None})
    view["seats"].append("not a seat")
    view["current_seat"] = True
    data, _ = render_board(view)
    assert len(data) > 1000


# CJK fonts other than the one find_font() prefers; fonts-noto-cjk (which ./dev installs)
# carries the serif ones, so at least one exists wherever the tests' set-up ran.
OTHER_CJK_FONTS = (
    "/usr/share/fonts/opentype/noto/NotoSerifCJK-Bold.ttc",
    "/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
)


def test_font_override(caplog: pytest.LogCaptureFixture) -> None:
    view = spectator_view(4)
    view["seats"][0]["name"] = "中文名字"
    default = render_board(view)[0]
    preferred = find_font()
    others = [
        f for f in OTHER_CJK_FONTS if Path(f).exists() and (not preferred or preferred[0] != f)
    ]
    assert others, "no second CJK font installed (fonts-noto-cjk is part of the test set-up)"
    assert render_board(view, font_path=others[0])[0] != default
    with caplog.at_level("WARNING"):
        find_font.cache_clear()
        assert find_font("/nonexistent/font.ttf") != ("/nonexistent/font.ttf", 0)
    assert "does not exist" in caplog.text


async def test_async_render_is_cached_per_version(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = board_picture.render_board

    def counting(view: Any, **kw: Any) -> tuple[bytes, str]:
        calls.append(1)
        return real(view, **kw)

    monkeypatch.setattr(board_picture, "render_board", counting)
    board_picture._CACHE.clear()
    view = spectator_view(4, 5, route=[[0, 0], [1, 0]])
    view["game_id"] = "cache-test"
    first, second = await asyncio.gather(render_board_async(view), render_board_async(view))
    again = await render_board_async(view)
    assert first == second == again == real(view)
    assert len(calls) == 1  # one rendering for three callers
    view["version"] = 18
    await render_board_async(view)
    assert len(calls) == 2


def test_public_copy_is_idempotent() -> None:
    view = spectator_view(5, 12, route=[[0, 0], [1, 0]])
    assert render_board(board_picture._public(view)) == render_board(view)


def test_real_engine_spectator_view_renders() -> None:
    engine = pytest.importorskip("core.engine")
    state = engine.new_game(engine.GameConfig(edition="expansion", players=6), seed=7)
    for _ in range(30):
        if engine.phase(state) != "playing":
            break
        seat = engine.actor(state)
        if seat is None:
            break
        moves = engine.legal_moves(state, seat)
        placing = [m for m in moves if m["type"] == "place_path"]
        state, _ = engine.apply_move(state, seat, (placing or moves)[0])
    view = engine.view_for(state, None)
    for i, s in enumerate(view["seats"]):
        s["name"] = NAMES[i]
    data, _ = render_board(view)
    assert max(_decode(data).size) <= 1280 and len(data) < 1_000_000


def test_without_any_cjk_font_it_warns_and_still_renders(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from telegram_bot import fonts

    monkeypatch.setattr(fonts, "CANDIDATES", ())
    monkeypatch.delenv("BOARD_FONT", raising=False)
    fonts.find_font.cache_clear()
    fonts.load_font.cache_clear()
    try:
        with caplog.at_level("WARNING"):
            data, _ = render_board(spectator_view(4, 6))
        assert "No CJK font found" in caplog.text
        assert max(_decode(data).size) <= 1280
    finally:
        fonts.find_font.cache_clear()
        fonts.load_font.cache_clear()


def test_computer_seats_and_the_header_follow_the_labels() -> None:
    """The notifier passes the group's words (texts.picture_labels): a computer seat is
    drawn as the label's "Computer n", a human's name as written."""
    view = spectator_view(4)
    view["seats"][3].update(name="Computer 1", computer=True, computer_no=1)
    plain = copy.deepcopy(view)
    del plain["seats"][3]["computer_no"]
    english = render_board(view)[0]
    assert english == render_board(plain)[0]  # the English label is the stored name
    hant = {"computer": "電腦 {n}", "round": "第 {round}/{rounds} 輪", "deck": "牌堆 {deck}"}
    assert _differs(english, render_board(view, labels=hant)[0]) > 30
    human = copy.deepcopy(view)
    human["seats"][3]["name"] = "電腦 1"  # what the label draws, as a human's name
    del human["seats"][3]["computer_no"]
    assert render_board(human, labels=hant) == render_board(view, labels=hant)
