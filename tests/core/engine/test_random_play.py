"""Hypothesis random play over editions, options and player counts (issue 3).

After every step of a random game: the invariants of `core.sim.check_state` (card
conservation, exactly one gold goal, hand sizes, roles, nugget value, phase/actor
consistency, codec round trip now and then). At sampled positions: every legal move
applies, and mutated or out-of-turn moves are refused with a reason of the closed list
(IllegalMove) or as malformed (MoveFormatError) — and a move is accepted exactly when it
is (equivalent to) a listed one.
"""

from __future__ import annotations

import random
from itertools import combinations
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.engine import (
    CATALOGUE,
    GameConfig,
    GameState,
    IllegalMove,
    MoveFormatError,
    Reason,
    apply_move,
    apply_timeout,
    legal_moves,
    new_game,
    view_for,
)
from core.engine.board import GOAL_CELLS
from core.engine.cards import CARD_LIST, SYMMETRIC
from core.sim import check_state, walk

CLASSIC_FLAGS = ("gold_per_digger", "old_mine", "competitive", "max_saboteurs", "selfish_dwarf")


@st.composite
def configs(draw: st.DrawFn) -> GameConfig:
    """Valid configurations only (the invalid ones are refused by from_options, tested
    by the engine's own config tests)."""
    edition = draw(st.sampled_from(["classic", "expansion"]))
    opts: dict[str, Any] = {
        "rounds": draw(st.sampled_from([1, 1, 2, 3])),
        "bounded_board": draw(st.booleans()),
    }
    if edition == "expansion":
        players = draw(st.integers(2, 12))
    elif draw(st.integers(0, 4)) == 0:
        players = draw(st.integers(5, 9))
        opts |= {"tournament": True, "old_mine": draw(st.booleans())}
        opts["competitive"] = draw(st.booleans())
    else:
        players = draw(st.integers(3, 10))
        for f in CLASSIC_FLAGS:
            opts[f] = draw(st.booleans())
    return GameConfig.from_options(edition, players, opts)


def canonical(state: GameState, seat: int, move: dict[str, Any]) -> str:
    """A move's identity up to the equivalences the engine accepts (symmetric cards turned,
    discard order)."""
    m = dict(move)
    if m.get("type") == "place_path" and isinstance(m.get("card"), str):
        pos = state.rs.table.pos_of.get(m["card"])
        if pos is not None and SYMMETRIC[state.rs.table.cards[pos]]:
            m["rotated"] = False
    if isinstance(m.get("cards"), list):
        m["cards"] = sorted(m["cards"])
    return repr(sorted(m.items(), key=lambda kv: kv[0]))


