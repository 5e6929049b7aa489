"""Private cards inside the group: "My cards" answers its presser with an ephemeral message
that no one else sees, its buttons work without ``message``, a play asks for one
confirming press, Pass selects cards, and a server that refuses ephemeral messages sends
the hand to the private chat instead. ``SAVE_TRANSCRIPTS=<dir>`` saves what each member
saw (the group as everyone sees it, as each player sees it, each private chat) as JSON."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup

from telegram_bot.ephemeral import EphemeralChannel, EphemeralRef, EphemeralUnavailable
from telegram_bot.i18n import Translator
from telegram_bot.panels import hand_key, redraw_open_hand
from tests.telegram_bot.bot_driver import (
    assert_no_leaks,
    callback_parts,
    join,
    open_lobby,
    role_words,
    wait_async,
)
from tests.telegram_bot.conftest import BotEnv
from tests.telegram_bot.fake_bot_api import (
    TOKEN,
    FakeBotAPI,
    FakeChat,
    FakeUser,
    buttons,
    find_button,
)


async def _table(
    env: BotEnv,
    group: FakeChat,
    names: list[str],
    *,
    thread_id: int | None = None,
    **settings: Any,
) -> tuple[str, list[FakeUser]]:
    users = [env.api.user(i + 1, n) for i, n in enumerate(names)]
    for u in users:
        u.press_start()
    game_id = await open_lobby(env, group, users[0], thread_id=thread_id)
    for u in users[1:]:
        await join(env, game_id, group, u)
    await env.service.configure(game_id, users[0].id, rounds=1, turn_time=None, **settings)
    lobby = await env.api.wait_for(
        lambda: env.api.last_bot_message(group.id, lambda m: ":jn" in str(m.get("reply_markup")))
    )
    users[0].press(lobby, "Start")

    async def started() -> bool:
        return (await env.service.view(game_id, None))["status"] == "playing"

    await wait_async(started)
    await env.api.wait_for(lambda: _board(env.api, group.id))
    return game_id, users


def _board(api: FakeBotAPI, chat_id: int) -> dict[str, Any] | None:
    return api.last_bot_message(chat_id, lambda m: "photo" in m)


async def _actor(env: BotEnv, game_id: str, users: list[FakeUser]) -> tuple[FakeUser, int]:
    sv = await env.service.view(game_id, None)
    seat = (await env.service.seats(game_id))[sv["current_seat"]]
    return next(u for u in users if u.id == seat.user_id), int(sv["version"])


async def _my_cards(env: BotEnv, group: FakeChat, user: FakeUser) -> dict[str, Any] | None:
    """Press "My cards" under the board; the new ephemeral message it brought, if any."""
    api = env.api
    before = {m["ephemeral_message_id"] for m in api.ephemeral_for(group.id, user.id)}
    board = _board(api, group.id)
    assert board is not None
    qid = user.press(board, "My cards")
    await api.wait_for(lambda: api.callback_queries[qid]["answered"])
    new = [
        m for m in api.ephemeral_for(group.id, user.id) if m["ephemeral_message_id"] not in before
    ]
    return new[-1] if new else None


def _shown(msg: dict[str, Any] | None) -> str:
    return json.dumps([(msg or {}).get("text"), (msg or {}).get("reply_markup")])


async def _press(env: BotEnv, user: FakeUser, msg: dict[str, Any], button: Any) -> dict[str, Any]:
    """Press a button on an ephemeral message; the message once it was redrawn."""
    api = env.api
    key = (msg["chat"]["id"], msg["ephemeral_message_id"])
    before = _shown(api.ephemeral.get(key))
    qid = user.press(msg, button)
    await api.wait_for(lambda: api.callback_queries[qid]["answered"])
    await api.wait_for(lambda: key not in api.ephemeral or _shown(api.ephemeral[key]) != before)
    return api.ephemeral.get(key, {})


def _kinds(msg: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [b for b in buttons(msg) if callback_parts(b)[0] == kind]


def _save(api: FakeBotAPI, name: str, group: FakeChat, users: list[FakeUser]) -> None:
    folder = os.environ.get("SAVE_TRANSCRIPTS")
    if not folder:
        return
    Path(folder).mkdir(parents=True, exist_ok=True)
    seen: dict[str, Any] = {}
    for viewer in [None, *users]:
        label = "group (anyone)" if viewer is None else f"group as {viewer.first_name}"
        seen[label] = [
            {k: m.get(k) for k in ("text", "caption", "reply_markup") if m.get(k)}
            | ({"only_for": m["receiver_user"]["first_name"]} if "receiver_user" in m else {})
            for m in api.transcript(group.id, None if viewer is None else viewer.id)
        ]
    for u in users:
        seen[f"private chat of {u.first_name}"] = [
            {k: m.get(k) for k in ("text", "reply_markup") if m.get(k)}
            for m in api.bot_messages(u.id)
        ]
    path = Path(folder) / f"{name}.json"
    path.write_text(json.dumps(seen, ensure_ascii=False, indent=1), encoding="utf-8")


async def test_hand_shown_in_the_group_to_its_presser_alone(fast_env: BotEnv) -> None:
    env, api = fast_env, fast_env.api
    group = api.group(-5001, "Pit")
    game_id, users = await _table(env, group, ["Ann", "Ben", "Cat"])
    ann, ben = users[0], users[1]
    eph = await _my_cards(env, group, ben)
    assert eph is not None, "no ephemeral message"
    view = await env.service.view(game_id, ben.id)
    role = Translator("en").role(view["you"]["role"])
    assert role in eph["text"] and "Your hand" in eph["text"]
    for c in view["you"]["hand"]:
        assert Translator("en").card(c["card"]) in eph["text"]
    # nobody else sees it: not in the group's history, not in Ann's view of the group
    assert eph not in api.bot_messages(group.id)
    secret = Translator("en").gettext("Your role: {role}", role=role)
    assert secret in eph["text"]
    assert not any(secret in str(m) for m in api.transcript(group.id, ann.id))
    assert eph in api.transcript(group.id, ben.id)
    # no web_app in the group; the board link and a close button instead
    assert not any(b.get("web_app") for b in buttons(eph))
    # the send answered the press itself (10.4: callback_query_id alone names the receiver)
    send = next(c for c in api.calls if c.method == "sendMessage" and c.ephemeral)
    assert "receiver_user_id" not in json.dumps(send.params)
    assert send.receiver == ben.id
    # a button on it arrives without ``message``: "Pass / discard" redraws it in place
    actor, _version = await _actor(env, game_id, users)
    mine = await _my_cards(env, group, actor)
    assert mine is not None
    update = actor.callback_update(mine, find_button(mine, "Pass")["callback_data"])
    assert "message" not in update["callback_query"]
    del api.callback_queries[update["callback_query"]["id"]]  # only looked at, not sent
    after = await _press(env, actor, mine, "Pass")
    assert _kinds(after, "d") and "Pass:" in after["text"]
    assert any(c.method == "editEphemeralMessageText" and c.ok for c in api.calls)
    # a second press of My cards replaces the first (one hand on screen), Close deletes it
    again = await _my_cards(env, group, ben)
    assert again is not None
    await api.wait_for(lambda: len(api.ephemeral_for(group.id, ben.id)) == 1)
    qid = ben.press(again, lambda b: b.get("text") == "✖")
    await api.wait_for(lambda: api.callback_queries[qid]["answered"])
    await api.wait_for(lambda: not api.ephemeral_for(group.id, ben.id))
    # someone not playing is told so, in an alert
    dan = api.user(9, "Dan")
    qid = dan.press(_board(api, group.id) or {}, "My cards")
    await api.wait_for(lambda: api.callback_queries[qid]["answered"])
    assert api.callback_queries[qid]["answer"].get("show_alert")
    assert not api.ephemeral_for(group.id, dan.id)
    assert_no_leaks(env, None, set())
    assert not api.unanswered_queries()
    _save(api, "ephemeral_hand", group, users)


async def test_an_open_hand_shows_its_players_turn_when_it_begins(fast_env: BotEnv) -> None:
    """A player who keeps their hand open in the group sees their turn in it without
    pressing again; the hands of the players still waiting are left alone (the group's
    budget), and their turn's prompt still goes to the private chat."""
    env, api = fast_env, fast_env.api
    group = api.group(-5011, "Open hand")
    game_id, users = await _table(env, group, ["Ann", "Ben", "Cat", "Dee"])
    actor, version = await _actor(env, game_id, users)
    seats = await env.service.seats(game_id)
    current = int((await env.service.view(game_id, None))["current_seat"])
    by_seat = {s.seat: s.user_id for s in seats}
    nxt = next(u for u in users if u.id == by_seat[(current + 1) % len(seats)])
    later = next(u for u in users if u.id == by_seat[(current + 2) % len(seats)])
    hands = {u.id: await _my_cards(env, group, u) for u in (nxt, later)}
    assert all(hands.values())
    waiting = {uid: _shown(h) for uid, h in hands.items()}
    assert not _kinds(hands[nxt.id] or {}, "c"), "a waiting hand offers no card to play"
    edits_before = sum(1 for c in api.calls if c.method == "editEphemeralMessageText")
    mine = await env.service.view(game_id, actor.id)
    await env.service.submit(game_id, actor.id, mine["legal_moves"][0], version)
    key = (group.id, (hands[nxt.id] or {})["ephemeral_message_id"])

    def turn_shown() -> dict[str, Any] | None:
        msg = api.ephemeral.get(key)
        return msg if msg is not None and _kinds(msg, "c") else None

    redrawn = await api.wait_for(turn_shown, timeout=15)
    new_version = int((await env.service.view(game_id, None))["version"])
    assert {callback_parts(b)[2] for b in _kinds(redrawn, "c")} == {str(new_version)}
    assert _shown(redrawn) != waiting[nxt.id]
    # the next player's prompt went to the private chat as ever (the reliable record)
    await api.wait_for(lambda: any(_kinds(m, "c") for m in api.bot_messages(nxt.id)))
    # the hand of the player who waits on is not redrawn: one edit for the one turn
    later_key = (group.id, (hands[later.id] or {})["ephemeral_message_id"])
    assert _shown(api.ephemeral.get(later_key)) == waiting[later.id]
    edits = [c for c in api.calls if c.method == "editEphemeralMessageText"][edits_before:]
    assert len(edits) == 1 and edits[0].receiver == nxt.id
    assert_no_leaks(env, None, set())


