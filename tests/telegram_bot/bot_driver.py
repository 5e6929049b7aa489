"""Scripted players for the end-to-end tests: lobby, deep-link joins, button play, checks."""

from __future__ import annotations

import asyncio
import random
import re
import time
from typing import Any

from core.service.models import ChatKey
from telegram_bot.i18n import LANGUAGES, Translator
from tests.telegram_bot.conftest import BotEnv
from tests.telegram_bot.fake_bot_api import Call, FakeChat, FakeUser, buttons

CALLBACK_RE = re.compile(r"^[A-Za-z]{1,4}:[A-Za-z0-9_-]{1,16}:\d{1,9}(:[A-Za-z0-9_]{1,8}){0,3}$")
ROLE_IDS = (
    "GOLD_DIGGER",
    "SABOTEUR",
    "SELFISH_DWARF",
    "GOLD_DIGGER_BLUE",
    "GOLD_DIGGER_GREEN",
    "BOSS",
    "PROFITEER",
    "GEOLOGIST",
)


def role_words() -> set[str]:
    """Every way a role is written next to a player, in every language (none may appear in
    the group before the reveal; the bare word "Saboteur" is also the game's name)."""
    words = set()
    for language in LANGUAGES:
        t = Translator(language)
        for r in ROLE_IDS:
            words.update({f"({t.role(r)})", f": {t.role(r)}", f"：{t.role(r)}"})
        words.add(t.gettext("Your role: {role}", role="").strip())
    return words


# the lobby's Join button: a callback (a press in the group proves membership)
JOIN_MARK = ":jn"


def is_join(b: dict[str, Any]) -> bool:
    return str(b.get("callback_data", "")).endswith(JOIN_MARK)


def is_lobby(m: dict[str, Any]) -> bool:
    return any(is_join(b) for b in buttons(m))


async def open_lobby(
    env: BotEnv,
    group: FakeChat,
    creator: FakeUser,
    *,
    thread_id: int | None = None,
    command: str = "/new",
) -> str:
    api = env.api
    creator.say(group.id, command, thread_id=thread_id)
    await api.wait_for(lambda: api.last_bot_message(group.id, is_lobby))
    game_id = await env.service.game_for_chat(ChatKey(group.id, thread_id))
    assert game_id
    return game_id


async def choose_language(api: Any, user: FakeUser, chat_id: int, name: str) -> str:
    """``/lang`` in a chat, then the button ``name`` ("English", "简体中文", "繁體中文") of
    the menu the bot answers with; returns the callback query's id."""
    user.say(chat_id, "/lang")
    menu = await api.wait_for(
        lambda: api.last_bot_message(chat_id, lambda m: name in str(m.get("reply_markup")))
    )
    qid: str = user.press(menu, name)
    return qid


async def join(env: BotEnv, game_id: str, group: FakeChat, user: FakeUser) -> None:
    """Press Join under the lobby in the group, as a player does: seated at once when the
    bot can write to them, else answered with the deep link, which they follow."""
    api = env.api
    lobby = api.last_bot_message(group.id, is_lobby)
    assert lobby is not None
    qid = user.press(lobby, is_join)
    answer = await api.wait_for(lambda: api.callback_queries[qid]["answer"])
    if answer.get("url"):
        user.press_start(str(answer["url"]).split("?start=", 1)[1])

    async def seated() -> bool:
        return user.id in {s.user_id for s in await env.service.seats(game_id)}

    await wait_async(seated)


