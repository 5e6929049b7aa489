"""`python -m core.sim`: play complete games with random (or computer) players and check
the engine's invariants after every move.

Why: random play reaches positions no scenario test thinks of, so a run with checks is
the cheapest proof that the engine keeps its books straight (cards, goals, hands, phases,
codec, views); a run with `--no-check` measures raw engine throughput. Prints ONE JSON
line (see ARCHITECTURE.md "The simulator's conventions"); exit status 1 on any violation.

    python -m core.sim --games 50 --players 10 --edition classic --no-check
    python -m core.sim --games 20 --players 5 --edition classic --option selfish_dwarf \
        --option rounds=2 --diggers ai --saboteurs random

The checking functions (`check_state`, `check_view`) are also used by the engine tests.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from core.engine import (
    CATALOGUE,
    GameConfig,
    GameState,
    actor,
    apply_move,
    legal_moves,
    new_game,
    state_from_json,
    state_to_json,
    view_for,
    waiting_on,
)
from core.engine.board import DELTA, GOAL_CELLS, GOAL_KEYS, START_KEY, Board, full_conn
from core.engine.cards import CARD_INDEX, CARD_LIST, GOAL_CARDS, GOLD
from core.engine.catalogue import CURRENT
from core.engine.moveset import EVENT_FIELDS
from core.engine.setup import hand_size, role_cards
from core.engine.shapes import EventDict, MoveDict, ViewDict

OUTCOME_LABELS = ("diggers", "saboteurs", "selfish_dwarf", "blue", "green", "blue+green")
ROLE_KEYS = ("digger", "saboteur", "selfish", "blue", "green", "boss", "profiteer", "geologist")

# ---------------------------------------------------------------------------- invariants


def catalogue_counts(edition: str) -> Counter[int]:
    """The round's deck as the catalogue says it (independent of the engine's deck code)."""
    out: Counter[int] = Counter()
    for cid, c in CATALOGUE.items():
        if c.category in ("path", "action") and (edition == "expansion" or c.edition == "classic"):
            out[CARD_INDEX[cid]] += c.count
    return out


_CATALOGUE_COUNTS = {e: catalogue_counts(e) for e in ("classic", "expansion")}
_NUGGET_TOTAL = {False: 16 + 16 + 12, True: 10 + 16 + 12}  # by old_mine


def card_accounting(state: GameState) -> Counter[int]:
    """Every card of the round, wherever it is now: deck + hands + maze + discards +
    in front of players + the cards removed unseen (Saboteur 2)."""
    rs = state.rs
    table = rs.table.cards
    got: Counter[int] = Counter(table[rs.drawn :])
    for hand in rs.hands:
        got.update(table[p] for p in hand)
    for k, o in rs.board.cells.items():
        if k != START_KEY and k not in GOAL_KEYS:
            got[o >> 1] += 1
    got.update(rs.discard)
    for front in rs.in_front:
        got.update(CARD_INDEX[c] for c in front)
    if state.config.expansion:
        got.update(table[: state.catalogue.removed])
    return got


def check_state(state: GameState, *, codec: bool = True) -> list[str]:
    """Invariant violations of one state (empty list when all hold)."""
    out: list[str] = []
    cfg = state.config
    rs = state.rs
    n = cfg.players
    if state.catalogue == CURRENT:
        want = _CATALOGUE_COUNTS[cfg.edition]
    else:  # a kept catalogue: its own deck
        want = Counter(state.catalogue.decks[cfg.edition])
    got = card_accounting(state)
    if got != want:
        diff = {
            CARD_LIST[i].id: got[i] - want[i] for i in set(got) | set(want) if got[i] != want[i]
        }
        out.append(f"card conservation: {diff}")
    # positions: each card position in at most one place, hands drawn from the pile
    first = state.catalogue.removed if cfg.expansion else 0
    held = [p for h in rs.hands for p in h]
    if len(held) != len(set(held)):
        out.append("a card position is in two hands")
    if any(not first <= p < rs.drawn for p in held):
        out.append("a hand holds a card that was never drawn")
    # goals
    if sorted(rs.board.goals) != sorted(GOAL_CARDS) or rs.board.goals.count(GOLD) != 1:
        out.append(f"goals are not one gold and two stones: {rs.board.goals}")
    for g, k in enumerate(GOAL_KEYS):
        o = rs.board.cells.get(k)
        if rs.board.revealed[g] != (o is not None):
            out.append(f"goal {g}: revealed flag and maze disagree")
        elif o is not None and o >> 1 != rs.board.goals[g]:
            out.append(f"goal {g}: the maze shows another goal card")
    if rs.board.cells.get(START_KEY, -1) >> 1 != CARD_INDEX["S1_START"]:
        out.append("the start card is missing")
    # RULES §2: a face-down goal next to a connected opening would have been turned up
    for g, k in enumerate(GOAL_KEYS):
        if not rs.board.revealed[g]:
            for d, opp in ((1, 4), (2, 8), (4, 1), (8, 2)):
                if rs.board.conn.get(k + DELTA[d], 0) & opp:
                    out.append(f"goal {g} is next to a connected opening but face down")
    # the incremental caches (connection masks, frontier) agree with a full recomputation
    b = rs.board
    if b.conn != full_conn(b.cells):
        out.append("incremental connection masks differ from a full flood")
    elif b.frontier() != Board(dict(b.cells), b.goals, b.revealed, b.bounded).frontier():
        out.append("incremental frontier differs from a fresh one")
    # hands
    h = hand_size(cfg, state.catalogue)
    if any(len(hand) > h for hand in rs.hands):
        out.append(f"a hand is over {h} cards: {[len(x) for x in rs.hands]}")
    if (
        not cfg.expansion
        and state.phase == "playing"
        and rs.deck_size() > 0
        and any(len(hand) != h for hand in rs.hands)
    ):
        out.append(f"classic hands not full while the pile has cards: {[len(x) for x in rs.hands]}")
    # roles
    # roles: a swapped hat leaves play (RULES §6), so roles + pool + swaps = the role cards
    swaps = sum(1 for e in _round_log(state) if e["code"] == "hats_swapped")
    dealt = Counter(rs.roles) + Counter(rs.role_pool)
    all_roles = role_cards(cfg, state.catalogue)
    if (
        len(rs.roles) != n
        or dealt - Counter(all_roles)
        or len(rs.roles) + len(rs.role_pool) + swaps != len(all_roles)
    ):
        out.append("role cards are not conserved")
    # gold
    if any(g < 0 for g in state.gold):
        out.append(f"negative gold: {state.gold}")
    if not cfg.expansion:
        total = sum(state.gold) + sum(int(c) for c in state.nuggets)
        if total != _NUGGET_TOTAL[cfg.old_mine]:
            out.append(f"nugget value not conserved: {total}")
    out += _check_phase(state)
    if codec:
        try:
            back = state_from_json(json.loads(json.dumps(state_to_json(state))))
            if back != state:
                out.append("state_from_json(state_to_json(s)) != s")
        except Exception as exc:  # any codec failure is a violation
            out.append(f"codec raised {exc!r}")
    return out


def _round_log(state: GameState) -> list[EventDict]:
    """The log entries of the current round (after its round_started entry)."""
    log = state.log
    for i in range(len(log) - 1, -1, -1):
        if log[i]["code"] == "round_started":
            return list(log[i + 1 :])
    return list(log)


def _check_phase(state: GameState) -> list[str]:
    rs = state.rs
    ph = state.phase
    cur = rs.current
    if ph == "playing":
        if cur is None or not 0 <= cur < state.n or not rs.hands[cur]:
            return [f"playing: actor {cur} cannot act"]
        if rs.result is not None or state.ready:
            return ["playing: a round result or ready seats are set"]
    elif ph == "stealing":
        if not state.config.expansion or not rs.thieves or cur != rs.thieves[0]:
            return [f"stealing: actor {cur} is not the next thief {rs.thieves}"]
    elif ph in ("round_over", "finished"):
        if rs.result is None:
            return [f"{ph}: no round result"]
        if ph == "finished" and (rs.number != state.config.rounds or state.ready):
            return ["finished before the last round"]
        if ph == "round_over" and rs.number >= state.config.rounds:
            return ["round_over after the last round"]
        if rs.result.get("winners") not in OUTCOME_LABELS:
            return [f"unknown winners label {rs.result.get('winners')!r}"]
    else:
        return [f"unknown phase {ph!r}"]
    if ph != "round_over" and state.ready:
        return ["ready seats outside round_over"]
    want: set[int] = set()
    if ph in ("playing", "stealing") and cur is not None:
        want = {cur}
    elif ph == "round_over":
        want = set(range(state.n)) - state.ready
    if waiting_on(state) != want or actor(state) != (
        cur if ph in ("playing", "stealing") else None
    ):
        return [f"{ph}: waiting_on {set(waiting_on(state))} / actor {actor(state)} inconsistent"]
    return []


# ---------------------------------------------------------------------------- views

VIEW_KEYS = {
    "status", "edition", "options", "round", "rounds", "seq", "you", "seats", "board",
    "goals", "deck_size", "discard_size", "current_seat", "log", "round_result", "final",
    "legal_moves",
}  # fmt: skip
YOU_KEYS = {"seat", "role", "hand", "gold", "known_goals", "known_roles"}
SEAT_KEYS = {"seat", "hand_size", "in_front", "has_gold", "role", "gold", "ready"}
RESULT_PUBLIC = {
    "round", "winners", "winning_seats", "roles", "gold_goal", "gold_reached", "reached_by",
    "route", "steals", "crystals", "blue_open", "green_open", "your_winnings", "your_nuggets",
}  # fmt: skip
# what each log entry may carry besides seq, seat, code (and a timeout flag): the fields
# its event's declaration names (core/engine/registry.py)
LOG_KEYS: dict[str, set[str]] = {code: set(fields) for code, fields in EVENT_FIELDS.items()}


def _walk(x: object, path: str = "") -> Iterator[tuple[str, object, bool]]:
    """(path, item, is_key) for every key and every scalar value in a JSON document."""
    if isinstance(x, dict):
        for k, v in x.items():
            yield f"{path}.{k}", k, True
            yield from _walk(v, f"{path}.{k}")
    elif isinstance(x, list | tuple):
        for i, v in enumerate(x):
            yield from _walk(v, f"{path}[{i}]")
    else:
        yield path, x, False


def secret_iids(state: GameState, seat: int | None) -> set[str]:
    """Instance ids of the round the viewer may not see (everything but their hand)."""
    rs = state.rs
    mine = set(rs.hands[seat]) if seat is not None else set()
    return {iid for p, iid in enumerate(rs.table.iids) if p not in mine}


def check_view(state: GameState, seat: int | None, view: ViewDict) -> list[str]:
    """What a view shows that its viewer may not know (RULES §8), plus shape errors."""
    out: list[str] = []
    rs = state.rs
    ph = state.phase
    ended = ph in ("stealing", "round_over", "finished")
    if set(view) != VIEW_KEYS:
        out.append(f"view keys {sorted(set(view) ^ VIEW_KEYS)} differ from the allow-list")
    you = view.get("you") or {}
    if set(you) != YOU_KEYS:
        out.append(f"you keys {sorted(you)}")
    secrets = secret_iids(state, seat)
    for path, item, is_key in _walk(view):
        if is_key and item in ("seed", "deck", "nuggets", "removed_cards", "pool", "role_pool"):
            out.append(f"forbidden key at {path}")
        if isinstance(item, str) and item in secrets:
            out.append(f"hidden instance id {item} at {path}")
    # the viewer's own part
    if seat is None:
        if you.get("role") is not None or you.get("hand") or you.get("gold") is not None:
            out.append("spectator sees a role, hand or gold")
    else:
        hand = [rs.table.iids[p] for p in rs.hands[seat]]
        if [c.get("id") for c in you.get("hand", [])] != hand:
            out.append("you.hand is not the viewer's hand")
        if you.get("role") != rs.roles[seat]:
            out.append("you.role is not the viewer's role")
        known = {(s, r, st) for s, r, st in rs.known_roles[seat]}
        for kr in you.get("known_roles", []):
            if (kr.get("seat"), kr.get("role"), kr.get("stale")) not in known:
                out.append(f"known_roles entry not learnt: {kr}")
    # other seats
    for s in view.get("seats", []):
        if set(s) != SEAT_KEYS:
            out.append(f"seat keys {sorted(s)}")
        if s.get("role") is not None and not ended:
            out.append(f"role of seat {s.get('seat')} shown before the round ended")
        if s.get("gold") is not None and ph != "finished":
            out.append(f"gold of seat {s.get('seat')} shown before the game ended")
        if s.get("has_gold") is not None and not state.config.expansion:
            out.append("has_gold shown in the classic game")
    # goals
    known_goals = set(rs.known_goals[seat]) if seat is not None else set()
    for shown in view.get("goals", []):
        gi = shown.get("goal")
        if shown.get("kind") is not None and not (
            rs.board.revealed[gi] or ended or gi in known_goals
        ):
            out.append(f"kind of goal {gi} shown to a viewer who has not seen it")
    for kg in you.get("known_goals", []):
        if kg.get("goal") not in known_goals:
            out.append(f"known goal {kg} not looked at")
    board_xy = {(c["x"], c["y"]) for c in view.get("board", [])}
    for g, xy in enumerate(GOAL_CELLS):
        if xy in board_xy and not rs.board.revealed[g]:
            out.append(f"face-down goal {g} drawn in the maze")
    # round result and log
    res = view.get("round_result")
    if res is not None:
        if not ended:
            out.append("round_result shown while playing")
        extra = set(res) - RESULT_PUBLIC - ({"winnings"} if ph == "finished" else set())
        if extra:
            out.append(f"round_result private fields {sorted(extra)}")
    if view.get("final") is not None and ph != "finished":
        out.append("final shown before the game ended")
    for e in view.get("log", []):
        allowed = LOG_KEYS.get(str(e.get("code")))
        if allowed is None:
            out.append(f"unknown log code {e.get('code')!r}")
        elif set(e) - {"seq", "seat", "code", "timeout"} - allowed:
            out.append(f"log entry {e.get('code')} has extra fields {sorted(set(e) - allowed)}")
    if seat is not None and view.get("legal_moves") != legal_moves(state, seat):
        out.append("view legal_moves differ from legal_moves()")
    return out


# ---------------------------------------------------------------------------- playing


@dataclass(slots=True)
class Agents:
    """Which kind (random / ai[:level]) plays a seat, by its role this round."""

    default: str = "random"
    by_side: dict[str, str] = field(default_factory=dict)
    by_role: dict[str, str] = field(default_factory=dict)

    @property
    def uses_ai(self) -> bool:
        kinds = [self.default, *self.by_side.values(), *self.by_role.values()]
        return any(k != "random" for k in kinds)


@dataclass(slots=True)
class Run:
    games: int = 0
    rounds: int = 0
    moves: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    violations: list[str] = field(default_factory=list)
    belief_hits: float = 0.0
    belief_samples: int = 0


def play_game(
    config: GameConfig,
    seed: int,
    run: Run,
    *,
    check: bool = True,
    codec_every: int = 1,
    agents: Agents | None = None,
    inject: bool = False,
) -> GameState:
    """Play one complete game; tally into `run`. Random agents choose uniformly."""
    rng = random.Random(f"sim:{seed}")
    state = new_game(config, seed)
    ai = agents is not None and agents.uses_ai
    if ai:
        from core.ai.evaluate import Assignment, parse_kind

        assert agents is not None
        assign = Assignment(agents.default, agents.by_side, agents.by_role)
    prev = state
    n = config.players
    moves = 0
    while True:
        ph = state.phase
        if ph == "finished" or ph == "round_over":
            run.rounds += 1
            run.outcomes[str((state.rs.result or {}).get("winners"))] += 1
            if ai:
                _tally_beliefs(prev, state, assign, run)
            if ph == "finished":
                break
            for s in range(n):  # every seat confirms "next round"
                state, _ = apply_move(state, s, {"type": "next_round"})
                moves += 1
                if check:
                    _check(state, moves, codec_every, run, seed)
            prev = state
            continue
        seat = state.rs.current
        assert seat is not None
        if ai and parse_kind(assign.kind_for(state.rs.roles[seat]))[0] == "ai":
            from core.ai import choose_move

            level = parse_kind(assign.kind_for(state.rs.roles[seat]))[1]
            view = view_for(state, seat)
            try:
                move = choose_move(view, level=level, seed=rng.randrange(1 << 30))
            except Exception as exc:  # an agent bug is reported, and the game goes on
                run.violations.append(f"game {seed} seq {state.seq}: ai raised {exc!r}")
                move = rng.choice(view["legal_moves"])
            if move not in view["legal_moves"]:
                run.violations.append(f"game {seed} seq {state.seq}: ai chose unlisted {move}")
        else:
            move = rng.choice(legal_moves(state, seat))
        before = state
        try:
            state, _ = apply_move(state, seat, move)
        except Exception as exc:  # a listed or chosen move must apply
            run.violations.append(f"game {seed} seq {state.seq}: {move} refused: {exc!r}")
            break
        if state.phase != "playing" and before.phase == "playing":
            prev = before
        moves += 1
        if inject and moves == 1:
            state = _corrupt(state)
        if check:
            _check(state, moves, codec_every, run, seed)
            if inject and moves == 1:
                break
        if moves > 20_000:
            run.violations.append(f"game {seed} does not end")
            break
    run.games += 1
    run.moves += moves
    return state


Step = tuple[GameState, dict[str, object], GameState]


def walk(
    config: GameConfig,
    seed: int,
    *,
    east_bias: float = 0.0,
    timeouts: float = 0.0,
    max_moves: int = 20_000,
) -> Iterator[Step]:
    """Play one game to the end, yielding (before, log entry, after) for every step.

    The entry is what `replay` takes: {"seat", "move"} or {"timeout": True}. With
    `east_bias` p, a player places the path card that reaches furthest east with
    probability p (so that gold is reached and every round-end branch is exercised);
    with `timeouts` q, the deadline fires instead of a move with probability q.
    """
    from core.engine import apply_timeout

    rng = random.Random(f"walk:{seed}")
    state = new_game(config, seed)
    for _ in range(max_moves):
        ph = state.phase
        if ph == "finished":
            return
        entry: dict[str, object]
        if timeouts and rng.random() < timeouts:
            entry = {"timeout": True}
            after, _ = apply_timeout(state)
        else:
            if ph == "round_over":
                seat = min(set(range(config.players)) - state.ready)
            else:
                seat = state.rs.current  # type: ignore[assignment]
            moves = legal_moves(state, seat)
            paths = [m for m in moves if m["type"] == "place_path"]
            if paths and east_bias and rng.random() < east_bias:
                move = max(paths, key=lambda m: _eastward(state, m, rng))
            else:
                move = rng.choice(moves)
            entry = {"seat": seat, "move": move}
            after, _ = apply_move(state, seat, move)
        yield state, entry, after
        state = after
    raise RuntimeError(f"game {seed} did not end in {max_moves} moves")


def _eastward(state: GameState, move: MoveDict, rng: random.Random) -> float:
    """How far east a placement leads: its column, plus a bonus when its east edge is
    joined through the card (not a stub), minus a little for straying from the goals."""
    from core.engine.cards import GROUP_OF

    table = state.rs.table
    o = 2 * table.cards[table.pos_of[move["card"]]] + int(move["rotated"])
    east = GROUP_OF[o][2]
    through = bool(east) and east != 2
    x, y = int(move["x"]), int(move["y"])
    return x + (0.6 if through else 0.0) - 0.1 * min(abs(y), 3) + 0.05 * rng.random()


def _corrupt(state: GameState) -> GameState:
    """Test hook: lose one card from the first hand (a conservation violation)."""
    from dataclasses import replace

    rs = state.rs
    hands = list(rs.hands)
    hands[0] = hands[0][1:]
    return replace(state, rs=replace(rs, hands=tuple(hands)))


def _check(state: GameState, moves: int, codec_every: int, run: Run, seed: int) -> None:
    found = check_state(state, codec=codec_every > 0 and moves % codec_every == 0)
    n = state.config.players
    viewer = None if moves % (n + 1) == n else moves % (n + 1)
    found += check_view(state, viewer, view_for(state, viewer))
    run.violations += [f"game {seed} seq {state.seq}: {v}" for v in found]


def _tally_beliefs(prev: GameState, end: GameState, assign: Any, run: Run) -> None:
    """ARCHITECTURE.md belief accuracy: each AI digger's top-s suspects at round end."""
    from core.ai.evaluate import belief_hit_rate, parse_kind
    from core.ai.knowledge import is_saboteur_side, role_kind

    roles = list(end.rs.roles)
    for seat, r in enumerate(roles):
        rk = role_kind(r)
        if is_saboteur_side(rk) or rk in ("geologist", "unknown"):
            continue
        if parse_kind(assign.kind_for(r))[0] != "ai":
            continue
        hit = belief_hit_rate(view_for(prev, seat), roles)
        if hit is not None:
            run.belief_hits += hit
            run.belief_samples += 1