def mutations(state: GameState, seat: int, move: dict[str, Any], rng: random.Random) -> list[Any]:
    """Moves near a legal one: other cells, targets, cards (catalogue ids, other seats'
    instance ids), other kinds, malformed shapes."""
    rs = state.rs
    n = state.n
    others = [rs.table.iids[p] for s in range(n) if s != seat for p in rs.hands[s]]
    unseen = [rs.table.iids[p] for p in range(rs.drawn, len(rs.table.cards))]
    out: list[Any] = []
    m = dict(move)
    for fld in ("x", "y"):
        if fld in m:
            out.append({**m, fld: m[fld] + rng.choice([-2, -1, 1, 2])})
            out.append({**m, fld: rng.choice([-200, 130, 9, -3])})
    if "rotated" in m:
        out.append({**m, "rotated": not m["rotated"]})
    if "target_seat" in m:
        out += [{**m, "target_seat": t} for t in (-1, n, seat, rng.randrange(n))]
    if "goal" in m:
        out += [{**m, "goal": g} for g in (-1, 3, rng.randrange(3))]
    if "tool" in m:
        out += [{**m, "tool": t} for t in ("hammer", "pickaxe", "lantern", "cart")]
    if "card" in m:
        if others:
            out.append({**m, "card": rng.choice(others)})
        if unseen:
            out.append({**m, "card": rng.choice(unseen)})
        out.append({**m, "card": CARD_LIST[rng.randrange(len(CARD_LIST))].id})
        out.append({**m, "card": ""})
        for t in ("place_path", "break_tool", "map", "rockfall", "theft", "trap", "inspect"):
            if t != m["type"]:
                out.append({**m, "type": t, "x": 1, "y": 0, "rotated": False, "goal": 0,
                            "target_seat": (seat + 1) % n})  # fmt: skip
    if "cards" in m:
        cs = list(m["cards"])
        out.append({**m, "cards": cs + cs[:1]})
        out.append({**m, "cards": []})
        out.append({**m, "cards": cs[:1] + others[:1]})
        out.append({**m, "cards": cs + [c for c in others[:3]]})
    if "remove" in m:
        out += [{**m, "remove": r} for r in ("BREAK_PICKAXE", "TRAPPED", "THEFT", "S1_CROSS")]
    out.append({"type": "next_round"})
    out.append({"type": "steal", "target_seat": (seat + 1) % n})
    out.append({"type": "take_seat_back"})
    # malformed
    out.append([m])
    out.append({**m, "type": "fly"})
    for fld in m:
        if fld != "type":
            short = dict(m)
            del short[fld]
            out.append(short)
            out.append({**m, fld: "1" if not isinstance(m[fld], str) else 1})
    return out


def check_refusals(state: GameState, seat: int, rng: random.Random) -> int:
    """Every candidate is accepted iff it is equivalent to a listed move; refusals carry a
    Reason of the closed list. Returns how many candidates were tried."""
    listed = legal_moves(state, seat)
    legal = {canonical(state, seat, m) for m in listed}
    cells = dict(state.rs.board.cells)
    tried = 0
    for base in rng.sample(listed, min(4, len(listed))):
        for cand in mutations(state, seat, base, rng):
            tried += 1
            try:
                apply_move(state, seat, cand)
            except IllegalMove as exc:
                assert isinstance(exc.reason, Reason), exc
                assert exc.reason in set(Reason)
                assert canonical(state, seat, cand) not in legal, (cand, exc.reason)
            except MoveFormatError:
                pass
            else:
                assert isinstance(cand, dict) and canonical(state, seat, cand) in legal, cand
    # the same legal move out of turn, by every other seat, and by seats that do not exist
    move = rng.choice(listed)
    for other in range(state.n):
        if other != seat and state.phase in ("playing", "stealing"):
            tried += 1
            try:
                apply_move(state, other, move)
            except IllegalMove as exc:
                assert exc.reason in (Reason.NOT_YOUR_TURN, Reason.CARD_NOT_IN_HAND), exc.reason
            else:
                raise AssertionError(f"seat {other} played out of turn: {move}")
    for bad in (-1, state.n, True):
        tried += 1
        try:
            apply_move(state, bad, move)
        except IllegalMove as exc:
            assert exc.reason == Reason.BAD_SEAT
        else:
            raise AssertionError(f"seat {bad!r} accepted")
    assert state.rs.board.cells == cells  # refusals never touch the input
    return tried


def check_all_apply(state: GameState, seat: int) -> None:
    """Every listed move applies; the list is as API.md says: no duplicates, symmetric
    cards once (upright), discard lists sorted."""
    listed = legal_moves(state, seat)
    assert len({repr(sorted(m.items())) for m in listed}) == len(listed)
    table = state.rs.table
    for m in listed:
        if m["type"] == "place_path" and SYMMETRIC[table.cards[table.pos_of[m["card"]]]]:
            assert m["rotated"] is False, m
        if "cards" in m:
            assert m["cards"] == sorted(m["cards"]), m
    for m in listed:
        new, events = apply_move(state, seat, m)
        assert new.seq == state.seq + 1 and events and all(e["seq"] == new.seq for e in events)