async def wait_async(predicate: Any, timeout: float = 15.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = await predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError("condition not met in time")
        await asyncio.sleep(0.03)


def callback_parts(b: dict[str, Any]) -> list[str]:
    return str(b.get("callback_data", "")).split(":")


PANEL_KINDS = ("c", "m", "p", "d")


def panel_for(env: BotEnv, user_id: int, version: int) -> dict[str, Any] | None:
    """The user's private message with buttons drawn for this version (card or move)."""
    for m in reversed(env.api.bot_messages(user_id)):
        for b in buttons(m):
            parts = callback_parts(b)
            if len(parts) >= 3 and parts[0] in PANEL_KINDS and parts[2] == str(version):
                return m
    return None


async def press_and_wait(
    env: BotEnv,
    user: FakeUser,
    msg: dict[str, Any],
    button: dict[str, Any],
    kinds: tuple[str, ...],
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Press ``button`` on a panel and wait until it is redrawn with buttons of ``kinds``."""
    api = env.api
    key = (msg["chat"]["id"], msg["message_id"])
    before = json_of(api.messages.get(key))
    user.press(msg, lambda b: b is button)

    def redrawn() -> list[dict[str, Any]] | None:
        m = api.messages.get(key)
        if m is None or json_of(m) == before:
            return None
        found = [b for b in buttons(m) if callback_parts(b)[0] in kinds]
        return found or None

    found = await api.wait_for(redrawn, timeout=10)
    return api.messages[key], found


def json_of(m: dict[str, Any] | None) -> str:
    return repr((m or {}).get("text")) + repr((m or {}).get("reply_markup"))


async def play_turn(env: BotEnv, user: FakeUser, version: int, rng: random.Random) -> None:
    """One turn through the private panel: a card and one of its plays, then Confirm; or
    Pass: select one card, then Discard (the confirming press)."""
    api = env.api
    msg = await api.wait_for(lambda: panel_for(env, user.id, version), timeout=15)
    kinds = [callback_parts(b)[0] for b in buttons(msg)]
    cards = [b for b in buttons(msg) if callback_parts(b)[0] == "c"]
    discard = [b for b in buttons(msg) if callback_parts(b)[0] == "d"]
    direct = [b for b in buttons(msg) if callback_parts(b)[0] in ("m", "p")]
    if discard and (not cards or rng.random() < 0.15) and not direct:
        msg, toggles = await press_and_wait(env, user, msg, discard[0], ("d",))
        msg, commit = await press_and_wait(env, user, msg, rng.choice(toggles), ("m",))
        user.press(msg, lambda b: b is commit[0])
        return
    if cards:
        msg, moves = await press_and_wait(env, user, msg, rng.choice(cards), ("m", "p"))
    else:
        moves = direct
    assert moves, f"no move button in {kinds}"
    choice = rng.choice(moves)
    if callback_parts(choice)[0] == "p":
        msg, confirm = await press_and_wait(env, user, msg, choice, ("m",))
        choice = confirm[0]
    user.press(msg, lambda b: b is choice)


async def play_game(
    env: BotEnv,
    game_id: str,
    users: dict[int, FakeUser],
    rng: random.Random,
    *,
    max_turns: int = 600,
) -> int:
    """Drive every human seat through its private buttons until the game is finished."""
    turns = 0
    while turns < max_turns:
        sv = await env.service.view(game_id, None)
        status = sv["status"]
        if status == "finished":
            return turns
        current = sv.get("current_seat")
        if status == "round_over":
            await press_ready(env, game_id, users, int(sv["version"]))
            continue
        if status not in ("playing", "stealing") or current is None:
            await asyncio.sleep(0.05)
            continue
        seat = (await env.service.seats(game_id))[current]
        if seat.computer or seat.auto or seat.user_id is None:
            await asyncio.sleep(0.05)
            continue
        version = int(sv["version"])
        await play_turn(env, users[seat.user_id], version, rng)

        async def moved(v: int = version) -> bool:
            return int((await env.service.view(game_id, None))["version"]) > v

        await wait_async(moved)
        turns += 1
    raise AssertionError("game did not finish")


async def press_ready(env: BotEnv, game_id: str, users: dict[int, FakeUser], version: int) -> None:
    """Round over: each human presses "Ready for the next round" in their private chat; a
    button drawn for an older version is answered "the board changed" and redrawn, so the
    player presses the fresh one."""
    api = env.api
    for seat in await env.service.seats(game_id):
        if seat.user_id is None or seat.computer or seat.auto:
            continue
        view = await env.service.view(game_id, seat.user_id)
        if view["status"] != "round_over" or not view.get("legal_moves"):
            continue
        user = users[seat.user_id]
        for _ in range(3):
            now = await env.service.view(game_id, seat.user_id)
            if now["status"] != "round_over" or not now.get("legal_moves"):
                break  # the pause ran out (next round) or this seat is ready

            def ready_button(u: FakeUser = user) -> dict[str, Any] | None:
                return next(
                    (
                        m
                        for m in reversed(api.bot_messages(u.id))
                        if any(callback_parts(b)[0] == "m" for b in buttons(m))
                    ),
                    None,
                )

            async def ready_or_over(uid: int = seat.user_id) -> bool:
                view = await env.service.view(game_id, uid)
                return bool(ready_button()) or view["status"] != "round_over"

            await wait_async(ready_or_over)
            msg = ready_button()
            if msg is None:
                break
            qid = user.press(msg, lambda b: callback_parts(b)[0] == "m")
            await api.wait_for(lambda q=qid: api.callback_queries[q]["answered"])
            if "changed" not in str(api.callback_queries[qid]["answer"].get("text")):
                break

    async def advanced() -> bool:
        view = await env.service.view(game_id, None)
        return int(view["version"]) > version

    await wait_async(advanced)


def assert_no_leaks(env: BotEnv, reveal_at: float | None, secrets: set[str]) -> None:
    """No role before the reveal and no private token ever in a group message that others
    see (an ephemeral message is seen by its receiver alone); every callback_data small and
    made of public parts only."""
    roles = role_words()
    for call in env.api.calls:
        for b in _all_buttons(call):
            data = b.get("callback_data")
            if data is not None:
                assert CALLBACK_RE.match(data), data
                assert len(data.encode()) <= 64
                assert not any(s in data for s in secrets), data
            assert not (call.group and b.get("web_app")), "web_app button in a group"
        if not call.group or call.method in ("answerCallbackQuery", "answerInlineQuery"):
            continue  # alerts and inline results are seen by the presser/typer only
        if call.ephemeral:  # the server showed it to its receiver alone, who pressed for it
            assert call.ok and call.receiver in env.api.users, (call.method, call.receiver)
            continue
        for text in call.texts():
            assert not any(s in text for s in secrets), (call.method, text)
            if reveal_at is None or call.at < reveal_at:
                leaked = [r for r in roles if r in text]
                assert not leaked, (call.method, leaked, text)


def _all_buttons(call: Call) -> list[dict[str, Any]]:
    markup = call.params.get("reply_markup")
    if not isinstance(markup, dict):
        return []
    return [b for row in markup.get("inline_keyboard", []) for b in row]


def hand_ids(view: dict[str, Any]) -> set[str]:
    return {str(c["id"]) for c in (view.get("you") or {}).get("hand") or []}
