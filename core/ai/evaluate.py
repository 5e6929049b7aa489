"""Agent-versus-agent evaluation: play rounds with the engine, count who wins.

Why here: the simulator (`core.sim`) and the benchmark (`benchmarks/ai_eval.py`) both need
"seat s is played by KIND" and the belief-accuracy measure; keeping it next to the agents
lets either call it. This module is the harness, so it may look at the whole game state
(roles, to pick each seat's agent and to score beliefs); the agents still get views only.

Agent kinds: `random` (a uniformly random legal move) or `ai` / `ai:easy|normal|hard`.
Role keys for `assign`: `diggers` = every role that is not a saboteur, `saboteurs`, or a
single role name (`digger`, `saboteur`, `selfish`, `blue`, `green`, `boss`, `profiteer`,
`geologist`).
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from core import engine
from core.ai.agent import choose_move
from core.ai.beliefs import beliefs
from core.ai.knowledge import is_saboteur_side, role_kind
from core.engine import GameConfig, GameState
from core.engine.shapes import ViewDict


def parse_kind(kind: str) -> tuple[str, str]:
    """'ai:hard' -> ('ai', 'hard'); 'random' -> ('random', '')."""
    k = kind.strip().lower()
    if k == "random":
        return "random", ""
    if k == "ai":
        return "ai", "normal"
    if k.startswith("ai:") and k[3:] in ("easy", "normal", "hard"):
        return "ai", k[3:]
    raise ValueError(f"unknown agent kind {kind!r} (random, ai, ai:easy|normal|hard)")


@dataclass(slots=True)
class Assignment:
    """Which kind plays a seat, from its role this round."""

    default: str = "random"
    by_side: dict[str, str] = field(default_factory=dict)  # diggers / saboteurs
    by_role: dict[str, str] = field(default_factory=dict)  # role kind -> kind

    def kind_for(self, role: str) -> str:
        rk = role_kind(role)
        if rk in self.by_role:
            return self.by_role[rk]
        side = "saboteurs" if rk == "saboteur" else "diggers"
        return self.by_side.get(side, self.default)


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a proportion."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return max(0.0, mid - half), min(1.0, mid + half)


@dataclass(slots=True)
class Tally:
    rounds: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    role_wins: Counter[str] = field(default_factory=Counter)  # role kind -> rounds won
    role_rounds: Counter[str] = field(default_factory=Counter)  # role kind -> rounds dealt
    belief_hits: float = 0.0
    belief_samples: int = 0
    decisions: int = 0
    ai_seconds: float = 0.0
    max_decision: float = 0.0
    times: list[float] = field(default_factory=list)  # every AI decision's seconds

    def belief_accuracy(self) -> float | None:
        return self.belief_hits / self.belief_samples if self.belief_samples else None

    def summary(self) -> dict[str, object]:
        out: dict[str, object] = {"rounds": self.rounds, "outcomes": dict(self.outcomes)}
        rates = {}
        for side, k in self.outcomes.items():
            lo, hi = wilson(k, self.rounds)
            rates[side] = {
                "rate": round(k / max(1, self.rounds), 4),
                "ci95": [round(lo, 4), round(hi, 4)],
            }
        out["win_rates"] = rates
        out["role_win_rates"] = {
            r: round(self.role_wins[r] / n, 4) for r, n in sorted(self.role_rounds.items()) if n
        }
        acc = self.belief_accuracy()
        out["belief_accuracy"] = None if acc is None else round(acc, 4)
        out["belief_samples"] = self.belief_samples
        out["ai_decisions"] = self.decisions
        if self.decisions:
            out["ai_ms_mean"] = round(1000 * self.ai_seconds / self.decisions, 2)
            out["ai_ms_max"] = round(1000 * self.max_decision, 2)
        if self.times:
            ts = sorted(self.times)
            # the 50 ms target is about a live table: the tail matters more than the mean
            out["ai_ms_p95"] = round(1000 * ts[min(len(ts) - 1, int(0.95 * len(ts)))], 2)
            out["ai_ms_p99"] = round(1000 * ts[min(len(ts) - 1, int(0.99 * len(ts)))], 2)
        return out


def belief_hit_rate(view: ViewDict, roles: list[str]) -> float | None:
    """Share of true saboteur-side seats among this seat's top-s suspects (None: s=0)."""
    me = (view.get("you") or {}).get("seat")
    bad = {i for i, r in enumerate(roles) if is_saboteur_side(role_kind(r)) and i != me}
    s = len(bad)
    if s == 0:
        return None
    b = beliefs(view)
    ranked = sorted((p, -seat) for seat, p in b.items() if seat != me)
    top = [-seat for _, seat in ranked[-s:]]
    return sum(1 for t in top if t in bad) / s


