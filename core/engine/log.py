"""The public log kept inside the state, in its stored form and its dict form, each lazily.

Why: the service loads the state JSON, applies one move and stores the JSON again on every
move, and the log is the biggest part of the state.  Re-encoding and re-decoding every
entry on each move was about half of that work.  A `Log` therefore keeps

- `_enc`: a prefix of the entries exactly as `state_to_json` writes them (positional lists
  with the seq as the step from the previous entry, or plain dicts), shared between states;
- `_tail`: the dict entries appended after that prefix (not encoded yet);
- `_dec`: every entry as a dict, built on first use and then kept.

`state_from_json` keeps the stored entries as they are (nothing decoded), a move appends
its events to the tail, and `state_to_json` encodes only the tail (a copy of the prefix
otherwise).  A view needs the last 50 entries only, so slices from the end decode only
those.  Encoded entries and the lists inside them are shared: treat them as read-only.
Equality compares the encoded form, which is canonical (one encoding per entry).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, cast, overload

from .cards import CARD_INDEX, CARD_LIST
from .moveset import LOG_FIELDS
from .shapes import EventDict

Entry = EventDict

# Log entries are stored positionally: [seq step, seat, code number, *fields], the code
# numbers and fields as the move declarations give them (moveset.LOG_FIELDS); an entry whose
# keys differ from its code's schema (e.g. a timeout flag) is stored as a plain dict.
CODES = tuple(LOG_FIELDS)
CODE_NO = {c: i for i, c in enumerate(CODES)}
CARD_FIELDS = ("card", "removed")
BOOL_FIELDS = ("rotated",)
# per code: (code number, entry length, ((field, 0 plain | 1 card | 2 bool), ...))
_ENC = {
    c: (
        CODE_NO[c],
        3 + len(fs),
        tuple((f, 1 if f in CARD_FIELDS else 2 if f in BOOL_FIELDS else 0) for f in fs),
    )
    for c, fs in LOG_FIELDS.items()
}


def _compile(c: str) -> tuple[Any, Any]:
    """An encoder and a decoder for one code, written out as straight-line code (no loop
    over the fields, no per-field test): a view decodes 50 entries, a move encodes one."""
    no, _, spec = _ENC[c]
    enc = [f"[e['seq'] - prev, e['seat'], {no}"]
    dec = [f"{{'seq': x[0] + prev, 'seat': x[1], 'code': {str(c)!r}"]
    for i, (f, how) in enumerate(spec, start=3):
        enc.append(("e[%r]", "_IDX[e[%r]]", "int(e[%r])")[how] % f)
        dec.append(f"{f!r}: " + ("x[%d]", "_CARDS[x[%d]]", "bool(x[%d])")[how] % i)
    ns: dict[str, object] = {"_IDX": CARD_INDEX, "_CARDS": tuple(card.id for card in CARD_LIST)}
    exec(f"def enc(e, prev): return {', '.join(enc)}]", ns)
    exec(f"def dec(x, prev): return {', '.join(dec)}}}", ns)
    return ns["enc"], ns["dec"]


_CODECS = {c: _compile(c) for c in CODES}
_DECODERS = tuple((_ENC[c][1], _CODECS[c][1]) for c in CODES)


# per code number: the positions of the card fields in a positional entry
CARD_SLOTS = tuple(
    tuple(i for i, (_, how) in enumerate(_ENC[c][2], start=3) if how == 1) for c in CODES
)


def renumber(items: Sequence[Any], number: Callable[[int], int]) -> list[Any]:
    """Stored entries with the card numbers of positional entries mapped by `number`
    (from one catalogue's numbering to another's); dict entries name cards by id."""
    out: list[object] = []
    slots = CARD_SLOTS
    for x in items:
        if not isinstance(x, dict):
            card_slots = slots[x[2]]
            if card_slots:
                x = list(x)
                for i in card_slots:
                    x[i] = number(x[i])
        out.append(x)
    return out


def enc_entry(e: Entry, prev: int) -> object:
    """One entry as stored; a positional entry's seq is the step from `prev`."""
    code = e.get("code")
    spec = _ENC.get(code) if isinstance(code, str) else None
    if spec is None or len(e) != spec[1] or any(f not in e for f, _ in spec[2]):
        return e
    assert isinstance(code, str)
    return _CODECS[code][0](e, prev)


def _dec_all(
    items: Sequence[Any], prev: int, copy: Callable[[Entry], Entry] | None = None
) -> list[Entry]:
    """Decode stored entries in order; `copy` is applied to the entries
    stored as dicts, so that with it every returned dict is new."""
    out: list[Entry] = []
    decoders = _DECODERS
    for x in items:
        if isinstance(x, dict):
            stored = cast(Entry, x)  # a dict entry is stored as the entry itself
            e = stored if copy is None else copy(stored)
        else:
            size, dec = decoders[x[2]]
            if len(x) != size:
                raise ValueError(f"log entry {x!r}: {size} items expected")
            e = dec(x, prev)
        prev = e["seq"]
        out.append(e)
    return out


