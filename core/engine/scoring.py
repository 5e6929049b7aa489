"""Round end and scoring (RULES §5 classic nugget cards and options, §6 Saboteur 2 payout).

The result dict keeps private parts (`winnings`, `nuggets` per seat) inside the state;
views copy only the public fields plus the viewer's own winnings.
"""

from __future__ import annotations

from typing import TypedDict

from .board import GOAL_KEYS
from .setup import BLUE, BOSS, DIGGER, GEOLOGIST, GREEN, PROFITEER, SABOTEUR, SELFISH
from .shapes import RoundResultDict
from .state import GameState, RoundState
from .turn import broken


def pay_value(pile: list[int], owed: int) -> list[int]:
    """Take cards worth `owed` from the pile: largest that fits, else the smallest left."""
    got: list[int] = []
    while owed > 0:
        fits = [v for v in pile if 0 < v <= owed]
        if fits:
            v = max(fits)
        else:
            rest = [v for v in pile if v > 0]
            if not rest:
                break
            v = min(rest)
        pile.remove(v)
        got.append(v)
        owed -= v
    return got


def against_order(n: int, first: int, seats: list[int]) -> list[int]:
    """`seats` ordered counter-clockwise starting at `first` (which must be among them)."""
    return [s for s in ((first - i) % n for i in range(n)) if s in seats]


class RoundEnd(TypedDict):
    result: RoundResultDict
    gold: tuple[int, ...]
    nuggets: str
    thieves: tuple[int, ...]


def round_end(state: GameState, rs: RoundState, gold_hit: bool) -> RoundEnd:
    """Everything the round's end decides: result, gold per seat, nugget pile, thieves."""
    if state.config.expansion:
        return _expansion(state, rs, gold_hit)
    return _classic(state, rs, gold_hit)


def _route(rs: RoundState, blocked: str | None = None) -> list[list[int]]:
    r = rs.board.route(GOAL_KEYS[rs.board.gold_goal()], blocked)
    return [list(c) for c in r] if r else []


def _base(rs: RoundState, gold_hit: bool) -> RoundResultDict:
    return {
        "round": rs.number,
        "roles": list(rs.roles),
        "gold_goal": rs.board.gold_goal(),
        "gold_reached": gold_hit,
        "reached_by": rs.reached_by if gold_hit else None,
        "route": _route(rs) if gold_hit else [],
    }


def _classic(state: GameState, rs: RoundState, gold_hit: bool) -> RoundEnd:
    cfg = state.config
    n = cfg.players
    roles = rs.roles
    pile = [int(c) for c in state.nuggets]
    cards: list[list[int]] = [[] for _ in range(n)]
    res = _base(rs, gold_hit)
    diggers = [s for s in range(n) if roles[s] == DIGGER]
    saboteurs = [s for s in range(n) if roles[s] == SABOTEUR]
    if gold_hit:
        p = rs.reached_by
        assert p is not None
        if roles[p] == SELFISH:
            res["winners"] = "selfish_dwarf"
            res["winning_seats"] = [p]
            cards[p] = pay_value(pile, 4)
        else:
            res["winners"] = "diggers"
            res["winning_seats"] = diggers
            eligible = [s for s in diggers if not (cfg.competitive and broken(rs.in_front[s]))]
            if eligible:
                first = next(s for s in ((p - i) % n for i in range(n)) if s in eligible)
                order = against_order(n, first, eligible)
                if cfg.tournament:
                    for s in order:
                        cards[s] = pay_value(pile, 3 if s == first else 2)
                else:
                    if cfg.gold_per_digger:
                        count = len(diggers)
                    elif cfg.selfish_dwarf:
                        count = min(9, n - 1)
                    else:
                        count = min(9, n)
                    drawn = sorted(pile[:count], reverse=True)
                    del pile[:count]
                    for i, v in enumerate(drawn):
                        cards[order[i % len(order)]].append(v)
    else:
        res["winners"] = "saboteurs"
        res["winning_seats"] = saboteurs
        value = state.catalogue.sab_payout.get(len(saboteurs), 0)
        for s in saboteurs:
            cards[s] = pay_value(pile, value)
    winnings = [sum(c) for c in cards]
    res["winnings"] = winnings
    res["nuggets"] = cards
    return {
        "result": res,
        "gold": tuple(g + w for g, w in zip(state.gold, winnings, strict=True)),
        "nuggets": "".join(map(str, pile)),
        "thieves": (),
    }


def _expansion(state: GameState, rs: RoundState, gold_hit: bool) -> RoundEnd:
    n = state.config.players
    roles = rs.roles
    trapped = [("TRAPPED" in rs.in_front[s]) for s in range(n)]
    res = _base(rs, gold_hit)
    won: set[str] = set()
    if gold_hit:
        p = rs.reached_by
        assert p is not None
        gk = GOAL_KEYS[rs.board.gold_goal()]
        blue_open = rs.board.route(gk, "green") is not None
        green_open = rs.board.route(gk, "blue") is not None
        pr = roles[p]
        if (pr != GREEN and blue_open) or (pr == GREEN and not green_open and blue_open):
            won.add(BLUE)
        if (pr != BLUE and green_open) or (pr == BLUE and not blue_open and green_open):
            won.add(GREEN)
        res["blue_open"], res["green_open"] = blue_open, green_open
        if won == {BLUE}:
            res["route"] = _route(rs, "green")
        elif won == {GREEN}:
            res["route"] = _route(rs, "blue")
    if won:
        res["winners"] = "+".join(lab for r, lab in ((BLUE, "blue"), (GREEN, "green")) if r in won)
        won.add(BOSS)
    else:
        won.add(SABOTEUR)
        res["winners"] = "saboteurs"
    won.add(PROFITEER)
    winners = [s for s in range(n) if roles[s] in won and not trapped[s]]
    res["winning_seats"] = winners
    cat = state.catalogue
    each = cat.gold_each(len(winners)) if winners else 0
    winnings = [0] * n
    for s in winners:
        delta = (
            cat.boss_delta
            if roles[s] == BOSS
            else cat.profiteer_delta
            if roles[s] == PROFITEER
            else 0
        )
        winnings[s] = max(0, each + delta)
    geologists = [s for s in range(n) if roles[s] == GEOLOGIST]
    crystals = rs.board.crystals()
    res["crystals"] = crystals
    if geologists:
        share = crystals // len(geologists)
        for s in geologists:
            if not trapped[s]:
                winnings[s] += share
    res["winnings"] = winnings
    res["steals"] = []
    thieves = [s for s in range(n) if "THEFT" in rs.in_front[s] and not trapped[s]]
    order: tuple[int, ...] = ()
    if thieves:
        last = max(thieves, key=lambda s: rs.theft_laid[s])
        order = tuple(s for s in ((last + i) % n for i in range(n)) if s in thieves)
    return {
        "result": res,
        "gold": tuple(g + w for g, w in zip(state.gold, winnings, strict=True)),
        "nuggets": state.nuggets,
        "thieves": order,
    }


assert DIGGER and SELFISH
