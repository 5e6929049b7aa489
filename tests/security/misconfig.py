"""A mis-set or missing secret refuses to start: ``python -m telegram_bot`` with each bad
configuration must exit (non-zero, within seconds) with one line naming the variable, and
never serve. Local mode with no configuration at all still starts (tests/telegram_bot/
test_main.py runs it)."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.load.harness import ROOT, free_port
from tests.security.outcome import Outcome

TOKEN = "4242424242:LOAD-test-token-not-a-real-bot"
GOOD_SECRET = "a-session-secret-long-enough"
HOOK = "https://saboteur.example.com/telegram/webhook"

# (what is wrong, environment, the variable the refusal must name)
CASES: list[tuple[str, dict[str, str], str]] = [
    ("webhook mode without a secret", {"WEBHOOK_URL": HOOK}, "WEBHOOK_SECRET"),
    (
        "a webhook secret that is too short",
        {"WEBHOOK_URL": HOOK, "WEBHOOK_SECRET": "short"},
        "WEBHOOK_SECRET",
    ),
    (
        "a webhook secret outside Telegram's alphabet",
        {"WEBHOOK_URL": HOOK, "WEBHOOK_SECRET": "has spaces and $ymbols in it!"},
        "WEBHOOK_SECRET",
    ),
    ("a token without a session secret", {"SESSION_SECRET": ""}, "SESSION_SECRET"),
    ("a session secret that is too short", {"SESSION_SECRET": "tiny"}, "SESSION_SECRET"),
    ("an initData age limit of 0", {"INITDATA_MAX_AGE": "0"}, "INITDATA_MAX_AGE"),
    ("a negative initData age limit", {"INITDATA_MAX_AGE": "-60"}, "INITDATA_MAX_AGE"),
    ("a session lifetime of 0", {"SESSION_MAX_AGE": "0"}, "SESSION_MAX_AGE"),
    ("a trusted proxy that is no address", {"TRUSTED_PROXIES": "caddy"}, "TRUSTED_PROXIES"),
]


def start(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "WEBHOOK_"))}
    base.pop("SESSION_SECRET", None)
    full = {
        **base,
        "TELEGRAM_BOT_TOKEN": TOKEN,
        "SESSION_SECRET": GOOD_SECRET,
        "PORT": str(free_port()),
        "REDIS_URL": "",
        **env,
    }
    return subprocess.run(
        [sys.executable, "-m", "telegram_bot"],
        cwd=ROOT,
        env=full,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def refusals() -> Outcome:
    out = Outcome(
        "misconfiguration_refused",
        f"{len(CASES)} mis-set or missing secrets and limits at start-up",
    )
    answers = {}
    ok = True
    for what, env, variable in CASES:
        done = start(env)
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        named = bool(lines) and variable in lines[-1]
        out.count("refused" if done.returncode != 0 and named else f"exit {done.returncode}")
        answers[what] = lines[-1] if lines else ""
        ok = ok and done.returncode != 0 and named
    out.figures["messages"] = answers
    return out.check(ok, "each refused to start, its one line naming the variable")
