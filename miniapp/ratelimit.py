"""Per-user request budget: an in-process token bucket.

One worker keeps its own buckets; with several workers a user gets that budget per worker,
which is still a hard ceiling against a runaway client or a script hammering the API.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field


@dataclass(slots=True)
class TokenBucket:
    """``burst`` requests at once, refilled at ``rate`` per second."""

    burst: float
    rate: float
    _state: dict[str, tuple[float, float]] = field(default_factory=dict)
    _max_keys: int = 50_000

    def take(self, key: str, now: float | None = None) -> float:
        """Spend one token; return 0 when allowed, else the seconds to wait."""
        now = time.monotonic() if now is None else now
        tokens, last = self._state.get(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - last) * self.rate)
        if tokens >= 1:
            self._state[key] = (tokens - 1, now)
            if len(self._state) > self._max_keys:
                self._prune(now)
            return 0.0
        self._state[key] = (tokens, now)
        return (1 - tokens) / self.rate if self.rate > 0 else math.inf

    def _prune(self, now: float) -> None:
        """Forget buckets that have refilled completely: they hold no information."""
        full = self.burst / self.rate if self.rate > 0 else math.inf
        self._state = {k: v for k, v in self._state.items() if now - v[1] < full}
