"""Readable bot-only play: the picture's rim names rows and columns as ``core.cells`` does,
and the move buttons, the confirm question and the log lines use those same names."""

from __future__ import annotations

from typing import Any

import pytest
from PIL import ImageChops

from core.cells import cell_name, column_name, row_name
from telegram_bot import board_picture, texts
from telegram_bot import keyboards as kb
from telegram_bot.i18n import LANGUAGES, Translator
from tests.telegram_bot.test_board_picture import _decode, spectator_view


def rim_labels(view: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The names the rim should carry: (column numbers left to right, row letters top down)."""
    x0, y0, x1, y1 = board_picture._extent(board_picture._public(view))
    return [column_name(x) for x in range(x0, x1 + 1)], [row_name(y) for y in range(y0, y1 + 1)]


def test_rim_names_the_rows_and_columns_in_view() -> None:
    view = spectator_view(4, 0)
    columns, rows = rim_labels(view)
    # the start is G1 and the goals E9, G9, I9: all of them on the rim
    assert {"1", "9"} <= set(columns) and {"E", "G", "I"} <= set(rows)
    assert columns == [str(x + 1) for x in range(-1, 10)]
    assert rows == list("DEFGHIJ")
    view["board"].append({"x": -3, "y": -6, "card": "S1_CROSS", "rotated": False})
    columns, rows = rim_labels(view)
    assert columns[0] == "-3" and rows[0] == "-A"  # any cell of the unbounded maze


def test_rim_labels_are_drawn(monkeypatch: pytest.MonkeyPatch) -> None:
    view = spectator_view(5, 20)
    drawn: list[list[str]] = []
    real = board_picture._draw_rim

    def spy(*args: Any) -> list[str]:
        out = real(*args)
        drawn.append(out)
        return out

    monkeypatch.setattr(board_picture, "_draw_rim", spy)
    labelled = _decode(board_picture.render_board(view)[0])
    columns, rows = rim_labels(view)
    assert drawn == [columns + rows]
    monkeypatch.setattr(board_picture, "_draw_rim", lambda *a: [])
    bare = _decode(board_picture.render_board(view)[0])
    diff = ImageChops.difference(labelled, bare).convert("L").point(lambda v: v > 40)
    box = diff.getbbox()
    assert box is not None and diff.histogram()[1] > 500  # real glyphs, not a speck
    # the ink is on the rim: the top band (column numbers) and the left band (row letters)
    width, _height = labelled.size
    top = diff.crop((0, 0, width, 40)).histogram()[1]
    left = diff.crop((0, 0, 40, labelled.size[1] // 2)).histogram()[1]
    assert top > 100 and left > 100


def _player_view(moves: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "game_id": "g1",
        "version": 4,
        "status": "playing",
        "round": 1,
        "rounds": 3,
        "current_seat": 0,
        "seats": [{"seat": 0, "name": "Ann"}, {"seat": 1, "name": "Ben"}],
        "you": {
            "seat": 0,
            "role": "GOLD_DIGGER",
            "hand": [
                {"id": "h1", "card": "S1_CROSS"},
                {"id": "h2", "card": "ROCKFALL"},
                {"id": "h3", "card": "BREAK_PICKAXE"},
            ],
        },
        "legal_moves": moves,
        "log": [],
    }


@pytest.mark.parametrize("language", LANGUAGES)
def test_buttons_confirm_and_log_name_cells(language: str) -> None:
    t = Translator(language)
    place = {"type": "place_path", "card": "h1", "x": 5, "y": 1, "rotated": True}
    fall = {"type": "rockfall", "card": "h2", "x": 2, "y": -1}
    view = _player_view([place, fall])
    assert cell_name(5, 1) == "H6" and cell_name(2, -1) == "F3"
    assert "H6" in texts.move_label(t, view, place) and "(5, 1)" not in str(
        texts.move_label(t, view, place)
    )
    assert "F3" in texts.move_label(t, view, fall)
    question = texts.confirm_text(t, view, place)
    assert "H6" in question and t.card("S1_CROSS") in question
    placed = {"code": "path_placed", "seat": 0, "card": "S1_CROSS", "x": 5, "y": 1}
    fell = {"code": "rockfall", "seat": 1, "x": 2, "y": -1}
    assert "H6" in str(texts.event_text(t, view, placed))
    assert "F3" in str(texts.event_text(t, view, fell))
    if language != "en":
        assert "placed" not in str(texts.event_text(t, view, placed))


def test_plays_ask_to_confirm_and_pass_is_on_the_first_screen() -> None:
    t = Translator("en")
    moves = [
        {"type": "place_path", "card": "h1", "x": 1, "y": 0, "rotated": False},
        {"type": "break_tool", "card": "h3", "target_seat": 1, "tool": "pickaxe"},
        {"type": "discard", "cards": ["h1"]},
        {"type": "discard", "cards": ["h2"]},
        {"type": "discard", "cards": ["h3"]},
    ]
    view = _player_view(moves)
    panel = kb.panel_keyboard(t, view, None)
    data = [b.callback_data for row in panel.inline_keyboard for b in row]
    assert "d:g1:4:0" in data  # Pass / discard, on the panel itself
    cards = kb.card_keyboard(t, view, 0, 0)
    assert cards is not None
    plays = [b.callback_data for row in cards.inline_keyboard for b in row]
    assert "p:g1:4:0" in plays and not any(str(d).startswith("m:") for d in plays)
    confirm = kb.confirm_keyboard(t, view, 0)
    pair = [b.callback_data for b in confirm.inline_keyboard[0]]
    assert pair == ["m:g1:4:0", "c:g1:4:0:0"]  # confirm commits; back returns to the card
    assert kb.confirm_keyboard(t, view, 1).inline_keyboard[0][1].callback_data == "c:g1:4:2:0"
    # classic: one card at a time, a second toggle moves the selection
    screen = kb.discard_keyboard(t, view, 0b001)
    toggles = [b.callback_data for b in screen.inline_keyboard[0] + screen.inline_keyboard[1]]
    assert toggles == ["d:g1:4:0", "d:g1:4:2", "d:g1:4:4"]
    commit = [b for row in screen.inline_keyboard for b in row if b.text.startswith("✔")]
    assert [b.callback_data for b in commit] == ["m:g1:4:2"]


def test_saboteur2_selection_offers_each_discard_that_matches() -> None:
    t = Translator("en")
    pairs = [["h1", "h2"], ["h1", "h3"], ["h2", "h3"]]
    moves: list[dict[str, Any]] = [{"type": "discard", "cards": [c]} for c in ("h1", "h2", "h3")]
    moves += [{"type": "discard", "cards": p} for p in pairs]
    moves += [{"type": "discard", "cards": ["h1", "h2", "h3"]}]
    moves += [{"type": "discard_to_remove", "cards": p, "remove": "TRAPPED"} for p in pairs]
    view = _player_view(moves)

    def commits(mask: int) -> list[tuple[str, str]]:
        screen = kb.discard_keyboard(t, view, mask)
        return [
            (b.text, str(b.callback_data))
            for row in screen.inline_keyboard
            for b in row
            if b.text.startswith("✔")
        ]

    assert commits(0) == []
    assert commits(0b001) == [("✔ Discard 1 card", "m:g1:4:0")]
    two = commits(0b011)
    assert [text for text, _ in two] == ["✔ Discard 2 cards", "✔ Discard 2, remove Trapped!"]
    assert [data for _, data in two] == ["m:g1:4:3", "m:g1:4:7"]
    assert commits(0b111) == [("✔ Discard 3 cards", "m:g1:4:6")]
    # toggles add and remove (Saboteur 2 selects several)
    screen = kb.discard_keyboard(t, view, 0b011)
    toggles = [b.callback_data for b in screen.inline_keyboard[0] + screen.inline_keyboard[1]]
    assert toggles == ["d:g1:4:2", "d:g1:4:1", "d:g1:4:7"]
