"""Turn timers (principle 5): any worker claims a due deadline and fires it at the version
it was armed for — a computer seat's move, or the timeout rule of RULES §7; warnings too.

Nothing lives in process memory: a worker that dies mid-fire loses its claim's lease and
another worker fires the same deadline; a stale claim (the game moved on) does nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable

from core import engine
from core.service import clock
from core.service.agents import Chooser, move_seed
from core.service.ai_pool import AiPool
from core.service.models import ServiceError, TurnWarning
from core.service.moves import Moves
from core.service.records import Loaded, Plan, Records, WarningHandler, bump
from core.service.timing import Timing
from core.store import STORE_UNAVAILABLE, TIMER_TURN, TIMER_WARN, Deadline, TimerClaim
from core.store.base import TIMER_KINDS

log = logging.getLogger(__name__)

SWEEP_EVERY_MS = 5_000  # timer index repair (store.sweep_timers), one SCAN batch a time
MAX_IN_FLIGHT = 100  # fires the loop runs at once; beyond, it stops claiming for a poll
FULL_BATCH = 8  # a poll that claimed this many (the fallback's whole batch) polls again
FALLBACK_BATCH = 8  # claims per fallback poll (2 workers x 8 per 0.25 s: 64 turns/s)
# The store is unreachable (Redis restarting, a cut connection): retry soon, quietly.
STORE_DOWN = STORE_UNAVAILABLE
# With the pool on, a claim's lease outlasts a queued ``hard`` decision: the worst search
# (~450 ms of CPU) behind another one in the pool, plus a cold pool start (~0.7 s).
AI_LEASE_MS = 2_000


class Timers:
    """The timer loop and what a due deadline does."""

    def __init__(
        self, records: Records, timing: Timing, moves: Moves, ai: Chooser | None = None
    ) -> None:
        self.records = records
        self.store = records.store
        self.config = records.config
        self.timing = timing
        self.moves = moves
        self._ai = ai
        self.ai_pool = AiPool(self.config.ai_pool_workers)
        self._warning_handlers: list[WarningHandler] = []
        self._firing: set[tuple[str, int]] = set()  # see _in_flight
        self._fire_tasks: set[asyncio.Task[None]] = set()  # the loop's fires in progress
        self.fired = 0  # timers this process fired (tests, metrics)
        self.fallback_fired = 0  # turn deadlines taken over as the fallback (tests, logs)

    def on_turn_warning(self, handler: WarningHandler) -> None:
        """Call ``handler`` once (on one worker) shortly before a human's turn runs out."""
        self._warning_handlers.append(handler)

    # ================================================================ timers
    async def run_timers(
        self, stop: asyncio.Event | None = None, on_pass: Callable[[], None] | None = None
    ) -> None:
        """Background task: fire due deadlines, from whichever worker claims them first.

        ``ServiceConfig.timer_role`` says which: ``all`` (one process, or every worker
        alike), ``turns`` (the dedicated timer process of a multi-worker deployment: turn
        deadlines and computer moves, polled every ``timer_interval_s``) or ``fallback``
        (an API worker next to that process: the bot's turn warnings, plus any turn
        deadline more than ``timer_fallback_after_ms`` overdue that nobody holds — so turns
        still advance while the timer process is down or starved).

        While the store is unreachable the loop retries quickly (20 ms, doubling up to its
        interval) and logs one warning per outage instead of a traceback per poll: the
        first poll after the store is back claims what fell due meanwhile.

        ``on_pass`` is called at the start of every pass: the timer process's heartbeat,
        which its supervisor watches to replace a process that hangs without exiting.
        """
        role = self.config.timer_role
        interval = (
            self.config.timer_fallback_interval_s
            if role == "fallback"
            else self.config.timer_interval_s
        )
        # The timer index repair and the archive pruning are the timer process's job: a
        # sweep batch stalls its process ~25 ms with 1,000 games, a tail latency an API
        # worker serving requests should not pay every 5 s.
        maintains = role != "fallback"
        last_prune = last_sweep = 0
        down_since: float | None = None
        failures = 0
        while stop is None or not stop.is_set():
            if on_pass is not None:
                on_pass()
            delay = interval
            try:
                busy = len(self._tasks()) >= MAX_IN_FLIGHT
                fired = 0 if busy else await self.fire_due(wait=False)
                fired = fired if fired >= FULL_BATCH else 0  # a full batch: more may be due
                now = self.timing.now_ms()
                if maintains and now - last_sweep >= SWEEP_EVERY_MS:
                    last_sweep = now
                    await self.store.sweep_timers()
                if maintains and now - last_prune > 600_000:
                    last_prune = now
                    await self.store.prune_archive(now)
                if down_since is not None:
                    log.warning("timers: store back after %.2f s", time.monotonic() - down_since)
                    down_since, failures = None, 0
            except asyncio.CancelledError:
                for task in self._tasks():
                    task.cancel()
                self.ai_pool.close()
                raise
            except STORE_DOWN as exc:
                if down_since is None:
                    down_since = time.monotonic()
                    log.warning("timers: store unavailable (%s); retrying", exc)
                failures += 1
                fired = 0
                delay = min(interval, 0.01 * 2**failures)
            except Exception:
                log.exception("timer loop error")
                fired = 0
            if not fired:
                if stop is None:
                    await asyncio.sleep(delay)
                else:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(stop.wait(), delay)
        await self._finish_fires()
        self.ai_pool.close()

    async def _finish_fires(self) -> None:
        """Let the loop's fires in progress commit (each is one compare-and-set)."""
        pending = list(self._tasks())
        if pending:
            _done, late = await asyncio.wait(pending, timeout=5)
            for task in late:
                task.cancel()

    async def fire_due(self, limit: int = 50, *, wait: bool = True) -> int:
        """Claim and fire what is due now (what this worker's role takes); returns how
        many new claims were made. A claim whose firing failed is given back at once.

        ``wait=False`` (the loop): the fires run as tasks and the loop goes on polling, so
        a slow fire's claim comes due again and is renewed (see ``_in_flight``) instead
        of running out and being fired a second time elsewhere."""
        role = self.config.timer_role
        kinds = TIMER_TURN if role == "turns" else TIMER_KINDS
        overdue = self.config.timer_fallback_after_ms if role == "fallback" else None
        if overdue is not None:  # after an outage everything is overdue: a busy API
            limit = min(limit, FALLBACK_BATCH)  # worker takes a share, not the backlog
        lease = self.config.timer_lease_ms
        if self.ai_pool.workers:  # no second worker starts a search still running here
            lease = max(lease, AI_LEASE_MS)
        claims = await self.store.claim_due(
            self.timing.now_ms(), limit, lease, kinds=kinds, overdue_ms=overdue
        )
        firing = self._in_flight()
        claims = [c for c in claims if (c.game_id, c.version) not in firing]
        if not claims:
            return 0
        if overdue is not None:
            self.fallback_fired += len(claims)
            log.warning(
                "timers: taking %d overdue deadline(s) as the fallback "
                "(is the timer process down or starved?)",
                len(claims),
            )
        fires = [self._guarded(c) for c in claims]
        if wait:
            await asyncio.gather(*fires)
        else:
            tasks = self._tasks()
            for fire in fires:
                task = asyncio.create_task(fire)
                tasks.add(task)
                task.add_done_callback(tasks.discard)
        return len(claims)

    def _in_flight(self) -> set[tuple[str, int]]:
        """(game, version) this process is firing now. A claim of one of them only renewed
        its lease (the hint came due again while the fire — a slow computer move — was
        still running): it is not fired twice. So a short lease costs no duplicate work,
        and a dead process's claims are taken over soon."""
        return self._firing

    def _tasks(self) -> set[asyncio.Task[None]]:
        return self._fire_tasks

    async def _guarded(self, claim: TimerClaim) -> None:
        """Fire one claim; a failure is logged and the claim given back (never raised)."""
        key = (claim.game_id, claim.version)
        firing = self._in_flight()
        firing.add(key)
        try:
            await self.fire(claim)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if isinstance(exc, STORE_DOWN):
                log.warning("timer %s failed: store unavailable (%s)", claim, exc)
            else:
                log.error("timer %s failed", claim, exc_info=exc)
            with contextlib.suppress(Exception):
                await self.store.timer_release(claim)
        finally:
            firing.discard(key)

    async def fire(self, claim: TimerClaim) -> None:
        """Fire one claimed deadline at the version it was armed for (stale: nothing)."""
        if claim.kind == TIMER_WARN:
            await self._warn(claim)
            return
        async with self.records.lock(claim.game_id):
            try:
                loaded = await self.records.load(claim.game_id)
            except ServiceError:
                await self.store.timer_done(claim)
                return
            if loaded.version != claim.version:
                return  # stale: the newer commit armed its own deadline
            if loaded.state is None and not loaded.meta.cancelled:
                if await self.records.commit(loaded, self._lobby_timeout(loaded)) is not None:
                    self.fired += 1
                return
            if loaded.over:  # cancelled, expired or finished: (re)do the clean-up
                await self.records.close_out(loaded)
                await self.store.timer_done(claim)
                return
            assert loaded.state is not None
            if loaded.meta.idle_until is not None:  # nobody's turn is timed: idle expiry
                change = self._idle_expiry(loaded)
                if change is not None and await self.records.commit(loaded, change) is not None:
                    self.fired += 1
                return
            change = await self._timed_step(loaded)
            if await self.records.commit(loaded, change) is not None:
                self.fired += 1

    def _lobby_timeout(self, loaded: Loaded) -> Plan:
        """A lobby's timer: the countdown ran out (start, if the lobby can), or the lobby
        sat idle too long (expire it: status ``cancelled``, a change every worker hears,
        so whichever claims it closes the group's lobby message), or it fired early (the
        lobby's timer is re-armed without refreshing the idle time)."""
        meta, now = loaded.meta, self.timing.now_ms()
        if meta.autostart_at is not None and now >= meta.autostart_at:
            try:
                return self.moves.start_plan(loaded)
            except ServiceError as exc:  # e.g. options that no longer fit: wait for people
                log.info("auto-start of %s refused: %s", loaded.game_id, exc.code)
                meta.autostart_at = None  # (refused before it changed anything)
                idle = meta.idle_until or now + int(self.config.lobby_ttl_s * 1000)
                return Plan(meta, None, [], Deadline(idle), state_changed=False)
        if meta.idle_until is None or now >= meta.idle_until:
            meta.cancelled = meta.expired = True
            return Plan(meta, None, [], None, state_changed=False)
        return Plan(
            meta, None, [], self.timing.lobby_deadline(meta, now, idle=False), state_changed=False
        )

    def _idle_expiry(self, loaded: Loaded) -> Plan | None:
        """A started game nobody has moved in for ``game_ttl_s``: it ends, cancelled (meta
        ``expired``), in a commit every worker hears — the chat is freed, the game lists
        and claims cleaned up, the group's message closed — rather than its key vanishing
        under everyone. None if the deadline came early (another worker's clock): the
        claim's lease runs out and it is looked at again."""
        meta = loaded.meta
        if meta.idle_until is None or self.timing.now_ms() < meta.idle_until:
            return None
        meta.cancelled = meta.expired = True
        meta.idle_until = None
        bump(loaded, meta)
        return Plan(meta, loaded.state, [], None, state_changed=False)

    async def _timed_step(self, loaded: Loaded) -> Plan:
        """The move a due deadline makes: a computer seat's move, or the timeout rule."""
        state, meta = loaded.state, loaded.meta
        assert state is not None
        if engine.phase(state) == "round_over":
            pending = sorted(s for s in engine.waiting_on(state) if meta.seats[s].by_computer)
            if pending:
                return self.moves.step(loaded, meta, pending[0], {"type": "next_round"})
            return self.moves.step(loaded, meta, None, None)
        seat = engine.actor(state)
        if seat is not None and meta.seats[seat].by_computer:
            view = engine.view_for(state, seat)
            move = await self.ai_pool.choose(
                view,
                level=meta.level_of(seat),
                seed=move_seed(loaded.game_id, loaded.version),
                ai=self._ai,
            )
            if move is not None:
                try:
                    return self.moves.step(loaded, meta, seat, move)
                except (engine.IllegalMove, engine.MoveFormatError):
                    log.exception("computer move refused in %s; timing out", loaded.game_id)
        if seat is not None and not meta.seats[seat].by_computer:
            extended = clock.forgiven(meta, loaded.presence, self.timing.now_ms())
            if extended is not None:  # the bot's prompt came late: no strike, more time
                bump(loaded, meta)
                return Plan(meta, state, [], extended, state_changed=False)
        change = self.moves.step(loaded, meta, None, None)
        if seat is not None and not meta.seats[seat].by_computer:
            record = meta.seats[seat]
            record.timeouts += 1
            if record.timeouts >= meta.takeover_after:
                record.auto = True  # the computer plays it until the player takes it back
                assert change.state is not None
                change.deadline = self.timing.deadline(
                    meta, change.state, self.timing.now_ms(), loaded.version + 1
                )
        return change

    async def _warn(self, claim: TimerClaim) -> None:
        """One warning of a human's turn (claimed once); the turn's next warning, if any,
        is armed before the handlers run, so a handler that fails loses only its own."""
        if not self._warning_handlers:
            return
        try:
            loaded = await self.records.load(claim.game_id, read_only=True)
        except ServiceError:
            return
        deadline, meta = loaded.deadline_ms, loaded.meta
        if loaded.version != claim.version or loaded.state is None or deadline is None:
            return
        seat = engine.actor(loaded.state)
        if seat is None or meta.seats[seat].by_computer or meta.turn_time is None:
            return
        user_id = meta.seats[seat].user_id
        now = self.timing.now_ms()
        if user_id is None or deadline <= now:
            return
        later = clock.next_warning(meta.turn_time, deadline, now)
        if later is not None:
            await self.store.arm_warning(claim.game_id, deadline, later)
        warning = TurnWarning(
            claim.game_id,
            claim.version,
            seat,
            user_id,
            deadline,
            meta.chat_key,
            clock.seconds_left(deadline, now),
        )
        for handler in self._warning_handlers:
            try:
                await handler(warning)
            except Exception:
                log.exception("turn warning handler failed")
