"""The load generator watching itself: its GC pauses, its loop lag, its CPU per move.

The generator shares the machine with the server it measures. If its own event loop
stalls (a garbage collection over the thousands of objects it keeps, or a busy loop), the
slots that came due meanwhile are sent together when it wakes: a burst that queues in
both workers and shows as server-side latency. So a run records, per step:

- every collection of the generator's cyclic GC (``gc.callbacks``): when, which
  generation, how long;
- the loop's lag: a ticker asks to wake every ``tick`` seconds and records how late it
  woke (a stall of the loop, whatever its cause, shows here);
- slot lateness (in the driver: a slot's GET sent - the slot's due time);
- and whether the server's tail lines up with the generator's stalls
  (:func:`alignment`).

GC policy (``--client-gc``): ``freeze`` (default) collects and freezes everything the
set-up built (1,000 games, sessions, sockets: the permanent generation is never scanned)
and keeps the collector off during a rate step, collecting between steps; what a step
allocates is mostly freed by reference counting (a step's own cycles, e.g. exceptions
with tracebacks, wait for the collection after it). ``default`` leaves Python's
collector as it is.
"""

from __future__ import annotations

import asyncio
import bisect
import gc
import time
from array import array
from dataclasses import dataclass, field
from typing import Any

from tests.load.stats import dist

STALL_MS = 5.0  # a loop lag or GC pause at least this long counts as a stall
TAIL_MS = 10.0  # the server-side p99 target: a POST above it is "the tail"
AFTER_STALL_S = 0.05  # a request sent this soon after a stall ended "follows" it