def check_turn_order(before: GameState, entry: dict[str, Any], after: GameState) -> None:
    """RULES §4/§6: the next seat with cards plays next; one card drawn per turn while the
    pile lasts (classic); a new round starts after the seat that made the last move."""
    n = before.n
    if before.phase == "playing" and after.phase == "playing":
        mover = entry.get("seat", before.rs.current)
        assert mover is not None
        nxt = next(s for s in ((mover + i) % n for i in range(1, n + 1)) if after.rs.hands[s])
        assert after.rs.current == nxt
        assert after.rs.last_mover == mover
        if not before.config.expansion and before.rs.deck_size():
            assert after.rs.drawn == before.rs.drawn + 1
    if before.phase == "round_over" and after.phase == "playing":
        last = before.rs.last_mover
        assert last is not None
        assert after.rs.start_seat == after.rs.current == (last + 1) % n
        assert after.round == before.round + 1


@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)
@given(
    config=configs(),
    seed=st.integers(0, 2**31),
    east_bias=st.sampled_from([0.0, 0.5, 0.9]),
    timeouts=st.sampled_from([0.0, 0.05]),
)
def test_random_games_keep_invariants(
    config: GameConfig, seed: int, east_bias: float, timeouts: float
) -> None:
    rng = random.Random(seed)
    tried = 0
    game = walk(config, seed, east_bias=east_bias, timeouts=timeouts)
    for steps, (before, entry, after) in enumerate(game, 1):
        problems = check_state(after, codec=steps % 17 == 0)
        assert not problems, (entry, problems)
        check_turn_order(before, entry, after)
        if "seat" in entry and (tried == 0 or rng.random() < 0.08):
            check_all_apply(before, entry["seat"])
            tried += check_refusals(before, entry["seat"], rng)
    assert after.phase == "finished"
    assert tried > 0
    assert len(after.results) == config.rounds
    assert check_state(after) == []
    # nothing is legal after the end
    try:
        apply_timeout(after)
    except IllegalMove as exc:
        assert exc.reason == Reason.WRONG_PHASE
    else:
        raise AssertionError("a timeout was applied after the game ended")
    for s in range(config.players):
        assert legal_moves(after, s) == []
        try:
            apply_move(after, s, {"type": "next_round"})
        except IllegalMove as exc:
            assert exc.reason == Reason.GAME_OVER
        else:
            raise AssertionError("a move was accepted after the game ended")


@settings(max_examples=15, deadline=None, derandomize=True)
@given(config=configs(), seed=st.integers(0, 2**31))
def test_round_over_only_accepts_next_round_once(config: GameConfig, seed: int) -> None:
    for before, _entry, _after in walk(config, seed, east_bias=0.7):
        if before.phase != "round_over":
            continue
        for s in range(config.players):
            if s in before.ready:
                try:
                    apply_move(before, s, {"type": "next_round"})
                except IllegalMove as exc:
                    assert exc.reason == Reason.ALREADY_READY
                else:
                    raise AssertionError("ready twice")
            for bad in ({"type": "discard", "cards": ["aaaaa"]}, {"type": "steal"}):
                try:
                    apply_move(before, s, bad)
                except IllegalMove as exc:
                    assert exc.reason == Reason.WRONG_PHASE
                else:
                    raise AssertionError(f"{bad} accepted in round_over")


# ------------------------------------------------------------ an independent rules oracle
# Written from RULES.md §2, §3, §6 alone (card edges and groups from the catalogue), so that
# a move the engine neither lists nor accepts, but the rules allow, is caught too.

N_, E_, S_, W_ = 1, 2, 4, 8
STEP = {N_: (0, -1), E_: (1, 0), S_: (0, 1), W_: (-1, 0)}
FACING = {N_: S_, E_: W_, S_: N_, W_: E_}