async def test_confirm_step_back_and_commit_on_the_ephemeral_panel(fast_env: BotEnv) -> None:
    env, api = fast_env, fast_env.api
    group = api.group(-5002, "Quarry")
    game_id, users = await _table(env, group, ["Ann", "Ben", "Cat"])
    actor, version = await _actor(env, game_id, users)
    eph = await _my_cards(env, group, actor)
    assert eph is not None
    card = _kinds(eph, "c")[0]
    eph = await _press(env, actor, eph, lambda b: b == card)
    play = _kinds(eph, "p")[0]
    eph = await _press(env, actor, eph, lambda b: b == play)  # press: asks to confirm
    assert "?" in eph["text"] and _kinds(eph, "m")
    assert int((await env.service.view(game_id, None))["version"]) == version  # not yet
    eph = await _press(env, actor, eph, "Back")  # back: the card's plays again
    assert _kinds(eph, "p") and not _kinds(eph, "m")
    eph = await _press(env, actor, eph, lambda b: b == play)  # press again
    confirm = find_button(eph, "Confirm")
    eph = await _press(env, actor, eph, lambda b: b == confirm)  # confirm: committed

    async def moved() -> bool:
        return int((await env.service.view(game_id, None))["version"]) > version

    await wait_async(moved)
    assert eph["text"].startswith("✔")
    # the private chat stays the record: its panel shows the move too
    await api.wait_for(
        lambda: any(m.get("text", "").startswith("✔") for m in api.bot_messages(actor.id))
    )
    # the board in the group follows the move: its caption names the next player
    nxt, _ = await _actor(env, game_id, users)
    assert nxt != actor
    await api.wait_for(
        lambda: f"{nxt.first_name}'s turn" in str((_board(api, group.id) or {}).get("caption"))
    )
    assert_no_leaks(env, None, set())
    assert not api.unanswered_queries()
    _save(api, "confirm_step", group, users)


