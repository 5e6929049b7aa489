"""The edges, piece by piece: settings that refuse to run open, the client-address rule,
sign-in lifetimes, the webhook's answers, and the deployment files that close the rest.
(tests/security/test_attacks.py tries the same against real processes.)"""

from __future__ import annotations

import ipaddress
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from aiohttp import web

from core.settings import Settings
from miniapp.auth import AuthError, SessionSigner
from miniapp.ratelimit import Limiter, TokenBucket
from telegram_bot.main import check_settings

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "1:T"
SECRET = "a-session-secret-long-enough"
HOOK = "https://x.example/hook"


# ------------------------------------------------------------------------ settings


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({"TELEGRAM_BOT_TOKEN": TOKEN}, "SESSION_SECRET"),
        ({"TELEGRAM_BOT_TOKEN": TOKEN, "SESSION_SECRET": "short"}, "SESSION_SECRET"),
        (
            {"TELEGRAM_BOT_TOKEN": TOKEN, "SESSION_SECRET": SECRET, "WEBHOOK_URL": HOOK},
            "WEBHOOK_SECRET",
        ),
        (
            {
                "TELEGRAM_BOT_TOKEN": TOKEN,
                "SESSION_SECRET": SECRET,
                "WEBHOOK_URL": HOOK,
                "WEBHOOK_SECRET": "x" * 15,
            },
            "WEBHOOK_SECRET",
        ),
        (
            {
                "TELEGRAM_BOT_TOKEN": TOKEN,
                "SESSION_SECRET": SECRET,
                "WEBHOOK_URL": HOOK,
                "WEBHOOK_SECRET": "ä" * 20,
            },
            "WEBHOOK_SECRET",
        ),
        ({"WEBHOOK_SECRET": "x" * 257}, "WEBHOOK_SECRET"),
        ({"INITDATA_MAX_AGE": "0"}, "INITDATA_MAX_AGE"),
        ({"INITDATA_MAX_AGE": "-1"}, "INITDATA_MAX_AGE"),
        ({"SESSION_MAX_AGE": "0"}, "SESSION_MAX_AGE"),
        ({"TRUSTED_PROXIES": "10.0.0.1, caddy"}, "TRUSTED_PROXIES"),
    ],
)
def test_settings_refuse_to_run_open(env: dict[str, str], named: str) -> None:
    with pytest.raises(ValueError, match=named):
        Settings.from_env(env)


def test_settings_that_are_fine() -> None:
    assert Settings.from_env({}).local_mode  # local mode: nothing to configure
    api_only = {"TELEGRAM_BOT_TOKEN": TOKEN, "SESSION_SECRET": SECRET, "API_ONLY": "1"}
    assert Settings.from_env({**api_only, "WEBHOOK_URL": HOOK}).webhook_secret is None
    hook = {"TELEGRAM_BOT_TOKEN": TOKEN, "SESSION_SECRET": SECRET, "WEBHOOK_URL": HOOK}
    settings = Settings.from_env({**hook, "WEBHOOK_SECRET": "Abc_-" * 4})
    assert settings.webhook_secret == "Abc_-" * 4 and settings.session_secret == SECRET
    proxies = Settings.from_env({"TRUSTED_PROXIES": "172.30.86.10, 10.1.0.0/16"})
    assert proxies.trusted_proxies == ("172.30.86.10/32", "10.1.0.0/16")
    # a Settings made in code is checked at start-up too
    problems = check_settings(Settings(telegram_bot_token=TOKEN, webhook_url=HOOK))
    assert any("WEBHOOK_SECRET" in p for p in problems)
    assert any("INITDATA_MAX_AGE" in p for p in check_settings(Settings(initdata_max_age=0)))


# ------------------------------------------------------------------- client address


class Peer:
    def __init__(self, remote: str, headers: dict[str, str]) -> None:
        self.remote = remote
        self.headers = _Headers(headers)


class _Headers(dict[str, str]):
    def getall(self, name: str, default: Any) -> list[str]:
        return [self[name]] if name in self else default


@pytest.mark.parametrize(
    ("peer", "forwarded", "address"),
    [
        ("203.0.113.9", None, "203.0.113.9"),
        ("203.0.113.9", "1.2.3.4", "203.0.113.9"),  # an untrusted peer's header is ignored
        ("172.30.86.10", "198.51.100.7", "198.51.100.7"),  # the proxy names the client
        ("172.30.86.10", "6.6.6.6, 198.51.100.7", "198.51.100.7"),  # a forged hop before it
        ("172.30.86.10", "198.51.100.7, 10.1.2.3", "198.51.100.7"),  # proxies skipped
        ("172.30.86.10", "not-an-address", "172.30.86.10"),  # garbage: the proxy's own
        ("172.30.86.10", None, "172.30.86.10"),
        ("10.1.9.9", "2001:db8::1", "2001:db8::1"),
    ],
)
def test_the_client_address(peer: str, forwarded: str | None, address: str) -> None:
    limiter = Limiter(trusted_proxies=("172.30.86.10", "10.1.0.0/16"))
    headers = {} if forwarded is None else {"X-Forwarded-For": forwarded}
    assert limiter.client_address(Peer(peer, headers)) == address  # type: ignore[arg-type]


