"""The one schema of lobby settings: what a lobby may set, to what, and its defaults.

The service validates ``configure`` against it; the bot's lobby keyboard, the Mini App's
lobby sheet (through the API's description of it) and the API's checks are derived from
it, so a new setting or choice is one entry here and every front end offers it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from core.engine.config import CLASSIC_ONLY, PLAYERS
from core.engine.config import EDITIONS as EDITIONS  # the adapters' edition list
from core.service.models import ServiceError

Kind = Literal["choice", "flag", "number"]
# Where a setting's current value is found in a view: ``view[name]`` (game), the engine's
# ``view["options"][name]`` (option) or the service's ``view["settings"][name]`` (setting).
Where = Literal["game", "option", "setting"]
# A lobby opened in a Telegram group, or anywhere else (the Mini App, the API, local mode).
Context = Literal["group", "private"]
CONTEXTS: tuple[Context, ...] = ("group", "private")

LEVELS = ("easy", "normal", "hard")
LANGUAGES = ("en", "zh-hans", "zh-hant")


@dataclass(frozen=True, slots=True)
class Setting:
    """One lobby setting.

    ``choices`` are the values a front end offers, in the order a cycling button steps
    through them; a number may also take any value in ``minimum..maximum`` (the API).
    ``choices_when``: other choices while a flag setting is on (``{"slow": (...)}``: turn
    times of hours in slow mode). ``nullable``: ``None`` is allowed (no limit, off).
    ``defaults`` per context; a setting missing there takes ``default``. ``contexts``:
    where front ends offer it (with ``offered``).
    """

    name: str
    kind: Kind
    where: Where
    default: object
    choices: tuple[Any, ...] = ()
    minimum: int | float | None = None
    maximum: int | float | None = None
    integer: bool = True
    nullable: bool = False
    defaults: Mapping[Context, object] = field(default_factory=dict)
    editions: tuple[str, ...] = EDITIONS
    offered: bool = True  # shown by the lobby front ends (others are for the API and tests)
    choices_when: Mapping[str, tuple[object, ...]] = field(default_factory=dict)
    contexts: tuple[Context, ...] = ("group", "private")

    def choices_for(self, flags: Mapping[str, object]) -> tuple[object, ...]:
        """The choices to offer given the lobby's other settings (``flags`` by name)."""
        for flag, choices in self.choices_when.items():
            if flags.get(flag) is True:
                return choices
        return self.choices

    def offered_in(self, context: Context) -> bool:
        return self.offered and context in self.contexts

    def default_for(self, context: Context) -> object:
        return self.defaults.get(context, self.default)

    def applies_to(self, edition: str) -> bool:
        return edition in self.editions

    def check(self, value: object) -> Any:
        """The value as stored, or ServiceError ``bad_setting`` saying what is allowed."""
        if value is None:
            if self.nullable:
                return None
            raise ServiceError("bad_setting", f"{self.name} must be set")
        if self.kind == "flag":
            if type(value) is not bool:
                raise ServiceError("bad_setting", f"{self.name} is true or false")
            return value
        if self.kind == "choice":
            if isinstance(value, bool) or value not in self.choices:
                allowed = ", ".join(str(c) for c in self.choices if c is not None)
                raise ServiceError("bad_setting", f"{self.name} is one of {allowed}")
            return value
        number_types = (int,) if self.integer else (int, float)
        if isinstance(value, bool) or not isinstance(value, number_types):
            raise ServiceError("bad_setting", f"{self.name} is {self._range()}")
        assert self.minimum is not None and self.maximum is not None
        if not self.minimum <= value <= self.maximum:
            raise ServiceError("bad_setting", f"{self.name} is {self._range()}")
        return value if self.integer else float(value)

    def _range(self) -> str:
        text = f"{self.minimum} to {self.maximum}"
        return f"None or {text}" if self.nullable else text

    def describe(self, context: Context) -> dict[str, object]:
        """The setting as JSON for clients (the API's lobby settings description)."""
        out: dict[str, object] = {
            "name": self.name,
            "kind": self.kind,
            "where": self.where,
            "default": self.default_for(context),
            "choices": list(self.choices),
            "nullable": self.nullable,
            "editions": list(self.editions),
            "offered": self.offered_in(context),
        }
        if self.choices_when:
            out["choices_when"] = {k: list(v) for k, v in self.choices_when.items()}
        if self.kind == "number":
            out.update(minimum=self.minimum, maximum=self.maximum, integer=self.integer)
        return out


def _option(name: str) -> Setting:
    editions = ("classic",) if name in CLASSIC_ONLY else EDITIONS
    return Setting(name, "flag", "option", False, choices=(False, True), editions=editions)