async def test_saboteur2_discards_several_cards_by_selection(fast_env: BotEnv) -> None:
    env, api = fast_env, fast_env.api
    group = api.group(-5003, "Deep seam")
    game_id, users = await _table(env, group, ["Ann", "Ben", "Cat"], edition="expansion")
    actor, version = await _actor(env, game_id, users)
    before = len((await env.service.view(game_id, actor.id))["you"]["hand"])
    eph = await _my_cards(env, group, actor)
    assert eph is not None
    pass_button = find_button(eph, "Pass / discard")  # on the panel's first screen
    eph = await _press(env, actor, eph, lambda b: b == pass_button)
    toggles = _kinds(eph, "d")
    assert len(toggles) == before and all(b["text"].startswith("☐") for b in toggles)
    assert not _kinds(eph, "m")  # nothing selected: nothing to commit
    eph = await _press(env, actor, eph, lambda b: b == toggles[0])
    eph = await _press(env, actor, eph, lambda b: b == _kinds(eph, "d")[2])
    assert sum(b["text"].startswith("☑") for b in _kinds(eph, "d")) == 2
    commit = find_button(eph, "Discard 2 cards")
    await _press(env, actor, eph, lambda b: b == commit)

    async def moved() -> bool:
        return int((await env.service.view(game_id, None))["version"]) > version

    await wait_async(moved)
    log = (await env.service.view(game_id, None))["log"]
    assert any(e.get("code") == "passed" and e.get("count") == 2 for e in log)
    assert not api.unanswered_queries()


