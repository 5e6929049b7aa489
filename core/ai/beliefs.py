"""Who is a saboteur? A log-odds score per seat, updated from public moves only.

Why log-odds: every public move is weak, independent-ish evidence; adding scores keeps
the model cheap (a live table asks it on every turn) and easy to tune. Evidence:
- a path or rockfall that brings the (believed) gold nearer is digger-like, one that
  pushes it away (dead ends near the frontier, removing key cards) saboteur-like;
- breaking / trapping a seat says "we are on different sides", repairing / freeing it
  "we are on the same side" (weighted by what we believe of that seat);
- breaking or trapping *me* when I know I am a digger is strong evidence;
- an inspection result (`you.known_roles`) settles a seat.
Forgiving, like a human table: one maze move adds at most `MOVE_CAP`, a seat's first
hostile act counts `FIRST_HOSTILE` of its weight, and all evidence fades towards the
prior by the factor `DECAY` per table round (one logged move of every seat): what was done a
table round ago counts about half.
Saboteur 2 also keeps a colour score per seat (blue > 0 > green) from the doors placed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from core.ai.board_model import INF
from core.ai.events import Event, board_history, round_events
from core.ai.knowledge import (
    goal_probs,
    is_saboteur_side,
    known_roles,
    role_kind,
    saboteur_prior,
)
from core.engine.shapes import ViewDict

CAP = 14
# A digger that forgives like a human table does. Unforgiving (cap 99, first act 1.0,
# decay 1.0) the diggers exposed and broke the AI saboteurs after their first block (top
# suspects right 94% at half the pile) and won 82.9% of 6-player AI-vs-AI rounds (900
# rounds); with these three 70.9%, 5 / 7 / 8 players 55.7 / 56.7 / 58.0%, belief
# accuracy 75-84% instead of 97-99% (docs/benchmarks/ai.md).
MOVE_CAP = 0.8  # most log-odds one path or rockfall can add (was up to 3.1)
FIRST_HOSTILE = 0.2  # a seat's first hostile act: anyone holding only dead ends lays one
DECAY = 0.88**6  # per table round (applied per logged event as DECAY ** (1 / seats)),
#                 every seat's evidence shrinks towards the prior: 0.88 per event at 6 seats


def objective(d: Mapping[int, float], probs: Mapping[int, float]) -> float:
    """Cards still needed to reach the gold, as a digger would plan it.

    A plain expectation over the candidate goals rewards spreading out; a digger who is
    unsure heads for the nearest of the most likely goals (reaching it reveals it, and
    the others are close by). So: 40% expectation, 60% the nearest top candidate.
    """
    live = [(p, min(d.get(g, INF), CAP)) for g, p in probs.items() if p > 0]
    if not live:
        return float(CAP)
    top = max(p for p, _ in live)
    near = min(dist for p, dist in live if p >= top - 0.05)
    return 0.4 * sum(p * dist for p, dist in live) + 0.6 * near


def _logit(p: float) -> float:
    return math.log(p / (1 - p))


def _sig(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, x))))


@dataclass(slots=True)
class BeliefState:
    me: int | None
    sab: dict[int, float]  # log-odds of "saboteur side"
    colour: dict[int, float]  # Saboteur 2: >0 blue, <0 green
    certain: dict[int, str]  # seat -> role kind known for sure
    goals: dict[int, float] = field(default_factory=dict)  # inferred gold probabilities

    def p(self, seat: int) -> float:
        kind = self.certain.get(seat)
        if kind is not None and kind != "unknown":
            return 1.0 if is_saboteur_side(kind) else 0.0
        return _sig(self.sab.get(seat, 0.0))

    def probabilities(self) -> dict[int, float]:
        return {s: self.p(s) for s in self.sab}


@dataclass(slots=True)
class MazeHistory:
    """Per event: change of the expected gold distance, and per-goal distance changes."""

    deltas: list[float]
    goal_moves: list[dict[int, int] | None]  # goal -> cards nearer (+) / farther (-)


def maze_history(
    view: ViewDict, events: list[Event], cache: dict[int, dict[int, int]] | None = None
) -> MazeHistory:
    """How each maze event changed the distances (this seat's knowledge, in hindsight).

    `cache` (board index -> goal distances) may be shared between calls on the same
    log, e.g. when a saboteur also asks how the table sees it.
    """
    probs = goal_probs(view)
    boards = board_history(view, events)
    deltas: list[float] = []
    moves: list[dict[int, int] | None] = []
    if cache is None:
        cache = {}

    def dist(i: int) -> dict[int, int]:
        if i not in cache:
            cache[i] = boards[i].goal_distances()
        return cache[i]

    pub = goal_probs(view, private=False)

    def ed(i: int, pr: Mapping[int, float]) -> float:
        return objective(dist(i), pr)

    for i, ev in enumerate(events):
        if ev.kind in ("path", "rockfall"):
            # judged both with what I know and with what the table knows: a move is only
            # suspicious when it is bad either way (the mover may not know what I know)
            deltas.append(min(ed(i + 1, probs) - ed(i, probs), ed(i + 1, pub) - ed(i, pub)))
            a, b = dist(i), dist(i + 1)
            moves.append({g: min(a[g], CAP) - min(b.get(g, INF), CAP) for g in a})
        else:
            deltas.append(0.0)
            moves.append(None)
    return MazeHistory(deltas, moves)


def infer_goals(
    view: ViewDict, events: list[Event], hist: MazeHistory, state: BeliefState
) -> dict[int, float]:
    """Goal probabilities sharpened by what trusted map users did afterwards.

    A seat that looked at goal g and then digs towards g (rather than towards the other
    candidates) probably saw gold there; one that digs elsewhere or looks at a second goal
    probably saw stone. Each hint is weighted by how much we trust that seat.
    """
    probs = goal_probs(view)
    open_ = [g for g, p in probs.items() if 0.0 < p < 0.999]
    if len(open_) < 2:
        return probs
    score = {g: 0.0 for g in open_}
    mapped: dict[int, list[int]] = {}
    for i, ev in enumerate(events):
        s = ev.seat
        if s is None or s == state.me:
            continue
        trust = 1.0 - 2.0 * state.p(s)
        if ev.kind == "map" and ev.goal is not None:
            for g in mapped.get(s, []):
                if g in score:
                    score[g] -= 1.2 * trust  # looked again elsewhere: g was stone
            mapped.setdefault(s, []).append(ev.goal)
        elif ev.kind == "path" and s in mapped:
            mv = hist.goal_moves[i]
            if not mv:
                continue
            g = mapped[s][-1]
            if g not in score:
                continue
            others = [mv.get(h, 0) for h in open_ if h != g]
            toward_g = mv.get(g, 0) - (sum(others) / len(others) if others else 0.0)
            score[g] += 0.9 * trust * max(-1.5, min(1.5, toward_g))
    weights = {g: probs[g] * math.exp(max(-4.0, min(4.0, score[g]))) for g in open_}
    total = sum(weights.values())
    out = dict(probs)
    mass = sum(probs[g] for g in open_)
    for g in open_:
        out[g] = mass * weights[g] / total
    return out


def compute(
    view: ViewDict,
    *,
    careful: bool = True,
    cache: dict[int, dict[int, int]] | None = None,
    events: list[Event] | None = None,
) -> BeliefState:
    """This seat's beliefs; `events`, when given, are `round_events(view)` already read
    (a caller that needs them too reads the log once)."""
    you = view.get("you") or {}
    me = you.get("seat")
    me = int(me) if me is not None else None
    my_kind = role_kind(you.get("role"))
    seats = [int(s["seat"]) for s in view.get("seats") or ()]
    prior = _logit(saboteur_prior(view, my_kind))
    certain = known_roles(view)
    if me is not None:
        certain[me] = my_kind
    i_am_good = me is not None and my_kind not in ("saboteur", "profiteer", "unknown")
    i_am_bad = me is not None and my_kind == "saboteur"
    if events is None:
        events = round_events(view)
    hist = (
        maze_history(view, events, cache)
        if careful
        else MazeHistory([0.0] * len(events), [None] * len(events))
    )
    deltas = hist.deltas

    state = BeliefState(
        me, {s: prior for s in seats if s != me}, {s: 0.0 for s in seats if s != me}, certain
    )
    passes = 2 if careful else 1
    # per event, so that a table round fades the same at every table size
    decay = DECAY ** (1.0 / max(1, len(seats)))
    for _ in range(passes):
        ref = BeliefState(me, dict(state.sab), dict(state.colour), certain)
        sab = {s: prior for s in state.sab}
        colour = {s: 0.0 for s in state.colour}
        hostile = {s: 0 for s in state.sab}
        for ev, delta in zip(events, deltas, strict=True):
            if decay < 1.0:
                for k in sab:
                    sab[k] = prior + (sab[k] - prior) * decay
            s = ev.seat
            if s is None or s == me or s not in sab:
                # still learn about the target of someone else's move on me? no: skip
                continue
            t = ev.target
            if ev.kind in ("path", "rockfall"):
                if delta > 0.01:
                    ev_w = 0.9 * min(delta, 3.0) + (0.4 if ev.kind == "path" else 0.2)
                    ev_w = min(ev_w, MOVE_CAP)
                    if hostile[s] == 0:
                        ev_w *= FIRST_HOSTILE
                    hostile[s] += 1
                    sab[s] += ev_w
                elif delta < -0.01:
                    sab[s] -= 0.45 * min(-delta, 2.0)
                elif ev.kind == "rockfall":
                    sab[s] -= 0.1
                if ev.card and "DOOR_BLUE" in ev.card:
                    colour[s] += 1.0
                elif ev.card and "DOOR_GREEN" in ev.card:
                    colour[s] -= 1.0
            elif ev.kind in ("break", "trap") and t is not None:
                if t == me:
                    if i_am_good:
                        sab[s] += 1.6
                        hostile[s] += 1
                    elif i_am_bad:
                        sab[s] -= 0.8
                elif t in sab:
                    pt = ref.p(t)
                    sab[s] += 1.3 * (1 - 2 * pt)
                    if pt < 0.5:
                        hostile[s] += 1
                    sab[t] += 0.5 * (1 - 2 * ref.p(s))
            elif ev.kind in ("repair", "free") and t is not None and t != s:
                if t == me:
                    if i_am_good:
                        sab[s] -= 1.4
                    elif i_am_bad:
                        sab[s] += 0.8
                elif t in sab:
                    pt = ref.p(t)
                    sab[s] -= 1.0 * (1 - 2 * pt)
                    sab[t] -= 0.4 * (1 - 2 * ref.p(s))
            elif ev.kind == "map":
                sab[s] -= 0.15
            elif ev.kind == "discard":
                sab[s] += 0.05
        state = BeliefState(me, sab, colour, certain)
    state.goals = infer_goals(view, events, hist, state) if careful else goal_probs(view)
    return state


def beliefs(view: ViewDict) -> dict[int, float]:
    """Per-seat probability of being on the saboteurs' side (saboteur; in Saboteur 2
    also the profiteer), as this seat sees it. The seat itself gets 0 or 1."""
    st = compute(view)
    out = st.probabilities()
    if st.me is not None:
        out[st.me] = 1.0 if is_saboteur_side(st.certain.get(st.me, "unknown")) else 0.0
    return dict(sorted(out.items()))