def _seq_before(enc: Sequence[Any], i: int) -> int:
    """The seq of entry i-1 (0 before the first), walking back to the nearest dict entry."""
    step = 0
    j = i - 1
    while j >= 0:
        x = enc[j]
        if isinstance(x, dict):
            return int(x["seq"]) + step
        step += x[0]
        j -= 1
    return step


class Log(Sequence[Entry]):
    """An immutable sequence of public log entries (dicts); see the module docstring."""

    __slots__ = ("_dec", "_enc", "_last", "_tail")

    def __init__(
        self,
        enc: tuple[object, ...] = (),
        tail: tuple[Entry, ...] = (),
        last: int | None = None,
        dec: tuple[Entry, ...] | None = None,
    ) -> None:
        self._enc = enc
        self._tail = tail
        # seq of the last entry of `enc` (None: not known yet)
        self._last = 0 if not enc else last
        self._dec = dec if dec is not None else (tail if not enc else None)

    @classmethod
    def of(cls, entries: Iterable[Entry]) -> Log:
        return cls((), tuple(entries))

    @classmethod
    def from_json(cls, items: Sequence[object]) -> Log:
        """The stored entries, kept encoded (they are decoded only when read)."""
        return cls(tuple(items))

    # ------------------------------------------------------------------ growing
    def extend(self, events: Iterable[Entry]) -> Log:
        """A new log with `events` appended (this one is unchanged)."""
        ev = tuple(events)
        dec = self._dec
        return Log(
            self._enc,
            self._tail + ev,
            self._last,
            dec + ev if dec is not None and self._enc else None,
        )

    # ------------------------------------------------------------------ forms
    def to_json(self) -> list[object]:
        """The entries as stored: the encoded prefix plus the tail, encoded once."""
        if self._tail:
            prev = self._last_seq()
            enc = list(self._enc)
            for e in self._tail:
                enc.append(enc_entry(e, prev))
                prev = e["seq"]
            # derived form only: the entries stay the same
            self._enc = tuple(enc)
            self._last = prev
            if self._dec is None or len(self._dec) != len(enc):
                self._dec = None
            self._tail = ()
            return enc
        return list(self._enc)

    def _last_seq(self) -> int:
        if self._last is None:
            self._last = _seq_before(self._enc, len(self._enc))
        return self._last

    def _decoded(self) -> tuple[Entry, ...]:
        dec = self._dec
        if dec is None:
            dec = self._dec = (*_dec_all(self._enc, 0), *self._tail)
        return dec

    # ------------------------------------------------------------------ Sequence
    def __len__(self) -> int:
        return len(self._enc) + len(self._tail)

    def __iter__(self) -> Iterator[Entry]:
        return iter(self._decoded())

    @overload
    def __getitem__(self, i: int) -> Entry: ...

    @overload
    def __getitem__(self, i: slice) -> tuple[Entry, ...]: ...

    def __getitem__(self, i: int | slice) -> Entry | tuple[Entry, ...]:
        if self._dec is not None:
            return self._dec[i]
        if isinstance(i, slice):
            start, stop, step = i.indices(len(self))
            if step == 1 and stop == len(self):
                return self._suffix(start)
            return self._decoded()[i]
        n = len(self)
        j = i + n if i < 0 else i
        if 0 <= j < n and j >= len(self._enc):
            return self._tail[j - len(self._enc)]
        return self._decoded()[i]

    def _suffix(self, start: int) -> tuple[Entry, ...]:
        """Entries from `start` on, decoding only the encoded ones among them (views)."""
        enc = self._enc
        if start >= len(enc):
            return self._tail[start - len(enc) :]
        return (*_dec_all(enc[start:], _seq_before(enc, start)), *self._tail)

    def copies(self, start: int, copy: Callable[[Entry], Entry]) -> list[Entry]:
        """Entries from index `start` on (negative: from the end) as dicts the caller may
        keep and change: entries decoded now are new dicts already, only the others go
        through `copy`.  What views and `public_log` hand out."""
        n = len(self)
        start = max(0, start + n if start < 0 else min(start, n))
        if self._dec is not None:
            return [copy(e) for e in self._dec[start:]]
        enc = self._enc
        if start >= len(enc):
            return [copy(e) for e in self._tail[start - len(enc) :]]
        out = _dec_all(enc[start:], _seq_before(enc, start), copy)
        out += [copy(e) for e in self._tail]
        return out

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Log):
            if self is other:
                return True
            if len(self) != len(other):
                return False
            return self.to_json() == other.to_json()
        if isinstance(other, tuple | list):
            return tuple(self._decoded()) == tuple(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Log({len(self)} entries)"
