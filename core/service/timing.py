"""Which deadline a commit arms (RULES §7, principle 5): whoever acts now, a lobby's
countdown or idle expiry, a game nobody is timed in. The commit that changes who acts
arms that turn's deadline in the same atomic step."""

from __future__ import annotations

from collections.abc import Callable

from core import engine
from core.service import clock, lobby
from core.service.meta import Meta
from core.service.models import ServiceConfig
from core.service.records import Loaded
from core.store import KEEP, Deadline, Keep


class Timing:
    """The deadline rules, on the deployment's config and the service's clock."""

    def __init__(self, config: ServiceConfig, now_ms: Callable[[], int]) -> None:
        self.config = config
        self.now_ms = now_ms

    def deadline(
        self, meta: Meta, state: engine.GameState, now: int, version: int | None = None
    ) -> Deadline:
        """The deadline of whoever acts now (RULES §7); when nobody is timed (a human's
        turn without a turn time, or a paused game), the game's idle expiry
        ``game_ttl_s`` from now, which a timer commits like any change
        (``Timers._idle_expiry``). ``version``: of the commit that arms it (a human's turn
        remembers where it began, see ``clock.begin_turn``)."""
        deadline = self._turn_deadline(meta, state, now, version)
        if deadline is None:
            meta.idle_until = now + int(self.config.game_ttl_s * 1000)
            return Deadline(meta.idle_until)
        meta.idle_until = None
        return deadline

    def _turn_deadline(
        self, meta: Meta, state: engine.GameState, now: int, version: int | None
    ) -> Deadline | None:
        """The deadline of whoever acts now, or None when nobody is timed (or paused)."""
        phase = engine.phase(state)
        if phase == "finished":
            return Deadline(now + 1000)  # repair timer: archives if the finishing worker died
        if meta.paused:
            return None
        if phase == "round_over":
            pause_until = meta.pause_until or now + meta.round_pause_s * 1000
            pending = [s for s in engine.waiting_on(state) if meta.seats[s].by_computer]
            if pending:
                return Deadline(min(pause_until, now + int(self.config.bot_ready_delay_s * 1000)))
            return Deadline(pause_until)
        seat = engine.actor(state)
        if seat is None:
            return None
        if meta.seats[seat].by_computer:
            return Deadline(now + int(meta.think_delay_s * 1000))
        if meta.turn_time is None:
            return None
        return clock.begin_turn(meta, meta.turn_time, now, version)

    def lobby_deadline(self, meta: Meta, now: int, *, idle: bool = True) -> Deadline | None:
        """The lobby's one timer (principle 5), armed by every lobby commit: the auto-start
        countdown while enough players sit, else the idle expiry. ``idle`` refreshes the
        expiry (a change in the lobby); the timer's own re-arming does not."""
        if meta.started or meta.cancelled:
            return None
        if meta.countdown_s and lobby.enough_players(meta):
            if meta.autostart_at is None:
                meta.autostart_at = now + meta.countdown_s * 1000
        else:
            meta.autostart_at = None
        if idle or meta.idle_until is None:
            meta.idle_until = now + int(self.config.lobby_ttl_s * 1000)
        at = meta.idle_until
        if meta.autostart_at is not None:
            at = min(at, meta.autostart_at)
        return Deadline(at)

    def keep_or_recompute(self, loaded: Loaded, meta: Meta, seat: int) -> Deadline | Keep | None:
        """Service-only commits keep the deadline unless they change who acts for ``seat``."""
        state = loaded.state
        if state is None:
            return None
        phase = engine.phase(state)
        if phase == "round_over" or engine.actor(state) == seat:
            return self.deadline(meta, state, self.now_ms(), loaded.version + 1)
        return KEEP
