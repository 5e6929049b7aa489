"""JSON of stored records (engine state, meta) and of the API's bodies: orjson, with the
standard library behind it.

Why: every commit, load and view goes through here, and orjson is an order of magnitude
faster than the standard library (docs/benchmarks/hotpath.md).
"""

from __future__ import annotations

import json
from typing import Any

import orjson

_OPTIONS = orjson.OPT_NON_STR_KEYS  # {1: x} -> {"1": x}, as json.dumps does


def dumps_compact(data: object) -> bytes:
    """Compact UTF-8 JSON bytes, for stored records and the API's bodies alike: orjson; the
    standard encoder for whatever orjson refuses (an integer beyond 64 bits, nesting deeper
    than 254). Non-ASCII text is written as UTF-8, never as
    ``\\u`` escapes: the same JSON to any reader."""
    try:
        return orjson.dumps(data, option=_OPTIONS)
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()


def loads(raw: str | bytes) -> Any:
    """Parse stored JSON: orjson, the standard parser for what it refuses
    (``NaN``, ``1e400``). orjson reads integers exactly up to 64 bits, which covers all the
    service writes (62-bit seeds, user ids, millisecond times)."""
    try:
        value = orjson.loads(raw)
    except ValueError:
        return json.loads(raw)
    return value