def turned(mask: int, rotated: bool) -> int:
    if not rotated:
        return mask
    out = 0
    for side in (N_, E_, S_, W_):
        if mask & side:
            out |= FACING[side]
    return out


def placed_groups(cid: str, rotated: bool) -> list[int]:
    return [turned(g, rotated) for g in CATALOGUE[cid].groups]


def connected_edges(cells: dict[tuple[int, int], tuple[str, bool]]) -> set[tuple[int, int, int]]:
    """(x, y, side) of every card edge whose group is joined to a source (start, ladders)."""
    seen: set[tuple[int, int, int]] = set()  # (x, y, group mask)
    stack = [
        (x, y, g)
        for (x, y), (cid, rot) in cells.items()
        if CATALOGUE[cid].kind == "start" or CATALOGUE[cid].ladder
        for g in placed_groups(cid, rot)
    ]
    seen.update(stack)
    while stack:
        x, y, g = stack.pop()
        for side, (dx, dy) in STEP.items():
            if not g & side or (x + dx, y + dy) not in cells:
                continue
            cid, rot = cells[(x + dx, y + dy)]
            for h in placed_groups(cid, rot):
                if h & FACING[side] and (x + dx, y + dy, h) not in seen:
                    seen.add((x + dx, y + dy, h))
                    stack.append((x + dx, y + dy, h))
    return {(x, y, side) for x, y, g in seen for side in (N_, E_, S_, W_) if g & side}


def oracle_placements(state: GameState, seat: int) -> set[str]:
    rs = state.rs
    view = view_for(state, seat)
    cells = {(c["x"], c["y"]): (c["card"], c["rotated"]) for c in view["board"]}
    hidden = {(g["x"], g["y"]) for g in view["goals"] if not g["revealed"]}
    front = view["seats"][seat]["in_front"]
    if any(c.startswith("BREAK_") or c == "TRAPPED" for c in front):
        return set()
    conn = connected_edges(cells)
    near = {(x + dx, y + dy) for x, y in [*cells, *hidden] for dx, dy in STEP.values()}
    out: set[str] = set()
    for h in view["you"]["hand"]:
        card = CATALOGUE[h["card"]]
        if card.category != "path":
            continue
        for rot in (False, True):
            mask = turned(card.mask, rot)
            if rot and sorted(placed_groups(card.id, True)) == sorted(
                placed_groups(card.id, False)
            ):
                continue  # looks the same turned: listed once, upright
            for x, y in near:
                if (x, y) in cells or (x, y) in hidden:
                    continue
                if state.config.bounded_board and not (0 <= x <= 8 and -2 <= y <= 2):
                    continue
                ok, linked, by_path, by_goal = True, False, False, False
                for side, (dx, dy) in STEP.items():
                    q = (x + dx, y + dy)
                    if q in hidden or q in GOAL_CELLS:
                        by_goal = True
                    if q in cells:
                        qid, qrot = cells[q]
                        if q not in GOAL_CELLS:
                            by_path = True
                        theirs = bool(turned(CATALOGUE[qid].mask, qrot) & FACING[side])
                        if theirs != bool(mask & side):
                            ok = False
                        elif theirs and (q[0], q[1], FACING[side]) in conn:
                            linked = True
                if not ok:
                    continue
                if (by_path and not by_goal) if card.ladder else linked:
                    out.add(repr(("place_path", h["id"], x, y, rot)))
    assert rs is state.rs
    return out


