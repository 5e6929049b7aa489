"""What one attack did and what came of it: the unit of the security report."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Outcome:
    """One attack: ``tried`` actions (requests, connections, updates...), what the product
    answered (``statuses``), the ``result`` in a sentence, and whether it held (``ok``)."""

    name: str
    attack: str
    tried: int = 0
    result: str = ""
    ok: bool = False
    statuses: Counter[str] = field(default_factory=Counter)
    figures: dict[str, Any] = field(default_factory=dict)

    def count(self, status: int | str) -> None:
        self.tried += 1
        self.statuses[str(status)] += 1

    @property
    def server_errors(self) -> int:
        return sum(n for s, n in self.statuses.items() if s.startswith("5"))

    def check(self, ok: bool, result: str) -> Outcome:
        """Record the verdict: it held only if ``ok`` and no 5xx was ever answered."""
        self.ok = ok and self.server_errors == 0
        self.result = result
        return self

    def summary(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "attack": self.attack,
            "tried": self.tried,
            "result": self.result,
            "ok": self.ok,
            "5xx": self.server_errors,
            "statuses": dict(sorted(self.statuses.items())),
            "figures": self.figures,
        }
