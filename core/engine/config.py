"""Game configuration and its validation (RULES §1, §5 options, §6 player counts)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

EDITIONS = ("classic", "expansion")
PLAYERS = {"classic": (3, 10), "expansion": (2, 12)}
CLASSIC_ONLY = (
    "gold_per_digger",
    "old_mine",
    "competitive",
    "max_saboteurs",
    "selfish_dwarf",
    "tournament",
)
OPTION_NAMES = ("rounds", "bounded_board", *CLASSIC_ONLY)


class ConfigError(ValueError):
    """An invalid game configuration (adapters answer `invalid_config`)."""

    code = "invalid_config"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True, slots=True)
class GameConfig:
    edition: str
    players: int
    rounds: int = 3
    gold_per_digger: bool = False
    old_mine: bool = False
    competitive: bool = False
    max_saboteurs: bool = False
    selfish_dwarf: bool = False
    tournament: bool = False
    bounded_board: bool = False

    def options(self) -> dict[str, object]:
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name in OPTION_NAMES}

    @property
    def expansion(self) -> bool:
        return self.edition == "expansion"

    @classmethod
    def from_options(
        cls, edition: str, players: int, options: dict[str, Any] | None = None
    ) -> GameConfig:
        """Build and validate a configuration from the API's `options` dict."""
        options = dict(options or {})
        unknown = sorted(set(options) - set(OPTION_NAMES))
        if unknown:
            raise ConfigError(f"unknown option(s): {', '.join(unknown)}")
        for name, value in options.items():
            if name == "rounds":
                if isinstance(value, bool) or not isinstance(value, int):
                    raise ConfigError("rounds must be 1, 2 or 3")
            elif not isinstance(value, bool):
                raise ConfigError(f"option {name} must be true or false")
        if isinstance(players, bool) or not isinstance(players, int):
            raise ConfigError("players must be an integer")
        if options.get("tournament"):
            options["selfish_dwarf"] = True  # tournament implies the Selfish Dwarf
        cfg = cls(edition=edition, players=players, **options)
        cfg.validate()
        return cfg

    def validate(self) -> None:
        if self.edition not in EDITIONS:
            raise ConfigError(f"edition must be one of {', '.join(EDITIONS)}")
        lo, hi = PLAYERS[self.edition]
        if not lo <= self.players <= hi:
            raise ConfigError(f"{self.edition} is for {lo} to {hi} players")
        if self.rounds not in (1, 2, 3):
            raise ConfigError("rounds must be 1, 2 or 3")
        if self.edition == "expansion":
            on = [n for n in CLASSIC_ONLY if getattr(self, n)]
            if on:
                raise ConfigError(f"classic-only option(s) with expansion: {', '.join(on)}")
        if self.tournament:
            if not 5 <= self.players <= 9:
                raise ConfigError("tournament is for 5 to 9 players")
            if self.max_saboteurs or self.gold_per_digger:
                raise ConfigError(
                    "tournament cannot be combined with max_saboteurs or gold_per_digger"
                )
