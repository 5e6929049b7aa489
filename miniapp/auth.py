"""Who is calling: Telegram initData, session tokens and local-mode one-time codes.

Telegram signs the Mini App's launch parameters (``initData``) with a key derived from
the bot token; checking that signature is the only way to know which Telegram user opened
the page (``initDataUnsafe`` is just the same data, unchecked). Telegram Desktop may keep
serving the same initData for a day, so a configurable age limit applies, and the page
swaps the initData for a short-lived session token signed with ``SESSION_SECRET`` at
``POST /api/session`` — a header, never a cookie (webviews may drop cookies) and never a URL.

A sign-in has an absolute lifetime (``SESSION_MAX_AGE``, from the Telegram sign-in, i.e.
initData's ``auth_date``): a token refreshes into a new one until then, never beyond, so a
token that leaked stops working within that time whatever its holder does.

Local mode (no bot token) has no Telegram to vouch for anyone: the printed localhost URL
carries a one-time code that the page exchanges for a local session once; local sessions
have no absolute lifetime (one person, one process on localhost).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import secrets
import time
from dataclasses import asdict, dataclass, field
from urllib.parse import parse_qsl

from core.service.usertext import clean_text

SESSION_TTL = 3600
SESSION_MAX_AGE = 7 * 86400
VERIFIED_CACHE = 20_000  # tokens a worker remembers as verified (a few MB at most)
LOCAL_CODE_TTL = 24 * 3600
LOCAL_USER_BASE = 9_000_000_000_000  # far above Telegram's user ids, so never a real user


class AuthError(Exception):
    """Missing, invalid or expired credentials: the HTTP layer answers 401."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True)
class InitData:
    """The checked fields of an initData string that the server uses."""

    user_id: int
    name: str
    language: str | None
    auth_date: int
    start_param: str | None = None
    chat_type: str | None = None
    chat_instance: str | None = None


def _secret_key(bot_token: str) -> bytes:
    return hmac.new(b"WebAppData", bot_token.encode(), hashlib.sha256).digest()


def check_signature(init_data: str, bot_token: str) -> dict[str, str]:
    """Return initData's fields when its ``hash`` is Telegram's signature, else raise.

    The data-check-string is every field but ``hash`` (``signature`` stays in), as
    ``key=value`` lines sorted by key, with the values URL-decoded.
    """
    if not init_data or not bot_token:
        raise AuthError("unauthorized", "missing initData")
    try:
        pairs = parse_qsl(init_data, keep_blank_values=True, strict_parsing=True)
    except ValueError as exc:
        raise AuthError("invalid_init_data", "initData is not a query string") from exc
    fields: dict[str, str] = {}
    for key, value in pairs:
        if key in fields:
            raise AuthError("invalid_init_data", "initData repeats a field")
        fields[key] = value
    received = fields.pop("hash", None)
    if not received:
        raise AuthError("invalid_init_data", "initData has no hash")
    check = "\n".join(f"{k}={fields[k]}" for k in sorted(fields))
    expected = hmac.new(_secret_key(bot_token), check.encode(), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, received.lower()):
        raise AuthError("invalid_init_data", "initData signature does not match")
    return fields


def parse_init_data(fields: dict[str, str]) -> InitData:
    """Extract the user from checked fields (raises when there is no usable user)."""
    try:
        auth_date = int(fields.get("auth_date", ""))
    except ValueError as exc:
        raise AuthError("invalid_init_data", "initData has no auth_date") from exc
    raw_user = fields.get("user")
    if not raw_user:
        raise AuthError("invalid_init_data", "initData has no user")
    try:
        user = json.loads(raw_user)
        user_id = user["id"]
    except (ValueError, KeyError, TypeError, RecursionError) as exc:
        raise AuthError("invalid_init_data", "initData user is malformed") from exc
    if not isinstance(user_id, int) or isinstance(user_id, bool) or user_id <= 0:
        raise AuthError("invalid_init_data", "initData user id is malformed")
    first = clean_text(user.get("first_name")).strip()
    last = clean_text(user.get("last_name")).strip()
    name = " ".join(p for p in (first, last) if p) or clean_text(user.get("username") or user_id)
    language = clean_text(user.get("language_code"))[:16]
    return InitData(
        user_id=user_id,
        name=name[:64],
        language=language or None,
        auth_date=auth_date,
        start_param=fields.get("start_param") or None,
        chat_type=fields.get("chat_type") or None,
        chat_instance=fields.get("chat_instance") or None,
    )


def validate_init_data(
    init_data: str, bot_token: str, max_age: int, now: float | None = None
) -> InitData:
    """Signature, then age: an initData older than ``max_age`` seconds is expired."""
    data = parse_init_data(check_signature(init_data, bot_token))
    now = time.time() if now is None else now
    if now - data.auth_date > max_age:  # (max_age <= 0: everything is expired)
        raise AuthError("expired", "initData is too old; reopen the Mini App")
    if data.auth_date - now > 300:
        raise AuthError("invalid_init_data", "initData is dated in the future")
    return data


def sign_init_data(fields: dict[str, str], bot_token: str) -> str:
    """Build a signed initData string, as Telegram would (tests, load generators)."""
    from urllib.parse import urlencode

    clean = {k: v for k, v in fields.items() if k != "hash"}
    check = "\n".join(f"{k}={clean[k]}" for k in sorted(clean))
    digest = hmac.new(_secret_key(bot_token), check.encode(), hashlib.sha256).hexdigest()
    return urlencode({**clean, "hash": digest})


