"""The ``GameStore`` protocol and the values it trades in.

The store is opaque to the engine: it keeps a game's state and meta as JSON strings,
a version, an append-only move log and adapter data, and offers the few atomic steps the
service needs (principles 3, 5, 6, 9 of ARCHITECTURE.md). ``RedisStore`` and
``MemoryStore`` implement it with the same semantics; one contract suite tests both.
"""

from __future__ import annotations

import enum
import re
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

DEFAULT_ARCHIVE_RETENTION_S = 90 * 24 * 3600
DEFAULT_LEASE_MS = 1_000
SUBMISSIONS = 8  # submission ids a game's record remembers (its last commits')
EPOCH_GAP = 1_000_000  # a new master renumbers a game this far up (core/store/lua.py)
SUBMISSION_RE = re.compile(r"^[A-Za-z0-9_-]{1,32}$")


def check_submission(submission: str | None) -> str:
    """The id as the store keeps it ('' for none); refuses what could break the record."""
    if submission is None:
        return ""
    if not SUBMISSION_RE.match(submission):
        raise ValueError(f"bad submission id {submission!r}")
    return submission


class Keep(enum.Enum):
    """Sentinel: keep the deadline already armed (the commit does not change who acts)."""

    KEEP = "keep"


KEEP = Keep.KEEP

TIMER_TURN = "t"  # the turn/phase deadline: the service fires a timeout or a computer move
TIMER_WARN = "w"  # shortly before a human's deadline: the bot warns the player
TIMER_KINDS = TIMER_TURN + TIMER_WARN  # claim_due(kinds=...): both


@dataclass(frozen=True, slots=True)
class Deadline:
    """A deadline to arm in a commit: when it fires and, optionally, when to warn."""

    at_ms: int
    warn_ms: int | None = None


@dataclass(frozen=True, slots=True)
class GameRecord:
    """What one load returns (one round trip)."""

    game_id: str
    version: int
    state: str
    meta: str
    deadline_ms: int | None = None
    presence: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class CommitResult:
    """``ok`` with the new version, or a conflict with the current one (None: no game).

    ``duplicate``: ``ok`` because this submission id was committed already (a retry after
    a lost reply); ``version`` is the version that first commit got. ``renumbered``: not
    ok, but the game's record was only renumbered since ``expected_version`` (a new
    master took over: ``version`` is the same state's new number); the caller decided on
    that state and may commit again at ``version``, its own version numbers moved up by
    the difference. ``confirmed``: False when the store waits for a replica
    (``replica_wait_ms``) and none confirmed the commit in time: it is applied on the
    master but not yet announced (a retry with the same submission id waits again).
    """

    ok: bool
    version: int | None
    duplicate: bool = False
    renumbered: bool = False
    confirmed: bool = True


@dataclass(frozen=True, slots=True)
class TimerClaim:
    """A due timer this worker now holds for ``lease`` ms (a turn deadline) or owns (a
    warning, handed out once); ``version`` is the game version it was armed for."""

    game_id: str
    version: int
    kind: str  # TIMER_TURN | TIMER_WARN
    lease_until: int | None = field(default=None, compare=False)  # turn: the lease's end


@dataclass(frozen=True, slots=True)
class TokenResult:
    allowed: bool
    wait_s: float  # when not allowed: seconds until a token is available


@dataclass(frozen=True, slots=True)
class SendBudget:
    """The bot's send budget: ``rate`` sends per second for the whole bot (bucket of
    ``burst``), and per group ``chat_capacity`` per ``chat_per_seconds``; bulk sends
    (board pictures) leave ``reserve`` of each bucket (one token at least) to urgent ones."""

    rate: float = 30.0
    burst: int = 30
    chat_capacity: int = 5
    chat_per_seconds: float = 20.0
    reserve: float = 0.34


@dataclass(frozen=True, slots=True)
class Change:
    """A pub/sub notice: game ``game_id`` is now at ``version``."""

    game_id: str
    version: int


