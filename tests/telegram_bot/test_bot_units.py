"""Small pure pieces: callback strings, keyboards in groups, texts from spectator views."""

from __future__ import annotations

import pytest

from core import engine
from core.service import STORE_UNAVAILABLE, GameService
from core.service.records import new_game_id
from core.store import MemoryStore
from core.store.keys import pref_owner
from telegram_bot import callbacks as cb
from telegram_bot import keyboards as kb
from telegram_bot import texts
from telegram_bot.commands import member_menu_key
from telegram_bot.i18n import Translator
from telegram_bot.runtime import Runtime


def test_callback_roundtrip_and_limits() -> None:
    data = cb.encode(cb.MOVE, "A" * 40, 123456, 17)
    assert len(data.encode()) <= 64
    parsed = cb.decode(data)
    assert parsed is not None and parsed.kind == "m" and parsed.version == 123456
    assert parsed.int_arg(0) == 17 and cb.matches("A" * 40, parsed.game)
    for bad in (None, "", "x", "m:g", "m:g:notanumber", ":g:1"):
        assert cb.decode(bad) is None
    with pytest.raises(ValueError):
        cb.encode(cb.MOVE, "g", 1, "x" * 60)


def test_a_button_carries_the_whole_game_id() -> None:
    game_id = new_game_id()
    assert len(game_id) <= cb.GAME_ID_LEN
    parsed = cb.decode(cb.encode(cb.CARD, game_id, 3, 0))
    assert parsed is not None and parsed.game == game_id and cb.matches(game_id, parsed.game)
    assert not cb.matches(game_id, game_id[:-1])


def test_group_keyboards_have_no_web_app() -> None:
    t = Translator("en")
    for markup in (
        kb.lobby_keyboard(t, "gameid123", "SaboBot"),
        kb.board_keyboard(t, "gameid123", "SaboBot", "board"),
    ):
        for row in markup.inline_keyboard:
            for button in row:
                assert button.web_app is None
    url = kb.miniapp_group_url("SaboBot", "board", "gameid123")
    assert url == "https://t.me/SaboBot/board?startapp=gameid123"
    # Join is a callback: a press in the group proves membership (the answer carries the
    # deep link for those the bot cannot write to yet)
    join = kb.lobby_keyboard(t, "gameid123", "SaboBot").inline_keyboard[0][0]
    assert join.url is None and join.callback_data == "L:gameid123:0:jn"
    assert kb.deep_link("SaboBot", kb.join_payload("gameid123")) == (
        "https://t.me/SaboBot?start=jgameid123"
    )


def test_spectator_caption_and_private_panel() -> None:
    state = engine.new_game(engine.GameConfig("classic", 4, rounds=1), seed=7)
    spectator = {**engine.view_for(state, None), "game_id": "g1", "version": 3}
    for s in spectator["seats"]:
        s["name"] = f"P{s['seat']}"
    t = Translator("en")
    caption = texts.board_caption(t, spectator)
    assert len(caption) <= 1024 and "turn" in caption
    seat = spectator["current_seat"]
    own = {
        **engine.view_for(state, seat),
        "game_id": "g1",
        "version": 3,
        "seats": spectator["seats"],
    }
    panel = texts.panel_text(t, own)
    assert t.role(own["you"]["role"]) in panel and "Your turn" in panel
    markup = kb.panel_keyboard(t, own, "https://x.example")
    datas = [b.callback_data for row in markup.inline_keyboard for b in row if b.callback_data]
    assert datas and all(len(str(d).encode()) <= 64 for d in datas)
    for c in own["you"]["hand"]:
        assert all(c["id"] not in str(d) and c["card"] not in str(d) for d in datas)
    first_slot = next(i for i, c in enumerate(own["you"]["hand"]))
    moves = kb.card_keyboard(t, own, first_slot, 0)
    assert moves is not None and len(moves.inline_keyboard) >= 2


async def test_group_budget_never_exceeds_twenty_a_minute() -> None:
    clock = [0.0]
    rt = Runtime(GameService(MemoryStore(clock=lambda: clock[0])))
    sent: list[float] = []
    while clock[0] < 300:
        if await rt.try_acquire(-5, max_wait_s=0):
            sent.append(clock[0])
        clock[0] += 0.25
    for i, at in enumerate(sent):
        assert len([s for s in sent[i:] if s < at + 60]) <= 20
    assert len(sent) >= 70  # and it is not needlessly stingy (~15 a minute)
    assert await rt.claim("k") and not await rt.claim("k")


async def test_a_claim_the_store_cannot_record_raises() -> None:
    """No process-local fallback: with several workers it would send a message twice."""

    class DownStore(MemoryStore):
        async def claim_once(self, key: str, ttl_s: float) -> bool:
            raise ConnectionError("store down")

    rt = Runtime(GameService(DownStore()))
    with pytest.raises(STORE_UNAVAILABLE):
        await rt.claim("final:g1")


def test_private_results_name_what_was_learnt() -> None:
    from telegram_bot.private import private_results

    t = Translator("en")
    seats = [{"seat": 0, "name": "Ann"}, {"seat": 1, "name": "Ben"}]
    before = {"seats": seats, "you": {"known_goals": [], "known_roles": []}}
    after = {
        "seats": seats,
        "you": {
            "known_goals": [{"goal": 2, "kind": "gold"}],
            "known_roles": [{"seat": 1, "role": "SABOTEUR", "stale": False}],
        },
    }
    lines = private_results(t, before, after)
    assert any("bottom goal" in line and "gold" in line for line in lines)
    assert any("Ben" in line and "Saboteur" in line for line in lines)
    assert private_results(t, after, after) == []