# ---------------------------------------------------------------------------- CLI


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m core.sim",
        description="Play complete games with random or computer players, check the "
        "engine's invariants after every move, print one JSON line (exit 1 on a violation).",
    )
    p.add_argument("--games", type=int, default=10)
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--edition", choices=("classic", "expansion"), default="classic")
    p.add_argument("--option", action="append", default=[], metavar="NAME[=VALUE]",
                   help="a flag (selfish_dwarf) or a value (rounds=1); repeatable")  # fmt: skip
    p.add_argument("--seed", type=int, default=1, help="game g uses seed S+g")
    p.add_argument("--no-check", action="store_true", help="skip invariant checks (throughput)")
    p.add_argument("--codec-every", type=int, default=1, metavar="K",
                   help="codec round trip every K moves (0: never)")  # fmt: skip
    p.add_argument("--agents", default="random", metavar="KIND",
                   help="every seat: random | ai | ai:easy|normal|hard")  # fmt: skip
    p.add_argument("--diggers", default=None, metavar="KIND", help="every non-saboteur role")
    p.add_argument("--saboteurs", default=None, metavar="KIND")
    p.add_argument("--agent", action="append", default=[], metavar="ROLE=KIND",
                   help=f"one role: {', '.join(ROLE_KEYS)}; repeatable")  # fmt: skip
    p.add_argument("--inject-violation", action="store_true", help=argparse.SUPPRESS)
    return p.parse_args(argv)


