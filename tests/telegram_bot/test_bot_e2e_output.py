"""The bot's output path against the fake Bot API: claim first and read once (with two
workers), a lobby that keeps up, stale presses that simply succeed, the bot-wide send
budget shared by every worker, and the smaller things a group notices."""

from __future__ import annotations

import asyncio
import copy
import random
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from core.service.lobby_settings import options_for
from core.service.models import ServiceConfig
from core.service.service import GameService
from core.store import RedisStore, SendBudget
from core.store.keys import Keys
from telegram_bot import keyboards as kb
from telegram_bot import texts
from telegram_bot.app import BotOptions
from telegram_bot.i18n import Translator
from telegram_bot.runtime import Runtime
from tests.telegram_bot.bot_driver import (
    callback_parts,
    is_lobby,
    join,
    open_lobby,
    play_game,
    play_turn,
    wait_async,
)
from tests.telegram_bot.conftest import BotEnv, running_bot
from tests.telegram_bot.fake_bot_api import FakeBotAPI, FakeUser, buttons
from tests.telegram_bot.test_bot_workers import _worker


@pytest.fixture
async def quick_env() -> AsyncIterator[BotEnv]:
    """The group's budget ten times faster (5 tokens, refilled in 2 s; the fake allows 20
    in any 6 s), so that a burst of presses is followed by a free token soon."""
    api = FakeBotAPI(group_window=6.0)
    await api.start()
    try:
        async with running_bot(
            api,
            options=BotOptions(
                poll_timeout=1, autostart_s=3600, max_retries=2, group_burst=5, group_period_s=2.0
            ),
        ) as env:
            yield env
    finally:
        await api.stop()


async def _table(
    env: BotEnv, names: list[str], chat_id: int = -5001
) -> tuple[Any, list[FakeUser], str]:
    api = env.api
    group = api.group(chat_id, "Output", admins=[1])
    users = [api.user(i + 1, n) for i, n in enumerate(names)]
    for u in users:
        u.press_start()
    game_id = await open_lobby(env, group, users[0])
    for u in users[1:]:
        await join(env, game_id, group, u)
    return group, users, game_id


async def _start(env: BotEnv, group: Any, creator: FakeUser, game_id: str) -> None:
    lobby = env.api.last_bot_message(group.id, is_lobby)
    assert lobby is not None
    creator.press(lobby, "Start")

    async def started() -> bool:
        return (await env.service.view(game_id, None))["status"] != "lobby"

    await wait_async(started)


# ---------------------------------------------------------------- claim first, read once
async def test_two_workers_read_each_change_once_and_send_every_picture_they_draw(
    fake_api: FakeBotAPI, redis_url: str, redis_prefix: str, redis_client: Any
) -> None:
    api = fake_api
    async with (
        _worker(api, redis_url, redis_prefix) as env,
        _worker(api, redis_url, redis_prefix) as other,
    ):
        group, users, game_id = await _table(env, ["Ann", "Ben", "Cy"], -5002)
        await env.service.configure(game_id, users[0].id, rounds=1)
        await _start(env, group, users[0], game_id)
        await play_game(env, game_id, {u.id: u for u in users}, random.Random(3))
        await api.wait_for(
            lambda: api.last_bot_message(group.id, lambda m: "🏆" in m.get("text", "")),
            timeout=30,
        )
        # a fast game ends before the group's budget lets a picture out: it still comes
        await api.wait_for(lambda: any(c.method == "sendPhoto" for c in api.calls), timeout=30)
        notifiers = [w.deps.notifier for w in (env, other)]
        assert all(n is not None for n in notifiers)
        for _ in range(300):  # and the last redraws finish
            loops = [t for n in notifiers if n for t in n._board_tasks.values() if not t.done()]
            if not loops:
                break
            await asyncio.sleep(0.1)
        stats = [n.stats for n in notifiers if n is not None]
        changes = sum(s["changes"] for s in stats)
        versions = int((await env.service.view(game_id, None))["version"])

    # every change was claimed by exactly one worker, and read once by its claimer
    assert 0 < changes <= versions
    assert sum(s["views_change"] for s in stats) == changes
    # a board drawn after the game moved on takes the view the newer change's claimer
    # shared: no second read (one only if that claimer had not shared it within a second)
    assert sum(s["views_draw"] for s in stats) <= 1
    assert sum(s["views"] for s in stats) <= changes + 1
    # every picture rendered was sent (none drawn by a worker that did not claim it)
    assert sum(s["pictures_rendered"] for s in stats) == sum(s["pictures_sent"] for s in stats)
    assert sum(s["pictures_sent"] for s in stats) >= 1
    assert not api.rate_limited