def test_move_labels_cover_every_move_type() -> None:
    t = Translator("zh_Hant")
    view = {
        "seats": [{"seat": 0, "name": "Ann"}, {"seat": 1, "name": "Ben"}],
        "you": {
            "hand": [
                {"id": "a", "card": "MAP"},
                {"id": "b", "card": "S1_CROSS"},
                {"id": "c", "card": "REPAIR_PICKAXE_CART"},
            ]
        },
    }
    moves = [
        {"type": "place_path", "card": "b", "x": 1, "y": 0, "rotated": True},
        {"type": "break_tool", "card": "a", "target_seat": 1},
        {"type": "repair_tool", "card": "c", "target_seat": 0, "tool": "cart"},
        {"type": "rockfall", "card": "a", "x": 2, "y": 0},
        {"type": "map", "card": "a", "goal": 0},
        {"type": "theft", "card": "a"},
        {"type": "discard", "cards": ["a", "b"]},
        {"type": "discard_to_remove", "cards": ["a", "b"], "remove": "TRAPPED"},
        {"type": "steal", "target_seat": None},
        {"type": "steal", "target_seat": 1},
        {"type": "next_round"},
        {"type": "take_seat_back"},
        {"type": "swap_hats", "card": "a", "target_seat": 0},
    ]
    labels = [texts.move_label(t, view, m) for m in moves]
    assert all(labels) and len(set(labels)) == len(labels)
    assert "藏寶圖 + 十字路 ┼" in labels[6] and "被困" in labels[7]
    assert all(len(label) <= 60 for label in labels)


def test_names_are_escaped_in_html_texts() -> None:
    t = Translator("en")
    view = {
        "status": "playing",
        "round": 1,
        "rounds": 1,
        "current_seat": 0,
        "seats": [{"seat": 0, "name": "<b>Evil</b> & co", "hand_size": 3}],
        "log": [{"code": "passed", "seat": 0, "count": 1}],
        "you": {"seat": None},
    }
    for text in (
        texts.board_caption(t, view),
        texts.final_text(t, view),
        texts.lobby_text(t, {**view, "edition": "classic"}),
    ):
        assert "<b>Evil" not in text and "&lt;b&gt;Evil" in text


def test_a_member_menu_preference_is_the_users_own() -> None:
    """delete_user_data removes it with the user's other preferences."""
    assert pref_owner(member_menu_key(-1001234567890, 7)) == 7
    assert pref_owner(member_menu_key(-5, 123456789012)) == 123456789012


def test_computer_seats_are_named_in_the_readers_language() -> None:
    """A computer seat's stored name is English; every text names it in the chat's
    language (the view's ``computer_no``), and a human's seat the computer plays keeps
    the human's name."""
    seats = [
        {"seat": 0, "name": "Ann", "hand_size": 5},
        {"seat": 1, "name": "Computer 1", "computer": True, "computer_no": 1, "hand_size": 5},
        {"seat": 2, "name": "Bo", "computer": True, "away": True, "hand_size": 5},
    ]
    view = {
        "status": "playing",
        "round": 1,
        "rounds": 3,
        "current_seat": 1,
        "edition": "classic",
        "seats": seats,
        "you": {"seat": None},
        "log": [{"code": "tool_broken", "seat": 1, "target_seat": 2, "tool": "pickaxe"}],
    }
    for language, computer in (("en", "Computer 1"), ("zh_Hans", "电脑 1"), ("zh_Hant", "電腦 1")):
        t = Translator(language)
        assert texts.seat_name(t, view, 1) == computer
        assert texts.seat_name(t, view, 2) == "Bo"
        for text in (
            texts.lobby_text(t, {**view, "status": "lobby"}),
            texts.board_caption(t, view),
            texts.final_text(t, view),
        ):
            assert computer in text and "Bo" in text
            assert language == "en" or "Computer" not in text


def test_the_group_picture_speaks_the_groups_language() -> None:
    t = Translator("zh_Hant")
    labels = texts.picture_labels(t)
    assert labels["round"].format(round=2, rounds=3) == "第 2/3 輪"
    assert labels["deck"].format(deck=30) == "牌堆 30"
    assert labels["computer"].format(n=4) == "電腦 4"
    assert labels["finished"] == "遊戲結束"
    from telegram_bot.board_picture import LABELS_EN

    assert set(labels) == set(LABELS_EN) - {"playing"}
    english = texts.picture_labels(Translator("en"))
    assert {k: v for k, v in LABELS_EN.items() if k != "playing"} == english


def test_the_lobby_names_the_computer_level() -> None:
    seats = [
        {"seat": 0, "name": "Ann"},
        {"seat": 1, "name": "Computer 1", "computer": True, "computer_no": 1},
    ]
    view = {
        "game_id": "g1",
        "status": "lobby",
        "edition": "classic",
        "seats": seats,
        "options": {"rounds": 3},
        "settings": {"computer_level": "hard"},
    }
    t = Translator("zh_Hans")
    assert "电脑玩家：困难" in texts.lobby_text(t, view)
    labels = [
        b.text
        for row in kb.settings_keyboard(t, view, None, "zh_Hans").inline_keyboard
        for b in row
    ]
    assert "🤖 电脑玩家：困难" in labels
    alone = {**view, "seats": seats[:1]}  # no computer yet: the lobby text stays short
    assert "电脑玩家" not in texts.lobby_text(t, alone)