def test_no_trusted_proxy_means_no_header_is_believed() -> None:
    limiter = Limiter()
    assert limiter.client_address(Peer("127.0.0.1", {"X-Forwarded-For": "1.1.1.1"})) == (  # type: ignore[arg-type]
        "127.0.0.1"
    )


def test_a_bucket_is_asked_without_spending() -> None:
    bucket = TokenBucket(burst=2, rate=1)
    assert bucket.wait("a", now=0) == 0
    assert bucket.take("a", now=0) == 0 and bucket.take("a", now=0) == 0
    assert bucket.wait("a", now=0) == pytest.approx(1.0)
    assert bucket.wait("a", now=0.5) == pytest.approx(0.5)  # asking spent nothing
    assert bucket.take("a", now=1.0) == 0


# ------------------------------------------------------------------ sign-in lifetime


def test_a_sign_in_refreshes_until_its_lifetime_only() -> None:
    signer = SessionSigner("s" * 20, ttl=3600, max_age=100)
    _, session = signer.issue(1, "Ann", "en", auth_at=1000, now=1000)
    assert session.expires_at == 1100  # never beyond the sign-in's lifetime
    again, renewed = signer.issue(1, "Ann", "en", auth_at=session.auth_at, now=1090)
    assert renewed.expires_at == 1100 and renewed.auth_at == 1000
    with pytest.raises(AuthError) as late:
        signer.issue(1, "Ann", "en", auth_at=session.auth_at, now=1100)
    assert late.value.code == "expired"
    with pytest.raises(AuthError):
        signer.verify(again, now=1101)


def test_local_sessions_have_no_lifetime() -> None:
    signer = SessionSigner("s" * 20, ttl=3600, max_age=100)
    _, session = signer.issue(9, "You", None, local=True, auth_at=0, now=10**9)
    assert session.expires_at == 10**9 + 3600


def test_tokens_from_before_lifetimes_refresh_no_more() -> None:
    """A token minted before ``auth_at`` existed carries 0: its refresh is refused (the
    page signs in again with initData) rather than living for ever."""
    signer = SessionSigner("s" * 20)
    with pytest.raises(AuthError):
        signer.issue(1, "Ann", "en", auth_at=0, now=10**9)


# ------------------------------------------------------------------------ webhook


async def test_a_webhook_without_a_secret_accepts_nothing(aiohttp_client: Any) -> None:
    from telegram_bot.app import webhook_route

    app = web.Application()
    app.router.add_post("/hook", webhook_route(None, None))  # type: ignore[arg-type]
    client = await aiohttp_client(app)
    for secret in ("", "anything"):
        r = await client.post(
            "/hook", json={"update_id": 1}, headers={"X-Telegram-Bot-Api-Secret-Token": secret}
        )
        assert r.status == 403
    r = await client.post("/hook", json={"update_id": 1})
    assert r.status == 403 and (await r.json())["error"]["code"] == "forbidden"


# -------------------------------------------------------------------- deployment


def compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    return data


def test_compose_trusts_the_proxy_and_only_it() -> None:
    services = compose()["services"]
    proxy_ip = services["proxy"]["networks"]["default"]["ipv4_address"]
    assert services["app"]["environment"]["TRUSTED_PROXIES"] == proxy_ip
    (subnet,) = (c["subnet"] for c in compose()["networks"]["default"]["ipam"]["config"])
    assert ipaddress.ip_address(proxy_ip) in ipaddress.ip_network(subnet)


def test_compose_redis_requires_the_password_everywhere() -> None:
    services = compose()["services"]
    redis = services["redis"]
    assert redis["environment"]["REDISCLI_AUTH"].startswith("${REDIS_PASSWORD:?")
    assert '--requirepass "$$REDISCLI_AUTH"' in " ".join(redis["command"])
    assert "redis-cli ping" in " ".join(redis["healthcheck"]["test"])  # reads REDISCLI_AUTH
    assert services["app"]["environment"]["REDIS_URL"].startswith("redis://:${REDIS_PASSWORD:?")


def test_redis_has_a_ceiling_and_never_evicts() -> None:
    conf = (ROOT / "deploy/redis.conf").read_text()
    assert re.search(r"^maxmemory \d+[kmg]b$", conf, re.M)
    assert re.search(r"^maxmemory-policy noeviction$", conf, re.M)
    readme = (ROOT / "README.md").read_text()
    assert "### Sizing Redis" in readme and "ARCHIVE_RETENTION_DAYS) × 1.5" in readme


def test_caddy_drops_unsigned_posts_and_slow_clients() -> None:
    text = (ROOT / "deploy/Caddyfile").read_text()
    assert re.search(r"timeouts \{\s+read_header 10s\s+read_body 30s", text)
    unsigned = text[text.index("@unsigned_post {") :]
    assert "not header X-Telegram-Bot-Api-Secret-Token *" in unsigned
    handled = unsigned[unsigned.index("handle @unsigned_post {") :].split("\n\t}\n")[0]
    assert re.search(r"respond `.*` 403$", handled, re.M), handled
    assert text.count("keepalive 20s") == 2  # the app's idle timeout (30 s) is longer
