"""``python -m tests.load.bot_output``: the bot's output path, measured against the fake
Bot API with two workers (webhook mode) sharing one Redis (docs/benchmarks/telegram.md).

Two parts:

``games``  whole games played by humans through their private buttons: views built per
           change, pictures rendered and sent, the most group writes in any 60 s, a
           human's move -> the next player's prompt, a lobby press -> the lobby message
           showing it.
``load``   many groups at once with a low bot-wide rate (``--rate``), the fake enforcing
           it with 429s: the most sends in any second across both workers, turn prompts'
           latency (commit -> prompt sent), and how long board pictures wait.

Example (the figures of docs/benchmarks/telegram.md)::

    python -m tests.load.bot_output games --games 3
    python -m tests.load.bot_output load --groups 12 --rate 10 --seconds 60
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import socket
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator
from typing import Any

import redis.asyncio as aioredis
from aiohttp import web

from core.service.models import ServiceConfig
from core.service.service import GameService
from core.store import RedisStore
from telegram_bot.app import BotOptions, attach_bot, build_application
from tests.telegram_bot.bot_driver import (
    PANEL_KINDS,
    callback_parts,
    is_lobby,
    join,
    open_lobby,
    panel_for,
    press_ready,
    wait_async,
)
from tests.telegram_bot.conftest import BotEnv, make_settings
from tests.telegram_bot.fake_bot_api import FakeBotAPI, FakeUser, buttons

SENDS = ("send", "edit")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.asynccontextmanager
async def worker(
    api: FakeBotAPI, redis_url: str, prefix: str, **settings_kw: Any
) -> AsyncIterator[BotEnv]:
    """One bot worker in webhook mode on its own port (as tests/telegram_bot/
    test_bot_workers.py), its settings overridable (``bot_send_rate``)."""
    port = _free_port()
    settings = make_settings(
        api,
        webhook_url=f"http://127.0.0.1:{port}/hook",
        webhook_secret="shared-secret",
        **settings_kw,
    )
    store = RedisStore.from_url(redis_url, prefix=prefix)
    service = GameService(
        store,
        ServiceConfig(
            think_delay_s=0.05, bot_ready_delay_s=0.05, round_pause_s=2, timer_interval_s=0.05
        ),
    )
    application = build_application(settings, service, BotOptions(poll_timeout=1))
    web_app = web.Application()

    async def timers(_app: web.Application) -> AsyncIterator[None]:
        await store.start()
        task = asyncio.create_task(service.run_timers())
        yield
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await store.close()

    web_app.cleanup_ctx.append(timers)
    attach_bot(web_app, application, settings)
    runner = web.AppRunner(web_app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    api.webhook_targets.append(settings.webhook_url or "")
    try:
        yield BotEnv(api, service, application, settings)
    finally:
        await runner.cleanup()


def pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000, 1)


def most_in_window(times: list[float], window: float) -> int:
    times = sorted(times)
    best, lo = 0, 0
    for hi, t in enumerate(times):
        while t - times[lo] >= window:
            lo += 1
        best = max(best, hi - lo + 1)
    return best


def counters(envs: list[BotEnv]) -> dict[str, int]:
    total: Counter[str] = Counter()
    for env in envs:
        notifier = env.deps.notifier
        if notifier is not None:
            total.update(notifier.stats)
        total.update({"port_" + k: v for k, v in env.deps.port.reads.items()})
        total.update({"budget_" + k: v for k, v in env.deps.runtime.stats.items()})
    return dict(total)


def prompt_call(api: FakeBotAPI, user_id: int, version: int) -> Any:
    """The first send to ``user_id`` with buttons drawn for ``version`` (their prompt)."""
    for call in api.calls:
        if call.chat_id != user_id or not call.ok or call.method != "sendMessage":
            continue
        for row in (call.params.get("reply_markup") or {}).get("inline_keyboard", []):
            for b in row:
                parts = str(b.get("callback_data", "")).split(":")
                if len(parts) >= 3 and parts[0] in PANEL_KINDS and parts[2] == str(version):
                    return call
    return None


# ------------------------------------------------------------------------ games
async def lobby_presses(
    env: BotEnv, group_id: int, creator: FakeUser, game_id: str, n: int, out: list[float]
) -> None:
    """Open the settings page and press ``n`` setting buttons one second apart; each
    press's latency: until the message shows the server's new state."""
    api = env.api

    def page() -> dict[str, Any] | None:
        return api.last_bot_message(group_id, lambda m: ":rd:" in str(m.get("reply_markup")))

    lobby = api.last_bot_message(group_id, is_lobby)
    assert lobby is not None
    creator.press(lobby, lambda b: callback_parts(b)[3:4] == ["se"])
    await api.wait_for(page, timeout=30)
    for i in range(n):
        current = page()
        assert current is not None
        key = ["rd"] if i % 2 == 0 else ["tt"]
        button = next(b for b in buttons(current) if callback_parts(b)[3:4] == key)
        before = await env.service.view(game_id, None)
        t0 = time.monotonic()
        creator.press(current, lambda b, d=button["callback_data"]: b["callback_data"] == d)

        async def changed(v: int = int(before["version"])) -> bool:
            return int((await env.service.view(game_id, None))["version"]) > v

        await wait_async(changed, timeout=30)
        label = "Rounds" if key == ["rd"] else "Turn"
        sv = await env.service.view(game_id, None)
        want = f"Rounds: {sv['rounds']}" if label == "Rounds" else None

        def shown(w: str | None = want) -> bool:
            m = page() or {}
            return w is None or w in str(m.get("reply_markup"))

        if want is not None:
            await api.wait_for(shown, timeout=30)
            out.append(time.monotonic() - t0)
        await asyncio.sleep(1.0)
    creator.press(page() or {}, lambda b: callback_parts(b)[3:4] == ["bk"])
    await api.wait_for(lambda: api.last_bot_message(group_id, is_lobby), timeout=30)


async def play_measured(
    env: BotEnv,
    game_id: str,
    users: dict[int, FakeUser],
    rng: random.Random,
    out: list[float],
    think: float,
) -> int:
    """Play every human seat through its buttons; for each move, the time from the press
    to the next human player's prompt."""
    api = env.api
    moves = 0
    while True:
        sv = await env.service.view(game_id, None)
        status = sv["status"]
        if status == "finished":
            return moves
        if status == "round_over":
            await press_ready(env, game_id, users, int(sv["version"]))
            continue
        current = sv.get("current_seat")
        seats = await env.service.seats(game_id)
        if status not in ("playing", "stealing") or current is None:
            await asyncio.sleep(0.05)
            continue
        seat = seats[current]
        if seat.user_id is None or seat.auto or seat.computer:
            await asyncio.sleep(0.05)
            continue
        version = int(sv["version"])
        user = users[seat.user_id]
        msg = await api.wait_for(lambda u=user, v=version: panel_for(env, u.id, v), timeout=60)
        cards = [b for b in buttons(msg) if callback_parts(b)[0] == "c"]
        key = (msg["chat"]["id"], msg["message_id"])
        if cards:
            picked = rng.choice(cards)
            user.press(msg, lambda b, p=picked: b is p)

            def card_moves(k: tuple[int, int] = key) -> list[dict[str, Any]] | None:
                found = [
                    b
                    for b in buttons(api.messages.get(k) or {})
                    if callback_parts(b)[0] in ("m", "p")
                ]
                return found or None

            await api.wait_for(card_moves, timeout=30)
            msg = api.messages[key]
        elif not [b for b in buttons(msg) if callback_parts(b)[0] in ("m", "p")]:
            # no card has a play: Pass, select one card, then its discard
            user.press(msg, lambda b: callback_parts(b)[0] == "d")

            def toggles(k: tuple[int, int] = key) -> list[dict[str, Any]] | None:
                found = [
                    b
                    for b in buttons(api.messages.get(k) or {})
                    if str(b.get("text", "")).startswith("☐")
                ]
                return found or None

            first = (await api.wait_for(toggles, timeout=30))[0]
            user.press(
                api.messages[key], lambda b, f=first: b["callback_data"] == f["callback_data"]
            )

            def pass_move(k: tuple[int, int] = key) -> list[dict[str, Any]] | None:
                found = [
                    b for b in buttons(api.messages.get(k) or {}) if callback_parts(b)[0] == "m"
                ]
                return found or None

            await api.wait_for(pass_move, timeout=30)
            msg = api.messages[key]
        await asyncio.sleep(think * rng.uniform(0.5, 1.5))
        choices = [b for b in buttons(msg) if callback_parts(b)[0] in ("m", "p")]
        plays = [b for b in choices if "🗑" not in b["text"]]
        choice = rng.choice(plays if plays and rng.random() < 0.85 else choices)
        if callback_parts(choice)[0] == "p":  # a placement or an action asks to confirm
            user.press(msg, lambda b, c=choice: b is c)

            def confirm(k: tuple[int, int] = key) -> dict[str, Any] | None:
                found = [
                    b for b in buttons(api.messages.get(k) or {}) if "Confirm" in b.get("text", "")
                ]
                return found[0] if found else None

            choice = await api.wait_for(confirm, timeout=30)
            msg = api.messages[key]
        t0 = time.monotonic()
        user.press(msg, lambda b, c=choice: b is c)

        async def moved(v: int = version) -> dict[str, Any] | None:
            now = await env.service.view(game_id, None)
            return now if int(now["version"]) > v else None

        after = await wait_async(moved, timeout=60)
        moves += 1
        nxt = after.get("current_seat")
        if after["status"] not in ("playing", "stealing") or nxt is None:
            continue
        nseat = seats[nxt]
        if nseat.user_id is None or nseat.auto or nseat.computer:
            continue
        v2 = int(after["version"])
        try:
            call = await api.wait_for(
                lambda u=nseat.user_id, v=v2: prompt_call(api, u, v), timeout=30
            )
        except TimeoutError:  # the seat was skipped by the turn clock meanwhile
            continue
        out.append(call.at - t0)


