"""A process pool for ``hard`` computer decisions, so a search (~120 ms of CPU, up to
~450 ms) never blocks the event loop that fires the timers: threads would hold the GIL.

The pool is started on the first ``hard`` decision and closed by ``close``; with no
workers (``ServiceConfig.ai_pool_workers == 0``) decisions run inline in a thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import functools
import logging
import multiprocessing
import signal
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from core.engine.shapes import MoveDict, ViewDict
from core.service.agents import Chooser, choose

log = logging.getLogger(__name__)

POOLED_LEVELS = frozenset({"hard"})  # easy and normal take a few ms: inline is cheaper
PR_SET_PDEATHSIG = 1  # linux/prctl.h


def die_with_parent() -> None:
    """A pool process ends with the process that started it (e.g. a hung timer process
    the supervisor killed), instead of lingering; Linux only, elsewhere a no-op."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


class AiPool:
    """Runs ``agents.choose`` in worker processes for the pooled levels."""

    def __init__(self, workers: int) -> None:
        self.workers = max(0, workers)
        self._executor: ProcessPoolExecutor | None = None

    def _pool(self) -> ProcessPoolExecutor:
        if self._executor is None:  # spawn: a fork would copy the loop, sockets and locks
            context = multiprocessing.get_context("spawn")
            self._executor = ProcessPoolExecutor(
                self.workers, mp_context=context, initializer=die_with_parent
            )
        return self._executor

    async def choose(
        self, view: ViewDict, *, level: str, seed: int, ai: Chooser | None = None
    ) -> MoveDict | None:
        """``agents.choose``'s move, computed off the event loop. An injected ``ai`` (tests)
        runs in a thread: it need not pickle."""
        call = functools.partial(choose, view, level=level, seed=seed)
        if ai is not None or self.workers == 0 or level not in POOLED_LEVELS:
            return await asyncio.to_thread(functools.partial(call, ai=ai))
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._pool(), call)
        except BrokenProcessPool:  # a pool process died (killed, out of memory): this move
            log.warning("computer players' pool broke; starting a new one")  # in a thread,
            self.close()  # the next in a new pool
            return await asyncio.to_thread(call)

    def close(self) -> None:
        """Stop the worker processes (idempotent); a later decision starts a new pool."""
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)
