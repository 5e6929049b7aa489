"""Card catalogues by version: the one new games are dealt from and every one shipped
before it, so that a stored game keeps the cards it was dealt (docs/CONTRACTS.md §1).

A catalogue is what the engine reads from a cards.json file: the cards in the file's order
(a stored state numbers its cards by that order), the counts that make each edition's
deck, the role cards, hand sizes, nugget cards and payouts.  Its version is a fingerprint
of exactly that content: editing a note in cards.json keeps the version, changing a count,
a card or the order makes a new one.  The engine itself numbers cards as the current
cards.json does (`cards.CARD_LIST`); a kept catalogue is mapped onto that numbering, which
works while every card in it is one this engine knows with the same connectivity and
effect.  Otherwise it is refused with a CatalogueError, never read with other meanings.

Kept catalogues are `data/catalogues/<version>.json`: a cards.json exactly as it shipped,
never edited.  tests/core/engine/test_catalogue.py lists every version ever shipped.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import replace
from importlib import resources
from typing import Any

from .cards import BOXES, CARD_INDEX, CATALOGUE, RAW, CardDef, card_defs, read_data
from .reasons import CatalogueError

# What of a cards.json the engine reads (and so what its version covers).
PATH_KEYS = ("id", "kind", "edges", "groups", "count", "ladder", "door", "crystals", "treasure")
ACTION_KEYS = ("id", "effect", "count", "tools")
RULE_KEYS = {
    "saboteur1": ("gold_nugget_cards", "roles_by_players", "hand_size", "saboteur_payout_nuggets"),
    "saboteur2": ("role_cards", "setup", "gp_per_winner", "boss_delta", "profiteer_delta"),
}
VERSION = re.compile(r"[0-9a-f]{12}")
# A stored table is one character per card (two beyond 92 cards): printable ASCII without
# the two characters JSON escapes, so the string is stored as it is.
TABLE_CHARS = "".join(chr(c) for c in range(0x21, 0x7F) if chr(c) not in '"\\')


def engine_part(raw: dict[str, Any]) -> dict[str, Any]:
    """The part of a cards.json the engine reads, in a canonical form."""
    out: dict[str, object] = {}
    for box, _ in BOXES:
        part = raw[box]
        out[box] = {
            "path_cards": [{k: c[k] for k in PATH_KEYS if k in c} for c in part["path_cards"]],
            "action_cards": [
                {k: c[k] for k in ACTION_KEYS if k in c} for c in part["action_cards"]
            ],
            **{k: part[k] for k in RULE_KEYS[box]},
        }
    return out


def fingerprint(raw: dict[str, object]) -> str:
    """The version of a catalogue: 12 hex digits of the sha256 of what the engine reads."""
    text = json.dumps(engine_part(raw), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def _same(a: CardDef, b: CardDef) -> bool:
    """Same card for the rules (the count is the catalogue's business)."""
    return replace(a, count=0) == replace(b, count=0)


class Catalogue:
    """One catalogue version, mapped onto the engine's card numbering.

    Equal catalogues have equal versions.  `decks`, `goals` and `start` hold engine card
    indices; `ids` is the catalogue's own order, which numbers cards in stored states."""

    __slots__ = (
        "_dec",
        "_enc",
        "_num",
        "boss_delta",
        "decks",
        "goals",
        "gp_per_winner",
        "hand_sizes",
        "identity",
        "ids",
        "nuggets",
        "numbers",
        "orients",
        "profiteer_delta",
        "removed",
        "roles_by_players",
        "s2_hand_size",
        "s2_roles",
        "sab_payout",
        "start",
        "to_engine",
        "version",
        "width",
    )

    def __init__(self, raw: dict[str, object], version: str | None = None) -> None:
        try:
            self.version = version or fingerprint(raw)
            self._build(raw)
        except CatalogueError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            name = version or "file"
            raise CatalogueError(f"catalogue {name} is not readable: {e!r}") from e

    def _build(self, raw: dict[str, Any]) -> None:
        v = self.version
        defs = card_defs(raw)
        for cid, c in defs.items():
            mine = CATALOGUE.get(cid)
            if mine is None:
                raise CatalogueError(f"catalogue {v}: card {cid} is not one this engine knows")
            if not _same(c, mine):
                raise CatalogueError(
                    f"catalogue {v}: card {cid} has another connectivity or effect in this engine"
                )
        self.ids: tuple[str, ...] = tuple(defs)
        self.to_engine: tuple[int, ...] = tuple(CARD_INDEX[c] for c in self.ids)
        self.identity = self.ids == tuple(CATALOGUE)
        self._num = {e: n for n, e in enumerate(self.to_engine)}
        # the card numbers (and orients, 2 * number + turned) a stored state may hold
        self.numbers = frozenset(range(len(self.ids)))
        self.orients = frozenset(range(2 * len(self.ids)))
        self.decks: dict[str, tuple[int, ...]] = {
            edition: tuple(
                CARD_INDEX[c.id]
                for c in defs.values()
                if c.category in ("path", "action")
                and (edition == "expansion" or c.edition == "classic")
                for _ in range(c.count)
            )
            for _, edition in BOXES
        }
        self.goals = tuple(CARD_INDEX[c.id] for c in defs.values() if c.category == "goal")
        starts = [CARD_INDEX[c.id] for c in defs.values() if c.category == "start"]
        gold = [c for c in defs.values() if c.category == "goal" and c.treasure]
        if len(starts) != 1 or len(self.goals) != 3 or len(gold) != 1:
            raise CatalogueError(f"catalogue {v}: not one start card and three goals, one gold")
        self.start = starts[0]
        s1, s2 = raw["saboteur1"], raw["saboteur2"]
        self.nuggets = tuple(
            int(c["value"]) for c in s1["gold_nugget_cards"] for _ in range(int(c["count"]))
        )
        self.roles_by_players = {
            int(n): (int(sab), int(dig)) for n, (sab, dig) in s1["roles_by_players"].items()
        }
        self.hand_sizes = {int(n): int(h) for n, h in s1["hand_size"].items()}
        self.sab_payout = {int(n): int(v) for n, v in s1["saboteur_payout_nuggets"].items()}
        self.s2_roles = tuple(str(r["id"]) for r in s2["role_cards"] for _ in range(r["count"]))
        self.s2_hand_size = int(s2["setup"]["hand_size"])
        self.removed = int(s2["setup"]["discard_face_down_each_round"])
        # {"1": 5, ..., "5+": 1}: the "N+" entry holds from N winners on
        self.gp_per_winner = {
            int(k.rstrip("+")): (int(gp), k.endswith("+")) for k, gp in s2["gp_per_winner"].items()
        }
        self.boss_delta = int(s2["boss_delta"])
        self.profiteer_delta = int(s2["profiteer_delta"])
        # table codes: engine index <-> the characters of its number in this catalogue
        chars = TABLE_CHARS
        self.width = 1 if len(self.ids) <= len(chars) else 2
        if self.width == 1:
            codes = list(chars[: len(self.ids)])
        else:
            codes = [chars[i // len(chars)] + chars[i % len(chars)] for i in range(len(self.ids))]
        self._enc = dict(zip(self.to_engine, codes, strict=True))
        self._dec = dict(zip(codes, self.to_engine, strict=True))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Catalogue) and other.version == self.version

    def __hash__(self) -> int:
        return hash(self.version)

    def __repr__(self) -> str:
        return f"Catalogue({self.version})"

    def gold_each(self, winners: int) -> int:
        """Saboteur 2: gold pieces for each of `winners` winners (`gp_per_winner`)."""
        got = self.gp_per_winner.get(winners)
        if got is not None:
            return got[0]
        more = [(k, gp) for k, (gp, plus) in self.gp_per_winner.items() if plus and k <= winners]
        return max(more)[1] if more else 0

    # ------------------------------------------------------------ numbering
    def number(self, idx: int) -> int:
        """The catalogue's number of engine card `idx` (CatalogueError: not in it)."""
        n = self._num.get(idx)
        if n is None:
            raise CatalogueError(f"card {idx} is not in catalogue {self.version}")
        return n

    def engine_index(self, number: int) -> int:
        """The engine index of the catalogue's card `number` (CatalogueError: none)."""
        if isinstance(number, bool) or not isinstance(number, int) or number < 0:
            raise CatalogueError(f"card number {number!r} is not in catalogue {self.version}")
        try:
            return self.to_engine[number]
        except IndexError:
            raise CatalogueError(
                f"card number {number} is not in catalogue {self.version}"
            ) from None

    def has(self, cid: str) -> bool:
        return CARD_INDEX.get(cid, -1) in self._num

    def table_code(self, cards: tuple[int, ...]) -> str:
        """A dealt table (engine indices) as stored: one code per position."""
        enc = self._enc
        try:
            return "".join([enc[c] for c in cards])
        except KeyError as e:
            raise CatalogueError(f"card {e} is not in catalogue {self.version}") from None

    def table_cards(self, code: str) -> tuple[int, ...]:
        """The engine indices of a stored table (CatalogueError: a code not in it)."""
        dec = self._dec
        w = self.width
        parts = code if w == 1 else [code[i : i + w] for i in range(0, len(code), w)]
        try:
            return tuple([dec[c] for c in parts])
        except KeyError as e:
            raise CatalogueError(f"table code {e} is not in catalogue {self.version}") from None


CURRENT = Catalogue(RAW)
_KNOWN: dict[str, Catalogue] = {CURRENT.version: CURRENT}


def resolve(version: object) -> Catalogue:
    """The catalogue of that version: the current one or a kept one (CatalogueError)."""
    if not isinstance(version, str):
        raise CatalogueError(f"catalogue version {version!r} is not a version")
    cat = _KNOWN.get(version)
    if cat is not None:
        return cat
    if not VERSION.fullmatch(version):
        raise CatalogueError(f"catalogue version {version!r} is not a version")
    raw = kept(version)
    if raw is None:
        raise CatalogueError(f"catalogue {version} is unknown to this engine")
    if fingerprint(raw) != version:
        raise CatalogueError(f"data/catalogues/{version}.json holds another catalogue")
    cat = _KNOWN[version] = Catalogue(raw, version)
    return cat


def kept(version: str) -> dict[str, object] | None:
    """The kept catalogue file of that version, if the engine ships one."""
    name = f"{version}.json"
    if not resources.files("core.engine").joinpath(f"data/catalogues/{name}").is_file():
        return None
    return read_data(f"catalogues/{name}")