@dataclass
class SelfWatch:
    tick: float = 0.005
    gc_policy: str = "freeze"
    gc_start: float = 0.0
    gc_at: array[float] = field(default_factory=lambda: array("d"))  # perf_counter at start
    gc_ms: array[float] = field(default_factory=lambda: array("d"))
    gc_gen: array[int] = field(default_factory=lambda: array("b"))
    lag_at: array[float] = field(default_factory=lambda: array("d"))  # perf_counter when it woke
    lag_ms: array[float] = field(default_factory=lambda: array("d"))
    # CPU the generator's thread used over that tick: a stall with little CPU was the
    # process waiting for a core (the machine), one with a lot was its own work
    lag_cpu_ms: array[float] = field(default_factory=lambda: array("d"))
    _installed: bool = False

    # GC ------------------------------------------------------------------------------
    def _on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self.gc_start = time.perf_counter()
        else:
            now = time.perf_counter()
            self.gc_at.append(self.gc_start)
            self.gc_ms.append((now - self.gc_start) * 1000)
            self.gc_gen.append(int(info.get("generation", -1)))

    def install(self) -> None:
        if not self._installed:
            gc.callbacks.append(self._on_gc)
            self._installed = True

    def uninstall(self) -> None:
        if self._installed:
            gc.callbacks.remove(self._on_gc)
            self._installed = False
        if self.gc_policy == "freeze":
            gc.enable()
            gc.unfreeze()  # the process (e.g. pytest) goes on with its usual collector

    def before_step(self) -> None:
        """Collect what set-up or the previous step left, freeze it, and (``freeze``)
        keep the collector off while the step runs."""
        if self.gc_policy == "freeze":
            gc.collect()
            gc.freeze()
            gc.disable()

    def after_step(self) -> None:
        if self.gc_policy == "freeze":
            gc.enable()

    # loop lag -------------------------------------------------------------------------
    async def run(self, stop: asyncio.Event) -> None:
        """Wake every ``tick`` s; record how late each wake-up was."""
        perf, cpu = time.perf_counter, time.thread_time
        tick = self.tick
        while not stop.is_set():
            expected, cpu0 = perf() + tick, cpu()
            await asyncio.sleep(tick)
            now = perf()
            self.lag_at.append(now)
            self.lag_ms.append(max(0.0, (now - expected) * 1000))
            self.lag_cpu_ms.append((cpu() - cpu0) * 1000)

    # figures ---------------------------------------------------------------------------
    def window(self, began: float, ended: float) -> dict[str, Any]:
        """GC and loop-lag figures between two perf_counter instants (one rate step)."""
        g0, g1 = bisect.bisect_left(self.gc_at, began), bisect.bisect_left(self.gc_at, ended)
        l0, l1 = bisect.bisect_left(self.lag_at, began), bisect.bisect_left(self.lag_at, ended)
        pauses = list(self.gc_ms[g0:g1])
        gens = list(self.gc_gen[g0:g1])
        lags = list(self.lag_ms[l0:l1])
        cpus = list(self.lag_cpu_ms[l0:l1])
        tick_ms = self.tick * 1000
        busy = [
            lag
            for lag, c in zip(lags, cpus, strict=True)
            if lag >= STALL_MS and c >= 0.5 * (lag + tick_ms)
        ]
        return {
            "gc_collections": len(pauses),
            "gc_collections_by_generation": {str(g): gens.count(g) for g in sorted(set(gens))},
            "gc_pause_ms_total": round(sum(pauses), 1),
            "gc_pause_ms_max": round(max(pauses), 2) if pauses else 0.0,
            "loop_lag_ms": dist(lags),
            "loop_stalls_over_5ms": sum(1 for x in lags if x >= STALL_MS),
            "loop_stall_ms_total": round(sum(x for x in lags if x >= STALL_MS), 1),
            # of those, the ones where the generator was on a CPU most of the time (its
            # own work); the others it spent waiting for a core
            "loop_stalls_busy": len(busy),
            "loop_stall_busy_ms_total": round(sum(busy), 1),
        }

    def stalls(self, began: float, ended: float) -> list[tuple[float, float]]:
        """(start, end) perf_counter intervals when the generator's loop was stalled:
        a late wake-up of the ticker (it began ``lag`` before it woke) or a GC pause."""
        out = []
        for at, ms in zip(self.lag_at, self.lag_ms, strict=True):
            if began <= at <= ended and ms >= STALL_MS:
                out.append((at - ms / 1000, at))
        for at, ms in zip(self.gc_at, self.gc_ms, strict=True):
            if began <= at <= ended and ms >= STALL_MS:
                out.append((at, at + ms / 1000))
        out.sort()
        return out


def alignment(
    stalls: list[tuple[float, float]],
    sent: array[float],
    server_ms: array[float],
    tail_ms: float = TAIL_MS,
    after_s: float = AFTER_STALL_S,
) -> dict[str, Any]:
    """Do the server's slow POSTs follow the generator's stalls?

    A POST *follows a stall* when it was sent during one or within ``after_s`` after it
    ended (the burst of overdue slots a stall releases). Compared: the share of the tail
    POSTs (Server-Timing > ``tail_ms``) that follow a stall, against the share of all
    POSTs — if stalls caused the tail, the first would be far above the second.
    """
    ends = [e for _, e in stalls]
    starts = [s for s, _ in stalls]

    def follows(t: float) -> bool:
        i = bisect.bisect_right(starts, t) - 1  # the last stall that began before t
        return i >= 0 and t <= ends[i] + after_s

    n_all = n_all_after = n_tail = n_tail_after = 0
    for t, ms in zip(sent, server_ms, strict=True):
        after = follows(t)
        n_all += 1
        n_all_after += after
        if ms > tail_ms:
            n_tail += 1
            n_tail_after += after
    return {
        "generator_stalls": len(stalls),
        "generator_stalled_ms": round(sum(e - s for s, e in stalls) * 1000, 1),
        "posts": n_all,
        "posts_following_a_stall_share": round(n_all_after / n_all, 3) if n_all else None,
        "tail_posts_over_10ms": n_tail,
        "tail_posts_following_a_stall_share": round(n_tail_after / n_tail, 3) if n_tail else None,
    }
