"""What a seat knows, read from its view: role, side, hand, goals, tools.

Why a separate module: every policy and the belief model ask the same questions of the
view ("which goal is gold as far as I know", "is seat 3 broken"); answering them once,
from the allow-listed view fields only, keeps the hidden-state guarantee easy to audit.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.ai.cards import BREAK_CARDS
from core.engine.shapes import ViewDict

# role families ------------------------------------------------------------------------


def role_kind(role: object) -> str:
    """Normalise a role name: digger | saboteur | selfish | blue | green | boss |
    profiteer | geologist | unknown."""
    r = str(role or "").upper()
    if not r or r == "NONE":
        return "unknown"
    for key, kind in (
        ("SABOTEUR", "saboteur"),
        ("SELFISH", "selfish"),
        ("BLUE", "blue"),
        ("GREEN", "green"),
        ("BOSS", "boss"),
        ("PROFITEER", "profiteer"),
        ("GEOLOGIST", "geologist"),
        ("DIGGER", "digger"),
        ("MINER", "digger"),
    ):
        if key in r:
            return kind
    return "unknown"


def is_saboteur_side(kind: str) -> bool:
    """Seats whose interest is that nobody reaches the gold."""
    return kind in ("saboteur", "profiteer")


@dataclass(frozen=True, slots=True)
class SeatInfo:
    seat: int
    hand_size: int
    broken: tuple[str, ...]
    trapped: bool
    theft: bool
    role: str  # role_kind of a revealed role, else "unknown"


def seat_infos(view: ViewDict) -> dict[int, SeatInfo]:
    out: dict[int, SeatInfo] = {}
    for s in view.get("seats") or ():
        front = [str(c) for c in (s.get("in_front") or ())]
        out[int(s["seat"])] = SeatInfo(
            seat=int(s["seat"]),
            hand_size=int(s.get("hand_size") or 0),
            broken=tuple(BREAK_CARDS[c] for c in front if c in BREAK_CARDS),
            trapped=any("TRAP" in c for c in front),
            theft=any("THEFT" in c for c in front),
            role=role_kind(s.get("role")),
        )
    return out


def hand_cards(view: ViewDict) -> dict[str, str]:
    """Instance id -> catalogue id for the seat's own hand."""
    you = view.get("you") or {}
    return {str(c["id"]): str(c["card"]) for c in (you.get("hand") or ())}


def goal_probs(view: ViewDict, *, private: bool = True) -> dict[int, float]:
    """Probability that each face-down goal is the gold.

    Revealed goals and (when `private`) the goals this seat looked at with a map decide
    it; otherwise the gold is equally likely under every goal not known to be stone.
    `private=False` gives what an outside observer can tell from the table alone.
    """
    goals = list(view.get("goals") or ())
    known: dict[int, str] = {}
    for g in goals:
        if g.get("revealed") and g.get("kind"):
            known[int(g["goal"])] = str(g["kind"])
    if private:
        for k in (view.get("you") or {}).get("known_goals") or ():
            if k.get("kind"):
                known.setdefault(int(k["goal"]), str(k["kind"]))
    ids = [int(g["goal"]) for g in goals] or [0, 1, 2]
    gold = [g for g in ids if known.get(g) == "gold"]
    if gold:
        return {g: (1.0 if g == gold[0] else 0.0) for g in ids}
    open_ = [g for g in ids if known.get(g) != "stone"]
    if not open_:
        open_ = ids
    return {g: (1.0 / len(open_) if g in open_ else 0.0) for g in ids}


def known_roles(view: ViewDict) -> dict[int, str]:
    """Roles this seat inspected (not stale) plus roles shown to everyone."""
    out: dict[int, str] = {}
    for s in view.get("seats") or ():
        if s.get("role"):
            out[int(s["seat"])] = role_kind(s["role"])
    for k in (view.get("you") or {}).get("known_roles") or ():
        if not k.get("stale"):
            out.setdefault(int(k["seat"]), role_kind(k.get("role")))
    return out


def saboteur_prior(view: ViewDict, my_kind: str) -> float:
    """Chance that another seat is a saboteur before any move is seen."""
    n = len(view.get("seats") or ()) or 5
    opts = view.get("options") or {}
    if view.get("edition") == "expansion":
        sabs, total = 3, 15  # profiteer counted apart
        if my_kind == "saboteur":
            sabs -= 1
        return max(0.02, min(0.9, sabs / (total - 1)))
    table = {3: 1, 4: 1, 5: 2, 6: 2, 7: 3, 8: 3, 9: 3, 10: 4}
    sabs = table.get(n, 2)
    if opts.get("tournament"):
        sabs = {5: 1, 6: 2, 7: 2, 8: 2, 9: 3}.get(n, 2)
        cards = n
    elif opts.get("max_saboteurs"):
        cards = n
    else:
        cards = n + 1
    if my_kind == "saboteur":
        sabs -= 1
    return max(0.02, min(0.9, sabs / max(1, cards - 1)))


def expected_saboteurs(view: ViewDict) -> float:
    n = len(view.get("seats") or ()) or 5
    if view.get("edition") == "expansion":
        return 3 * n / 15
    table = {3: 1, 4: 1, 5: 2, 6: 2, 7: 3, 8: 3, 9: 3, 10: 4}
    return table.get(n, 2) * n / (n + 1)