SEAT_RANGE = (min(lo for lo, _ in PLAYERS.values()), max(hi for _, hi in PLAYERS.values()))

HOUR = 3600
# Slow mode (a busy group, a game over a day): turns of hours, one round unless chosen.
SLOW_TURN_TIMES = (HOUR, 4 * HOUR, 12 * HOUR, 24 * HOUR)
SLOW_TURN_TIME = 4 * HOUR  # what switching slow mode on sets, unless a turn time is given
SLOW_ROUNDS = 1

SCHEMA: tuple[Setting, ...] = (
    Setting("edition", "choice", "game", "classic", choices=EDITIONS),
    Setting("rounds", "choice", "option", 3, choices=(1, 2, 3)),
    # A group game has a turn clock unless its creator turns it off: one idle player
    # never stalls the table (warnings, a skip, then the computer takes the seat).
    Setting(
        "turn_time",
        "number",
        "setting",
        None,
        choices=(30, 60, 90, 120, 300, None),
        minimum=5,
        maximum=24 * HOUR,
        nullable=True,
        defaults={"group": 90},
        choices_when={"slow": SLOW_TURN_TIMES},
    ),
    Setting("slow", "flag", "setting", False, choices=(False, True), contexts=("group",)),
    Setting("computer_level", "choice", "setting", "normal", choices=LEVELS),
    Setting("language", "choice", "setting", None, choices=(*LANGUAGES, None), nullable=True),
    *(_option(name) for name in (*CLASSIC_ONLY, "bounded_board")),
    # the table size cap; each edition narrows the range (core.engine.config.PLAYERS)
    Setting(
        "seats",
        "number",
        "setting",
        None,
        minimum=SEAT_RANGE[0],
        maximum=SEAT_RANGE[1],
        offered=False,
    ),
    Setting(
        "countdown",
        "number",
        "setting",
        None,
        minimum=1,
        maximum=24 * 3600,
        nullable=True,
        defaults={"group": 180},
        offered=False,
    ),
    Setting(
        "think_delay", "number", "setting", 1.5, minimum=0, maximum=30, integer=False, offered=False
    ),
    Setting("round_pause", "number", "setting", 30, minimum=0, maximum=600, offered=False),
    Setting("takeover_after", "number", "setting", 2, minimum=1, maximum=10, offered=False),
    # a group's lobby: anyone with its link may join, not only members of the group
    Setting("open_join", "flag", "setting", False, choices=(False, True), contexts=("group",)),
)
BY_NAME: dict[str, Setting] = {s.name: s for s in SCHEMA}
OPTION_SETTINGS: tuple[Setting, ...] = tuple(
    s for s in SCHEMA if s.where == "option" and s.kind == "flag"
)


def setting(name: str) -> Setting:
    try:
        return BY_NAME[name]
    except KeyError:
        raise ServiceError("bad_setting", f"unknown setting {name!r}") from None


def options_for(edition: str) -> tuple[str, ...]:
    """The on/off rule variants (RULES §5) a lobby of ``edition`` may switch."""
    return tuple(s.name for s in OPTION_SETTINGS if s.applies_to(edition))


def next_choice(name: str, current: object, flags: Mapping[str, object] | None = None) -> object:
    """The choice after ``current`` (round and round; the first after an unknown value):
    what a cycling lobby button sets next. ``flags``: the lobby's other settings by name
    (``{"slow": True}`` steps through slow mode's turn times)."""
    choices = setting(name).choices_for(flags or {})
    for i, choice in enumerate(choices):
        if type(choice) is type(current) and choice == current:
            return choices[(i + 1) % len(choices)]
    return choices[0]


def pace(slow: bool, context: Context) -> dict[str, object]:
    """The turn time and rounds that come with switching slow mode on (or off: the
    context's defaults), for whichever of them the lobby's creator did not choose."""
    if slow:
        return {"turn_time": SLOW_TURN_TIME, "rounds": SLOW_ROUNDS}
    return {name: BY_NAME[name].default_for(context) for name in ("turn_time", "rounds")}


def defaults(context: Context) -> dict[str, object]:
    """Every setting's default in ``context`` (what a new lobby starts from)."""
    return {s.name: s.default_for(context) for s in SCHEMA}


def describe(context: Context) -> dict[str, object]:
    """The whole schema as JSON for clients, with the seat range of each edition."""
    return {
        "context": context,
        "settings": [s.describe(context) for s in SCHEMA],
        "players": {edition: list(PLAYERS[edition]) for edition in EDITIONS},
    }
