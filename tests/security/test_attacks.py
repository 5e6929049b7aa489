"""Every attack of the security issue, tried against real processes, refused or bounded.

The same attacks as ``python -m tests.security`` (tests/security/run.py), smaller: each
test runs one arena and asserts that every one of its attacks held (and no 5xx was ever
answered). A failure prints the attack's whole outcome.
"""

from __future__ import annotations

import json

import pytest

from tests.security import run
from tests.security.arena import caddy_binary
from tests.security.outcome import Outcome

pytestmark = pytest.mark.timeout(600)


def assert_held(outcomes: list[Outcome], expected: set[str]) -> None:
    assert {o.name for o in outcomes} == expected
    failed = [o.summary() for o in outcomes if not o.ok]
    assert not failed, json.dumps(failed, indent=2, ensure_ascii=False)


async def test_misconfigurations_refuse_to_start() -> None:
    assert_held([await run.startup_refusals()], {"misconfiguration_refused"})


async def test_clean_up_leaves_no_key_without_ttl() -> None:
    (outcome,) = await run.store_arena()
    assert_held([outcome], {"cleanup"})
    assert outcome.figures["game_expiry"]["status_after"] == "cancelled"


async def test_webhook_and_lobby_attacks_through_the_bot() -> None:
    assert_held(
        await run.bot_arena(),
        {
            "forged_webhook_updates",
            "webhook_secret_guessing",
            "malformed_webhook_updates",
            "join_without_membership",
        },
    )


async def test_api_and_proxy_attacks() -> None:
    if caddy_binary() is None:
        pytest.skip("no caddy binary (./dev test puts Debian's caddy into .venv/bin)")
    outcomes = await run.api_arena(scale=0.3)
    assert_held(
        outcomes,
        {
            "redis_password",
            "lobby_flood",
            "junk_moves",
            "anonymous_flood_vs_sockets",
            "x_forwarded_for_spoofing",
            "failed_login_flood",
            "sockets_per_user",
            "unauthenticated_sockets",
            "lone_surrogates",
            "unsigned_webhook_at_proxy",
            "redis_full",
            "slow_headers_and_bodies",
            "session_lifetime",
            "left_behind_after_the_run",
        },
    )
