"""Hand-made hostile requests: forged credentials, malformed bodies, wrong moves.

Every case is a request plus what the answer must be: forgeries exactly 401, everything
else some 4xx (never a 5xx, never a 2xx for a move that is not legal). Cases are built
from a seeded ``random.Random`` so a failing run can be repeated with the same seed.
"""

from __future__ import annotations

import base64
import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlencode

from miniapp.auth import SessionSigner
from tests.load.client import init_data
from tests.load.harness import SESSION_SECRET

FOREIGN_BOT_TOKEN = "5555555555:another-bot-entirely"


@dataclass(frozen=True, slots=True)
class Case:
    kind: str
    method: str
    path: str  # may contain {game}
    headers: dict[str, str]
    raw: bytes | None = None
    expect: str = "4xx"  # "401" | "4xx" | "not5xx"


# ------------------------------------------------------------------ credentials


def _resign_free(fields: dict[str, str]) -> str:
    return urlencode(fields)


def forged_init_data(rng: random.Random, user_id: int) -> list[tuple[str, str]]:
    """(name, initData) pairs that must all be refused with 401."""
    good = init_data(user_id, "Eve")
    fields = dict(parse_qsl(good, keep_blank_values=True))
    out: list[tuple[str, str]] = []
    flipped = dict(fields)
    h = flipped["hash"]
    i = rng.randrange(len(h))
    flipped["hash"] = h[:i] + ("0" if h[i] != "0" else "1") + h[i + 1 :]
    out.append(("wrong_hash", _resign_free(flipped)))
    other_user = dict(fields)
    other_user["user"] = json.dumps({"id": user_id + 1, "first_name": "Eve"}, separators=(",", ":"))
    out.append(("user_swapped_after_signing", _resign_free(other_user)))
    out.append(("foreign_bot", init_data(user_id, "Eve", token=FOREIGN_BOT_TOKEN)))
    out.append(("expired", init_data(user_id, "Eve", auth_date=int(time.time()) - 86400 - 60)))
    out.append(("from_the_future", init_data(user_id, "Eve", auth_date=int(time.time()) + 3600)))
    replay = dict(fields)
    replay["start_param"] = "jSOMEGAME"
    out.append(("replayed_with_added_field", _resign_free(replay)))
    old = init_data(user_id, "Eve", auth_date=int(time.time()) - 3 * 86400)
    out.append(("replayed_old_capture", old))
    no_hash = {k: v for k, v in fields.items() if k != "hash"}
    out.append(("no_hash", _resign_free(no_hash)))
    out.append(("duplicated_field", good + "&auth_date=1"))
    out.append(("garbage", "".join(rng.choice("%&=+;?# abc") for _ in range(40))))
    out.append(("empty_hash", _resign_free({**fields, "hash": ""})))
    out.append(("user_not_json", urlencode({**no_hash, "user": "{not json"})))
    return out


def forged_tokens(rng: random.Random, user_id: int) -> list[tuple[str, str]]:
    signer = SessionSigner(SESSION_SECRET)
    good, _ = signer.issue(user_id, "Eve", "en")
    payload, _, mac = good.partition(".")
    data = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    data["user_id"] = user_id + 1
    swapped = base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()
    expired, _ = signer.issue(user_id, "Eve", "en", now=time.time() - 7200)
    foreign, _ = SessionSigner("some-other-secret").issue(user_id, "Eve", "en")
    return [
        ("token_payload_swapped", f"{swapped}.{mac}"),
        ("token_expired", expired),
        ("token_foreign_secret", foreign),
        ("token_random", base64.urlsafe_b64encode(rng.randbytes(40)).decode()),
        ("token_no_mac", payload),
        ("token_dots", "...."),
    ]


def surrogate_cases(user_id: int) -> list[Case]:
    """Valid sign-ins whose names are lone surrogates (a JSON escape Telegram's signature
    covers), and bodies carrying them: never a 5xx (they once were: a name that no UTF-8
    encoder accepts broke every answer about its game)."""
    from miniapp.auth import sign_init_data
    from tests.load.harness import BOT_TOKEN

    user = json.dumps({"id": user_id, "first_name": "\ud800", "last_name": "x\udfff"})
    signed = sign_init_data({"auth_date": str(int(time.time())), "user": user}, BOT_TOKEN)
    h = {"Authorization": f"tma {signed}", "Content-Type": "application/json"}
    return [
        Case("surrogate:session", "POST", "/api/session", h, b"{}", "not5xx"),
        Case("surrogate:create", "POST", "/api/games", h, b'{"edition": "\\ud800"}', "4xx"),
        Case("surrogate:options", "POST", "/api/games", h, b'{"options": {"\\udfff": 1}}', "4xx"),
        Case("surrogate:join", "POST", "/api/games/{game}/join", h, b"{}", "not5xx"),
        Case("surrogate:view", "GET", "/api/games/{game}", h, None, "not5xx"),
    ]