# ---------------------------------------------------------------- a lobby that keeps up
def _settings_message(api: FakeBotAPI, chat_id: int) -> dict[str, Any] | None:
    return api.last_bot_message(chat_id, lambda m: ":rd:" in str(m.get("reply_markup")))


async def test_settings_buttons_carry_their_value(quick_env: BotEnv) -> None:
    env, api = quick_env, quick_env.api
    group, users, game_id = await _table(env, ["Ann", "Ben", "Cy"], -5003)
    lobby = api.last_bot_message(group.id, is_lobby)
    assert lobby is not None
    users[0].press(lobby, lambda b: callback_parts(b)[3:4] == ["se"])
    page = copy.deepcopy(await api.wait_for(lambda: _settings_message(api, group.id)))
    rounds = (await env.service.view(game_id, None))["rounds"]
    # two quick presses of the same not-yet-redrawn button set the same value twice
    for _ in range(2):
        qid = users[0].press(page, lambda b: callback_parts(b)[3:4] == ["rd"])
        await api.wait_for(lambda q=qid: api.callback_queries[q]["answered"])
    button = next(b for b in buttons(page) if callback_parts(b)[3:4] == ["rd"])
    wanted = (1, 2, 3)[int(callback_parts(button)[4])]
    assert wanted != rounds
    assert (await env.service.view(game_id, None))["rounds"] == wanted
    # an option button says "on" or "off", not "the other way"
    option = next(b for b in buttons(page) if callback_parts(b)[3:4] == ["op"])
    for _ in range(2):
        qid = users[0].press(page, lambda b: b["callback_data"] == option["callback_data"])
        await api.wait_for(lambda q=qid: api.callback_queries[q]["answered"])
    sv = await env.service.view(game_id, None)
    name = options_for(str(sv["edition"]))[int(callback_parts(option)[4])]
    assert sv["options"].get(name) is bool(int(callback_parts(option)[5]))


async def test_a_burst_of_lobby_presses_ends_with_the_servers_state(quick_env: BotEnv) -> None:
    env, api = quick_env, quick_env.api
    group, users, game_id = await _table(env, ["Ann", "Ben"], -5004)
    lobby = api.last_bot_message(group.id, is_lobby)
    assert lobby is not None
    users[0].press(lobby, lambda b: callback_parts(b)[3:4] == ["se"])
    await api.wait_for(lambda: _settings_message(api, group.id))
    rng = random.Random(7)
    for _ in range(12):  # presses on whatever the message shows, faster than it redraws
        page = _settings_message(api, group.id)
        assert page is not None
        choices = [b for b in buttons(page) if callback_parts(b)[3:4] in (["rd"], ["tt"], ["op"])]
        pick = rng.choice(choices)
        users[0].press(page, lambda b, c=pick: b is c)
        await asyncio.sleep(0.05)
    last_press = time.monotonic()
    await asyncio.sleep(2.5)  # the group's bucket refills: a token is free again

    async def expected() -> tuple[str, str]:
        sv = await env.service.view(game_id, None)
        t = Translator("en")
        markup = kb.settings_keyboard(t, sv, (sv.get("settings") or {}).get("turn_time"), "en")
        head = texts.lobby_text(t, sv, turn_time=(sv.get("settings") or {}).get("turn_time"))
        return head.split("\n⏱")[0], str(markup.to_dict()["inline_keyboard"])

    def shown() -> tuple[str, str]:
        page = _settings_message(api, group.id) or {}
        return str(page.get("text", "")).split("\n⏱")[0], str(
            (page.get("reply_markup") or {}).get("inline_keyboard")
        )

    text, keys = await expected()
    await api.wait_for(lambda: shown() == (text, keys), timeout=2.0)
    assert time.monotonic() - last_press < 2.0 + 2.5 + 0.5
    assert not api.rate_limited


