"""Values the service trades with its adapters (the bot and the Mini App)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from core.engine.shapes import ViewDict

SubmitStatus = Literal["ok", "stale", "illegal", "forbidden", "invalid"]
TimerRole = Literal["all", "turns", "fallback"]


@dataclass(frozen=True, slots=True)
class UserRef:
    """A Telegram identity as the adapters know it."""

    user_id: int
    name: str
    language: str | None = None


@dataclass(frozen=True, slots=True)
class ChatKey:
    """A group chat, or one forum topic of it: one open lobby or game per key."""

    chat_id: int
    topic_id: int | None = None


@dataclass(frozen=True, slots=True)
class SubmitResult:
    """The answer to a move.

    ``ok``: applied, ``view`` is the new view. ``stale``: ``expected_version`` was not the
    current version; ``view`` is the current one (HTTP 409). ``illegal``: the rules refuse
    it; ``reason`` is an engine reason code (HTTP 422). ``forbidden``: the user may not make
    moves here (not seated, seat played by the computer, server-only move; HTTP 403).
    ``invalid``: the move is malformed (HTTP 400); ``reason`` is ``bad_move``.
    """

    status: SubmitStatus
    view: ViewDict | None
    reason: str | None = None
    message: str | None = None

    @property
    def ok(self) -> bool:
        return self.status == "ok"


class ServiceError(Exception):
    """A lobby/game action that cannot be done; ``code`` is stable, adapters translate it.

    Codes: ``not_found``, ``chat_busy`` (``game_id`` holds the open game), ``not_creator``,
    ``not_in_lobby``, ``already_started``, ``already_finished``, ``lobby_full``,
    ``not_seated``, ``not_enough_players``, ``too_many_players``, ``invalid_config``,
    ``bad_setting``, ``busy`` (too many concurrent changes, retry), ``kicked`` (removed
    by the creator or an admin: no joining again, no taking the seat back),
    ``not_started`` (pause/resume in a lobby), ``not_finished`` (play again before the end),
    ``too_many_lobbies`` / ``too_many_games`` (the user's cap, ``details["limit"]``),
    ``membership_required`` (a group's lobby: no proof that the user is in that group),
    ``game_in_progress`` (sharing a result before the end), ``sharing_unavailable`` (no
    bot to prepare a shared result: ``core.service.sharing``).
    """

    def __init__(self, code: str, message: str = "", **details: object) -> None:
        super().__init__(f"{code}: {message}" if message else code)
        self.code = code
        self.message = message or code
        self.details = details


@dataclass(frozen=True, slots=True)
class TurnWarning:
    """Sent before a human's turn deadline (see ``GameService.on_turn_warning``), once per
    warning of the turn (``core.service.clock.warnings``)."""

    game_id: str
    version: int
    seat: int
    user_id: int
    deadline_ms: int
    chat: ChatKey | None
    seconds_left: int = 0  # at this warning (30 and 10 in a short turn; hours in slow mode)


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """Server-side seat facts for adapters (user ids never go into views)."""

    seat: int
    user_id: int | None
    name: str
    computer: bool  # a computer seat from the start
    auto: bool  # a human's seat the computer plays now (left or timed out)
    left: bool
    language: str | None = None  # the joiner's client language (UserRef.language)
    kicked: bool = False  # removed by the creator or an admin: stays out for the game


@dataclass(frozen=True, slots=True)
class ServiceConfig:
    """Timing and retention knobs (seconds unless the name says otherwise)."""

    lobby_ttl_s: int = 24 * 3600  # idle lobby: the lobby timer expires it (status cancelled)
    # the record outlives its idle timer by min(this, the idle time): a lobby's and a
    # started game's key TTL is only a backstop for when no worker runs timers at all
    lobby_grace_s: int = 3600
    game_ttl_s: int = 3 * 24 * 3600  # idle started game: its timer expires it (cancelled)
    finished_ttl_s: int = 3600
    think_delay_s: float = 1.5
    bot_ready_delay_s: float = 0.5
    round_pause_s: int = 30
    takeover_after: int = 2
    online_window_s: int = 120
    timer_interval_s: float = 0.2
    # A claimed timer whose firing worker died (or lost Redis) is retried after the lease.
    # Firing is a compare-and-set at the armed version, so a second fire is harmless: keep
    # the lease short so a turn never waits much past its deadline
    # (docs/benchmarks/timers.md).
    timer_lease_ms: int = 1_000
    # Which due timers this process fires (see ``Timers.run_timers``): "all" (one process,
    # or every worker alike), "turns" (the dedicated timer process: turn deadlines and
    # computer moves) or "fallback" (an API worker next to a timer process: the bot's turn
    # warnings, and turn deadlines overdue by more than ``timer_fallback_after_ms`` that
    # nobody holds, polled every ``timer_fallback_interval_s``). A deadline is fired once
    # whatever the roles: the claim's lease and the versioned commit decide.
    timer_role: TimerRole = "all"
    timer_fallback_after_ms: int = 1_000
    timer_fallback_interval_s: float = 0.15
    update_dedupe_ttl_s: int = 3600
    # A commit whose reply was lost (Redis restarting, a failover, a cut connection) or
    # that no replica confirmed (replica wait) is sent again with its submission id for
    # this long (a Sentinel failover takes its down-after time plus ~1-2 s), then fails.
    commit_retry_s: float = 15.0
    # What one user may have open at once among the games they opened (None: no cap, as
    # in local mode): lobbies not started yet, and lobbies and games not over.
    max_open_lobbies: int | None = 3
    # Worker processes for ``hard`` computer decisions (core/service/ai_pool.py); 0 runs
    # them in a thread of this process. Settings.ai_pool_workers (AI_POOL_WORKERS) sets it.
    ai_pool_workers: int = 0
    max_open_games: int | None = 10
    join_pass_s: int = 900  # a press of a group lobby's Join button admits for this long