@pytest.mark.parametrize("mode", ["refuse", "legacy"])
async def test_a_server_without_ephemeral_messages_sends_the_hand_privately(
    fast_env: BotEnv, mode: str
) -> None:
    env, api = fast_env, fast_env.api
    api.ephemeral_mode = mode
    group = api.group(-5004, f"Old server {mode}")
    game_id, users = await _table(env, group, ["Ann", "Ben", "Cat"])
    ben = users[1]
    panels = len(api.bot_messages(ben.id))
    board = _board(api, group.id)
    assert board is not None
    qid = ben.press(board, "My cards")
    await api.wait_for(lambda: api.callback_queries[qid]["answered"])
    assert not api.ephemeral
    assert "private chat" in str(api.callback_queries[qid]["answer"].get("text"))
    await api.wait_for(lambda: len(api.bot_messages(ben.id)) > panels)
    view = await env.service.view(game_id, ben.id)
    role = Translator("en").role(view["you"]["role"])
    assert role in api.bot_messages(ben.id)[-1]["text"]
    # an older server posted the neutral placeholder for everyone: deleted at once, and
    # the private text never went to the group
    assert not any(m.get("text") == "🂠" for m in api.bot_messages(group.id))
    words = role_words()
    for call in api.calls:
        if call.group and call.method == "sendMessage":
            assert not any(w in t for t in call.texts() for w in words), call.params
    assert_no_leaks(env, None, set())
    assert not api.unanswered_queries()
    _save(api, f"no_ephemeral_{mode}", group, users)


async def test_one_parameter_form_is_enough(fast_env: BotEnv) -> None:
    """A server that reads only the ``ephemeral_message_parameters`` object: the top-level
    form is ignored there (posted publicly, a neutral placeholder, deleted), then the
    object form works and is used from then on."""
    env, api = fast_env, fast_env.api
    api.ephemeral_forms = {"object"}
    group = api.group(-5005, "Object only")
    _game_id, users = await _table(env, group, ["Ann", "Ben", "Cat"])
    assert await _my_cards(env, group, users[1]) is not None
    assert await _my_cards(env, group, users[2]) is not None
    sends = [c for c in api.calls if c.method == "sendMessage" and c.group]
    ephemeral = [c for c in sends if c.ephemeral]
    assert len(ephemeral) == 2
    assert all("ephemeral_message_parameters" in c.params for c in ephemeral)
    assert not any(m.get("text") == "🂠" for m in api.bot_messages(group.id))
    assert not api.unanswered_queries()


async def test_ephemeral_messages_count_against_the_group_budget(fast_env: BotEnv) -> None:
    env, api = fast_env, fast_env.api
    group = api.group(-5006, "Busy")
    _game_id, users = await _table(env, group, ["Ann", "Ben", "Cat"])
    board = _board(api, group.id)
    assert board is not None
    pressed = [u.press(board, "My cards") for _ in range(6) for u in users]  # a burst
    await api.wait_for(lambda: all(api.callback_queries[q]["answered"] for q in pressed), 30)
    writes = sorted(c.at for c in api.group_calls() if c.ok)
    window = api.group_window
    assert max(sum(1 for t in writes if s <= t < s + window) for s in writes) <= api.group_limit
    assert not api.rate_limited
    # when the budget had no token soon enough, the hand went to the private chat
    answers = [q["answer"] for q in api.callback_queries.values() if q["answer"]]
    assert any("private chat" in str(a.get("text")) for a in answers)
    assert not api.unanswered_queries()