def parse_options(items: list[str]) -> dict[str, object]:
    out: dict[str, object] = {}
    for item in items:
        name, eq, value = item.partition("=")
        if not eq:
            out[name] = True
        elif value.lower() in ("true", "false"):
            out[name] = value.lower() == "true"
        else:
            out[name] = int(value)
    return out


def _kind(k: str) -> str:
    if k.strip().lower() == "random":
        return "random"  # random runs never import core.ai
    from core.ai.evaluate import parse_kind

    kind, level = parse_kind(k)
    return "random" if kind == "random" else f"ai:{level}"


def parse_agents(ns: argparse.Namespace) -> Agents:
    a = Agents(default=_kind(ns.agents))
    if ns.diggers:
        a.by_side["diggers"] = _kind(ns.diggers)
    if ns.saboteurs:
        a.by_side["saboteurs"] = _kind(ns.saboteurs)
    for item in ns.agent:
        role, eq, kind = item.partition("=")
        if not eq or role not in ROLE_KEYS:
            raise ValueError(f"--agent ROLE=KIND with ROLE one of {', '.join(ROLE_KEYS)}")
        a.by_role[role] = _kind(kind)
    return a


def simulate(ns: argparse.Namespace) -> dict[str, object]:
    config = GameConfig.from_options(ns.edition, ns.players, parse_options(ns.option))
    agents = parse_agents(ns)
    run = Run()
    t0 = time.perf_counter()
    for g in range(ns.games):
        play_game(
            config,
            ns.seed + g,
            run,
            check=not ns.no_check,
            codec_every=ns.codec_every,
            agents=agents,
            inject=ns.inject_violation and g == 0,
        )
    dt = time.perf_counter() - t0
    outcomes = {lab: run.outcomes.get(lab, 0) for lab in OUTCOME_LABELS}
    for lab, k in run.outcomes.items():
        if lab not in outcomes:
            run.violations.append(f"unknown outcome label {lab!r}")
            outcomes[lab] = k
    result: dict[str, object] = {
        "games": run.games,
        "rounds": run.rounds,
        "moves": run.moves,
        "seconds": round(dt, 3),
        "games_per_sec": round(run.games / dt, 2) if dt else None,
        "moves_per_sec": round(run.moves / dt, 1) if dt else None,
        "outcomes": outcomes,
        "invariant_violations": None if ns.no_check else len(run.violations),
        "edition": ns.edition,
        "players": ns.players,
        "options": config.options(),
        "seed": ns.seed,
    }
    from core.ai.evaluate import wilson  # a plain formula; core.ai is pure and cheap

    rates = {}
    for lab, k in outcomes.items():
        lo, hi = wilson(k, run.rounds)
        rates[lab] = {
            "rate": round(k / max(1, run.rounds), 4),
            "ci95": [round(lo, 4), round(hi, 4)],
        }
    result["win_rates"] = rates
    result["agents"] = {"default": agents.default, **agents.by_side, **agents.by_role}
    if agents.uses_ai:
        result["belief_accuracy"] = (
            round(run.belief_hits / run.belief_samples, 4) if run.belief_samples else None
        )
        result["belief_samples"] = run.belief_samples
    if run.violations:
        result["first_violations"] = run.violations[:10]
    return result


def main(argv: list[str] | None = None) -> int:
    ns = parse_args(argv)
    try:
        result = simulate(ns)
    except (ValueError, KeyError) as exc:
        print(json.dumps({"error": str(exc)}), file=sys.stderr)
        return 2
    print(json.dumps(result))
    return 1 if result["invariant_violations"] else 0


if __name__ == "__main__":
    sys.exit(main())