async def test_join_buttons_go_before_the_first_board_picture(bot_env: BotEnv) -> None:
    env, api = bot_env, bot_env.api
    group, users, game_id = await _table(env, ["Ann", "Ben", "Cy"], -5005)
    await _start(env, group, users[0], game_id)
    await api.wait_for(lambda: [c for c in api.calls if c.method == "sendPhoto"], timeout=15)
    closed = next(
        c
        for c in api.calls
        if c.chat_id == group.id
        and c.method == "editMessageText"
        and "has started" in str(c.params.get("text"))
    )
    photo = next(c for c in api.calls if c.chat_id == group.id and c.method == "sendPhoto")
    assert closed.at <= photo.at
    assert not api.last_bot_message(group.id, is_lobby)


# ---------------------------------------------------------------- stale presses
async def test_a_stale_ready_press_simply_succeeds(bot_env: BotEnv) -> None:
    env, api = bot_env, bot_env.api
    group, users, game_id = await _table(env, ["Ann", "Ben", "Cy"], -5006)
    await env.service.configure(game_id, users[0].id, rounds=2)
    await _start(env, group, users[0], game_id)
    by_id = {u.id: u for u in users}
    rng = random.Random(11)
    while True:  # play the first round to its end
        sv = await env.service.view(game_id, None)
        if sv["status"] == "round_over":
            break
        current = sv.get("current_seat")
        seat = (await env.service.seats(game_id))[current] if current is not None else None
        if sv["status"] not in ("playing", "stealing") or seat is None or seat.user_id is None:
            await asyncio.sleep(0.05)
            continue
        version = int(sv["version"])
        await play_turn(env, by_id[seat.user_id], version, rng)

        async def moved(v: int = version) -> bool:
            return int((await env.service.view(game_id, None))["version"]) > v

        await wait_async(moved)

    def ready_message(u: FakeUser) -> dict[str, Any] | None:
        return api.last_bot_message(u.id, lambda m: "Ready for the next round" in str(m))

    panels = {u.id: copy.deepcopy(await api.wait_for(lambda u=u: ready_message(u))) for u in users}
    first = users[0].press(panels[users[0].id], lambda b: "Ready" in b["text"])
    await api.wait_for(lambda: api.callback_queries[first]["answered"])
    # Ben's button was drawn before Ann's press: it still means "ready", so it is
    qid = users[1].press(panels[users[1].id], lambda b: "Ready" in b["text"])
    await api.wait_for(lambda: api.callback_queries[qid]["answered"])
    assert "changed" not in str(api.callback_queries[qid]["answer"].get("text"))
    view = await env.service.view(game_id, users[1].id)
    assert view["status"] != "round_over" or not view.get("legal_moves")
    # pressing it again: one clear answer
    again = users[1].press(panels[users[1].id], lambda b: "Ready" in b["text"])
    await api.wait_for(lambda: api.callback_queries[again]["answered"])
    answer = str(api.callback_queries[again]["answer"].get("text"))
    assert "changed" not in answer and ("ready" in answer or "begun" in answer), answer


# ---------------------------------------------------------------- the bot-wide budget
async def test_every_worker_shares_the_bots_send_rate(
    redis_url: str, redis_prefix: str, redis_client: Any
) -> None:
    rate = 20
    stores = [RedisStore.from_url(redis_url, prefix=redis_prefix) for _ in range(2)]
    runtimes = [Runtime(GameService(s, ServiceConfig()), rate=rate) for s in stores]
    sent: list[tuple[float, bool]] = []
    stop = time.monotonic() + 2.5

    async def sender(rt: Runtime, bulk: bool) -> None:
        while time.monotonic() < stop:
            await rt.pay(None, bulk=bulk)
            sent.append((time.monotonic(), bulk))

    try:
        await asyncio.gather(
            *(sender(rt, bulk) for rt in runtimes for bulk in (False, True, False))
        )
    finally:
        for s in stores:
            await s.close()
    times = sorted(t for t, _ in sent)
    busiest = max(len([u for u in times if t <= u < t + 1.0]) for t in times)
    assert busiest <= rate + 1, busiest  # + 1: Redis and this process read two clocks
    assert len(times) >= rate * 2  # and it is not needlessly stingy
    # urgent sends went first: board pictures (bulk) got what was left over
    urgent = len([1 for _, bulk in sent if not bulk])
    assert urgent > 3 * (len(sent) - urgent), (urgent, len(sent))