def oracle_actions(state: GameState, seat: int) -> set[str]:
    rs = state.rs
    n = state.n
    view = view_for(state, seat)
    fronts = [s["in_front"] for s in view["seats"]]
    others = [s for s in range(n) if s != seat]
    out: set[str] = set()
    maze = [(c["x"], c["y"]) for c in view["board"]]
    for h in view["you"]["hand"]:
        c = CATALOGUE[h["card"]]
        i = h["id"]
        k = c.kind
        if c.category != "action":
            continue
        if k == "break":
            out |= {repr(("break_tool", i, s)) for s in others if c.id not in fronts[s]}
        elif k == "repair":
            out |= {repr(("repair_tool", i, s, t)) for s in range(n) for t in c.tools
                    if f"BREAK_{t.upper()}" in fronts[s]}  # fmt: skip
        elif k == "rockfall":
            out |= {repr(("rockfall", i, x, y)) for x, y in maze
                    if (x, y) != (0, 0) and (x, y) not in GOAL_CELLS}  # fmt: skip
        elif k == "map":
            out |= {repr(("map", i, g["goal"])) for g in view["goals"] if not g["revealed"]}
        elif k == "theft":
            out |= {repr(("theft", i))} if "THEFT" not in fronts[seat] else set()
        elif k == "hands_off":
            out |= {repr(("hands_off", i, s)) for s in range(n) if "THEFT" in fronts[s]}
        elif k == "swap_hand":
            out |= {repr(("swap_hand", i, s)) for s in others}
        elif k == "inspection":
            out |= {repr(("inspect", i, s)) for s in others}
        elif k == "swap_hats":
            out |= {repr(("swap_hats", i, s)) for s in range(n)} if rs.role_pool else set()
        elif k == "trapped":
            out |= {repr(("trap", i, s)) for s in others if "TRAPPED" not in fronts[s]}
        elif k == "free":
            out |= {repr(("free", i, s)) for s in range(n) if "TRAPPED" in fronts[s]}
    ids = sorted(h["id"] for h in view["you"]["hand"])
    sizes = (1, 2, 3) if state.config.expansion else (1,)
    out |= {repr(("discard", *cs)) for k in sizes for cs in combinations(ids, k)}
    if state.config.expansion and len(ids) >= 2:
        kinds = set(fronts[seat])
        out |= {repr(("discard_to_remove", *cs, kd)) for cs in combinations(ids, 2) for kd in kinds}
    return out


def check_goal_turn(state: GameState, g: int) -> None:
    """RULES §2: a revealed goal is turned (1) to fit every face-up neighbour, else (2) to
    open towards the group that reached it, else (or on a tie) upright."""
    view = view_for(state, None)
    cells = {(c["x"], c["y"]): (c["card"], c["rotated"]) for c in view["board"]}
    gx, gy = GOAL_CELLS[g]
    card, rotated = cells.pop((gx, gy))
    conn = connected_edges(cells)
    fits, towards = [], []
    for rot in (False, True):
        mask = turned(CATALOGUE[card].mask, rot)
        ok = True
        for side, (dx, dy) in STEP.items():
            q = (gx + dx, gy + dy)
            if q in cells and q not in GOAL_CELLS:
                theirs = bool(turned(CATALOGUE[cells[q][0]].mask, cells[q][1]) & FACING[side])
                ok = ok and theirs == bool(mask & side)
                if mask & side and (q[0], q[1], FACING[side]) in conn:
                    towards.append(rot)
        if ok:
            fits.append(rot)
    towards = sorted(set(towards))
    if len(fits) == 1:
        want = fits[0]
    elif not fits and len(towards) == 1:
        want = towards[0]
    else:
        want = False
    if turned(CATALOGUE[card].mask, True) == CATALOGUE[card].mask:
        return  # looks the same either way (the gold cross)
    assert rotated == want, (g, card, rotated, fits, towards)


def as_tuple(m: dict[str, Any]) -> str:
    t = m["type"]
    if t == "place_path":
        return repr((t, m["card"], m["x"], m["y"], m["rotated"]))
    if t in ("discard", "discard_to_remove"):
        return repr((t, *m["cards"], *([m["remove"]] if "remove" in m else [])))
    rest = [m[f] for f in ("card", "target_seat", "tool", "x", "y", "goal") if f in m]
    return repr((t, *rest))


