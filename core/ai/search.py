"""The `hard` level's search: determinized rollouts over worlds drawn from the seat's beliefs.

Why: the heuristic scores a move by what it does now (plus one own follow-up card); it
cannot see what the next seats will do with it. The search takes the heuristic's best few
moves, plays each forward in the same sampled worlds (other seats' roles, hands, the pile
and the gold drawn from this seat's beliefs, `core.ai.worlds`) with the engine itself
through the next seats' turns (up to five), each moved by a cheap heuristic agent, and
scores where it ends by each role's own goal (`value`). The rollouts only re-rank: a
move's final score is its heuristic score plus the search's verdict (what the next
seats' turns changed) relative to the other candidates.

The budget is counted in simulated moves (`Budget.steps`), never in time, so a decision
is the same on any machine; docs/benchmarks/ai.md has its CPU cost.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Literal

from core.ai.board_model import INF, Board
from core.ai.cards import BREAK_CARDS
from core.ai.knowledge import is_saboteur_side, role_kind
from core.ai.win_model import p_diggers, unrevealed_gold
from core.ai.worlds import WorldSampler
from core.engine import GameState, IllegalMove, StateError, actor, apply_move, phase, view_for
from core.engine.shapes import MoveDict, ViewDict

Judge = Literal["distance", "win"]  # how a rollout's end is judged (Budget.judge)
WIN = 100.0  # a round won, in the heuristic's unit (10 = one card of progress)
GOLD_W = 5.0  # per nugget won in the round
BLOCKED_W = 4.0  # a seat of a side with a broken tool or trapped, against that side
SEARCH_W = 1.0  # weight of the search's verdict against the heuristic score
CLEAR_LEAD = 25.0  # the heuristic's best leads its second by this much: no search
DIST_CAP = 12  # distances beyond this count as this (an unreachable goal is just "far")
MAX_PLIES = 5  # a rollout's default length: the next seats up to this many
# The verdict is what the next seats' turns change (value after the rollout minus value
# right after the candidate): the heuristic already counts the move's own effect, and
# adding it twice outweighed a saboteur's exposure cost (docs/benchmarks/ai.md).
REACTION = True

Decide = Callable[[ViewDict, int], MoveDict]


@dataclass(frozen=True, slots=True)
class Budget:
    candidates: int  # how many of the heuristic's best moves are searched
    steps: int  # simulated moves per decision, over every world and candidate
    depth: int  # plies per rollout beyond the candidate (0: the next seats, <= MAX_PLIES)
    # A verdict counts as far as the worlds agree on it: a candidate's mean over the
    # worlds of (its value - the world's candidate mean) is scaled by m^2 / (m^2 + se^2).
    # With five plies and no shrinking two searches of one view (other seeds) picked the
    # same move for 38 % of classic saboteur decisions (docs/benchmarks/ai.md).
    shrink: bool = False
    # How a rollout's end is judged for a classic digger or saboteur: "distance" (10 a
    # card, whatever the round's stage) or "win" (the diggers' chance of winning from
    # there, `core.ai.win_model`, at WIN points for a certain win).
    judge: Judge = "distance"
    # How much the turns of the seat's allies (`allied`) count in a verdict (1: every
    # turn; 0: the others' turns only).
    team: float = 1.0


def _blocked(front: tuple[str, ...] | list[str]) -> bool:
    return any(c in BREAK_CARDS or "TRAP" in c for c in front)


def _distances(state: GameState) -> tuple[int, int, int]:
    """(any route, blue's route, green's route) from the maze to the world's gold."""
    found = unrevealed_gold(state)
    if found is None:
        return 0, 0, 0
    gold, board = found
    d_any = board.goal_distances().get(gold, INF)
    if not state.config.expansion:
        return d_any, d_any, d_any
    d_blue = board.goal_distances("green").get(gold, INF)
    d_green = board.goal_distances("blue").get(gold, INF)
    return d_any, d_blue, d_green