@pytest.mark.parametrize(
    ("mode", "forms", "shown"),
    [
        ("on", {"flat", "object"}, "flat"),
        ("on", {"object"}, "object"),
        ("on", {"flat"}, "flat"),
        ("refuse", {"flat", "object"}, None),
        ("legacy", {"flat", "object"}, None),
    ],
)
async def test_the_adapter_against_each_kind_of_server(
    fake_api: FakeBotAPI, mode: str, forms: set[str], shown: str | None
) -> None:
    api = fake_api
    api.ephemeral_mode, api.ephemeral_forms = mode, forms
    ann = api.user(1, "Ann")
    group = api.group(-5100, "Adapter")
    async with Bot(TOKEN, base_url=api.base_url) as bot:
        board = await bot.send_message(group.id, "board")
        board_dict = api.messages[(group.id, board.message_id)]
        update = ann.callback_update(board_dict, "Y:g:0")
        qid = update["callback_query"]["id"]
        channel = EphemeralChannel()
        markup = InlineKeyboardMarkup([[InlineKeyboardButton("x", callback_data="h:g:1")]])
        if shown is None:
            with pytest.raises(EphemeralUnavailable):
                await channel.send(bot, group.id, "secret", markup, callback_query_id=qid)
            assert not api.ephemeral
            assert [m["text"] for m in api.bot_messages(group.id)] == ["board"]
            assert not channel.available(group.id)  # not asked again for a while
            return
        ref = await channel.send(
            bot, group.id, "secret", markup, callback_query_id=qid, receiver_user_id=ann.id
        )
        assert channel.verified_form == shown
        msg = api.ephemeral[(group.id, ref.message_id)]
        assert ref.receiver_user_id == ann.id and msg["text"] == "secret"
        assert [m["text"] for m in api.bot_messages(group.id)] == ["board"]  # none public
        again = await channel.send(bot, group.id, "second", None, receiver_user_id=ann.id)
        sends = [c for c in api.calls if c.method == "sendMessage" and c.ephemeral]
        assert sends[-1].params.get("text") == "second"  # verified: no placeholder now
        await channel.edit(bot, ref, "secret 2", None)
        await channel.edit(bot, ref, "secret 2", None)  # unchanged: fine
        assert api.ephemeral[(group.id, ref.message_id)]["text"] == "secret 2"
        assert await channel.delete(bot, ref) and await channel.delete(bot, again)
        assert not api.ephemeral
        assert EphemeralRef.decode(ref.encode()) == ref and EphemeralRef.decode("x") is None


async def _turn_in_group(env: BotEnv, group: FakeChat, user: FakeUser, rng: random.Random) -> None:
    """One turn played entirely on the in-group panel: a card, a play, Confirm — or Pass,
    one card selected, Discard."""
    eph = await _my_cards(env, group, user)
    assert eph is not None
    cards, passing = _kinds(eph, "c"), _kinds(eph, "d")
    direct = _kinds(eph, "p") + _kinds(eph, "m")
    if direct and not cards:
        choice = rng.choice(direct)
    elif cards and (not passing or rng.random() < 0.8):
        card = rng.choice(cards)
        eph = await _press(env, user, eph, lambda b: b == card)
        choice = rng.choice(_kinds(eph, "p") + _kinds(eph, "m"))
    else:
        eph = await _press(env, user, eph, lambda b: b == passing[0])
        toggle = rng.choice(_kinds(eph, "d"))
        eph = await _press(env, user, eph, lambda b: b == toggle)
        choice = _kinds(eph, "m")[0]
    if callback_parts(choice)[0] == "p":
        eph = await _press(env, user, eph, lambda b: b == choice)
        choice = find_button(eph, "Confirm")
    await _press(env, user, eph, lambda b: b == choice)


