"""initData validation against Telegram's known answers, sessions and local codes."""

from __future__ import annotations

import json
import time
from pathlib import Path
from urllib.parse import parse_qsl, urlencode

import pytest

from miniapp.auth import (
    AuthError,
    LocalCodes,
    SessionSigner,
    check_signature,
    sign_init_data,
    validate_init_data,
)

VECTORS = json.loads((Path(__file__).parent / "initdata_vectors.json").read_text())["valid"]


@pytest.mark.parametrize("vector", VECTORS, ids=lambda v: str(v["user_id"]))
def test_known_answer_signature(vector: dict) -> None:
    fields = check_signature(vector["init_data"], vector["bot_token"])
    assert json.loads(fields["user"])["id"] == vector["user_id"]
    # the vectors are old: signature passes, age fails, separately
    with pytest.raises(AuthError) as err:
        validate_init_data(vector["init_data"], vector["bot_token"], max_age=86400)
    assert err.value.code == "expired"
    signed = int(fields["auth_date"])
    data = validate_init_data(vector["init_data"], vector["bot_token"], 86400, now=signed + 60)
    assert data.user_id == vector["user_id"]
    # an age limit of 0 (or less) expires everything: it never switches the check off
    with pytest.raises(AuthError) as err:
        validate_init_data(vector["init_data"], vector["bot_token"], 0, now=signed + 1)
    assert err.value.code == "expired"


@pytest.mark.parametrize("vector", VECTORS, ids=lambda v: str(v["user_id"]))
def test_known_answer_rejects_wrong_token_and_tampering(vector: dict) -> None:
    with pytest.raises(AuthError):
        check_signature(vector["init_data"], vector["bot_token"] + "x")
    pairs = parse_qsl(vector["init_data"])
    tampered = urlencode([(k, v + "1" if k == "auth_date" else v) for k, v in pairs])
    with pytest.raises(AuthError) as err:
        check_signature(tampered, vector["bot_token"])
    assert err.value.code == "invalid_init_data"


def test_signature_field_is_kept_in_check_string() -> None:
    token = "123:ABC"
    now = int(time.time())
    fields = {
        "auth_date": str(now),
        "user": json.dumps({"id": 7, "first_name": "A"}),
        "signature": "abc",
    }
    signed = sign_init_data(fields, token)
    assert validate_init_data(signed, token, 86400).user_id == 7
    without = urlencode([(k, v) for k, v in parse_qsl(signed) if k != "signature"])
    with pytest.raises(AuthError):
        check_signature(without, token)


def test_missing_user_and_garbage() -> None:
    token = "1:T"
    signed = sign_init_data({"auth_date": str(int(time.time()))}, token)
    with pytest.raises(AuthError, match="no user"):
        validate_init_data(signed, token, 86400)
    for bad in ["", "%%%", "a=1&a=2&hash=00", "user=1"]:
        with pytest.raises(AuthError):
            validate_init_data(bad, token, 86400)


def test_start_param_and_language() -> None:
    token = "1:T"
    user = {"id": 5, "first_name": "李", "last_name": "雷", "language_code": "zh-hans"}
    signed = sign_init_data(
        {
            "auth_date": str(int(time.time())),
            "user": json.dumps(user),
            "start_param": "g_abc",
            "chat_type": "group",
        },
        token,
    )
    data = validate_init_data(signed, token, 86400)
    assert (data.name, data.language, data.start_param, data.chat_type) == (
        "李 雷",
        "zh-hans",
        "g_abc",
        "group",
    )


def test_session_tokens() -> None:
    signer = SessionSigner("secret", ttl=60)
    token, session = signer.issue(5, "Ann", "en", now=1000)
    assert signer.verify(token, now=1030) == session
    with pytest.raises(AuthError) as err:
        signer.verify(token, now=1061)
    assert err.value.code == "expired"
    with pytest.raises(AuthError):
        SessionSigner("other").verify(token, now=1030)
    payload, mac = token.split(".")
    with pytest.raises(AuthError):
        signer.verify(payload[:-2] + "AA." + mac, now=1030)
    with pytest.raises(AuthError):
        signer.verify("garbage", now=1030)


def test_local_codes_are_one_time() -> None:
    codes = LocalCodes(ttl=10)
    user = codes.new_user("You")
    code = codes.issue(user, now=0)
    assert codes.redeem(code, now=5) == user
    with pytest.raises(AuthError):
        codes.redeem(code, now=5)
    late = codes.issue(user, now=0)
    with pytest.raises(AuthError):
        codes.redeem(late, now=11)