async def test_a_429_holds_every_worker(
    redis_url: str, redis_prefix: str, redis_client: Any
) -> None:
    stores = [RedisStore.from_url(redis_url, prefix=redis_prefix) for _ in range(2)]
    services = [GameService(s, ServiceConfig()) for s in stores]
    budget = SendBudget(rate=100.0, burst=100)
    try:
        await Runtime(services[0]).hold(-88, 1.0)  # worker 1 met a 429 for this group
        allowed, wait = await services[1].take_send_token(-88, budget)
        assert not allowed and 0.5 < wait <= 1.0
        assert (await services[1].take_send_token(-89, budget))[0]  # other chats go on
        await Runtime(services[1]).hold(None, 0.5)  # a bot-wide 429
        assert not (await services[0].take_send_token(None, budget))[0]
    finally:
        for s in stores:
            await s.close()


async def test_a_429_from_telegram_pauses_that_group_on_every_worker(
    fake_api: FakeBotAPI, redis_url: str, redis_prefix: str, redis_client: Any
) -> None:
    api = fake_api
    async with (
        _worker(api, redis_url, redis_prefix) as env,
        _worker(api, redis_url, redis_prefix) as other,
    ):
        group, users, _ = await _table(env, ["Ann", "Ben"], -5007)
        api.force_429(3, group.id)
        users[0].say(group.id, "/help")  # the reply meets the 429
        await api.wait_for(lambda: api.rate_limited, timeout=10)
        hit = api.rate_limited[0].at
        # the worker records the hold once the 429 has come back to it (a moment after
        # the fake answered it; on a busy box long enough for the next line to win)
        hold_key = Keys(redis_prefix).send_hold(group.id)

        async def held() -> bool:
            return bool(await redis_client.exists(hold_key))

        await wait_async(held, timeout=5)
        allowed, wait = await other.service.take_send_token(group.id, other.deps.runtime.budget)
        assert not allowed and wait > 1.0
        # the reply is retried after the hold; no worker writes to the group meanwhile
        # (but for a send already on its way when the 429 came back)

        def sends(after: float) -> list[Any]:
            return [
                c
                for c in api.calls_to(group.id)
                if c.at > after and c.method.startswith(("send", "edit"))
            ]

        await api.wait_for(lambda: sends(hit + 2.5), timeout=15)
        assert not [c for c in sends(hit + 0.2) if c.at < hit + 2.5]


# ---------------------------------------------------------------- smaller things
async def test_plural_forms(bot_env: BotEnv) -> None:
    env, api = bot_env, bot_env.api
    group = api.group(-5008, "Plurals", admins=[1])
    ann = api.user(1, "Ann")
    ann.press_start()
    await open_lobby(env, group, ann)
    t = Translator("en")
    assert t.ngettext(
        "You joined the game ({n} player so far). Your role and cards will come here when "
        "it starts.",
        "You joined the game ({n} players so far). Your role and cards will come here when "
        "it starts.",
        1,
    ).startswith("You joined the game (1 player so far)")
    assert not any("1 players" in str(m) for m in api.bot_messages(ann.id))
    for language in ("zh_Hans", "zh_Hant"):
        text = Translator(language).ngettext(
            "At least {n} player is needed.", "At least {n} players are needed.", 3
        )
        assert "3" in text and "player" not in text


async def test_the_group_hears_when_the_computer_takes_a_seat(bot_env: BotEnv) -> None:
    env, api = bot_env, bot_env.api
    group, users, game_id = await _table(env, ["Ann", "Ben", "Cy"], -5009)
    await _start(env, group, users[0], game_id)
    seats = await env.service.seats(game_id)
    idle = next(s for s in seats if s.user_id != users[0].id)
    await env.service.kick(game_id, users[0].id, int(idle.user_id or 0), force=True)
    await api.wait_for(
        lambda: api.last_bot_message(
            group.id, lambda m: f"The computer plays {idle.name}'s seat now" in m.get("text", "")
        ),
        timeout=10,
    )