async def test_turns_played_in_the_group_show_nothing_to_the_others(fast_env: BotEnv) -> None:
    env, api = fast_env, fast_env.api
    group = api.group(-5007, "Whole table")
    game_id, users = await _table(env, group, ["Ann", "Ben", "Cat", "Dee"])
    rng = random.Random(5)
    turns = 0
    # four turns: python-telegram-bot's own limiter keeps Telegram's real 20 per minute
    # per group (the fast budget of these tests aside), and it counts these messages too
    for _ in range(4):
        sv = await env.service.view(game_id, None)
        if sv["status"] != "playing":
            break
        actor, version = await _actor(env, game_id, users)
        await _turn_in_group(env, group, actor, rng)
        turns += 1

        async def moved(v: int = version) -> bool:
            return int((await env.service.view(game_id, None))["version"]) > v

        await wait_async(moved)
    # every hand went to its owner alone; the others' view of the group holds no role
    words = role_words()
    for viewer in users:
        for m in api.transcript(group.id, viewer.id):
            if m.get("receiver_user", {}).get("id") == viewer.id:
                continue
            text = str(m.get("text") or m.get("caption") or "")
            assert not any(w in text for w in words), (viewer.first_name, text)
    assert {m["receiver_user"]["id"] for m in api.ephemeral.values()} <= {u.id for u in users}
    # what a turn played in the group costs the group's budget: My cards, the card's plays,
    # the question, the result (the first press of a process probes once more)
    writes = [c for c in api.group_calls() if c.ephemeral and c.ok]
    assert turns == 4 and len(writes) <= 4 * turns + 1, len(writes)
    assert_no_leaks(env, None, set())
    assert not api.unanswered_queries()


async def test_a_server_that_stops_hiding_them_is_caught(fake_api: FakeBotAPI) -> None:
    """A verified process whose server is replaced by an older one: the message that came
    back public is deleted at once, and the next sends probe with the placeholder again."""
    api = fake_api
    ann = api.user(1, "Ann")
    group = api.group(-5101, "Downgrade")
    async with Bot(TOKEN, base_url=api.base_url) as bot:
        channel = EphemeralChannel()
        await channel.send(bot, group.id, "first", None, receiver_user_id=ann.id)
        assert channel.verified_form == "flat"
        api.ephemeral_mode = "legacy"
        with pytest.raises(EphemeralUnavailable):
            await channel.send(bot, group.id, "second", None, receiver_user_id=ann.id)
        assert channel.verified_form is None
        assert api.bot_messages(group.id) == []  # the public copy is gone
        api.ephemeral_mode = "on"
        channel.refused.clear()
        await channel.send(bot, group.id, "third", None, receiver_user_id=ann.id)
        sends = [c for c in api.calls if c.method == "sendMessage" and c.ephemeral]
        assert sends[-1].params["text"] == "🂠"  # probing again


async def test_in_a_forum_topic_the_hand_shows_in_that_topic(fast_env: BotEnv) -> None:
    env, api = fast_env, fast_env.api
    group = api.group(-5008, "Guild hall", forum=True)
    _game_id, users = await _table(env, group, ["Ann", "Ben", "Cat"], thread_id=77)
    eph = await _my_cards(env, group, users[2])
    assert eph is not None and eph.get("message_thread_id") == 77
    assert not api.unanswered_queries()


async def test_an_open_hand_the_budget_cannot_redraw_reads_nothing() -> None:
    """At a turn start a hand left open in the group is redrawn as a bulk write; when the
    group's budget has no token for it, the player's view is not even read."""
    asked: list[tuple[int, bool]] = []
    reads: list[tuple[str, int | None]] = []

    async def refuse(chat_id: int, bulk: bool = False) -> bool:
        asked.append((chat_id, bulk))
        return False

    async def get_game_data(game_id: str) -> dict[str, str]:
        return {hand_key(7): EphemeralRef(-100, 7, 3).encode()}

    async def view(game_id: str, user_id: int | None) -> None:
        reads.append((game_id, user_id))

    deps = SimpleNamespace(
        runtime=SimpleNamespace(get_game_data=get_game_data),
        port=SimpleNamespace(view=view),
        extra={"ephemeral": EphemeralChannel(budget=refuse)},
    )
    shown = await redraw_open_hand(None, deps, "g1", 7, Translator("en"))  # type: ignore[arg-type]
    assert shown is False
    assert asked == [(-100, True)]  # one bulk token asked for, in that group
    assert reads == []