@pytest.mark.parametrize(
    ("edition", "players", "options", "seed"),
    [
        ("classic", 4, {}, 1),
        ("classic", 9, {"bounded_board": True}, 2),
        ("expansion", 3, {}, 3),
        ("expansion", 8, {"bounded_board": True}, 4),
        ("expansion", 5, {}, 5),
    ],
)
def test_legal_moves_match_an_independent_reading_of_the_rules(
    edition: str, players: int, options: dict[str, Any], seed: int
) -> None:
    config = GameConfig.from_options(edition, players, options)
    compared = 0
    steps = (
        step
        for g in range(4)
        for step in walk(config, 100 * seed + g, east_bias=0.3 * g, timeouts=0.02)
    )
    for before, _e, state in steps:
        for g in range(3):
            if state.rs.board.revealed[g] and not before.rs.board.revealed[g]:
                check_goal_turn(state, g)
                compared += 1
        if state.phase != "playing":
            continue
        seat = state.rs.current
        assert seat is not None
        engine = {as_tuple(m) for m in legal_moves(state, seat)}
        oracle = oracle_placements(state, seat) | oracle_actions(state, seat)
        assert engine == oracle, (
            state.seq,
            sorted(engine - oracle)[:5],
            sorted(oracle - engine)[:5],
        )
        compared += 1
    assert compared > 100


def reaches(cells: dict[tuple[int, int], tuple[str, bool]], target: tuple[int, int],
            blocked: str | None) -> bool:  # fmt: skip
    """RULES §6: some route from a source to `target` that enters no door group of the
    `blocked` colour."""

    def passable(cid: str, g: int) -> bool:
        c = CATALOGUE[cid]
        return not (blocked and c.door == blocked and bin(g).count("1") >= 2)

    seen = {
        (x, y, g)
        for (x, y), (cid, rot) in cells.items()
        if CATALOGUE[cid].kind == "start" or CATALOGUE[cid].ladder
        for g in placed_groups(cid, rot)
    }
    stack = list(seen)
    while stack:
        x, y, g = stack.pop()
        if (x, y) == target:
            return True
        for side, (dx, dy) in STEP.items():
            q = (x + dx, y + dy)
            if g & side and q in cells:
                cid, rot = cells[q]
                for h in placed_groups(cid, rot):
                    if h & FACING[side] and passable(cid, h) and (*q, h) not in seen:
                        seen.add((*q, h))
                        stack.append((*q, h))
    return False


def pay(pile: list[int], owed: int) -> list[int]:
    """RULES §5: the largest card not worth more than what is still owed, else the smallest."""
    got: list[int] = []
    while owed > 0 and any(pile):
        fit = [v for v in pile if 0 < v <= owed]
        v = max(fit) if fit else min(v for v in pile if v > 0)
        pile.remove(v)
        got.append(v)
        owed -= v
    return got


def expected_classic(before: GameState, after: GameState) -> dict[str, Any]:
    cfg = before.config
    n = cfg.players
    rs = after.rs
    roles = rs.roles
    pile = [int(c) for c in before.nuggets]
    cards: list[list[int]] = [[] for _ in range(n)]
    gold_hit = rs.board.revealed[rs.board.goals.index(next(
        i for i, c in enumerate(CARD_LIST) if c.treasure))]  # fmt: skip
    if not gold_hit:
        sabs = [s for s in range(n) if roles[s] == "SABOTEUR"]
        for s in sabs:
            cards[s] = pay(pile, {1: 4, 2: 3, 3: 3, 4: 2}.get(len(sabs), 0))
        return {"winners": "saboteurs", "cards": cards}
    p = rs.reached_by
    assert p is not None
    if roles[p] == "SELFISH_DWARF":
        cards[p] = pay(pile, 4)
        return {"winners": "selfish_dwarf", "cards": cards}
    diggers = [s for s in range(n) if roles[s] == "GOLD_DIGGER"]
    takers = [
        s for s in diggers
        if not (cfg.competitive and any(c.startswith("BREAK_") for c in rs.in_front[s]))
    ]  # fmt: skip
    order = [(p - i) % n for i in range(n) if (p - i) % n in takers]  # against turn order
    if cfg.tournament:
        for s in order:
            cards[s] = pay(pile, 3 if s == order[0] else 2)
    elif order:
        count = (
            len(diggers)
            if cfg.gold_per_digger
            else min(9, n - 1 if cfg.selfish_dwarf or cfg.tournament else n)
        )
        drawn = sorted(pile[:count], reverse=True)
        for i, v in enumerate(drawn):
            cards[order[i % len(order)]].append(v)
    return {"winners": "diggers", "cards": cards}


