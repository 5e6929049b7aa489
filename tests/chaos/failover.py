"""kill -9 the Redis master mid-stream under a Sentinel topology, then check every move.

``run_failover`` starts 1 master + 1 replica + 3 sentinels (``tests.load.topology``),
several workers (each a ``GameService`` on its own ``RedisStore`` through the Sentinel URL,
as separate processes would have) and one player per game, who submits random legal
moves with a client ``submission_id`` and retries an unanswered one with the same id, as a
client should. Mid-stream the master is killed (-9); the sentinels promote the replica;
with the replica wait on, the killed server is started again once the failover is done
(after a failover the new master has no replica until then, so every commit waits).

Checked afterwards, from the new master: no game corrupted (its log replays to its
state); every log entry is the move of one submission and no submission was made twice
(every answer for one id names the same version); every acknowledged move is in its log
— with the replica wait on, all of them; without it, the lost ones are measured (how
many, and how long before the kill they were acknowledged).

``python -m tests.chaos failover [--replica-wait-ms N]`` prints the report.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from core import engine
from core.service import GameService, ServiceConfig, ServiceError, UserRef
from core.service.records import Loaded, Plan, bump
from core.store import STORE_UNAVAILABLE, RedisStore, lua
from tests.load.topology import SentinelTopology
from tests.load.verify import check_game, snapshot

PLAYERS = 3


@dataclass
class Submission:
    """One move a player means to make (one submission id), however often it is sent."""

    sid: str
    game_id: str
    seat: int
    move: dict[str, Any]
    expected: int
    answers: list[tuple[str, int | None]] = field(default_factory=list)  # (status, version)
    sent: float = 0.0  # wall clock of the first send
    acked: float | None = None  # wall clock of the first "ok"

    @property
    def ok_versions(self) -> set[int]:
        return {v for s, v in self.answers if s == "ok" and v is not None}


@dataclass
class Run:
    submissions: list[Submission] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)
    killed_at: float = 0.0  # wall clock
    failover_s: float = 0.0
    first_ok_after_kill_s: float | None = None

    def error(self, exc: BaseException) -> None:
        kind = type(exc).__name__
        if isinstance(exc, ServiceError):
            kind += f" {exc.code}"
        self.errors[kind] = self.errors.get(kind, 0) + 1


# about 25 moves a second per game: a 6-player game of three rounds (~210 moves) lasts
# longer than a run's before_s + failover + after_s
MOVE_PAUSE_S = 0.04


async def _new_game(service: GameService, base: int) -> str:
    users = [UserRef(base + i, f"P{base + i}") for i in range(PLAYERS)]
    view = await service.create_lobby(chat=None, creator=users[0])
    for user in users[1:]:
        await service.join(view["game_id"], user)
    await service.start(view["game_id"], users[0].user_id)
    return str(view["game_id"])


async def _computer_game(service: GameService) -> str:
    """A game the computer plays every seat of (the human's seat handed over at once, as
    after timeouts): only the timers move it, a move every ~0.1 s."""
    view = await service.create_lobby(
        chat=None,
        creator=UserRef(1, "P1"),
        seats=3,
        computers=2,
        autostart=False,
        settings={"think_delay": 0.1, "round_pause": 0},
    )
    game_id = str(view["game_id"])
    await service.start(game_id, 1)

    def hand_over(loaded: Loaded) -> Plan:
        loaded.meta.seats[0].auto = True
        bump(loaded, loaded.meta)
        deadline = service.timing.deadline(loaded.meta, loaded.state, service.now_ms())
        return Plan(loaded.meta, loaded.state, [], deadline, state_changed=False)

    await service.records.mutate(game_id, hand_over)
    return game_id


async def _player(
    run: Run, workers: list[GameService], game_id: str, stop: asyncio.Event, seed: int
) -> None:
    """Random legal moves, one submission at a time, each sent until answered."""
    rng = random.Random(seed)
    while not stop.is_set():
        service = workers[rng.randrange(len(workers))]
        try:
            loaded = await service.records.load(game_id)
        except STORE_UNAVAILABLE as exc:
            run.error(exc)
            await asyncio.sleep(0.1)
            continue
        state = loaded.state
        assert state is not None
        phase = engine.phase(state)
        if phase == "finished":
            return
        if phase == "round_over":
            seat = rng.choice(sorted(engine.waiting_on(state)))
            move: dict[str, Any] = {"type": "next_round"}
        else:
            actor = engine.actor(state)
            assert actor is not None
            seat = actor
            move = rng.choice(engine.legal_moves(state, seat))
        user_id = loaded.meta.seats[seat].user_id
        assert user_id is not None
        sub = Submission(uuid.uuid4().hex, game_id, seat, move, loaded.version, sent=time.time())
        run.submissions.append(sub)
        while not stop.is_set():  # the same submission until it is answered
            try:
                result = await service.submit(
                    game_id, user_id, move, sub.expected, submission_id=sub.sid
                )
            except (*STORE_UNAVAILABLE, ServiceError) as exc:
                run.error(exc)
                await asyncio.sleep(0.1)
                service = workers[rng.randrange(len(workers))]  # a retry may go anywhere
                continue
            version = result.view["version"] if result.view else None
            sub.answers.append((result.status, version))
            if result.status == "ok":
                now = time.time()
                sub.acked = sub.acked or now
                new_master = version is not None and version >= lua.EPOCH_GAP
                if new_master and run.killed_at and run.first_ok_after_kill_s is None:
                    run.first_ok_after_kill_s = round(now - run.killed_at, 2)
            elif result.status != "stale":
                raise AssertionError(f"unexpected answer {result}")
            break
        # paced: a game must outlast the run on a fast machine (a game that finishes before
        # the kill makes no commit under the new master, so no notice could announce it)
        await asyncio.sleep(MOVE_PAUSE_S * (0.5 + rng.random()))


async def _verify(
    url: str, prefix: str, run: Run, game_ids: list[str], timed: list[str]
) -> dict[str, Any]:
    """Corruption on every game; submissions and acknowledgements on the players' games
    (``timed``: the computer's, whose moves are the timers')."""
    store = RedisStore.from_url(url, prefix=prefix)
    corrupted: dict[str, str] = {}
    logs: dict[str, dict[int, dict[str, Any]]] = {}
    try:
        for game_id in game_ids + timed:
            record, raw_log = await snapshot(store, game_id)
            if record is None:
                corrupted[game_id] = "lost"
                continue
            problem, by_version = check_game(record, raw_log)
            if problem:
                corrupted[game_id] = problem
            logs[game_id] = by_version
    finally:
        await store.close()
    gap = lua.EPOCH_GAP
    made_twice = [s.sid for s in run.submissions if len(s.ok_versions) > 1]
    # every log entry is one submission's: the move of a submission made at count n - 1
    by_count: dict[tuple[str, int], list[Submission]] = {}
    for sub in run.submissions:
        by_count.setdefault((sub.game_id, sub.expected % gap), []).append(sub)
    phantom = []
    for game_id in game_ids:
        for version, entry in logs.get(game_id, {}).items():
            subs = by_count.get((game_id, version % gap - 1), [])
            if not any((s.seat, s.move) == (entry.get("seat"), entry.get("move")) for s in subs):
                phantom.append((game_id, version))
    # An acknowledged move is in its log at the count (version modulo the epoch gap) its
    # answer named, in that answer's epoch or an earlier one: a retry answered from the
    # record ("made already") names the game's current, maybe renumbered, version; a
    # lost move's count is taken by a later epoch's move (never its number).
    counts = {
        (game_id, v % gap): (v, entry)
        for game_id, entries in logs.items()
        for v, entry in entries.items()
    }
    acked = [s for s in run.submissions if s.ok_versions]
    lost = []
    for sub in acked:
        answer = min(sub.ok_versions)
        v, entry = counts.get((sub.game_id, answer % gap), (None, {}))
        same = (entry.get("seat"), entry.get("move")) == (sub.seat, sub.move)
        if v is None or v // gap > answer // gap or not same:
            lost.append(sub)
    before_kill_ms = [round((run.killed_at - (s.acked or 0)) * 1000, 1) for s in lost]
    return {
        "games": len(game_ids) + len(timed),
        "games_corrupted": len(corrupted),
        "corrupted_examples": dict(list(corrupted.items())[:3]),
        "log_entries": sum(len(e) for e in logs.values()),
        "submissions": len(run.submissions),
        "moves_acknowledged": len(acked),
        "made_twice": len(made_twice),
        "log_entries_of_no_submission": len(phantom),
        "acknowledged_then_lost": len(lost),
        "lost_acknowledged_ms_before_kill": sorted(before_kill_ms),
        "renumbered_games": sum(1 for entries in logs.values() if any(v >= gap for v in entries)),
    }


async def run_failover(
    *,
    replica_wait_ms: int = 0,
    games: int = 6,
    computer_games: int = 2,
    workers: int = 3,
    before_s: float = 2.0,
    after_s: float = 3.0,
) -> dict[str, Any]:
    """One run on a fresh topology; the report (see the module docstring)."""
    prefix = f"fo{uuid.uuid4().hex[:8]}:"
    config = ServiceConfig(think_delay_s=0.0, bot_ready_delay_s=0.0, commit_retry_s=30.0)
    run = Run()
    with SentinelTopology() as topology:
        url = topology.url
        services = [
            GameService(
                RedisStore.from_url(url, prefix=prefix, replica_wait_ms=replica_wait_ms), config
            )
            for _ in range(workers)
        ]
        try:
            game_ids = [await _new_game(services[0], 1000 * (i + 1)) for i in range(games)]
            timed = [await _computer_game(services[0]) for _ in range(computer_games)]
            stop = asyncio.Event()
            timer_loops = [asyncio.create_task(s.run_timers(stop)) for s in services[:2]]
            heard: dict[str, int] = {}  # the change feed of one worker, through the failover

            async def listen() -> None:
                async for change in services[-1].listen_all():
                    heard[change.game_id] = max(heard.get(change.game_id, 0), change.version)

            listener = asyncio.create_task(listen())
            await services[-1].store.start()
            players = [
                asyncio.create_task(_player(run, services, g, stop, seed=i))
                for i, g in enumerate(game_ids)
            ]
            await asyncio.sleep(before_s)
            run.killed_at = time.time()
            old = topology.kill_master()
            run.failover_s = round(await asyncio.to_thread(topology.wait_failover, old.port), 2)
            restarted_s = None
            if replica_wait_ms:  # the new master needs a replica before anything is confirmed
                began = time.monotonic()
                await asyncio.to_thread(topology.restart, old)
                restarted_s = round(time.monotonic() - began, 2)
            deadline = time.monotonic() + 60
            while run.first_ok_after_kill_s is None and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            # the listening worker's feed re-subscribes on its own back-off (up to 1 s): the
            # games must go on after that for it to hear their last versions
            feed = services[-1].store
            while getattr(feed, "reconnects", 1) < 1 and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            await asyncio.sleep(after_s)
            timed_versions = [await services[0].version(g) for g in timed]
            stop.set()
            await asyncio.gather(*players, *timer_loops)
            await asyncio.sleep(0.5)  # the last notices
            finals = {g: await services[0].version(g) for g in game_ids}
            listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await listener
        finally:
            for service in services:
                with contextlib.suppress(Exception):
                    await service.store.close()
        report: dict[str, Any] = {
            "replica_wait_ms": replica_wait_ms,
            "workers": workers,
            "failover_s": run.failover_s,
            "replica_back_s": restarted_s,
            "first_move_ok_after_kill_s": run.first_ok_after_kill_s,
            "commit_retries": sum(s.commit_retries for s in services),
            "retries_that_found_their_write": sum(s.commit_duplicates for s in services),
            "client_errors": run.errors,
            # the timers' games moved on under the new master: renumbered, then moves
            "computer_games_moving_after_failover": sum(
                1 for v in timed_versions if v % lua.EPOCH_GAP > 0 and v > lua.EPOCH_GAP + 2
            ),
            "computer_games": len(timed),
            # the change feed re-subscribed to the new master and announced every game's
            # last version (a player's socket learns of it)
            "games_last_version_announced": sum(
                1 for g, v in finals.items() if heard.get(g, 0) >= v
            ),
        }
        report.update(await _verify(url, prefix, run, game_ids, timed))
    return report
