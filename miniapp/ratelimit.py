"""Request budgets: per user once signed in, per client address before that.

One ``Limiter`` per worker. Signed-in requests spend their user's bucket; requests without
credentials and requests whose credentials fail spend their client address's bucket, and
an address whose bucket is empty gets 429 *before* its credentials are checked (a flood of
forged tokens costs a dict lookup each, not an HMAC and a JSON parse). A token this worker
has already verified is known good and never waits on its address, so a flood from behind
the same NAT does not lock out players already signed in.

The client address is the connection's peer, unless that peer is one of
``TRUSTED_PROXIES``: then the right-most ``X-Forwarded-For`` entry that is not a trusted
proxy (what the proxy itself saw). A client cannot choose its address by sending the header
directly: an untrusted peer's header is ignored.

The buckets live in process memory: with several workers a client gets the budget of each
worker it reaches, still a hard ceiling against a runaway client or a script.
"""

from __future__ import annotations

import functools
import ipaddress
import math
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

from aiohttp import web

IpNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


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
        return self._wait(tokens)

    def wait(self, key: str, now: float | None = None) -> float:
        """The seconds until ``key`` may spend a token (0: it may now), spending nothing."""
        entry = self._state.get(key)
        if entry is None:
            return 0.0
        now = time.monotonic() if now is None else now
        tokens = min(self.burst, entry[0] + (now - entry[1]) * self.rate)
        return 0.0 if tokens >= 1 else self._wait(tokens)

    def _wait(self, tokens: float) -> float:
        return (1 - tokens) / self.rate if self.rate > 0 else math.inf

    def _prune(self, now: float) -> None:
        """Forget buckets that have refilled completely: they hold no information."""
        full = self.burst / self.rate if self.rate > 0 else math.inf
        self._state = {k: v for k, v in self._state.items() if now - v[1] < full}


@dataclass(frozen=True, slots=True)
class Limits:
    """The per-client bounds of one worker (README "Limits" lists them)."""

    user_burst: float = 60.0  # signed-in requests of one user at once...
    user_rate: float = 15.0  # ...and per second after that
    address_burst: float = 30.0  # requests without (or with failing) credentials...
    address_rate: float = 5.0  # ...per client address
    sockets_per_user: int = 8  # open WebSockets of one user (the oldest makes way)
    pending_sockets_per_address: int = 64  # sockets waiting for their auth frame (ms each)


class Limiter:
    """The one rate limiter of a worker: user buckets, address buckets, the proxy rule."""

    def __init__(self, limits: Limits | None = None, trusted_proxies: Iterable[str] = ()) -> None:
        self.limits = limits or Limits()
        self.users = TokenBucket(self.limits.user_burst, self.limits.user_rate)
        self.addresses = TokenBucket(self.limits.address_burst, self.limits.address_rate)
        self.proxies: tuple[IpNetwork, ...] = tuple(
            ipaddress.ip_network(p, strict=False) for p in trusted_proxies
        )
        self._trusted = functools.lru_cache(maxsize=256)(self._is_trusted)

    # ---------------------------------------------------------------- who is calling
    def client_address(self, request: web.BaseRequest) -> str:
        """The address a request's budget is kept under (see the module's docstring)."""
        peer = request.remote or ""
        if not self.proxies or not self._trusted(peer):
            return peer
        forwarded = request.headers.getall("X-Forwarded-For", [])
        hops = [h.strip() for line in forwarded for h in line.split(",")]
        for hop in reversed(hops):
            if not hop:
                continue
            if _parse(hop) is None:
                break  # garbage: the proxy did not write this, stop believing the header
            if not self._trusted(hop):
                return hop
        return peer

    def _is_trusted(self, address: str) -> bool:
        ip = _parse(address)
        return ip is not None and any(ip in net for net in self.proxies)

    # ----------------------------------------------------------------- budgets
    def take_user(self, user_id: int) -> float:
        """Spend one of a signed-in user's requests; 0, or the seconds to wait."""
        return self.users.take(f"u:{user_id}")

    def take_address(self, address: str) -> float:
        """Spend one of an address's anonymous (or failed) requests; 0, or seconds."""
        return self.addresses.take(address)

    def address_wait(self, address: str) -> float:
        """How long ``address`` must wait before its next anonymous request (0: none)."""
        return self.addresses.wait(address)


@functools.lru_cache(maxsize=4096)
def _parse(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def retry_after(wait: float) -> int:
    """Whole seconds for a ``Retry-After`` header (at least 1)."""
    return max(1, math.ceil(wait)) if math.isfinite(wait) else 3600