@dataclass(frozen=True, slots=True)
class Session:
    """What a session token proves: this user, until ``expires_at`` (unix seconds).

    ``auth_at``: when Telegram signed the user in (initData's ``auth_date``), which bounds
    every refresh; 0 in tokens from before lifetimes existed (they refresh no more)."""

    user_id: int
    name: str
    language: str | None
    expires_at: int
    local: bool = False
    start_param: str | None = None
    auth_at: int = 0


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass(slots=True)
class SessionSigner:
    """Stateless HMAC tokens, so any worker holding ``SESSION_SECRET`` accepts them.

    ``ttl``: one token's life; ``max_age``: a sign-in's, however often it is refreshed
    (local sessions excepted)."""

    secret: str
    ttl: int = SESSION_TTL
    max_age: int = SESSION_MAX_AGE
    _key: bytes = field(init=False, repr=False, default=b"")
    _verified: dict[str, Session] = field(init=False, repr=False, default_factory=dict)

    def __post_init__(self) -> None:
        # derived once: every authenticated request checks a MAC with it
        self._key = hashlib.sha256(b"miniapp-session\x00" + self.secret.encode()).digest()

    def _check(self, token: str) -> Session:
        payload, _, mac = token.partition(".")
        if not payload or not mac or not hmac.compare_digest(self._mac(payload), mac):
            raise AuthError("invalid_token", "session token is invalid")
        try:
            data = json.loads(_unb64(payload))
            return Session(**data)
        except (ValueError, TypeError, binascii.Error) as exc:
            raise AuthError("invalid_token", "session token is invalid") from exc

    def _mac(self, payload: str) -> str:
        return _b64(hmac.new(self._key, payload.encode(), hashlib.sha256).digest())

    def issue(
        self,
        user_id: int,
        name: str,
        language: str | None,
        *,
        local: bool = False,
        start_param: str | None = None,
        auth_at: int | None = None,
        now: float | None = None,
    ) -> tuple[str, Session]:
        """A token for a sign-in made at ``auth_at`` (default: now); AuthError ``expired``
        once that sign-in is older than ``max_age`` (never for a local session)."""
        now = time.time() if now is None else now
        signed_in = int(now) if auth_at is None else int(auth_at)
        expires = int(now) + self.ttl
        if not local:
            end = signed_in + self.max_age
            if end <= now:
                raise AuthError("expired", "signed in too long ago; open the Mini App again")
            expires = min(expires, end)
        session = Session(user_id, name, language, expires, local, start_param, signed_in)
        payload = _b64(json.dumps(asdict(session), separators=(",", ":")).encode())
        return f"{payload}.{self._mac(payload)}", session

    def known(self, token: str) -> bool:
        """This worker has verified ``token`` before (a dict lookup: no MAC computed)."""
        return token in self._verified

    def verify(self, token: str, now: float | None = None) -> Session:
        """The session a token proves, or AuthError (forged, malformed, expired).

        A token that verified is remembered (it would verify again: same secret, same
        bytes), so a client's many requests with one token cost a dict lookup instead of
        an HMAC, a base64 and a JSON parse each; the expiry is still checked every time.
        """
        session = self._verified.get(token)
        if session is None:
            session = self._check(token)
            if len(self._verified) >= VERIFIED_CACHE:
                self._verified.clear()  # crude but bounded; a miss only costs a check
            self._verified[token] = session
        now = time.time() if now is None else now
        if session.expires_at < now:
            raise AuthError("expired", "session expired; reload the page")
        return session


@dataclass(frozen=True, slots=True)
class LocalUser:
    user_id: int
    name: str
    language: str | None = None


@dataclass(slots=True)
class LocalCodes:
    """One-time codes for local mode: each opens exactly one session, then is gone; and
    the standing code of the link printed on 127.0.0.1, which opens a session whenever it
    is used while the process runs (closing the tab must not lock its one player out).

    Kept in process memory on purpose: local mode is one process on localhost.
    """

    ttl: int = LOCAL_CODE_TTL
    _codes: dict[str, tuple[LocalUser, float]] = field(default_factory=dict)
    _next_user: int = LOCAL_USER_BASE + 1
    _standing: dict[str, LocalUser] = field(default_factory=dict)

    def new_user(self, name: str = "You", language: str | None = None) -> LocalUser:
        user = LocalUser(self._next_user, name, language)
        self._next_user += 1
        return user

    def issue(self, user: LocalUser, now: float | None = None) -> str:
        now = time.time() if now is None else now
        self._codes = {c: v for c, v in self._codes.items() if v[1] > now}
        code = secrets.token_urlsafe(18)
        self._codes[code] = (user, now + self.ttl)
        return code

    def standing(self, user: LocalUser) -> str:
        """A code valid for the process's lifetime (the printed loopback link's)."""
        code = secrets.token_urlsafe(18)
        self._standing[code] = user
        return code

    def redeem(self, code: str, now: float | None = None) -> LocalUser:
        now = time.time() if now is None else now
        if isinstance(code, str) and code in self._standing:
            return self._standing[code]
        entry = self._codes.pop(code, None) if isinstance(code, str) else None
        if entry is None or entry[1] < now:
            raise AuthError("invalid_code", "this local link was already used or has expired")
        return entry[0]