@runtime_checkable
class GameStore(Protocol):
    """The only interface the service uses to persist and coordinate games.

    ``create(..., deadline=)`` arms a deadline with the record (a lobby's countdown or
    expiry), in the same atomic step, at the created version.

    ``commit(..., presence=(who, now_ms))`` also records that ``who`` was present (the
    ``online`` flag) in the same atomic step, so a player's move costs no extra write.

    ``commit(..., submission=id)`` stores the id with the commit (ids of
    ``SUBMISSION_RE``): the same commit sent again with the same id (its reply was lost)
    answers as the first did (``CommitResult.duplicate``) while the id is among the game's
    last ``SUBMISSIONS`` commits; ``submitted(game_id, id)`` is the version it got, or None.

    Epochs: a store that fails over to a replica renumbers a game's versions once under
    the new master (``core/store/lua.py``); ``renumbered_from(game_id)`` is the version the
    game had before, until its next commit (None otherwise, and always in memory): a
    move decided on that version was decided on the current state.

    Timers: ``claim_due`` hands out due deadlines (a turn deadline leased to this worker
    for ``lease_ms``, a warning once; ``kinds`` limits the kinds handed out, and
    ``overdue_ms`` makes a fallback poller that takes only turn deadlines overdue by more
    than that and not leased); ``timer_release`` gives back a turn claim whose firing
    failed, so it is retried at once; ``timer_done`` forgets a claimed deadline the caller
    handled without a commit; ``arm_warning`` arms one more warning (at ``warn_ms``) before
    the game's deadline if that is still ``deadline_ms`` (a turn warned twice: the next one
    is armed when the previous one is claimed), claimed as the commit's own warning is;
    ``sweep_timers`` (called every few seconds by every worker)
    repairs the timer index from the games' own records and returns how many entries it
    fixed — always 0 when the index cannot diverge (one process).
    """

    # live games
    async def create(
        self,
        game_id: str,
        state: str,
        meta: str,
        *,
        ttl_s: float,
        version: int = 1,
        deadline: Deadline | None = None,
    ) -> bool: ...
    async def load(self, game_id: str) -> GameRecord | None: ...
    async def version(self, game_id: str) -> int | None: ...
    async def commit(
        self,
        game_id: str,
        expected_version: int,
        state: str,
        meta: str,
        log_entries: Sequence[str],
        deadline: Deadline | Keep | None,
        *,
        ttl_s: float,
        presence: tuple[str, int] | None = None,
        submission: str | None = None,
    ) -> CommitResult: ...
    async def submitted(self, game_id: str, submission: str) -> int | None: ...
    async def renumbered_from(self, game_id: str) -> int | None: ...
    async def read_log(self, game_id: str, start: int = 0, end: int = -1) -> list[str]: ...
    async def delete_game(self, game_id: str) -> None: ...
    async def touch(self, game_id: str, who: str, now_ms: int) -> None: ...

    # adapter data
    async def set_adapter(self, game_id: str, name: str, value: str) -> None: ...
    async def get_adapter(self, game_id: str) -> dict[str, str]: ...
    async def get_adapter_value(self, game_id: str, name: str) -> str | None: ...

    # preferences (no expiry): ``<name>:<user_id>`` keys belong to that user (``pref_owner``)
    # and go with ``delete_user_data``; other keys (``c:<chat_id>``) are kept
    async def get_pref(self, key: str) -> str | None: ...
    async def set_pref(self, key: str, value: str) -> None: ...

    # indexes
    async def bind_chat(self, chat_id: int, topic_id: int | None, game_id: str) -> bool: ...
    async def chat_game(self, chat_id: int, topic_id: int | None) -> str | None: ...
    async def unbind_chat(self, chat_id: int, topic_id: int | None, game_id: str) -> bool: ...
    async def add_user_game(self, user_id: int, game_id: str, now_ms: int) -> None: ...
    async def remove_user_game(self, user_id: int, game_id: str) -> None: ...
    async def user_games(self, user_id: int) -> list[str]: ...

    # timers
    async def claim_due(
        self,
        now_ms: int,
        limit: int = 20,
        lease_ms: int = DEFAULT_LEASE_MS,
        *,
        kinds: str = TIMER_KINDS,
        overdue_ms: int | None = None,
    ) -> list[TimerClaim]: ...
    async def timer_done(self, claim: TimerClaim) -> None: ...
    async def arm_warning(self, game_id: str, deadline_ms: int, warn_ms: int) -> bool: ...
    async def timer_release(self, claim: TimerClaim) -> None: ...
    async def next_due_ms(self) -> int | None: ...
    async def sweep_timers(self) -> int: ...

    # side effects once
    async def claim_once(self, key: str, ttl_s: float) -> bool: ...
    async def take_send_token(
        self, chat_id: int | None, budget: SendBudget, *, bulk: bool = False
    ) -> TokenResult: ...
    async def hold_sends(self, chat_id: int | None, seconds: float) -> None: ...

    # pub/sub (``start`` opens the process's one subscription; ``listen`` does it lazily)
    async def start(self) -> None: ...
    def listen(self, game_id: str) -> AsyncIterator[int]: ...
    def listen_all(self) -> AsyncIterator[Change]: ...

    # finished games
    async def archive(
        self,
        game_id: str,
        record: dict[str, object],
        *,
        user_ids: Sequence[int],
        chat_id: int | None,
        finished_ms: int,
    ) -> None: ...
    async def archived(self, game_id: str) -> dict[str, object] | None: ...
    async def archived_log(self, game_id: str) -> list[str]: ...
    async def archived_for_user(
        self, user_id: int, limit: int = 100
    ) -> list[dict[str, object]]: ...
    async def archived_for_chat(
        self, chat_id: int, limit: int = 100
    ) -> list[dict[str, object]]: ...
    async def prune_archive(self, now_ms: int) -> int: ...
    async def delete_user_data(self, user_id: int) -> int: ...

    async def ping(self) -> bool: ...
    async def close(self) -> None: ...
