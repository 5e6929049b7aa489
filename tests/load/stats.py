"""Counters and latency samples of a run, and how they are summarised."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any


def pct(samples: list[float], q: float) -> float | None:
    """Nearest-rank percentile (q in 0..100); None without samples."""
    if not samples:
        return None
    ordered = sorted(samples)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return round(ordered[rank - 1], 2)


def dist(samples: list[float]) -> dict[str, Any]:
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

    post_ms: list[float] = field(default_factory=list)  # POST .../moves round trip
    get_ms: list[float] = field(default_factory=list)  # GET view round trip
    move_ms: list[float] = field(default_factory=list)  # scheduled slot -> POST answered
    server_ms: list[float] = field(default_factory=list)  # Server-Timing of POST moves
    server_get_ms: list[float] = field(default_factory=list)  # Server-Timing of GET views
    statuses: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    scheduled: int = 0
    missed_no_game: int = 0  # a slot came due while every game had a move in flight
    moves_ok: int = 0
    idle: int = 0  # nobody we drive may act (e.g. waiting on the round pause)
    games_finished: int = 0
    ws_reconnects: int = 0
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
            "server_post_move_ms": dist(self.server_ms) if self.server_ms else None,
            "server_get_view_ms": dist(self.server_get_ms) if self.server_get_ms else None,
            "ws_reconnects": self.ws_reconnects,
        }
