"""The service's part of a game record: seats, users, settings, version mapping.

It is committed together with the engine state (one record, one version), so a seat's
owner, its computer flag and its timeout count can never disagree with the game.
"""

from __future__ import annotations

import base64
import re
import zlib
from collections import OrderedDict
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from core.service.jsoncodec import dumps_compact, loads
from core.service.models import ChatKey, SeatInfo

# A computer seat's stored name (English, what a client that knows no better shows); views
# add its number as ``computer_no`` so that each reader sees it in their own language.
COMPUTER_NAME = "Computer {n}"
_COMPUTER_NAME_RE = re.compile(r"Computer ([1-9][0-9]{0,2})")


@dataclass(slots=True)
class Seat:
    user_id: int | None
    name: str
    language: str | None = None
    computer: bool = False
    level: str = "normal"
    auto: bool = False  # the computer plays this human's seat (left or timed out)
    left: bool = False
    timeouts: int = 0  # consecutive timeouts
    kicked: bool = False  # removed by the creator or an admin: no taking the seat back

    @property
    def by_computer(self) -> bool:
        return self.computer or self.auto

    @property
    def computer_no(self) -> int | None:
        """n for a computer seat named ``COMPUTER_NAME``; None for anyone else (a human's
        seat the computer plays keeps the human's name)."""
        match = _COMPUTER_NAME_RE.fullmatch(self.name) if self.computer else None
        return int(match.group(1)) if match else None

    def info(self, seat: int) -> SeatInfo:
        return SeatInfo(
            seat,
            self.user_id,
            self.name,
            self.computer,
            self.auto,
            self.left,
            self.language,
            self.kicked,
        )


_SEAT_DEFAULTS: dict[str, object] = {
    "language": None,
    "computer": False,
    "level": "normal",
    "auto": False,
    "left": False,
    "timeouts": 0,
    "kicked": False,
}


