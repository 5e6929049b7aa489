"""Counters and latency samples of a run, and how they are summarised."""

from __future__ import annotations

import math
from array import array
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


def _floats() -> array[float]:
    """A latency series: ``array('d')`` holds a sample in 8 bytes and is one object for
    the garbage collector, where a list of floats is a tracked list of 24-byte objects."""
    return array("d")


def pct(samples: Sequence[float], q: float) -> float | None:
    """Nearest-rank percentile (q in 0..100); None without samples."""
    if not samples:
        return None
    ordered = sorted(samples)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return round(ordered[rank - 1], 2)


def dist(samples: Sequence[float]) -> dict[str, Any]:
    return {
        "n": len(samples),
        "p50": pct(samples, 50),
        "p95": pct(samples, 95),
        "p99": pct(samples, 99),
        "max": round(max(samples), 2) if samples else None,
    }


@dataclass
class Stats:
    """Everything one load phase measured on the client side."""

    post_ms: array[float] = field(default_factory=_floats)  # POST .../moves round trip
    get_ms: array[float] = field(default_factory=_floats)  # GET view round trip
    move_ms: array[float] = field(default_factory=_floats)  # scheduled slot -> POST answered
    server_ms: array[float] = field(default_factory=_floats)  # Server-Timing of POST moves
    server_sent: array[float] = field(default_factory=_floats)  # perf_counter when that POST left
    server_get_ms: array[float] = field(default_factory=_floats)  # Server-Timing of GET views
    # a slot's GET sent - the slot's due time: how steady the open loop really is
    lateness_ms: array[float] = field(default_factory=_floats)
    statuses: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    scheduled: int = 0
    missed_no_game: int = 0  # a slot came due while every game had a move in flight
    moves_ok: int = 0
    idle: int = 0  # nobody we drive may act (e.g. waiting on the round pause)
    games_finished: int = 0
    ws_reconnects: int = 0
    moves_resent: int = 0  # a lost answer: the same move sent again with its submission id
    ok_times: list[float] = field(default_factory=list)  # time.monotonic() of each 200
    error_times: list[float] = field(default_factory=list)
    started: float = 0.0
    ended: float = 0.0

    def summary(self, offered_rate: float) -> dict[str, Any]:
        secs = max(1e-9, self.ended - self.started)
        return {
            "offered_moves_per_s": offered_rate,
            "achieved_moves_per_s": round(self.moves_ok / secs, 1),
            "seconds": round(secs, 1),
            "moves_ok": self.moves_ok,
            "slots_scheduled": self.scheduled,
            "slots_missed_all_games_busy": self.missed_no_game,
            "idle_slots": self.idle,
            "games_finished": self.games_finished,
            "errors": sum(self.errors.values()),
            "error_kinds": dict(self.errors.most_common(12)),
            "statuses": dict(self.statuses),
            "post_move_ms": dist(self.post_ms),
            "get_view_ms": dist(self.get_ms),
            "slot_to_answer_ms": dist(self.move_ms),
            "slot_lateness_ms": dist(self.lateness_ms),
            "server_post_move_ms": dist(self.server_ms) if self.server_ms else None,
            "server_get_view_ms": dist(self.server_get_ms) if self.server_get_ms else None,
            "ws_reconnects": self.ws_reconnects,
            "moves_resent": self.moves_resent,
        }