def value(state: GameState, me: int, judge: Judge = "distance") -> float:
    """How good this world is for `me`, by the goal of the role `me` holds in it now."""
    rs = state.rs
    if rs.result is not None:
        res = rs.result
        won = me in (res.get("winning_seats") or ())
        wins = res.get("winnings") or [0] * state.config.players
        return (WIN if won else -WIN) + GOLD_W * float(wins[me])
    kind = role_kind(rs.roles[me])
    if judge == "win" and not state.config.expansion and kind in ("digger", "saboteur"):
        v = WIN * (2.0 * p_diggers(state) - 1.0)
        return v if kind == "digger" else -v
    if kind == "geologist":
        view = view_for(state, None, log_limit=0)
        return 10.0 * Board.from_view(view).crystals()
    d_any, d_blue, d_green = (min(d, DIST_CAP) for d in _distances(state))
    good_blocked = bad_blocked = 0
    for s in range(state.config.players):
        if _blocked(rs.in_front[s]):
            if is_saboteur_side(role_kind(rs.roles[s])):
                bad_blocked += 1
            else:
                good_blocked += 1
    tools = BLOCKED_W * (bad_blocked - good_blocked)
    if kind == "blue":
        return -10.0 * d_blue + 2.5 * min(4, d_green - d_blue) + tools
    if kind == "green":
        return -10.0 * d_green + 2.5 * min(4, d_blue - d_green) + tools
    if is_saboteur_side(kind):
        v = 10.0 * d_any - tools
        return 0.7 * v if kind == "profiteer" else v
    return -10.0 * d_any + tools


def _to_world(move: MoveDict, ids: dict[str, str]) -> MoveDict:
    """The move with its card instance ids translated into the world's."""
    out = move.copy()
    if "card" in out and str(out["card"]) in ids:
        out["card"] = ids[str(out["card"])]
    if "cards" in out:
        out["cards"] = [ids.get(str(c), c) for c in out["cards"]]
    return out


def _plies(
    state: GameState, plies: int, decide: Decide, rng: random.Random
) -> Iterator[tuple[int, GameState, GameState]]:
    """A rollout's turns, up to `plies`: (the seat, the state before, the state after)."""
    for _ in range(plies):
        if phase(state) != "playing":
            return
        seat = actor(state)
        if seat is None:
            return
        view = view_for(state, seat)
        if not view["legal_moves"]:
            return
        after, _ = apply_move(state, seat, decide(view, rng.randrange(1 << 30)))
        yield seat, state, after
        state = after


def _rollout(state: GameState, plies: int, decide: Decide, rng: random.Random) -> GameState:
    end = state
    for _, _, end in _plies(state, plies, decide, rng):  # noqa: B007 (the last one counts)
        pass
    return end


