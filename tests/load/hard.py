"""Tables the computer plays at level ``hard``, beside the API games (``--hard-games N``).

Why: a ``hard`` decision is a search (~120 ms of CPU, up to ~450 ms) that the timer
process hands to its AI pool (core/service/ai_pool.py); the load run shows what those
searches cost the API games' latency, so it keeps N such tables playing for the whole run
and counts what they did.

A table is created through the same API as the other games: a creator with ``seats: 4``,
``computer_seats: 3`` and ``level: hard`` (the lobby fills, so it starts at once). The API
always seats its creator and cancels a game every human has left, so the creator's seat
is handed to the computer the way the product does it: the creator never moves, and with
the shortest turn time (5 s) and ``takeover_after: 1`` its first turn times out and the
computer plays the seat at the table's level from then on. After that every move is a
``hard`` decision made by the timer process, paced by the table's think delay. A finished
table is replaced by a new one, so N stay live.

Decisions are counted from the committed-move log in Redis (``RedisStore.read_log``, read
from where the last poll stopped; the archive once the game is over): every entry of a
seat except ``next_round`` (ready for the next round, decided without a search) is one;
timeouts (the creator's hand-over) are counted apart.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from core.service import movelog
from core.store import RedisStore
from tests.load.client import Api

SEATS = 4
TURN_TIME_S = 5  # the shortest turn the lobby settings allow: the creator's seat goes soon
POLL_S = 1.0  # how often each table's status and log are read
ENDED = ("finished", "cancelled")


@dataclass
class HardGame:
    """One table: its creator's token and how far its log has been read."""

    game_id: str
    token: str
    read: int = 0  # log entries counted so far
    version: int = 0
    progressed: float = 0.0  # time.monotonic() of the last new version seen
    decisions: int = 0
    done: bool = False


@dataclass
class Mark:
    """The counters at one moment (a rate step's start), for per-step figures."""

    at: float
    decisions: int
    errors: int


@dataclass
class HardTables:
    """Keeps ``count`` hard tables live through the API and counts their decisions."""

    api: Api
    count: int
    redis_url: str
    prefix: str
    think_delay: float | None = None  # None: the deployment's default
    games: list[HardGame] = field(default_factory=list)
    decisions: int = 0
    timeouts: int = 0  # turns that timed out (the creators' hand-over: one per table)
    finished: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    # longest a live table went without a new version (to the poll; the creator's hand-over
    # alone is a turn time plus a think delay)
    max_gap_s: float = 0.0
    think_delay_seen: float | None = None  # what the tables' settings say
    live_min: int | None = None  # fewest tables live after a poll's replacements
    _user: int = field(default_factory=lambda: 2_000_000_000 + random.randrange(10**9))
    _store: RedisStore | None = None

    # ------------------------------------------------------------ tables
    async def start(self) -> float:
        """Create the tables; returns the seconds it took."""
        began = time.monotonic()
        self._store = RedisStore.from_url(self.redis_url, prefix=self.prefix)
        await asyncio.gather(*(self._new_table() for _ in range(self.count)))
        return time.monotonic() - began

    async def _new_table(self) -> None:
        """One table through the API (a failure is counted, the next poll tries again)."""
        self._user += 1
        user = self._user  # this table's creator (the tables are created concurrently)
        settings: dict[str, Any] = {"turn_time": TURN_TIME_S, "takeover_after": 1}
        if self.think_delay is not None:
            settings["think_delay"] = self.think_delay
        try:
            token = await self.api.login(user, f"H{user}")
            game_id = await self.api.create(
                token,
                edition="classic",
                seats=SEATS,
                computer_seats=SEATS - 1,
                level="hard",
                settings=settings,
            )
        except Exception as exc:  # a refused create is a finding, not a crash of the run
            self.errors[f"create: {type(exc).__name__}: {exc}"[:80]] += 1
            return
        self.games.append(HardGame(game_id, token, progressed=time.monotonic()))

    def live(self) -> list[HardGame]:
        return [g for g in self.games if not g.done]

    @property
    def game_ids(self) -> list[str]:
        return [g.game_id for g in self.games]

    # ------------------------------------------------------------ polling
    async def run(self, stop: asyncio.Event) -> None:
        """Until ``stop``: read every live table, replace the ended ones."""
        while not stop.is_set():
            began = time.monotonic()
            await self.poll()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), max(0.0, POLL_S - (time.monotonic() - began)))
        await self.poll(replace=False)  # the last decisions of the run

    async def poll(self, *, replace: bool = True) -> None:
        """One pass over the live tables; then new tables up to ``count``."""
        await asyncio.gather(*(self._poll(g) for g in self.live()))
        missing = self.count - len(self.live())
        if missing > 0 and replace:
            await asyncio.gather(*(self._new_table() for _ in range(missing)))
        live = len(self.live())
        self.live_min = live if self.live_min is None else min(self.live_min, live)

    async def _poll(self, game: HardGame) -> None:
        try:
            reply = await self.api.view(game.token, game.game_id)
            if reply.status != 200:
                self.errors[f"GET {reply.status}"] += 1
                return
            view = reply.body
            if self.think_delay_seen is None:
                self.think_delay_seen = (view.get("settings") or {}).get("think_delay")
            now = time.monotonic()
            version = int(view["version"])
            if version > game.version:
                game.version = version
                game.progressed = now
            else:
                self.max_gap_s = max(self.max_gap_s, now - game.progressed)
            ended = view.get("status") in ENDED
            await self._read_log(game, ended)
            if ended:
                game.done = True
                self.finished += 1
                if view.get("status") != "finished":
                    self.errors[f"table {view.get('status')}"] += 1
        except Exception as exc:  # counted: the run goes on
            self.errors[f"poll: {type(exc).__name__}"] += 1

    async def _read_log(self, game: HardGame, ended: bool) -> None:
        """Count the entries committed since the last read (the archive's, once over)."""
        assert self._store is not None
        raw = await self._store.read_log(game.game_id, game.read)
        if ended and not raw:
            raw = (await self._store.archived_log(game.game_id))[game.read :]
        game.read += len(raw)
        for text in raw:
            entry = movelog.decode(text)
            if entry.get("timeout"):
                self.timeouts += 1
                continue
            move = entry.get("move")
            if isinstance(move, dict) and move.get("type") != "next_round":
                game.decisions += 1
                self.decisions += 1

    async def close(self) -> None:
        if self._store is not None:
            await self._store.close()
            self._store = None

    # ------------------------------------------------------------ figures
    def mark(self) -> Mark:
        return Mark(time.monotonic(), self.decisions, sum(self.errors.values()))

    def window(self, since: Mark) -> dict[str, Any]:
        """Decisions and errors since ``since`` (a step), and the tables live now."""
        secs = max(1e-9, time.monotonic() - since.at)
        made = self.decisions - since.decisions
        return {
            "tables": self.count,
            "tables_live": len(self.live()),
            "decisions": made,
            "decisions_per_s": round(made / secs, 2),
            "errors": sum(self.errors.values()) - since.errors,
        }

    def summary(self) -> dict[str, Any]:
        return {
            "tables": self.count,
            "seats_per_table": SEATS,
            "level": "hard",
            "think_delay_s": self.think_delay_seen,
            "games_started": len(self.games),
            "games_finished": self.finished,
            "tables_live_min": self.live_min,
            "decisions": self.decisions,
            "turns_timed_out": self.timeouts,
            "longest_gap_without_a_move_s": round(self.max_gap_s, 1),
            "errors": sum(self.errors.values()),
            "error_kinds": dict(self.errors.most_common(8)),
        }