@dataclass(slots=True)
class Meta:
    game_id: str
    creator: int
    chat: list[int | None] | None = None  # [chat_id, topic_id]
    edition: str = "classic"
    options: dict[str, object] = field(default_factory=dict)
    max_seats: int = 10
    seats: list[Seat] = field(default_factory=list)
    turn_time: int | None = None  # seconds, None = no limit for humans
    language: str | None = None
    think_delay_s: float = 1.5
    round_pause_s: int = 30
    takeover_after: int = 2
    # how the computer plays: new computer seats, and humans' seats it takes over
    computer_level: str = "normal"
    countdown_s: int | None = None  # lobby auto-start countdown length (None: off)
    open_join: bool = False  # a group's lobby admits anyone, members of the group or not
    autostart_at: int | None = None  # ms: the running countdown's end (enough players)
    idle_until: int | None = None  # ms: the lobby expires then unless something changes
    started: bool = False
    cancelled: bool = False
    expired: bool = False  # cancelled by the lobby's idle timer
    seed: int | None = None
    base: int = 0  # version of the commit that started the game (engine seq 0)
    bumps: list[int] = field(default_factory=list)  # engine seq at each service-only commit
    pause_until: int | None = None  # ms: end of the current round_over pause
    rounds_log: list[dict[str, Any]] = field(default_factory=list)
    created_ms: int = 0
    started_ms: int | None = None
    finished_ms: int | None = None
    # Fields below are stored only when they differ from their default (_OPTIONAL), so a
    # game that does not use them stores the same bytes as before they existed.
    title: str | None = None  # the group's title when the lobby opened ("My games")
    slow: bool = False  # slow mode: turns of hours, the board re-posted at each turn
    kicked: list[int] = field(default_factory=list)  # removed from the lobby: may not rejoin
    paused: bool = False  # by the creator or an admin: no deadline, no computer moves
    paused_left_ms: int | None = None  # the actor's time (or the round pause) left at it
    turn_began_ms: int | None = None  # the current human turn's clock started then...
    turn_began_v: int | None = None  # ...with the commit of this version
    turn_extended: bool = False  # its deadline was extended once (the bot's late prompt)
    rematch: str | None = None  # a finished game: the lobby "play again" opened

    # -------------------------------------------------------------- serialisation
    def to_json(self) -> str:
        return self._json().decode()

    def _json(self) -> bytes:
        """Compact JSON: seat fields at their defaults are left out (bytes per live game).

        Built by hand rather than with ``dataclasses.asdict``, which deep-copies and cost
        more than the rest of a commit.
        """
        data = {
            name: value
            for name in _META_FIELDS
            if (value := getattr(self, name)) != _OPTIONAL.get(name, _ALWAYS)
        }
        data["seats"] = [
            {
                k: v
                for k in _SEAT_FIELDS
                if (v := getattr(seat, k)) != _SEAT_DEFAULTS.get(k, _ALWAYS)
            }
            for seat in self.seats
        ]
        return dumps_compact(data)

    def to_stored(self) -> str:
        """What the store keeps: ``m1:`` + base64(zlib(JSON, preset dictionary)).

        Why: a meta is mostly the same keys and option names as any other game's, so with
        the dictionary it stores in a fraction of its JSON (docs/benchmarks/store.md)."""
        raw = self._json()
        if len(raw) <= PACK_ABOVE:
            return raw.decode()
        stored = _PACKED.get(raw)
        if stored is not None:  # most moves leave the meta as it was: packed before
            return stored
        packer = zlib.compressobj(9, zlib.DEFLATED, 15, 9, zlib.Z_DEFAULT_STRATEGY, META_ZDICT_1)
        packed = packer.compress(raw) + packer.flush()
        stored = "m1:" + base64.b64encode(packed).decode("ascii")
        _remember_packed(raw, stored)
        return stored

    @classmethod
    def from_json(cls, raw: str) -> Meta:
        """Reads ``to_json`` and ``to_stored`` output. Unknown fields are ignored, so a
        worker of the previous release can read a game a newer worker wrote during a
        rolling deploy."""
        if raw.startswith("m1:"):
            unpacker = zlib.decompressobj(15, META_ZDICT_1)
            plain = unpacker.decompress(base64.b64decode(raw[3:])) + unpacker.flush()
            _remember_packed(plain, raw)
            raw = plain.decode()
        data = loads(raw)
        data["seats"] = [
            Seat(**{k: v for k, v in s.items() if k in _SEAT_FIELDS}) for s in data.get("seats", [])
        ]
        return cls(**{k: v for k, v in data.items() if k in _META_FIELDS})

    def copy(self) -> Meta:
        """A deep copy, equal to ``Meta.from_json(self.to_json())`` for a meta that came
        from ``from_json`` (fresh lists and dicts, fresh seats) at a fraction of the cost:
        decisions mutate the meta they are given, and the hot path hands out one per load.
        """
        new = object.__new__(Meta)
        for name in _META_FIELDS:
            value = getattr(self, name)
            object.__setattr__(new, name, _fresh(value) if type(value) in _CONTAINERS else value)
        new.seats = [
            Seat(
                s.user_id,
                s.name,
                s.language,
                s.computer,
                s.level,
                s.auto,
                s.left,
                s.timeouts,
                s.kicked,
            )
            for s in self.seats
        ]
        return new

    # ------------------------------------------------------------------- queries
    @property
    def chat_key(self) -> ChatKey | None:
        if self.chat is None:
            return None
        chat_id, topic_id = self.chat
        assert chat_id is not None
        return ChatKey(chat_id, topic_id)

    def seat_of(self, user_id: int | None) -> int | None:
        """The seat a user holds (a player who left keeps it for take-back)."""
        if user_id is None:
            return None
        for i, seat in enumerate(self.seats):
            if seat.user_id == user_id and not seat.computer:
                return i
        return None

    def level_of(self, seat: int) -> str:
        """The level the computer plays ``seat`` at: a computer seat's own, else (a human's
        seat it took over) the table's."""
        s = self.seats[seat]
        return s.level if s.computer else self.computer_level

    def humans(self) -> list[int]:
        return [s.user_id for s in self.seats if s.user_id is not None and not s.computer]

    def active_humans(self) -> int:
        return sum(1 for s in self.seats if not s.computer and not s.left)

    def version_of_seq(self, seq: int) -> int:
        """Game version of the commit that made engine ``seq`` (CONTRACTS §1)."""
        if not self.bumps:  # the usual case; a view maps up to 50 log entries
            return self.base + seq
        return self.base + seq + sum(1 for b in self.bumps if b < seq)


def _fresh(value: object) -> object:
    """Fresh containers all the way down (what a JSON round trip would give)."""
    if isinstance(value, dict):
        return {k: _fresh(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_fresh(v) for v in value]
    return value


# Packed form by JSON, for the metas this process last read or wrote: a move that leaves
# the meta unchanged (most do) stores the same string again without compressing it anew
# (docs/benchmarks/hotpath.md). Any packed form of the same JSON reads
# back the same, so an entry read from another worker's commit serves as well.
_PACKED: OrderedDict[bytes, str] = OrderedDict()
PACKED_CACHE_SIZE = 2048  # ~1 KB of JSON each: ~2-3 MB per worker at most


def _remember_packed(raw: bytes, stored: str) -> None:
    _PACKED[raw] = stored
    _PACKED.move_to_end(raw)
    if len(_PACKED) > PACKED_CACHE_SIZE:
        _PACKED.popitem(last=False)


_CONTAINERS = (dict, list)
_ALWAYS = object()
PACK_ABOVE = 128  # bytes of meta JSON
# Preset zlib dictionary: two sample metas. Stored metas depend on these exact bytes: never
# edit the file; a better dictionary is a new file and a new prefix ("m2:").
META_ZDICT_1 = Path(__file__).with_name("meta_zdict_1.json").read_bytes()
_META_FIELDS = tuple(f.name for f in fields(Meta))
_SEAT_FIELDS = tuple(f.name for f in fields(Seat))
_OPTIONAL: dict[str, object] = {
    f.name: f.default_factory() if callable(f.default_factory) else f.default
    for f in fields(Meta)
    if f.name in _META_FIELDS[_META_FIELDS.index("title") :]
}