def _at(msg: dict[str, Any] | None, version: int) -> bool:
    """The message offers moves drawn for ``version``."""
    return any(
        len(p) >= 3 and p[0] in PANEL_KINDS and p[2] == str(version)
        for p in (callback_parts(b) for b in buttons(msg or {}))
    )


def _kinds(msg: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [b for b in buttons(msg) if callback_parts(b)[0] == kind]


class InGroup:
    """One player's screens while playing from the group: their hand shown there to
    them alone, or the private chat where the group's budget sent it instead."""

    def __init__(self, env: BotEnv, group_id: int, user: FakeUser, counts: Counter[str]):
        self.env, self.api, self.group_id, self.user, self.counts = (
            env,
            env.api,
            group_id,
            user,
            counts,
        )

    def hand(self, version: int) -> dict[str, Any] | None:
        found = [m for m in self.api.ephemeral_for(self.group_id, self.user.id) if _at(m, version)]
        return found[-1] if found else None

    async def open(self, version: int, wait: float) -> dict[str, Any] | None:
        """Their turn's screen: a hand left open redrawn for it, else "My cards"."""
        with contextlib.suppress(TimeoutError):
            msg = await self.api.wait_for(lambda: self.hand(version), timeout=wait)
            self.counts["turn_shown_in_open_hand"] += 1
            return msg
        board = self.api.last_bot_message(self.group_id, lambda m: "photo" in m)
        if board is None:
            return None
        qid = self.user.press(board, "My cards")
        self.counts["my_cards_presses"] += 1
        await self.api.wait_for(lambda: self.api.callback_queries[qid]["answered"], timeout=30)
        with contextlib.suppress(TimeoutError):
            await self.api.wait_for(
                lambda: self.hand(version) or panel_for(self.env, self.user.id, version),
                timeout=10,
            )
        return self.where(version)

    def where(self, version: int) -> dict[str, Any] | None:
        msg = self.hand(version)
        if msg is not None:
            self.counts["screens_in_group"] += 1
            return msg
        msg = panel_for(self.env, self.user.id, version)
        if msg is not None:
            self.counts["screens_in_private_chat"] += 1
        return msg

    async def press(
        self, msg: dict[str, Any], button: dict[str, Any], game_id: str, version: int
    ) -> dict[str, Any] | None:
        """Press; the next screen, or None once the move is committed.

        The next screen is the pressed message redrawn in place, else a message that
        appeared for this player meanwhile (the private chat, where a press goes on when
        the group's budget has no token for the hand); waiting for any change of the
        player's chats instead would take a waiting panel's redraw for the answer."""
        shown = json.dumps([msg.get("text"), msg.get("reply_markup")])
        before = {id(m) for m in self._messages()}
        qid = self.user.press(msg, lambda b: b is button)
        await self.api.wait_for(lambda: self.api.callback_queries[qid]["answered"], timeout=30)

        def redrawn() -> bool:
            return json.dumps([msg.get("text"), msg.get("reply_markup")]) != shown

        def appeared() -> list[dict[str, Any]]:
            return [m for m in self._messages() if id(m) not in before and _at(m, version)]

        async def moved_or_shown() -> bool:
            now = await self.env.service.view(game_id, None)
            return int(now["version"]) > version or redrawn() or bool(appeared())

        with contextlib.suppress(TimeoutError):  # an answer alone (an alert): same screen
            await wait_async(moved_or_shown, timeout=30)
        if int((await self.env.service.view(game_id, None))["version"]) > version:
            return None
        if redrawn() and _at(msg, version):
            return msg
        new = appeared()
        if new:
            self.counts["screens_moved_to_private_chat"] += sum(
                1 for m in new if m.get("chat", {}).get("id") == self.user.id
            )
            return new[-1]
        return self.where(version)

    def _messages(self) -> list[dict[str, Any]]:
        """Every message this player may press: their hands in the group, their chat."""
        return self.api.ephemeral_for(self.group_id, self.user.id) + self.api.bot_messages(
            self.user.id
        )


async def play_in_group(
    env: BotEnv,
    game_id: str,
    group_id: int,
    users: dict[int, FakeUser],
    rng: random.Random,
    out: list[float],
    think: float,
    counts: Counter[str],
) -> int:
    """Every human seat plays its turns from the group: its hand shown there to it alone
    (a hand left open is redrawn when the turn comes; otherwise "My cards"), a card, a
    play, Confirm. For each move, the time until the next player's prompt."""
    moves = 0
    while True:
        sv = await env.service.view(game_id, None)
        status = sv["status"]
        if status == "finished":
            return moves
        if status == "round_over":
            await press_ready(env, game_id, users, int(sv["version"]))
            continue
        current = sv.get("current_seat")
        seats = await env.service.seats(game_id)
        seat = seats[current] if current is not None else None
        if status not in ("playing", "stealing") or seat is None or seat.user_id is None:
            await asyncio.sleep(0.05)
            continue
        version = int(sv["version"])
        player = InGroup(env, group_id, users[seat.user_id], counts)
        msg = await player.open(version, wait=think)
        if msg is None:
            await asyncio.sleep(0.05)
            continue
        await asyncio.sleep(think * rng.uniform(0.5, 1.5))
        t0 = time.monotonic()
        for _step in range(6):
            # a card of the hand, not the ‹ › pages of one card's placements
            cards = [b for b in _kinds(msg, "c") if b.get("text", "")[:1].isdigit()]
            passing = _kinds(msg, "d")
            confirm = [b for b in buttons(msg) if "Confirm" in b.get("text", "")]
            direct = _kinds(msg, "p") + _kinds(msg, "m")
            if confirm:
                choice = confirm[0]
            elif direct:  # a card was chosen: a placement or target of it
                choice = rng.choice(direct)
            elif cards and (not passing or rng.random() < 0.85):
                choice = rng.choice(cards)
            elif passing:
                choice = passing[0]
            else:
                break
            t0 = time.monotonic()
            nxt = await player.press(msg, choice, game_id, version)
            if nxt is None:
                break
            msg = nxt
        after = await env.service.view(game_id, None)
        if int(after["version"]) == version:
            counts["turns_not_finished_in_6_presses"] += 1
            continue
        moves += 1
        nxt_seat = after.get("current_seat")
        if after["status"] not in ("playing", "stealing") or nxt_seat is None:
            continue
        nseat = seats[nxt_seat]
        if nseat.user_id is None or nseat.auto or nseat.computer:
            continue
        v2 = int(after["version"])
        try:
            call = await env.api.wait_for(
                lambda u=nseat.user_id, v=v2: prompt_call(env.api, u, v), timeout=30
            )
        except TimeoutError:  # the seat was skipped by the turn clock meanwhile
            counts["next_prompt_not_seen"] += 1
            continue
        out.append(call.at - t0)


async def run_games(args: argparse.Namespace) -> dict[str, Any]:
    prefix = f"bench:{uuid.uuid4().hex[:8]}:"
    api = FakeBotAPI()
    await api.start()
    moves_latency: list[float] = []
    lobby_latency: list[float] = []
    total_moves = 0
    screens: Counter[str] = Counter()
    started = time.monotonic()
    try:
        async with (
            worker(api, args.redis_url, prefix) as env,
            worker(api, args.redis_url, prefix) as other,
        ):
            versions = 0
            for g in range(args.games):
                group = api.group(-9100 - g, f"Bench {g}", admins=[1000 * g + 1])
                users = [api.user(1000 * g + i + 1, f"P{g}{i}") for i in range(args.players)]
                for u in users:
                    u.press_start()
                game_id = await open_lobby(env, group, users[0])
                for u in users[1:]:
                    await join(env, game_id, group, u)
                await lobby_presses(
                    env, group.id, users[0], game_id, args.lobby_presses, lobby_latency
                )
                await env.service.configure(game_id, users[0].id, rounds=args.rounds)
                lobby = api.last_bot_message(group.id, is_lobby)
                assert lobby is not None
                users[0].press(lobby, "Start")

                async def started_game(gid: str = game_id) -> bool:
                    return (await env.service.view(gid, None))["status"] != "lobby"

                await wait_async(started_game, timeout=60)
                if args.in_group:
                    total_moves += await play_in_group(
                        env,
                        game_id,
                        group.id,
                        {u.id: u for u in users},
                        random.Random(g),
                        moves_latency,
                        args.think,
                        screens,
                    )
                else:
                    total_moves += await play_measured(
                        env,
                        game_id,
                        {u.id: u for u in users},
                        random.Random(g),
                        moves_latency,
                        args.think,
                    )
                await api.wait_for(
                    lambda gid=group.id: api.last_bot_message(
                        gid, lambda m: "🏆" in m.get("text", "")
                    ),
                    timeout=60,
                )
                versions += int((await env.service.view(game_id, None))["version"])
            # the last pictures wait for their groups' budget
            loops = [w.deps.notifier for w in (env, other) if w.deps.notifier is not None]
            for _ in range(600):
                busy = [t for n in loops for t in n._board_tasks.values() if not t.done()]
                if not busy:
                    break
                await asyncio.sleep(0.1)
            stats = counters([env, other])
        group_writes = {}
        for chat_id in {c.chat_id for c in api.group_calls()}:
            times = [
                c.at
                for c in api.calls_to(chat_id)
                if c.method.startswith(SENDS) and c.chat_id == chat_id
            ]
            group_writes[chat_id] = most_in_window(times, 60.0)
    finally:
        await api.stop()
        client = aioredis.from_url(args.redis_url)
        async for key in client.scan_iter(prefix + "*"):
            await client.delete(key)
        await client.aclose()
    changes = stats.get("changes", 0)
    return {
        "part": "games",
        "games": args.games,
        "players": args.players,
        "rounds": args.rounds,
        "versions": versions,
        "moves": total_moves,
        "seconds": round(time.monotonic() - started, 1),
        "changes_claimed": changes,
        "spectator_views_per_change": round(stats.get("views", 0) / max(1, changes), 3),
        "spectator_views_read_for_a_change": stats.get("views_change", 0),
        "spectator_views_read_to_draw_a_newer_state": stats.get("views_draw", 0),
        "bot_side_spectator_views_total": stats.get("port_spectator", 0),
        "bot_side_player_views_total": stats.get("port_player", 0),
        "seat_loads_per_change": round(stats.get("port_seats", 0) / max(1, changes), 3),
        "pictures_rendered": stats.get("pictures_rendered", 0),
        "pictures_sent": stats.get("pictures_sent", 0),
        "panels_refreshed": stats.get("panels_refreshed", 0),
        "max_group_writes_in_60s": max(group_writes.values(), default=0),
        "move_to_next_prompt_ms": {
            "n": len(moves_latency),
            "p50": pct(moves_latency, 0.5),
            "p95": pct(moves_latency, 0.95),
            "max": pct(moves_latency, 1.0),
        },
        "lobby_press_to_message_ms": {
            "n": len(lobby_latency),
            "p50": pct(lobby_latency, 0.5),
            "p95": pct(lobby_latency, 0.95),
            "max": pct(lobby_latency, 1.0),
        },
        "hands_redrawn_at_turn_start": stats.get("hands_redrawn", 0),
        "views_shared_by_a_claimer": stats.get("views_shared", 0),
        "private_sends": sum(
            1 for c in api.calls if c.ok and (c.chat_id or 0) > 0 and c.method.startswith(SENDS)
        ),
        "played_in_group": dict(screens),
        "ephemeral_group_writes": sum(1 for c in api.group_calls() if c.ok and c.ephemeral),
        "group_calls": dict(Counter(c.method for c in api.group_calls() if c.ok)),
        "rate_limited": len(api.rate_limited),
    }


# ------------------------------------------------------------------------ load
async def drive_group(
    env: BotEnv,
    game_id: str,
    users: dict[int, FakeUser],
    until: float,
    think: float,
    rng: random.Random,
    prompts: list[float],
    commits: dict[tuple[str, int], float],
) -> int:
    """Play one game through the service at a human pace: each move ``think`` seconds
    after its prompt reached the player; record commit -> next prompt."""
    api = env.api
    moves = 0
    while time.monotonic() < until:
        sv = await env.service.view(game_id, None)
        if sv["status"] in ("finished", "cancelled"):
            return moves
        current = sv.get("current_seat")
        seats = await env.service.seats(game_id)
        if sv["status"] == "round_over":
            for s in seats:
                own = await env.service.view(game_id, s.user_id)
                for m in own.get("legal_moves") or []:
                    with contextlib.suppress(Exception):
                        await env.service.submit(game_id, int(s.user_id or 0), m, own["version"])
            await asyncio.sleep(0.5)
            continue
        if sv["status"] not in ("playing", "stealing") or current is None:
            await asyncio.sleep(0.1)
            continue
        seat = seats[current]
        if seat.user_id is None or seat.auto:
            await asyncio.sleep(0.1)
            continue
        version = int(sv["version"])
        call = prompt_call(api, seat.user_id, version)
        if call is None:
            await asyncio.sleep(0.05)
            continue
        await asyncio.sleep(think * rng.uniform(0.5, 1.5))
        own = await env.service.view(game_id, seat.user_id)
        legal = own.get("legal_moves") or []
        if not legal or int(own["version"]) != version:
            continue
        plays = [m for m in legal if m.get("type") not in ("discard", "discard_to_remove")]
        move = rng.choice(plays if plays and rng.random() < 0.8 else legal)
        t0 = time.monotonic()
        result = await env.service.submit(game_id, seat.user_id, move, version)
        if result.status != "ok":
            continue
        moves += 1
        after = result.view or {}
        commits[(game_id, int(after.get("version", version + 1)))] = t0
        nxt = after.get("current_seat")
        if nxt is None or after.get("status") not in ("playing", "stealing"):
            continue
        nseat = seats[nxt]
        if nseat.user_id is None or nseat.auto:
            continue
        v2 = int(after["version"])
        with contextlib.suppress(TimeoutError):
            got = await api.wait_for(lambda u=nseat.user_id, v=v2: prompt_call(api, u, v), 30)
            prompts.append(got.at - t0)
    return moves


async def run_load(args: argparse.Namespace) -> dict[str, Any]:
    prefix = f"bench:{uuid.uuid4().hex[:8]}:"
    api = FakeBotAPI(bot_rate=args.rate)
    await api.start()
    prompts: list[float] = []
    commits: dict[tuple[str, int], float] = {}
    try:
        async with (
            worker(api, args.redis_url, prefix, bot_send_rate=args.rate) as env,
            worker(api, args.redis_url, prefix, bot_send_rate=args.rate) as other,
        ):
            games: list[tuple[str, dict[int, FakeUser], int]] = []
            for g in range(args.groups):
                group = api.group(-9500 - g, f"Load {g}")
                users = [api.user(50_000 + 10 * g + i, f"L{g}{i}") for i in range(args.players)]
                for u in users:
                    u.press_start()
                game_id = await open_lobby(env, group, users[0])
                for u in users[1:]:
                    await join(env, game_id, group, u)
                await env.service.configure(game_id, users[0].id, rounds=3)
                await env.service.start(game_id, users[0].id)
                games.append((game_id, {u.id: u for u in users}, group.id))
            await asyncio.sleep(3)
            begin = time.monotonic()
            until = begin + args.seconds
            moves = await asyncio.gather(
                *(
                    drive_group(
                        env, gid, users, until, args.think, random.Random(i), prompts, commits
                    )
                    for i, (gid, users, _) in enumerate(games)
                )
            )
            end = time.monotonic()
            await asyncio.sleep(2)
            stats = counters([env, other])
        sends = [c for c in api.calls if c.ok and c.method.startswith(SENDS) and c.at >= begin]
        # a board edit's wait: from the commit of the version it shows to the edit
        board_waits = []
        for c in sends:
            if c.method not in ("editMessageMedia", "editMessageCaption", "sendPhoto"):
                continue
            gid = next((g for g, _, chat in games if chat == c.chat_id), None)
            shown = [t for (g, v), t in commits.items() if g == gid and t <= c.at]
            if shown:
                board_waits.append(c.at - max(shown))
    finally:
        await api.stop()
        client = aioredis.from_url(args.redis_url)
        async for key in client.scan_iter(prefix + "*"):
            await client.delete(key)
        await client.aclose()
    seconds = end - begin
    kinds = Counter("group" if (c.chat_id or 0) < 0 else "private" for c in sends if c.at <= end)
    return {
        "part": "load",
        "groups": args.groups,
        "players": args.players,
        "configured_rate_per_s": args.rate,
        "seconds": round(seconds, 1),
        "moves": sum(moves),
        "moves_per_s": round(sum(moves) / seconds, 2),
        "sends": dict(kinds),
        "sends_per_s": round(sum(kinds.values()) / seconds, 2),
        "max_sends_in_any_1s": most_in_window([c.at for c in sends], 1.0),
        "rate_limited_429": len(api.rate_limited),
        "commit_to_prompt_ms": {
            "n": len(prompts),
            "p50": pct(prompts, 0.5),
            "p95": pct(prompts, 0.95),
            "max": pct(prompts, 1.0),
        },
        "board_edit_wait_ms": {
            "n": len(board_waits),
            "p50": pct(board_waits, 0.5),
            "p95": pct(board_waits, 0.95),
            "max": pct(board_waits, 1.0),
        },
        "budget": {k: v for k, v in stats.items() if k.startswith("budget_")},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("part", choices=("games", "load"))
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--lobby-presses", type=int, default=6)
    parser.add_argument("--groups", type=int, default=12)
    parser.add_argument("--rate", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--think", type=float, default=1.5)
    parser.add_argument(
        "--in-group", action="store_true", help="games: play from the group's ephemeral hands"
    )
    args = parser.parse_args()
    run = run_games if args.part == "games" else run_load
    print(json.dumps(asyncio.run(run(args)), indent=2))


if __name__ == "__main__":
    main()
