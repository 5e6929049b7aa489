"""Create games through the API and play them at a target rate (open loop).

Open loop: move slots come due at ``rate`` per second whatever the latency; each slot
takes the next game that has no move in flight, fetches the acting player's view and
POSTs one of its ``legal_moves`` at the view's version. A slow server therefore shows up
as growing latency and as slots that find every game busy — never as a politely slower
client. One WebSocket per game (the creator's) listens for version notices.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Protocol

import aiohttp
import orjson

from core.service import GameService
from core.store import RedisStore
from tests.load.client import Api, Reply
from tests.load.fastclient import HttpError
from tests.load.stats import Stats
from tests.load.verify import Ack

PLAYERS = 3
MAX_CATCH_UP_S = 1.0


class HotApi(Protocol):
    """The two requests of every slot: ``Api`` (aiohttp) or ``FastApi`` (raw HTTP/1.1)."""

    async def view(self, token: str, game_id: str) -> Reply: ...

    async def move(
        self,
        token: str,
        game_id: str,
        version: int,
        move: dict[str, Any],
        submission_id: str | None = None,
    ) -> Reply: ...


@dataclass
class Game:
    game_id: str
    tokens: dict[int, str]  # seat -> bearer token of the human we drive there
    version: int = 0
    current_seat: int | None = None
    done: bool = False
    timed: bool = False
    sent_at: dict[int, float] = field(default_factory=dict)  # version -> POST sent
    pushed: int = 0  # highest version a WebSocket notice announced
    push_at: dict[int, float] = field(default_factory=dict)


def _notice_version(data: str) -> int:
    """The version of a notice: the server builds it as ``{"game_id":"…","version":N}``
    (miniapp.ws.notice), so the number is read off the end without a JSON parse; any
    other shape goes through the JSON parser."""
    head, _, tail = data.rpartition('"version":')
    if head and tail.endswith("}") and tail[:-1].isdigit():
        return int(tail[:-1])
    return int(orjson.loads(data)["version"])


class Driver:
    def __init__(self, api: Api, *, seed: int = 1, user_base: int | None = None) -> None:
        self.api = api
        self.hot: HotApi = api  # the slots' GET + POST (run.py may swap in FastApi)
        self.rng = random.Random(seed)
        self.user_base = user_base or 10_000_000 + random.randrange(10**9)
        self._next_user = 0
        self.games: list[Game] = []
        self.ready: deque[Game] = deque()
        self.acks: list[Ack] = []
        self.stats = Stats()
        self._sockets: list[asyncio.Task[None]] = []
        self._replacing: set[asyncio.Task[None]] = set()
        self.replace_finished = True
        self.use_ws = True
        self._ws_gate = asyncio.Semaphore(32)
        self.greeted = 0  # sockets that heard their first notice (at least once)
        # > 0: every move carries a submission id, and a move whose answer was lost (a
        # 502/503 or a dropped connection: made or not, the client cannot tell) is sent
        # again with it, up to this many times, as a careful client does
        self.move_retries = 0

    def _user(self) -> int:
        self._next_user += 1
        return self.user_base + self._next_user

    # ------------------------------------------------------------------ setup
    async def new_human_game(self) -> Game:
        """Three humans we drive: one creates, two join, the creator starts."""
        users = [self._user() for _ in range(PLAYERS)]
        names = {u: f"L{u}" for u in users}
        tokens = await asyncio.gather(*(self.api.login(u, names[u]) for u in users))
        game_id = await self.api.create(tokens[0], edition="classic", seats=PLAYERS)
        for token in tokens[1:]:
            await self.api.action(token, game_id, "join")
        view = await self.api.action(tokens[0], game_id, "start")
        by_name = {names[u]: tokens[i] for i, u in enumerate(users)}
        seats = {s["seat"]: by_name[s["name"]] for s in view["seats"]}
        game = Game(game_id, seats, view["version"], view.get("current_seat"))
        self.games.append(game)
        return game

    async def new_timed_game(
        self, service: GameService, turn_time: int | None = None, think_delay: float | None = None
    ) -> Game:
        """One silent human and two computer seats, with a short turn time.

        The human never moves: its turns time out, the computer takes the seat over, and
        the timers play the game to its end. The API has no settings endpoint, so the
        turn time is set through the service, as the bot's lobby settings do. Unless
        given, turn time (5-8 s) and think delay (0.6-1.4 s) vary per game, so that the
        timed games, created together, do not all fall due in the same instant.
        """
        if turn_time is None:
            turn_time = self.rng.randint(5, 8)
        if think_delay is None:
            think_delay = round(self.rng.uniform(0.6, 1.4), 2)
        user = self._user()
        token = await self.api.login(user, f"T{user}")
        game_id = await self.api.create(token, edition="classic", seats=4, computer_seats=2)
        lobby = await self.api.view(token, game_id)
        await service.configure(
            game_id, user, turn_time=turn_time, think_delay=think_delay, round_pause=5
        )
        view = await self.api.action(token, game_id, "start")
        game = Game(game_id, {lobby.body["you"]["seat"]: token}, view["version"], timed=True)
        self.games.append(game)
        return game

    async def setup(
        self,
        humans: int,
        timed: int = 0,
        *,
        redis_url: str = "",
        prefix: str = "",
        parallel: int = 16,
    ) -> float:
        """Create the games; returns the seconds it took."""
        began = time.monotonic()
        gate = asyncio.Semaphore(parallel)
        service = GameService(RedisStore.from_url(redis_url, prefix=prefix)) if timed else None

        async def one(kind: str) -> None:
            async with gate:
                if kind == "h":
                    await self.new_human_game()
                else:
                    assert service is not None
                    await self.new_timed_game(service)

        try:
            await asyncio.gather(
                *(one("h") for _ in range(humans)), *(one("t") for _ in range(timed))
            )
        finally:
            if service is not None:
                await service.store.close()
        self.ready.extend(g for g in self.games if not g.timed)
        return time.monotonic() - began

    # ------------------------------------------------------------------ sockets
    def open_sockets(self) -> None:
        for game in self.games:
            if not game.timed:
                self._sockets.append(asyncio.create_task(self._listen(game)))

    async def _listen(self, game: Game) -> None:
        token = next(iter(game.tokens.values()))
        first = True
        while True:  # until cancelled: a finished game's last version must arrive too
            try:
                # paced: clients open their sockets over a moment, not all in one tick
                async with self._ws_gate:
                    ws = await self.api.socket(token, game.game_id)
                    hello = await ws.receive(timeout=30)
                if not first:
                    self.stats.ws_reconnects += 1
                else:
                    self.greeted += 1
                first = False
                self._notice(game, hello)
                async for msg in ws:
                    self._notice(game, msg)
                await ws.close()
            except asyncio.CancelledError:
                raise
            except Exception:
                pass
            await asyncio.sleep(0.5)

    @staticmethod
    def _notice(game: Game, msg: aiohttp.WSMessage) -> None:
        if msg.type != aiohttp.WSMsgType.TEXT:
            return
        now = time.perf_counter()
        with contextlib.suppress(ValueError, KeyError, TypeError):
            version = _notice_version(msg.data)
            if version > game.pushed:
                game.pushed = version
                game.push_at[version] = now

    async def sockets_greeted(self, timeout: float) -> float:
        """Wait until every socket heard its greeting (or ``timeout``); the seconds it
        took. A step must not begin with games whose socket is still opening: their
        versions would never be announced."""
        began = time.monotonic()
        while self.greeted < len(self._sockets) and time.monotonic() - began < timeout:
            await asyncio.sleep(0.1)
        return time.monotonic() - began

    async def close_sockets(self) -> None:
        for task in self._sockets:
            task.cancel()
        await asyncio.gather(*self._sockets, return_exceptions=True)
        self._sockets.clear()

    def unannounced(self) -> int:
        """Acknowledged versions no WebSocket notice has covered yet."""
        return sum(1 for game in self.games for version in game.sent_at if game.pushed < version)

    async def announced(self, grace: float) -> int:
        """Wait up to ``grace`` seconds for the notices still on their way when the last
        step ended (a move acknowledged in its last milliseconds is announced a moment
        later); returns how many were on their way. ``grace`` stays below the sockets'
        RESYNC (10 s), so a notice that pub/sub lost is still counted as never announced."""
        waiting = self.unannounced()
        began = time.monotonic()
        while self.unannounced() and time.monotonic() - began < grace:
            await asyncio.sleep(0.05)
        return waiting

    def push_figures(self) -> tuple[list[float], int, list[tuple[str, int, int]]]:
        """Notice delays (POST sent -> notice), acked versions no notice ever covered, and
        examples of those (game id, version, highest version announced)."""
        delays, missed = [], 0
        examples: list[tuple[str, int, int]] = []
        for game in self.games:
            for version, sent in game.sent_at.items():
                if game.pushed < version:
                    missed += 1
                    if len(examples) < 5:
                        examples.append((game.game_id, version, game.pushed))
                elif version in game.push_at:
                    delays.append((game.push_at[version] - sent) * 1000)
        return delays, missed, examples

    # ------------------------------------------------------------------ playing
    async def one_move(self, game: Game, due: float) -> None:
        stats = self.stats
        stats.lateness_ms.append((time.perf_counter() - due) * 1000)
        hot = self.hot
        try:
            seats = list(game.tokens)
            current = game.current_seat
            if current is not None and current in game.tokens:
                seats.remove(current)
                seats.insert(0, current)
            view: dict[str, Any] | None = None
            seat = -1
            for seat in seats:
                reply = await hot.view(game.tokens[seat], game.game_id)
                stats.get_ms.append(reply.ms)
                if reply.server_ms is not None:
                    stats.server_get_ms.append(reply.server_ms)
                if reply.status != 200:
                    stats.errors[f"GET {reply.status}"] += 1
                    stats.error_times.append(time.monotonic())
                    return
                if reply.body.get("status") == "finished":
                    self._finish(game)
                    return
                if reply.body.get("legal_moves"):
                    view = reply.body
                    break
            if view is None:
                stats.idle += 1
                game.current_seat = None
                return
            move = self.rng.choice(view["legal_moves"])
            sent = time.perf_counter()
            reply = await self._move(game, seat, view["version"], move)
            stats.post_ms.append(reply.ms)
            stats.move_ms.append((time.perf_counter() - due) * 1000)
            if reply.server_ms is not None:
                stats.server_ms.append(reply.server_ms)
                stats.server_sent.append(sent)
            stats.statuses[str(reply.status)] += 1
            if reply.status == 200:
                body = reply.body
                stats.moves_ok += 1
                stats.ok_times.append(time.monotonic())
                game.version = body["version"]
                game.sent_at[game.version] = sent
                self.acks.append(Ack(game.game_id, game.version, seat, move))
                game.current_seat = body.get("current_seat")
                if body.get("status") == "finished":
                    self._finish(game)
            elif reply.status == 409:
                game.current_seat = None
            else:
                code = (
                    reply.body.get("error", {}).get("code")
                    if isinstance(reply.body, dict)
                    else None
                )
                stats.errors[f"POST {reply.status} {code}"] += 1
                stats.error_times.append(time.monotonic())
                game.current_seat = None
        except (aiohttp.ClientError, TimeoutError, ConnectionError) as exc:
            kind = type(exc).__name__
            stats.errors[f"{kind}: {exc}" if isinstance(exc, HttpError) else kind] += 1
            stats.error_times.append(time.monotonic())
            game.current_seat = None
            await asyncio.sleep(0.2)
        except Exception as exc:  # a bug of the generator: counted, never a silent task
            stats.errors[f"generator {type(exc).__name__}: {exc}"[:80]] += 1
            stats.error_times.append(time.monotonic())
            game.current_seat = None
        finally:
            if not game.done:
                self.ready.append(game)

    async def _move(self, game: Game, seat: int, version: int, move: dict[str, Any]) -> Reply:
        token = game.tokens[seat]
        if not self.move_retries:
            return await self.hot.move(token, game.game_id, version, move)
        submission = f"{game.game_id}-{version}-{self.rng.getrandbits(48):012x}"
        pause = 0.2  # doubling up to 2 s: ~7 s in all for 6 resends, longer than a proxy
        # takes to leave a dead host out
        for attempt in range(self.move_retries + 1):
            last = attempt == self.move_retries
            try:
                reply = await self.hot.move(token, game.game_id, version, move, submission)
            except (aiohttp.ClientError, TimeoutError, ConnectionError):
                if last:
                    raise
            else:
                if reply.status not in (502, 503, 504) or last:
                    return reply
            self.stats.moves_resent += 1
            await asyncio.sleep(pause)
            pause = min(pause * 2, 2.0)
        raise AssertionError("unreachable")

    def _finish(self, game: Game) -> None:
        if game.done:
            return
        game.done = True
        self.stats.games_finished += 1
        if self.replace_finished:
            task = asyncio.create_task(self._replace())
            self._replacing.add(task)
            task.add_done_callback(self._replacing.discard)

    async def _replace(self) -> None:
        with contextlib.suppress(Exception):
            game = await self.new_human_game()
            if self.use_ws:
                self._sockets.append(asyncio.create_task(self._listen(game)))
            self.ready.append(game)

    async def play(self, rate: float, duration: float) -> Stats:
        """Offer ``rate`` moves per second for ``duration`` seconds; wait for stragglers."""
        self.stats = stats = Stats()
        tasks: set[asyncio.Task[None]] = set()
        # perf_counter, not loop.time(): uvloop's loop time is in whole milliseconds and
        # cached per loop iteration, which alone made slots look ~1 ms late
        perf = time.perf_counter
        start = stats.started = perf()
        k = 0
        while True:
            now = perf()
            if now - start >= duration:
                break
            due = start + k / rate
            if due > now:
                await asyncio.sleep(min(due - now, 0.05))
                continue
            k += 1
            stats.scheduled += 1
            if now - due > MAX_CATCH_UP_S or not self.ready:
                stats.missed_no_game += 1
                continue
            game = self.ready.popleft()
            task = asyncio.create_task(self.one_move(game, due))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
        if tasks:
            await asyncio.wait(tasks, timeout=15)
        stats.ended = time.perf_counter()
        return stats