async def test_waiting_players_panels_follow_the_turn(bot_env: BotEnv) -> None:
    env, api = bot_env, bot_env.api
    group, users, game_id = await _table(env, ["Ann", "Ben", "Cy"], -5010)
    await _start(env, group, users[0], game_id)
    by_id = {u.id: u for u in users}
    seats = await env.service.seats(game_id)
    names = {s.seat: s.name for s in seats}
    rng = random.Random(2)
    for _ in range(2):  # two moves: every waiting panel names the player whose turn it is
        sv = await env.service.view(game_id, None)
        actor = next(s for s in seats if s.seat == sv["current_seat"])
        version = int(sv["version"])
        await play_turn(env, by_id[int(actor.user_id or 0)], version, rng)

        async def moved(v: int = version) -> dict[str, Any] | None:
            now = await env.service.view(game_id, None)
            return now if int(now["version"]) > v else None

        after = await wait_async(moved)
        turn = names[after["current_seat"]]
        for s in seats:
            if s.seat in (after["current_seat"], actor.seat):
                continue
            panel = int((await env.service.adapter_data(game_id))[f"panel:{s.user_id}"])

            def current(uid: int = int(s.user_id or 0), mid: int = panel, who: str = turn) -> bool:
                text = str((api.messages.get((uid, mid)) or {}).get("text", ""))
                return f"Waiting for {who}" in text

            await api.wait_for(current, timeout=10)


async def test_the_lobby_countdown_ticks(fake_api: FakeBotAPI) -> None:
    api = fake_api
    async with running_bot(
        api, options=BotOptions(poll_timeout=1, autostart_s=64, max_retries=2)
    ) as env:
        group, _users, _game_id = await _table(env, ["Ann", "Ben", "Cy"], -5011)

        def lobby_says(words: str) -> bool:
            lobby = api.last_bot_message(group.id, is_lobby) or {}
            return words in str(lobby.get("text", ""))

        await api.wait_for(lambda: lobby_says("Starts by itself in 2 min"), timeout=5)
        # below a minute it counts in seconds
        await api.wait_for(lambda: lobby_says(" s.") and lobby_says("Starts by itself in 5"), 10)
        ticks = sum(w.stats["ticks"] for w in [env.deps.notifier] if w is not None)
        assert ticks >= 1
        assert not api.rate_limited


async def test_a_swapped_hat_is_told_to_its_player_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ "Swap your hats" in the log: the target's panel (which shows the role) goes to
    them at once, once whatever the number of workers; nobody else's."""
    from core.service.models import SeatInfo
    from core.settings import Settings
    from core.store import MemoryStore
    from telegram_bot import notifier as notifier_module
    from telegram_bot.deps import BotDeps
    from telegram_bot.port import ServicePort

    sent: list[tuple[int, str | None]] = []

    async def fake_panel(_bot: Any, _deps: Any, _game: str, user_id: int, **kw: Any) -> None:
        sent.append((user_id, kw.get("title")))

    monkeypatch.setattr(notifier_module, "send_panel", fake_panel)
    service = GameService(MemoryStore(), ServiceConfig())
    deps = BotDeps(Settings(), ServicePort(service), Runtime(service))
    seats = [
        SeatInfo(0, 11, "Ann", False, False, False),
        SeatInfo(1, 12, "Ben", False, False, False),
        SeatInfo(2, None, "Computer 1", True, False, False),
    ]
    sv = {
        "version": 9,
        "log": [{"code": "hats_swapped", "seat": 0, "target_seat": 1, "version": 9}],
    }
    workers = [notifier_module.Notifier(None, deps) for _ in range(2)]  # type: ignore[arg-type]
    for w in workers:
        await w._role_changes("g1", sv, seats)
    assert [uid for uid, _ in sent] == [12]
    assert "hat" in str(sent[0][1])