def expected_expansion(after: GameState) -> dict[str, Any]:
    rs = after.rs
    n = after.n
    roles = rs.roles
    trapped = ["TRAPPED" in f for f in rs.in_front]
    view = view_for(after, None)
    cells = {(c["x"], c["y"]): (c["card"], c["rotated"]) for c in view["board"]}
    g = rs.board.goals.index(next(i for i, c in enumerate(CARD_LIST) if c.treasure))
    won: set[str] = set()
    if rs.board.revealed[g]:
        p = roles[rs.reached_by] if rs.reached_by is not None else None
        blue_open = reaches(cells, GOAL_CELLS[g], "green")
        green_open = reaches(cells, GOAL_CELLS[g], "blue")
        blue = "GOLD_DIGGER_BLUE"
        green = "GOLD_DIGGER_GREEN"
        if (p != green and blue_open) or (p == green and not green_open and blue_open):
            won.add("blue")
        if (p != blue and green_open) or (p == blue and not blue_open and green_open):
            won.add("green")
    label = "+".join(sorted(won)) if won else "saboteurs"
    winning = {"GOLD_DIGGER_BLUE": "blue" in won, "GOLD_DIGGER_GREEN": "green" in won,
               "BOSS": bool(won), "SABOTEUR": not won, "PROFITEER": True}  # fmt: skip
    seats = [s for s in range(n) if winning.get(roles[s], False) and not trapped[s]]
    each = {1: 5, 2: 4, 3: 3, 4: 2}.get(len(seats), 1)
    pay_ = [0] * n
    for s in seats:
        pay_[s] = max(0, each - {"BOSS": 1, "PROFITEER": 2}.get(roles[s], 0))
    geologists = [s for s in range(n) if roles[s] == "GEOLOGIST"]
    crystals = sum(CATALOGUE[cid].crystals for cid, _ in cells.values())
    for s in geologists:
        if not trapped[s]:
            pay_[s] += crystals // len(geologists)
    return {"winners": label, "winning_seats": seats, "payout": pay_}


def richest(state: GameState, thief: int) -> int | None:
    """RULES §7 stealing timeout: the player with the most gold, ties broken by turn order
    from the thief."""
    n = state.n
    order = [(thief + i) % n for i in range(1, n)]
    rich = [s for s in order if state.gold[s] > 0]
    return max(rich, key=lambda s: (state.gold[s], -order.index(s))) if rich else None


def thief_order(state: GameState) -> list[int]:
    """RULES §6: the thief who laid a theft card last first, then the others in turn order
    after that one; trapped thieves are skipped."""
    rs = state.rs
    n = state.n
    thieves = [s for s in range(n) if "THEFT" in rs.in_front[s] and "TRAPPED" not in rs.in_front[s]]
    start = max(i for i, e in enumerate(state.log) if e["code"] == "round_started")
    laid = {e["seat"]: e["seq"] for e in state.log[start:] if e["code"] == "theft_laid"}
    if not thieves:
        return []
    first = max(thieves, key=lambda s: laid[s])
    return [(first + i) % n for i in range(n) if (first + i) % n in thieves]


