"""The turn clock of a human's turn (ARCHITECTURE principle 5: time is an input).

When a human's turn runs out and when they are warned; when the bot's late prompt
forgives a strike; what pause and resume do to the clock. Pure functions of the meta,
the game's presence data and the time: the service commits what they decide, and the
deadline and its warnings travel in the store's record and timer index.
"""

from __future__ import annotations

from core.service.meta import Meta
from core.store import Deadline

# Warnings before a deadline, in seconds left, the earliest first: a short turn is
# warned at 30 s and 10 s, a slow-mode turn (hours) at 3 h, 1 h and 15 min. A warning
# goes only if it falls in the second half of a fresh turn (a 30 s turn: at 10 s left).
SHORT_WARNINGS = (30, 10)
LONG_WARNINGS = (3 * 3600, 3600, 15 * 60)
LONG_TURN_S = 3600

# The bot's prompt went out later than this after the turn began: that turn's timeout
# is not the player's fault, so its deadline is extended once instead of skipping them.
FORGIVE_AFTER_MS = 5_000
# A forgiven turn gets back what the late prompt cost it, and at least this much.
EXTEND_AT_LEAST_MS = 15_000
# Resume gives the actor back the time that was left when the game was paused, and at
# least this much (never more than a whole turn), so nobody resumes into an instant skip.
RESUME_AT_LEAST_MS = 15_000

# The presence field (GameStore.touch) where the bot records when its prompt of the
# current turn was delivered: no versioned commit, and the deadline's load reads it free.
PROMPT = "prompt"


def warnings(turn_s: int) -> tuple[int, ...]:
    """Seconds left at each warning of a fresh turn of ``turn_s`` seconds, earliest first."""
    ladder = LONG_WARNINGS if turn_s >= LONG_TURN_S else SHORT_WARNINGS
    fits = tuple(w for w in ladder if 2 * w <= turn_s)
    if not fits and turn_s >= 10:  # 10-19 s: one warning half-way
        fits = (turn_s // 2,)
    return fits


def first_warning(turn_s: int, at_ms: int, span_ms: int) -> int | None:
    """When to warn first on a clock of ``span_ms`` that runs out at ``at_ms``: a fresh
    turn (``span_ms`` = the whole turn) or what is left of one (resumed, extended)."""
    whole = span_ms >= turn_s * 1000
    for left in warnings(turn_s):
        if (2 * left <= turn_s) if whole else (left * 1000 < span_ms):
            return at_ms - left * 1000
    return None


def next_warning(turn_s: int, deadline_ms: int, now_ms: int) -> int | None:
    """The warning after the one being given now (``now_ms``), or None after the last."""
    left_ms = deadline_ms - now_ms
    for left in warnings(turn_s):
        if left * 1000 < left_ms:
            return deadline_ms - left * 1000
    return None


def seconds_left(deadline_ms: int, now_ms: int) -> int:
    """Whole seconds left, rounded up (a warning fired 0.2 s late still says 30 s)."""
    return max(0, -(-(deadline_ms - now_ms) // 1000))


def begin_turn(meta: Meta, turn_s: int, now_ms: int, version: int | None) -> Deadline:
    """A human's fresh turn: its deadline and first warning; remembers when it began and
    at which version (for the late-prompt rule), and that it was not extended yet."""
    meta.turn_began_ms, meta.turn_began_v = now_ms, version
    meta.turn_extended = False
    at = now_ms + turn_s * 1000
    return Deadline(at, first_warning(turn_s, at, turn_s * 1000))


def clock_of(turn_s: int, now_ms: int, span_ms: int) -> Deadline:
    """A clock of ``span_ms`` from now on the current turn (resume, extension)."""
    at = now_ms + span_ms
    return Deadline(at, first_warning(turn_s, at, span_ms))


def prompt_counts(meta: Meta, presence: dict[str, int], version: int) -> bool:
    """Whether a prompt the bot delivered for ``version`` should be recorded: it is for
    the current turn and the first one recorded for it (the first delivery is the one
    the player waited for)."""
    began_v, began_ms = meta.turn_began_v, meta.turn_began_ms
    if began_v is None or began_ms is None or version < began_v:
        return False
    seen = presence.get(PROMPT)
    return seen is None or seen < began_ms


def forgiven(meta: Meta, presence: dict[str, int], now_ms: int) -> Deadline | None:
    """At a human's deadline: the extended deadline when the bot's own prompt of this
    turn went out more than FORGIVE_AFTER_MS after it began (once per turn), else None
    (the timeout counts as a strike)."""
    began, delivered = meta.turn_began_ms, presence.get(PROMPT)
    if meta.turn_extended or meta.turn_time is None or began is None or delivered is None:
        return None
    late = delivered - began
    if delivered < began or late <= FORGIVE_AFTER_MS:
        return None
    meta.turn_extended = True
    return clock_of(meta.turn_time, now_ms, max(late, EXTEND_AT_LEAST_MS))


def resumed(meta: Meta, left_ms: int, now_ms: int) -> Deadline | None:
    """The actor's clock on resume: what was left at the pause (within RESUME_AT_LEAST_MS
    and a whole turn); None when the game has no turn clock."""
    if meta.turn_time is None:
        return None
    whole = meta.turn_time * 1000
    return clock_of(meta.turn_time, now_ms, min(whole, max(left_ms, RESUME_AT_LEAST_MS)))