def forgery_cases(rng: random.Random, user_id: int) -> list[Case]:
    """Each forged credential against the session, a game view and a move: all 401."""
    cases = []
    headers = [(n, f"tma {v}") for n, v in forged_init_data(rng, user_id)]
    headers += [(n, f"Bearer {v}") for n, v in forged_tokens(rng, user_id)]
    headers += [
        ("basic_scheme", "Basic ZXZlOmV2ZQ=="),
        ("tma_empty", "tma "),
        ("bearer_empty", "Bearer "),
    ]
    move = json.dumps({"version": 1, "move": {"type": "discard", "cards": ["x"]}}).encode()
    for name, header in headers:
        h = {"Authorization": header, "Content-Type": "application/json"}
        cases.append(Case(f"forgery:{name}", "POST", "/api/session", h, b"{}", "401"))
        cases.append(Case(f"forgery:{name}", "GET", "/api/games/{game}", h, None, "401"))
        cases.append(Case(f"forgery:{name}", "POST", "/api/games/{game}/moves", h, move, "401"))
        cases.append(Case(f"forgery:{name}", "POST", "/api/games", h, b"{}", "401"))
    return cases


# ------------------------------------------------------------------ bodies

JUNK: list[Callable[[random.Random], Any]] = [
    lambda r: None,
    lambda r: True,
    lambda r: r.randint(-(2**70), 2**70),
    lambda r: 10**400,
    lambda r: r.random() * 1e9,
    lambda r: "",
    lambda r: "x" * r.randint(1, 2000),
    lambda r: "\u0000\ud7ff\u202e",
    lambda r: [],
    lambda r: [r.randint(0, 9)] * r.randint(1, 50),
    lambda r: {},
    lambda r: {"$gt": ""},
    lambda r: -1,
    lambda r: 0,
    lambda r: 1.5,
    lambda r: "0",
    lambda r: ["../../etc/passwd"],
]


def junk(rng: random.Random) -> Any:
    return rng.choice(JUNK)(rng)


def deep(levels: int, kind: str = "[") -> bytes:
    if kind == "[":
        return b"[" * levels + b"]" * levels
    return b'{"a":' * levels + b"1" + b"}" * levels


# deeply nested JSON: Python's json raises RecursionError, which read_json does not catch
DEEP_KINDS = frozenset({"deep_array", "deep_object", "deep_in_move", "deep_create"})


def body_cases(rng: random.Random) -> list[tuple[str, str, bytes, str]]:
    """(kind, path, body, expect) for a seated player's token."""
    nested_move = b'{"version":1,"move":' + deep(3000, "{") + b"}"
    return [
        ("huge_body", "/api/games/{game}/moves", b'{"pad":"' + b"x" * 300_000 + b'"}', "4xx"),
        ("deep_array", "/api/games/{game}/moves", deep(7000), "4xx"),
        ("deep_object", "/api/games/{game}/moves", deep(2500, "{"), "4xx"),
        ("deep_in_move", "/api/games/{game}/moves", nested_move, "4xx"),
        ("deep_create", "/api/games", b'{"options":' + deep(3000, "{") + b"}", "4xx"),
        ("not_json", "/api/games/{game}/moves", b"version=1&move=discard", "4xx"),
        ("invalid_utf8", "/api/games/{game}/moves", b'{"version":1,"move":"\xff\xfe"}', "4xx"),
        ("nan", "/api/games/{game}/moves", b'{"version":NaN,"move":{"type":"discard"}}', "4xx"),
        ("json_array", "/api/games/{game}/moves", b"[1,2,3]", "4xx"),
        ("json_string", "/api/games/{game}/moves", b'"move"', "4xx"),
        ("empty", "/api/games/{game}/moves", b"", "4xx"),
        (
            "duplicate_keys",
            "/api/games/{game}/moves",
            b'{"version":1,"version":"x","move":{"type":"discard","cards":[]}}',
            "4xx",
        ),
        ("create_bad_seats", "/api/games", json.dumps({"seats": junk(rng)}).encode(), "not5xx"),
        (
            "create_bad_options",
            "/api/games",
            json.dumps({"edition": "classic", "options": {junk_key(rng): junk(rng)}}).encode(),
            "not5xx",
        ),
        ("create_bad_edition", "/api/games", json.dumps({"edition": junk(rng)}).encode(), "not5xx"),
        (
            "create_bad_computers",
            "/api/games",
            json.dumps({"seats": 3, "computer_seats": junk(rng), "level": junk(rng)}).encode(),
            "not5xx",
        ),
    ]


def junk_key(rng: random.Random) -> str:
    return rng.choice(
        [
            "rounds",
            "gold_per_digger",
            "old_mine",
            "bounded_board",
            "x" * 300,
            "",
            "__proto__",
            "competitive",
            "max_saboteurs",
        ]
    )


def mutate_move(rng: random.Random, move: dict[str, Any]) -> dict[str, Any]:
    """A legal move with one to three fields replaced, removed or added."""
    out = dict(move)
    for _ in range(rng.randint(1, 3)):
        action = rng.random()
        keys = list(out)
        if action < 0.5 and keys:
            out[rng.choice(keys)] = junk(rng)
        elif action < 0.7 and keys:
            out.pop(rng.choice(keys))
        elif action < 0.85:
            out[
                rng.choice(
                    [
                        "card",
                        "x",
                        "y",
                        "rotated",
                        "target_seat",
                        "tool",
                        "goal",
                        "cards",
                        "remove",
                        "seat",
                        "timeout",
                    ]
                )
            ] = junk(rng)
        else:
            out["type"] = rng.choice(
                [
                    "timeout",
                    "apply_timeout",
                    "take_seat_back",
                    "next_round",
                    "steal",
                    "PLACE_PATH",
                    "",
                    "discard",
                ]
            )
    return out