@pytest.mark.parametrize(
    ("edition", "players", "options"),
    [
        ("classic", 10, {}),
        ("classic", 5, {"selfish_dwarf": True, "competitive": True}),
        ("classic", 8, {"gold_per_digger": True, "old_mine": True}),
        ("classic", 7, {"tournament": True}),
        ("classic", 4, {"max_saboteurs": True}),
        ("expansion", 4, {}),
        ("expansion", 9, {}),
        ("expansion", 12, {"bounded_board": True}),
    ],
)
def test_round_results_match_an_independent_reading_of_the_scoring_rules(
    edition: str, players: int, options: dict[str, Any]
) -> None:
    config = GameConfig.from_options(edition, players, options)
    checked: set[str] = set()
    steal_timeouts = 0
    for g in range(6):
        at_end: GameState | None = None  # the state just before the round ended
        payout: list[int] = []
        for b, entry, a in walk(config, 7000 + g, east_bias=0.9, timeouts=0.05):
            if b.phase == "playing" and a.phase != "playing":
                at_end = b
                res = a.rs.result
                assert res is not None
                if edition == "classic":
                    exp = expected_classic(b, a)
                    assert res["winners"] == exp["winners"]
                    if sum(int(c) for c in a.nuggets) > 0:  # the pile did not run dry
                        got = [sorted(c) for c in res["nuggets"]]
                        assert got == [sorted(c) for c in exp["cards"]], (res, exp)
                else:
                    exp = expected_expansion(a)
                    assert res["winners"] == exp["winners"]
                    assert sorted(res["winning_seats"]) == exp["winning_seats"]
                    payout = [x - y for x, y in zip(a.gold, b.gold, strict=True)]
                    assert payout == exp["payout"], (payout, exp)
                checked.add(res["winners"])
                if a.phase == "stealing":
                    assert list(a.rs.thieves) == thief_order(a)
            if b.phase == "stealing" and entry.get("timeout"):
                assert b.rs.current is not None
                stole = [e for e in a.log[len(b.log) :] if e["code"] == "stole"]
                assert stole[0]["target_seat"] == richest(b, b.rs.current)
                steal_timeouts += 1
            if b.phase == "stealing" and a.phase != "stealing" and at_end is not None:
                # thefts move gold, they do not make it
                assert sum(a.gold) == sum(at_end.gold) + sum(payout)
    # both sides won some round, so both branches of the oracle were compared
    assert "saboteurs" in checked and checked & {"diggers", "blue", "green", "blue+green"}


def test_thieves_steal_in_rule_order_and_timeouts_rob_the_richest() -> None:
    """Saboteur 2 games where players lay theft cards whenever they can, and half the
    steals time out: the thieves' order (RULES §6) and the timeout's victim (§7)."""
    config = GameConfig.from_options("expansion", 7, {"rounds": 3})
    orders = multi = timeouts = 0
    for seed in range(12):
        rng = random.Random(seed)
        state = new_game(config, 9100 + seed)
        while state.phase != "finished":
            if state.phase == "round_over" or (state.phase == "stealing" and rng.random() < 0.5):
                before = state
                state, events = apply_timeout(state)
                if before.phase == "stealing":
                    assert before.rs.current is not None
                    stole = [e for e in events if e["code"] == "stole"]
                    assert stole[0]["target_seat"] == richest(before, before.rs.current)
                    timeouts += 1
                continue
            seat = state.rs.current
            assert seat is not None
            moves = legal_moves(state, seat)
            thefts = [m for m in moves if m["type"] in ("theft", "place_path")]
            move = rng.choice(thefts if thefts and rng.random() < 0.8 else moves)
            before = state
            state, _ = apply_move(state, seat, move)
            if before.phase == "playing" and state.phase == "stealing":
                assert list(state.rs.thieves) == thief_order(state)
                orders += 1
                multi += len(state.rs.thieves) > 1
    assert orders and multi and timeouts