Clock = Callable[[], float] | None  # seconds (time.perf_counter), or no timing


def play_games(
    config: GameConfig,
    *,
    games: int,
    seed: int,
    assignment: Assignment,
    clock: Clock = None,
    max_rounds: int | None = None,
) -> Tally:
    """Play `games` games (or until `max_rounds` rounds) and tally every round.

    `config` is a `core.engine.GameConfig`. Seeds are `seed`, `seed + 1`, ...; agent
    noise is seeded from the game seed, so a run is reproducible.
    """
    tally = Tally()
    for g in range(games):
        if max_rounds is not None and tally.rounds >= max_rounds:
            break
        _play_one(config, seed + g, assignment, tally, clock, max_rounds)
    return tally


def _roles_of(state: GameState) -> list[str]:
    n = state.config.players
    return [str((engine.view_for(state, s).get("you") or {}).get("role")) for s in range(n)]


def _play_one(
    config: GameConfig,
    seed: int,
    assignment: Assignment,
    tally: Tally,
    clock: Clock,
    max_rounds: int | None,
) -> None:
    state = engine.new_game(config, seed)
    rng = random.Random(f"agents:{seed}")
    roles = _roles_of(state)
    prev = state
    steps = 0
    while True:
        ph = engine.phase(state)
        if ph == "finished":
            return
        if ph == "round_over":
            _tally_round(state, prev, roles, assignment, tally)
            if max_rounds is not None and tally.rounds >= max_rounds:
                return
            state, _ = engine.apply_timeout(state)
            roles = _roles_of(state)
            prev = state
            continue
        seat = engine.actor(state)
        if seat is None:
            state, _ = engine.apply_timeout(state)
            continue
        view = engine.view_for(state, seat)
        kind, level = parse_kind(assignment.kind_for(roles[seat]))
        if kind == "random":
            move = rng.choice(view["legal_moves"])
        else:
            t0 = clock() if clock else 0.0
            move = choose_move(view, level=level, seed=rng.randrange(1 << 30))
            if clock:
                dt = clock() - t0
                tally.decisions += 1
                tally.ai_seconds += dt
                tally.max_decision = max(tally.max_decision, dt)
                tally.times.append(dt)
        prev = state
        state, _ = engine.apply_move(state, seat, move)
        steps += 1
        if steps > 5000:
            raise RuntimeError(f"game {seed} does not end")


def outcome_label(result: Mapping[str, object]) -> str:
    w = result.get("winners")
    if isinstance(w, list | tuple):
        return "+".join(str(x) for x in w) or "none"
    return str(w)


def _tally_round(
    state: GameState, prev: GameState, roles: list[str], assignment: Assignment, tally: Tally
) -> None:
    view = engine.view_for(state, None)
    result = view.get("round_result") or {}
    tally.rounds += 1
    label = outcome_label(result)
    tally.outcomes[label] += 1
    winners = set(label.split("+"))
    for seat, r in enumerate(roles):
        rk = role_kind(r)
        tally.role_rounds[rk] += 1
        if _role_won(rk, winners, result, seat):
            tally.role_wins[rk] += 1
    for seat, r in enumerate(roles):
        rk = role_kind(r)
        if is_saboteur_side(rk) or rk in ("geologist", "unknown"):
            continue
        kind, _ = parse_kind(assignment.kind_for(r))
        if kind != "ai":
            continue
        hit = belief_hit_rate(engine.view_for(prev, seat), roles)
        if hit is not None:
            tally.belief_hits += hit
            tally.belief_samples += 1


def _role_won(rk: str, winners: set[str], result: Mapping[str, object], seat: int) -> bool:
    seats = result.get("winning_seats") or result.get("winner_seats")
    if isinstance(seats, list):
        return seat in seats
    if rk in ("digger", "boss"):
        return bool(winners & {"diggers", "blue", "green"})
    if rk == "saboteur":
        return "saboteurs" in winners
    if rk == "selfish":
        return "selfish_dwarf" in winners
    if rk in ("blue", "green"):
        return rk in winners
    return rk == "profiteer"
