"""How the service stores a game: ids, the engine state encoding, loaded records, plans."""

from __future__ import annotations

import base64
import secrets
import zlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core import engine
from core.service.jsoncodec import dumps_compact, loads
from core.service.meta import Meta
from core.service.models import (
    TurnWarning,
)
from core.store import Deadline, Keep

WarningHandler = Callable[[TurnWarning], Awaitable[None]]

MAX_ATTEMPTS = 8
STATE_CACHE_SIZE = 1024  # decoded states kept per worker (a load test drives ~1,000 games)
TOUCH_EVERY_MS = 30_000  # presence (online window 120 s) is rewritten at most this often
CLOSE_OUT_REPAIR_MS = 1_000  # a game that ended: its clean-up is redone after this if lost


def new_game_id() -> str:
    """12 characters of ``[A-Za-z0-9_-]``: 72 random bits, fits a deep link."""
    return secrets.token_urlsafe(9)


COMPRESS_ABOVE = 256  # bytes of state JSON; below this zlib+base64 saves nothing

# Preset zlib dictionary: two sample game states (a classic and an expansion game). A
# state shares most of its keys, option names, role names and log patterns with any other,
# so deflate can refer back to the sample instead of spelling them out: a mid-game state
# stores in ~60 % of the bytes plain zlib needs. Stored states depend on these exact bytes:
# never edit the file; a better dictionary is a new file and a new prefix ("z2:").
STATE_ZDICT_1 = Path(__file__).with_name("state_zdict_1.json").read_bytes()


def encode_state(state: engine.GameState) -> str:
    """Engine state as stored: JSON, or ``z1:`` + base64(zlib(JSON, preset dictionary)).

    Why: the state carries the game's public log and grows through a game; compressed it
    is about a quarter of the JSON, which keeps a live game within the memory budget
    (docs/benchmarks/store.md). Memory level 8 (zlib's default) compresses these few KB
    as well as 9 for less CPU: a smaller hash table to set up per state.
    """
    raw = dumps_compact(engine.state_to_json(state))
    if len(raw) <= COMPRESS_ABOVE:
        return raw.decode()
    packer = zlib.compressobj(9, zlib.DEFLATED, 15, 8, zlib.Z_DEFAULT_STRATEGY, STATE_ZDICT_1)
    packed = packer.compress(raw) + packer.flush()
    return "z1:" + base64.b64encode(packed).decode("ascii")


def decode_state(stored: str) -> engine.GameState:
    """Reads every stored form: ``z1:`` (dictionary), ``z:`` (plain zlib, older), JSON."""
    if stored.startswith("z1:"):
        unpacker = zlib.decompressobj(15, STATE_ZDICT_1)
        stored = (unpacker.decompress(base64.b64decode(stored[3:])) + unpacker.flush()).decode()
    elif stored.startswith("z:"):
        stored = zlib.decompress(base64.b64decode(stored[2:])).decode()
    return engine.state_from_json(loads(stored))


@dataclass(slots=True)
class Loaded:
    """One game as read in one round trip, decoded."""

    game_id: str
    version: int
    meta: Meta
    state: Any | None  # engine GameState; None in the lobby
    state_json: str
    deadline_ms: int | None
    presence: dict[str, int]
    # over (cancelled or finished) as stored: decisions change ``meta`` in place, so after
    # one, only this still says what the game was before the commit
    over: bool = False


def is_over(meta: Meta, state: Any | None) -> bool:
    """Cancelled (or expired), or finished: nothing more happens in this game."""
    return meta.cancelled or (state is not None and engine.phase(state) == "finished")


@dataclass(slots=True)
class Plan:
    """What a decision wants committed."""

    meta: Meta
    state: Any | None
    log: list[dict[str, Any]]
    deadline: Deadline | Keep | None
    state_changed: bool = True
    present: int | None = None  # user id to mark online in the same commit
