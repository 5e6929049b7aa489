"""Seat substitution: is one seat at level A better than the same seat at level B?

Why this protocol (DeepRole's, adapted): table-wide win rates mostly measure the deal.
Here every one-round deal is played twice with the same agent seeds, once with the tested
seat (chosen by the role it was dealt) at `level` and once at `base`, every other seat at
`base`; the paired difference of the seat's side winning the round, and of the gold it
earns, removes the deal's luck. Like `core.ai.evaluate`, this harness sees the whole
state (to pick the seat and read the result); the agents still get views only.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

from core.ai.agent import choose_move, rollout_move
from core.ai.board_model import Memo
from core.ai.cards import PATHS
from core.ai.entry import ai_view
from core.ai.knowledge import is_saboteur_side, role_kind
from core.ai.search import centred
from core.engine.cards import GOLD
from core.engine.shapes import MoveDict, ViewDict

Clock = Callable[[], float] | None

# Levels that measure the headroom of one seat rather than an agent: the seat plays as
# `base` but is told what no player can know (every seat's role, the gold's goal). What
# such a seat gains over its `base` self bounds what better guessing could gain.
ORACLES: dict[str, tuple[str, ...]] = {
    "oracle": ("roles", "gold"),
    "oracle-roles": ("roles",),
    "oracle-gold": ("gold",),
}


def told(view: ViewDict, state: Any, what: tuple[str, ...]) -> ViewDict:
    """`view` with the truths `what` names written into its private part, the way an
    inspection (`known_roles`) or a peek (`known_goals`) would have written them."""
    out: dict[str, Any] = dict(view)
    you: dict[str, Any] = dict(view.get("you") or {})
    if "roles" in what:
        you["known_roles"] = [
            {"seat": s, "role": r, "stale": False} for s, r in enumerate(state.rs.roles)
        ]
    if "gold" in what:
        you["known_goals"] = [
            {"goal": g, "kind": "gold" if c == GOLD else "stone"}
            for g, c in enumerate(state.rs.board.goals)
        ]
    out["you"] = you
    return cast(ViewDict, out)


@dataclass(slots=True)
class Paired:
    """Per-deal differences (level minus base) of two measures, and decision times."""

    win: list[float] = field(default_factory=list)
    gold: list[float] = field(default_factory=list)
    base_wins: int = 0
    times: list[float] = field(default_factory=list)  # seconds per decision at `level`
    skipped: int = 0  # deals without a seat of the tested role
    # what the seat did, summed over the deals, at `level` and at `base`: the round log's
    # entries the seat made, by code, and "targeted:CODE" for entries aimed at it (why a
    # seat wins or loses more is read here first)
    seat_log: dict[str, Counter[str]] = field(
        default_factory=lambda: {"level": Counter(), "base": Counter()}
    )

    def summary(self) -> dict[str, Any]:
        n = len(self.win)
        out: dict[str, Any] = {
            "deals": n,
            "skipped": self.skipped,
            "base_win_rate": round(self.base_wins / n, 4) if n else None,
            "win_diff": mean_ci(self.win),
            "gold_diff": mean_ci(self.gold),
        }
        if self.times:
            ts = sorted(self.times)
            k = len(ts)
            out["decisions"] = k
            out["ms_mean"] = round(1000 * sum(ts) / k, 1)
            out["ms_p95"] = round(1000 * ts[min(k - 1, int(0.95 * k))], 1)
            out["ms_p99"] = round(1000 * ts[min(k - 1, int(0.99 * k))], 1)
            out["ms_max"] = round(1000 * ts[-1], 1)
        if n and any(self.seat_log.values()):
            out["seat_log_per_deal"] = {
                side: {c: round(k / n, 3) for c, k in sorted(counts.items())}
                for side, counts in self.seat_log.items()
            }
        return out


def mean_ci(xs: list[float], z: float = 1.96) -> dict[str, float] | None:
    """The mean of paired differences with its normal 95% interval."""
    n = len(xs)
    if n == 0:
        return None
    m = sum(xs) / n
    var = sum((x - m) ** 2 for x in xs) / (n - 1) if n > 1 else 0.0
    half = z * math.sqrt(var / n)
    return {"mean": round(m, 4), "lo": round(m - half, 4), "hi": round(m + half, 4)}


def matches(role: str, tested: str) -> bool:
    """`tested` is a role kind (digger, saboteur, blue, ...) or a side (`diggers`)."""
    rk = role_kind(role)
    if tested == "diggers":
        return not is_saboteur_side(rk) and rk != "geologist"
    return rk == tested


Pick = Callable[[Any, int], MoveDict]  # (the state, the seat to act) -> its move


def play_out(state: Any, pick: Pick, what: str = "a round") -> Any:
    """The state at the round's end: every turn's move from `pick`, a timeout where no
    seat may act. One loop for the protocol, the consistency views, the departures and
    their playouts, so they all drive a round alike."""
    from core import engine

    steps = 0
    while engine.phase(state) in ("playing", "stealing"):
        s = engine.actor(state)
        if s is None:
            state, _ = engine.apply_timeout(state)
            continue
        state, _ = engine.apply_move(state, s, pick(state, s))
        steps += 1
        if steps > 2000:
            raise RuntimeError(f"{what} does not end")
    return state


def tested_seat(state: Any, deal: int, tested: str) -> int | None:
    """The deal's tested seat, drawn (seeded by the deal) among the seats dealt `tested`;
    None when no seat was."""
    seats = [s for s, r in enumerate(state.rs.roles) if matches(r, tested)]
    return random.Random(f"seat:{deal}").choice(seats) if seats else None


def play_round(
    engine: Any, cfg: Any, seed: int, seat: int, level: str, base: str, clock: Clock
) -> tuple[bool, int, list[float], Counter[str]]:
    """(the seat won the round, its gold, its decision times, what it did: `seat_log`)
    with `seat` at `level`."""
    rng = random.Random(f"agents:{seed}")
    times: list[float] = []

    def pick(state: Any, s: int) -> MoveDict:
        view = ai_view(state, s)  # the round's whole public log, as `decide` gives it
        agent_seed = rng.randrange(1 << 30)
        lv = level if s == seat else base
        if lv in ORACLES:
            view, lv = told(view, state, ORACLES[lv]), base
        t0 = clock() if clock and s == seat else 0.0
        move = choose_move(view, level=lv, seed=agent_seed)
        if clock and s == seat:
            times.append(clock() - t0)
        return move

    state = play_out(engine.new_game(cfg, seed), pick, f"deal {seed}")
    end = ai_view(state, seat)
    res = end["round_result"] or {}
    won = seat in (res.get("winning_seats") or ())
    did: Counter[str] = Counter()
    for e in end.get("log") or ():
        if e.get("seat") == seat:
            did[str(e.get("code"))] += 1
        elif e.get("target_seat") == seat:
            did[f"targeted:{e.get('code')}"] += 1
    return won, int(res.get("your_winnings") or 0), times, did


def seat_substitution(
    cfg: Any,
    *,
    deals: int,
    seed: int,
    tested: str,
    level: str = "hard",
    base: str = "normal",
    clock: Clock = None,
) -> Paired:
    """Deals `seed`, `seed + 1`, ...; `cfg` a one-round `GameConfig`."""
    from core import engine

    out = Paired()
    for d in range(seed, seed + deals):
        seat = tested_seat(engine.new_game(cfg, d), d, tested)
        if seat is None:
            out.skipped += 1
            continue
        won_a, gold_a, times, did_a = play_round(engine, cfg, d, seat, level, base, clock)
        won_b, gold_b, _, did_b = play_round(engine, cfg, d, seat, base, base, None)
        out.seat_log["level"].update(did_a)
        out.seat_log["base"].update(did_b)
        out.win.append(float(won_a) - float(won_b))
        out.gold.append(float(gold_a - gold_b))
        out.base_wins += int(won_b)
        out.times += times
    return out


def decision_consistency(
    cfg: Any, *, deals: int, seed: int, tested: str, level: str = "hard", clock: Clock = None
) -> dict[str, Any]:
    """How often two decisions at `level` of one view, with other seeds, pick the same
    move; beside it the same for `level` against `normal` and `normal` against itself.

    Why: a search whose verdict is mostly the spread of its sampled worlds picks a
    different move each time it is asked, which the seat-substitution protocol only
    shows as a null result after a thousand deals; this shows it in a minute. Views: the
    decisions with two or more legal moves of the seats dealt `tested` in one-round deals
    `seed`, `seed + 1`, ... played at `normal`; `clock` (CPU seconds) times `level`."""
    from core import engine

    views = []
    for d in range(seed, seed + deals):
        rng = random.Random(f"agents:{d}")

        def pick(state: Any, s: int, rng: random.Random = rng) -> MoveDict:
            view = ai_view(state, s)
            move = choose_move(view, level="normal", seed=rng.randrange(1 << 30))
            if matches(state.rs.roles[s], tested) and len(view["legal_moves"]) > 1:
                views.append(view)
            return move

        play_out(engine.new_game(cfg, d), pick, f"deal {d}")
    same = {"level_level": 0, "level_normal": 0, "normal_normal": 0}
    times = []
    rows: list[list[dict[int, float]]] = []
    other = 1 << 20
    for i, view in enumerate(views):
        t0 = clock() if clock else 0.0
        a = choose_move(view, level=level, seed=i, verdicts=rows)
        if clock:
            times.append(clock() - t0)
        b = choose_move(view, level=level, seed=i + other)
        n1 = choose_move(view, level="normal", seed=i)
        n2 = choose_move(view, level="normal", seed=i + other)
        same["level_level"] += a == b
        same["level_normal"] += a == n1
        same["normal_normal"] += n1 == n2
    k = max(1, len(views))
    out: dict[str, Any] = {
        "decisions": len(views),
        **{f"same_{key}": round(v / k, 3) for key, v in same.items()},
    }
    if rows:
        ratios = sorted(verdict_signal(r) for r in rows)
        out["searched"] = round(len(rows) / k, 3)
        out["verdict_signal_median"] = round(ratios[len(ratios) // 2], 2)
        out["verdict_signal_over_2"] = round(sum(r > 2 for r in ratios) / len(ratios), 3)
    if times:
        ts = sorted(times)
        out["ms_mean"] = round(1000 * sum(ts) / len(ts), 1)
        out["ms_p95"] = round(1000 * ts[min(len(ts) - 1, int(0.95 * len(ts)))], 1)
    return out


def verdict_signal(per_world: list[dict[int, float]]) -> float:
    """How far one search's candidates stand apart, in units of their own noise: the root
    mean square of the candidates' mean verdicts (each world centred on its candidates'
    mean) over the root mean square of their standard errors across the worlds.

    Why: a search can only choose what its worlds tell apart. With no true difference
    between the candidates this reads about 1; a verdict worth following reads well
    above it."""
    worlds = len(per_world)
    deltas = centred(per_world)
    cands = list(deltas)
    means = {i: sum(d) / worlds for i, d in deltas.items()}
    between = sum(m * m for m in means.values()) / len(cands)
    if worlds < 2:
        return math.inf if between > 0 else 0.0
    var = {i: sum((x - means[i]) ** 2 for x in d) / (worlds - 1) for i, d in deltas.items()}
    within = sum(v / worlds for v in var.values()) / len(cands)
    if within == 0:
        return math.inf if between > 0 else 0.0
    return math.sqrt(between / within)


def move_kind(view: ViewDict, move: MoveDict) -> str:
    """A move's type, a path card's door colour or ladder added (`place_path:blue`)."""
    kind = str(move.get("type"))
    if kind != "place_path":
        return kind
    cards = {str(c["id"]): str(c["card"]) for c in (view.get("you") or {}).get("hand") or ()}
    info = PATHS.get(cards.get(str(move.get("card")), ""))
    if info is not None and info.door:
        return f"{kind}:{info.door}"
    if info is not None and info.ladder:
        return f"{kind}:ladder"
    return kind


def playout(state: Any, seat: int, seed: str) -> tuple[float, float]:
    """(the seat's side won, its gold) after every seat plays the round out from `state`
    with the search's rollout agent: one sample of what a position is worth."""
    from core import engine

    rng = random.Random(seed)
    memo: Memo = {}

    def pick(state: Any, s: int) -> MoveDict:
        return rollout_move(engine.view_for(state, s), rng.randrange(1 << 30), memo)

    state = play_out(state, pick, "a playout")
    res = engine.view_for(state, seat)["round_result"] or {}
    return float(seat in (res.get("winning_seats") or ())), float(res.get("your_winnings") or 0)


@dataclass(slots=True)
class Departures:
    """Where `level` would play another move than `base`, what the change is worth."""

    win: list[float] = field(default_factory=list)  # per deal: the summed differences
    gold: list[float] = field(default_factory=list)
    decisions: int = 0  # the seat's decisions with two or more legal moves
    # "base kind -> level kind" -> the per-decision differences (win, gold)
    by_kind: dict[str, list[tuple[float, float]]] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        changed = sum(len(v) for v in self.by_kind.values())
        kinds = {}
        for k, v in sorted(self.by_kind.items(), key=lambda kv: -len(kv[1])):
            kinds[k] = {
                "n": len(v),
                "win": mean_ci([w for w, _ in v]),
                "gold": mean_ci([g for _, g in v]),
            }
        return {
            "deals": len(self.win),
            "decisions": self.decisions,
            "departures": changed,
            "win_diff": mean_ci(self.win),
            "gold_diff": mean_ci(self.gold),
            "by_kind": kinds,
        }


def departures(
    cfg: Any,
    *,
    deals: int,
    seed: int,
    tested: str,
    level: str = "hard",
    base: str = "normal",
    playouts: int = 16,
) -> Departures:
    """Each deal played at `base` (the seat chosen as in `seat_substitution`); at each of
    the seat's decisions `level` is asked too, and where it picks another move both moves
    are played out to the round's end `playouts` times from the true position (the same
    seeds for both): the difference of the seat's side winning and of its gold.

    Why: the seat-substitution protocol says whether `level` wins more, not which of its
    choices cost or gain; this splits the difference by the kind of change (`place_path ->
    discard`, ...). The playouts use the search's cheap agent, so the figures are a proxy
    for play at `base`, and they see the whole position (a measure, not a player)."""
    from core import engine

    out = Departures()
    for d in range(seed, seed + deals):
        state = engine.new_game(cfg, d)
        seat = tested_seat(state, d, tested)
        if seat is not None:
            win, gold = _departures_in(out, state, d, seat, level, base, playouts)
            out.win.append(win)
            out.gold.append(gold)
    return out


def _departures_in(
    out: Departures, state: Any, deal: int, seat: int, level: str, base: str, playouts: int
) -> tuple[float, float]:
    """Deal `deal` played at `base`, its departures added to `out`: their summed (win,
    gold) differences."""
    from core import engine

    rng = random.Random(f"agents:{deal}")
    sums = [0.0, 0.0]

    def pick(state: Any, s: int) -> MoveDict:
        view = ai_view(state, s)
        agent_seed = rng.randrange(1 << 30)
        move = choose_move(view, level=base, seed=agent_seed)
        if s != seat or len(view["legal_moves"]) < 2 or engine.phase(state) != "playing":
            return move
        out.decisions += 1
        other = choose_move(view, level=level, seed=agent_seed)
        if other != move:
            a, _ = engine.apply_move(state, s, other)
            b, _ = engine.apply_move(state, s, move)
            dw = dg = 0.0
            for k in range(playouts):
                key = f"playout:{deal}:{out.decisions}:{k}"
                wa, ga = playout(a, s, key)
                wb, gb = playout(b, s, key)
                dw, dg = dw + (wa - wb) / playouts, dg + (ga - gb) / playouts
            change = f"{move_kind(view, move)} -> {move_kind(view, other)}"
            out.by_kind.setdefault(change, []).append((dw, dg))
            sums[0], sums[1] = sums[0] + dw, sums[1] + dg
        return move

    play_out(state, pick, f"deal {deal}")
    return sums[0], sums[1]
