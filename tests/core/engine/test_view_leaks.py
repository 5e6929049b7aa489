"""Views leak nothing (RULES §8), checked on every state of many random games, for every
seat and the spectator, three ways:

1. structure: `core.sim.check_view` — allow-listed keys only (view, you, seats, round
   result, each log entry by code), roles/gold/goal kinds only when public or own;
2. secret tokens: every instance id the viewer does not hold, other seats' roles before
   the round ends, the kind of every goal the viewer has not seen, the seed — none may
   appear as a value of the serialized view;
3. indistinguishability: a state that differs only in what the viewer may not know
   (other hands, deck order, removed cards, unseen goals, unknown roles and the role
   pool, nugget pile, seed, other seats' gold and private knowledge) must give exactly
   the same view. This catches leaks nobody thought to name.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from typing import Any

import pytest

from core.engine import GameConfig, GameState, public_log, view_for
from core.engine.board import GOAL_CELLS, Board
from core.engine.catalogue import CURRENT
from core.engine.deal import Table, dealt_table
from core.sim import LOG_KEYS, check_view, walk

ROLE_NAMES = {
    "GOLD_DIGGER", "SABOTEUR", "SELFISH_DWARF", "GOLD_DIGGER_BLUE", "GOLD_DIGGER_GREEN",
    "BOSS", "PROFITEER", "GEOLOGIST",
}  # fmt: skip
SEED_BASE = 7_000_000_001  # large, so a seed value cannot be mistaken for a coordinate

GAMES = [
    ("classic", 3, {}),
    ("classic", 10, {"rounds": 1}),
    ("classic", 5, {"selfish_dwarf": True, "competitive": True, "rounds": 2}),
    ("classic", 7, {"tournament": True, "old_mine": True, "rounds": 1}),
    ("classic", 4, {"gold_per_digger": True, "max_saboteurs": True, "bounded_board": True}),
    ("expansion", 2, {}),
    ("expansion", 5, {"rounds": 2}),
    ("expansion", 8, {"rounds": 1, "bounded_board": True}),
    ("expansion", 12, {"rounds": 1}),
]


def scalars(x: Any) -> list[Any]:
    if isinstance(x, dict):
        return [s for v in x.values() for s in scalars(v)]
    if isinstance(x, list | tuple):
        return [s for v in x for s in scalars(v)]
    return [x]


def ended(state: GameState) -> bool:
    return state.phase in ("stealing", "round_over", "finished")


def round_log(view: dict[str, Any]) -> list[dict[str, Any]]:
    """The current round's entries among the view's log."""
    log = view["log"]
    starts = [i for i, e in enumerate(log) if e["code"] == "round_started"]
    return log[starts[-1] + 1 :] if starts else log


def token_leaks(state: GameState, seat: int | None, view: dict[str, Any]) -> list[str]:
    out: list[str] = []
    rs = state.rs
    text = json.dumps(view)
    values = scalars(view)
    strings = {v for v in values if isinstance(v, str)}
    mine = set(rs.hands[seat]) if seat is not None else set()
    for p, iid in enumerate(rs.table.iids):
        if p not in mine and (iid in strings or f'"{iid}"' in text):
            removed = p < state.catalogue.removed
            where = "deck" if p >= rs.drawn else "removed" if removed else "hand/played"
            out.append(f"instance id {iid} ({where}) visible")
    if state.seed in values or '"seed"' in text:
        out.append("seed visible")
    if not ended(state):
        # roles: only the viewer's own and the ones it inspected may appear, outside the
        # log of earlier rounds (which are public)
        known = {r for _, r, _ in rs.known_roles[seat]} if seat is not None else set()
        own = {rs.roles[seat]} if seat is not None else set()
        seen = set(scalars([view["seats"], view["round_result"], round_log(view)]))
        for s, role in enumerate(rs.roles):
            if s != seat and role in seen:
                out.append(f"role {role} of seat {s} visible while playing")
        extra = (set(scalars(view["you"])) & ROLE_NAMES) - known - own
        if extra:
            out.append(f"roles {extra} in 'you' that the viewer never learnt")
        known_goals = set(rs.known_goals[seat]) if seat is not None else set()
        for g, (x, y) in enumerate(GOAL_CELLS):
            if rs.board.revealed[g] or g in known_goals:
                continue
            if view["goals"][g]["kind"] is not None:
                out.append(f"kind of unseen goal {g} visible")
            if any(c["x"] == x and c["y"] == y for c in view["board"]):
                out.append(f"unseen goal {g} drawn in the maze")
            for e in round_log(view):
                if e["code"] == "goal_revealed" and e.get("goal") == g:
                    out.append(f"unseen goal {g} revealed in the log")
    return out


def perturb(state: GameState, seat: int | None, rng: random.Random) -> GameState:
    """The same game as far as `seat` can tell; everything it may not know reshuffled."""
    rs = state.rs
    n = state.n
    t = rs.table
    mine = set(rs.hands[seat]) if seat is not None else set()
    first = state.catalogue.removed if state.config.expansion else 0
    held_by_others = [p for s in range(n) if s != seat for p in rs.hands[s]]
    hidden = sorted({*held_by_others, *range(rs.drawn, len(t.cards)), *range(first)} - mine)
    cards, iids = list(t.cards), list(t.iids)
    vals = [(cards[p], iids[p]) for p in hidden]
    rng.shuffle(vals)
    for p, (c, i) in zip(hidden, vals, strict=True):
        cards[p], iids[p] = c, i
    table = Table(tuple(iids), tuple(cards), {iid: p for p, iid in enumerate(iids)}, t.code)
    changes: dict[str, Any] = {"table": table}
    if not ended(state):
        known_goals = set(rs.known_goals[seat]) if seat is not None else set()
        unseen = [g for g in range(3) if not rs.board.revealed[g] and g not in known_goals]
        goals = list(rs.board.goals)
        kinds = [goals[g] for g in unseen]
        rng.shuffle(kinds)
        for g, k in zip(unseen, kinds, strict=True):
            goals[g] = k
        b = rs.board
        changes["board"] = Board(dict(b.cells), tuple(goals), b.revealed, b.bounded)
        knows = (
            {s for s, _, stale in rs.known_roles[seat] if not stale} if seat is not None else set()
        )
        free = [s for s in range(n) if s != seat and s not in knows]
        pool = [rs.roles[s] for s in free] + list(rs.role_pool)
        rng.shuffle(pool)
        roles = list(rs.roles)
        for s in free:
            roles[s] = pool.pop()
        changes["roles"] = tuple(roles)
        changes["role_pool"] = tuple(pool)
    kg = [() if s != seat else k for s, k in enumerate(rs.known_goals)]
    kr = [() if s != seat else k for s, k in enumerate(rs.known_roles)]
    changes["known_goals"], changes["known_roles"] = tuple(kg), tuple(kr)
    gold = list(state.gold)
    if state.phase != "finished":
        for s in range(n):
            if s != seat and (gold[s] > 0 or not state.config.expansion):
                gold[s] += rng.randrange(4)
    nuggets = list(state.nuggets)
    rng.shuffle(nuggets)
    return replace(
        state,
        seed=state.seed + 1,
        rs=replace(rs, **changes),
        gold=tuple(gold),
        nuggets="".join(nuggets),
    )


def diff(a: Any, b: Any, path: str = "") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        keys = set(a) | set(b)
        return [d for k in sorted(keys, key=str) for d in diff(a.get(k), b.get(k), f"{path}.{k}")]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [
            d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in diff(x, y, f"{path}[{i}]")
        ]
    return [] if a == b else [f"{path}: {a!r} vs {b!r}"]


@pytest.mark.parametrize(("edition", "players", "options"), GAMES)
def test_views_leak_nothing(edition: str, players: int, options: dict[str, Any]) -> None:
    config = GameConfig.from_options(edition, players, options)
    rng = random.Random(f"{edition}{players}")
    seed = SEED_BASE + players
    states = 0
    phases: set[str] = set()
    for _before, _entry, state in walk(config, seed, east_bias=0.8, timeouts=0.03):
        states += 1
        phases.add(state.phase)
        for seat in [*range(players), None]:
            view = view_for(state, seat)
            problems = check_view(state, seat, view) + token_leaks(state, seat, view)
            assert not problems, (state.seq, seat, problems)
            twin = view_for(perturb(state, seat, rng), seat)
            changed = diff(view, twin)
            assert not changed, (state.seq, seat, state.phase, changed[:5])
    assert states > 10 and "finished" in phases
    # the whole public log (append-only, so the final one holds every entry ever shown)
    rounds = range(1, config.rounds + 1)
    iids = {i for r in rounds for i in dealt_table(CURRENT, seed, r, edition).iids}
    for e in public_log(state):
        allowed = LOG_KEYS[e["code"]] | {"seq", "seat", "code", "timeout"}
        assert set(e) <= allowed, e
        assert not {v for v in scalars(e) if isinstance(v, str)} & iids, e


def test_perturbation_is_seen_by_an_omniscient_check() -> None:
    """The indistinguishability check has teeth: a view that shows another seat's hand,
    the deck or the unseen goals differs between the twins."""
    config = GameConfig.from_options("expansion", 5, {})
    state = next(walk(config, SEED_BASE))[2]
    rng = random.Random(1)
    twin = perturb(state, 0, rng)
    other_hand = [twin.rs.table.iids[p] for p in twin.rs.hands[1]]
    assert other_hand != [state.rs.table.iids[p] for p in state.rs.hands[1]]
    assert twin.rs.table.cards[twin.rs.drawn :] != state.rs.table.cards[state.rs.drawn :]
    # own hand untouched; everything else the seat may know unchanged
    assert [twin.rs.table.iids[p] for p in twin.rs.hands[0]] == [
        state.rs.table.iids[p] for p in state.rs.hands[0]
    ]
    assert view_for(twin, 0) == view_for(state, 0)