def worlds_for(budget: Budget, candidates: int) -> int:
    """How many worlds a decision samples: its steps over the candidates' rollouts, each
    priced at the budget's full length even where the table is too small to fill it (a
    Saboteur 2 decision at 5 players then took three worlds and cost 1.5-2x one at 8 or
    10 players, over the p95 target: docs/benchmarks/ai.md)."""
    return max(1, budget.steps // (candidates * ((budget.depth or MAX_PLIES) + 1)))


def search(
    view: ViewDict,
    moves: list[MoveDict],
    scored: list[tuple[float, int]],
    sampler: WorldSampler,
    budget: Budget,
    decide: Decide,
    rng: random.Random,
    rows: list[list[dict[int, float]]] | None = None,
) -> list[tuple[float, int]]:
    """The searched candidates' scores, each moved by the search's verdict; `scored`
    itself when the heuristic's choice is clear (the caller picks among what it gets).
    `rows`, when given, receives the search's per-world values (benchmarks read them)."""
    ranked = sorted(scored, key=lambda si: (si[0], -si[1]), reverse=True)
    cands = [i for _, i in ranked[: budget.candidates]]
    if len(cands) < 2 or ranked[0][0] - ranked[1][0] >= CLEAR_LEAD:
        return scored
    plies = budget.depth or min(sampler.n - 1, MAX_PLIES)
    worlds = worlds_for(budget, len(cands))
    try:
        per_world = _rows(view, moves, cands, sampler, worlds, plies, decide, rng, budget)
    except (StateError, IllegalMove, ValueError):
        # a world the engine refuses (a view it never wrote): decide as `normal` would
        return scored
    if rows is not None:
        rows.append(per_world)
    mean = {i: shrunk(d, budget.shrink) for i, d in centred(per_world).items()}
    centre = sum(mean.values()) / len(mean)
    return [(s + SEARCH_W * (mean[i] - centre), i) for s, i in scored if i in mean]


def _rows(
    view: ViewDict,
    moves: list[MoveDict],
    cands: list[int],
    sampler: WorldSampler,
    worlds: int,
    plies: int,
    decide: Decide,
    rng: random.Random,
    budget: Budget,
) -> list[dict[int, float]]:
    """Each candidate's value in each of the same `worlds` sampled worlds (common random
    numbers: every candidate is played in each world with the same rollout seed)."""
    me = sampler.me
    per_world: list[dict[int, float]] = []
    for _ in range(worlds):
        world = sampler.sample(rng)
        wview = view_for(world, me, log_limit=0)
        mine = (view.get("you") or {}).get("hand") or ()
        ids = {str(a["id"]): str(b["id"]) for a, b in zip(mine, wview["you"]["hand"], strict=True)}
        seed = rng.randrange(1 << 30)
        row: dict[int, float] = {}
        for i in cands:
            after, _ = apply_move(world, me, _to_world(moves[i], ids))
            row[i] = verdict(after, me, plies, decide, random.Random(seed), budget)
        per_world.append(row)
    return per_world


# Saboteur 2's sides are not two: whose progress is also a seat's own (its allies)
_ALLIES = {
    "blue": ("blue", "boss"),
    "green": ("green", "boss"),
    "boss": ("blue", "green", "boss"),  # the boss wins with either team
    "saboteur": ("saboteur",),
    "geologist": ("geologist",),  # every geologist is paid for the same crystals
    "profiteer": ("profiteer",),  # wins beside whoever wins: nobody else plays its game
}


def allied(me: str, other: str) -> bool:
    """Is a turn of a seat holding role kind `other` one `me` would make itself? Classic
    has two sides (the saboteurs and the rest); Saboteur 2's are in `_ALLIES`."""
    if me in _ALLIES:
        return other in _ALLIES[me]
    return is_saboteur_side(other) == is_saboteur_side(me)


def verdict(
    state: GameState, me: int, plies: int, decide: Decide, rng: random.Random, budget: Budget
) -> float:
    """What the next seats' turns change for `me` after its candidate (`REACTION`), the
    turns of `me`'s allies counted at `budget.team`. At 1 a pass can look as good as
    laying progress, since in the rollout a teammate then lays it (docs/benchmarks/ai.md)."""
    if budget.team == 1.0:
        # every turn at weight 1: the sum of the turns' changes is the two ends' difference,
        # so two evaluations instead of one a turn (Saboteur 2's p95 cannot spare them)
        end = _rollout(state, plies, decide, rng)
        now = value(state, me, budget.judge) if REACTION else 0.0
        return value(end, me, budget.judge) - now
    kinds = [role_kind(r) for r in state.rs.roles]
    total = 0.0
    v: float | None = None  # `me`'s value after the previous ply, when that ply counted
    for seat, before, after in _plies(state, plies, decide, rng):
        w = budget.team if allied(kinds[me], kinds[seat]) else 1.0
        if not w:
            v = None
            continue
        if v is None:
            v = value(before, me, budget.judge)
        now = value(after, me, budget.judge)
        total += w * (now - v)
        v = now
    return total


def centred(per_world: list[dict[int, float]]) -> dict[int, list[float]]:
    """Each candidate's per-world deltas from that world's candidate mean (what a world
    favours every candidate by alike says nothing about which to play)."""
    return {i: [row[i] - sum(row.values()) / len(row) for row in per_world] for i in per_world[0]}


def shrunk(deltas: list[float], shrink: bool = True) -> float:
    """The mean of a candidate's per-world deltas, shrunk toward 0 by its standard error
    when `shrink`: a verdict one world's outlier carries counts for little."""
    n = len(deltas)
    m = sum(deltas) / n
    if not shrink or n < 2:
        return m
    se2 = sum((d - m) ** 2 for d in deltas) / (n - 1) / n
    return m * m * m / (m * m + se2) if m * m + se2 > 0 else 0.0
