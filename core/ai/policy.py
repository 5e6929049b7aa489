"""Scoring every legal move of a seat, from its view.

Why one scorer for every role: all roles share the same currency, "expected cards still
needed before my side's goal is reached" (see `Ctx.objective`); diggers want it small,
saboteurs large. Actions are valued in the same unit (about 10 points = one card of
progress), so a map early, a repair for a friend or a break on a suspect competes fairly
with digging. The saboteur pays an *exposure* cost for moves that look bad to the table
(judged with public goal knowledge only), which fades as the diggers get close.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import cast

from core.ai.beliefs import CAP, BeliefState, compute, objective
from core.ai.board_model import INF, Board, Memo, Placed, placed
from core.ai.cards import ACTIONS, PATHS, PathInfo
from core.ai.events import Event, round_events
from core.ai.fit import Supply, fit_distances, supply_for
from core.ai.knowledge import (
    SeatInfo,
    expected_saboteurs,
    goal_probs,
    hand_cards,
    is_saboteur_side,
    role_kind,
    seat_infos,
)
from core.engine.shapes import MoveDict, ViewDict

REVEAL_GOLD = 60.0
ORDER_W = 1.0
EARLY_EXPOSURE = 14.0  # a saboteur far from the gold mostly hides
DIGGER_BREAK_AT = 0.74  # how sure a digger must be before breaking a suspect
AGGR_REF = 0.6  # saboteurs per digger at which the base exposure settings were tuned (7 seats)
AGGR_EARLY = 0.0  # how much less a thin saboteur side hides while the gold is far
AGGR_NEAR = 1.5  # how many cards earlier a thin saboteur side starts blocking openly
DISGUISE_W = 0.0  # far from the gold, a saboteur buys trust with public-looking progress
IDLE_KEEP_W = 0.6  # a placement that gains nothing also costs the card's keep value
AGGR_BREAK = 0.0  # extra will to break diggers when the saboteur side is thin
# Classic diggers re-rank their FIT_TOP best placements by the fit-aware route length
# (core.ai.fit); 7 players ai-diggers, 900 rounds: 86.3% -> 89.8%. Stronger penalties
# (K 3, T 6, unseen 0.35) measured 81.3%, i.e. worse than none: keep them mild.
FIT_W = 1.0  # weight of the fit-aware gain against the plain gain (1 = replaces it)
FIT_K = 2.0  # extra cards a crossing costs when no card is expected to fit it
FIT_T = 4.0  # supply (own cards + FIT_UNSEEN x unseen copies) at which the penalty is 0
FIT_UNSEEN = 0.5  # an unseen copy counts this much against one in the own hand
FIT_TOP = 4  # how many of the lookahead's best placements the fit term re-ranks
# Classic saboteurs: a placement is also judged by the fit-aware route length as the
# diggers' cards see it (the saboteur's own hand left out, every unseen copy counted):
# a tunnel that looks like progress on the public maze but leaves a cell of the route
# only a scarce shape fits is a block nobody can pin on it (the beliefs use plain
# distances). 6 players ai-vs-ai over 1,500 rounds (5 seeds): 75.4% -> 73.0%, every seed
# down 1-3.3 points (7 and 8 players down 1-2.7 too): small, ~1.5 standard errors
# (docs/benchmarks/ai.md). 0 turns it off.
SAB_FIT_W = 1.0  # weight of (fit-aware block - plain block), in cards
SAB_FIT_TOP = 6  # placements re-scored: best by score with plain progress not penalised
SAB_FIT_UNSEEN = 1.0  # an unseen copy's weight in the diggers' supply
# Classic saboteurs: a quiet tunnel (a tunnel placement that changes neither the true nor
# the public distance) beats a discard by this much more. It spends a card the saboteur
# would discard anyway, reads as digging, and its walls take a cell the diggers may need.
# Measured both ways at 6 players ai-vs-ai: discarding instead (-3) 70.2 -> 76.3% over 600
# rounds; +1.5 73.0 -> 70.8% over 1,500 rounds (five seeds, every one down 1.3-6.7 points;
# 8 players 62.0 -> 55.3% at one seed). The bonus does not count when the saboteur picks
# the placements its fit-aware block re-scores (sab_fit_rescore).
QUIET_W = 1.5
PUBLIC_KEYS = ("edition", "options", "round", "seats", "board", "goals", "deck_size", "log")


@dataclass(slots=True)
class Ctx:
    view: ViewDict
    me: int
    kind: str
    expansion: bool
    board: Board
    probs: dict[int, float]
    pub_probs: dict[int, float]
    hand: dict[str, str]
    seats: dict[int, SeatInfo]
    bel: BeliefState
    deck: int
    careful: bool
    events: list[Event] = field(default_factory=list)
    public_suspicion: float = 0.0
    thin: float = 0.0  # 0 (classic 7) .. 1 (classic 6, every S2 table): how outnumbered
    #                    the saboteur side is
    _obj_cache: dict[int, tuple[float, float, float]] = field(default_factory=dict)
    # (Supply, live goals, fit objective now), built on first use
    _fit: tuple[Supply, list[int], float] | None = None
    _fit_after: dict[str, Supply] = field(default_factory=dict)  # card -> Supply without it
    # (Supply of the diggers as a saboteur sees it, live goals, f0)
    _sab_fit: tuple[Supply, list[int], float] | None = None
    placed: dict[tuple[int, int, str, bool], tuple[Board, float]] = field(default_factory=dict)
    quiet: set[tuple[int, int, str, bool]] = field(default_factory=set)  # quiet tunnels scored

    def fit_gain(self, board: Board, card: str) -> float:
        """Fit-aware objective now minus after placing `card` into `board`."""
        if self._fit is None:
            self._fit = self._fit_base(FIT_UNSEEN, own=True)
        sup, live, f0 = self._fit
        after = self._fit_after.get(card)
        if after is None:
            after = self._fit_after[card] = sup.without(card)
        f1 = objective(fit_distances(board, after, live), self.probs)
        return float(f0 - f1)

    def sab_fit_block(self, board: Board) -> float:
        """Fit-aware objective after placing into `board` minus now, with the supply the
        other seats may hold: unseen copies only (my own cards will not help them)."""
        if self._sab_fit is None:
            self._sab_fit = self._fit_base(SAB_FIT_UNSEEN, own=False)
        sup, live, f0 = self._sab_fit
        return float(objective(fit_distances(board, sup, live), self.probs) - f0)

    def _fit_base(self, w_unseen: float, *, own: bool) -> tuple[Supply, list[int], float]:
        """(the supply, the live goals, the fit-aware objective of the maze now): what a
        fit-aware comparison starts from; `own` False leaves my own cards out of it."""
        removed = [e.removed for e in self.events if e.kind == "rockfall" and e.removed]
        sup = supply_for(
            "classic", self.board, self.hand, removed, k=FIT_K, t=FIT_T, w_unseen=w_unseen
        )
        if not own:
            sup = sup.without_own()
        live = [g for g, p in self.probs.items() if p > 0]
        return sup, live, objective(fit_distances(self.board, sup, live), self.probs)

    @property
    def bad(self) -> bool:
        return is_saboteur_side(self.kind)

    def measure(self, board: Board, door_card: bool = False) -> tuple[float, float, float]:
        """(my side's objective distance, opponents' team distance, public distance).

        Only the searches this role needs are run: a team digger with doors on the table
        needs its own and the other team's routes, a saboteur both teams' and the public
        view, and without doors one search serves all three numbers.
        """
        base = board is self.board
        if base and 0 in self._obj_cache:
            return self._obj_cache[0]
        any_doors = self.expansion and (door_card or any(p.info.door for p in board.cells.values()))
        if not any_doors:
            d_any = board.goal_distances()
            e = _exp(d_any, self.probs)
            res = (e, e, _exp(d_any, self.pub_probs) if self.bad else e)
        else:
            blue_d = board.goal_distances("green")
            green_d = board.goal_distances("blue")
            blue, green = _exp(blue_d, self.probs), _exp(green_d, self.probs)
            pub = 0.0
            if self.bad:
                both = {g: min(blue_d.get(g, INF), green_d.get(g, INF)) for g in blue_d}
                pub = _exp(both, self.pub_probs)
            if self.kind == "blue":
                res = (blue, green, pub)
            elif self.kind == "green":
                res = (green, blue, pub)
            else:
                m = min(blue, green)
                res = (m, m, pub)
        if base:
            self._obj_cache[0] = res
        return res


def _exp(d: Mapping[int, int], probs: Mapping[int, float]) -> float:
    return objective(d, probs)


def make_ctx(view: ViewDict, careful: bool, memo: Memo | None = None) -> Ctx:
    """What a decision of this view needs; `memo` is shared by every board of one
    decision (`board_model.Board.memo`)."""
    you = view.get("you") or {}
    me = int(you.get("seat") or 0)
    kind = role_kind(you.get("role"))
    cache: dict[int, dict[int, int]] = {}
    events = round_events(view)
    bel = compute(view, careful=careful, cache=cache, events=events)
    ctx = Ctx(
        view=view,
        me=me,
        kind=kind,
        expansion=view.get("edition") == "expansion",
        board=Board.from_view(view, memo),
        probs=bel.goals or goal_probs(view),
        pub_probs=goal_probs(view, private=False),
        hand=hand_cards(view),
        seats=seat_infos(view),
        bel=bel,
        deck=int(view.get("deck_size") or 0),
        careful=careful,
        events=events,
    )
    n = len(ctx.seats) or 5
    es = expected_saboteurs(view)
    # Saboteur 2 counts too: 3 saboteur cards among 15 roles is 0.25 saboteurs per other
    # seat at every table size (thin = 1); its saboteurs starting to block 1.5 cards
    # earlier took their AI-vs-AI win rate at 8 players from 4.3% to 10.0%
    if n > es:
        ctx.thin = max(0.0, min(1.0, (AGGR_REF - es / (n - es)) / 0.2))
    if careful and ctx.bad:
        # the same table seen by someone who knows nothing private
        # (a view whose keys are PUBLIC_KEYS, None where this view has none)
        outsider = cast(ViewDict, {k: view.get(k) for k in PUBLIC_KEYS})
        outsider["you"] = {"seat": None, "role": None, "known_goals": [], "known_roles": []}
        ctx.public_suspicion = compute(outsider, careful=True, cache=cache, events=events).p(me)
    return ctx


# ---- card values ------------------------------------------------------------------------


def keep_value(ctx: Ctx, card: str) -> float:
    """How much this seat wants to keep a card in hand (for discards)."""
    info = PATHS.get(card)
    uncertain = max(ctx.probs.values() or [1.0]) < 0.99
    if info is not None:
        if ctx.kind == "geologist" and info.crystals:
            return 4.0
        if info.kind == "deadend":
            return 2.6 if ctx.bad else 0.2
        if info.door:
            if ctx.kind in ("blue", "green"):
                return 3.0 if info.door == ctx.kind else 0.4
            return 1.6 if ctx.bad else 1.0
        if info.ladder:
            return 1.5 if ctx.bad else 3.0
        edges = bin(info.mask).count("1") + (len(info.groups) == 1)
        base = 0.6 + 0.5 * edges
        return base * (0.5 if ctx.bad else 1.0)
    effect = ACTIONS.get(card, ("", ()))[0]
    if effect == "map":
        return 3.0 if uncertain else 0.3
    if effect == "repair":
        if ctx.bad:
            return 1.2
        needed = any(s.broken for s in ctx.seats.values())
        return 2.2 if needed else 1.4
    if effect == "break":
        return 2.6 if ctx.bad else 1.5
    if effect == "rockfall":
        return 2.6 if ctx.bad else 1.2
    return {
        "theft": 3.0,
        "hands_off": 1.4,
        "swap_hand": 0.6,
        "inspection": 1.8,
        "swap_hats": 0.8,
        "trapped": 2.0,
        "free": 2.0,
    }.get(effect, 1.0)


# ---- move scores ------------------------------------------------------------------------


def enemy_p(ctx: Ctx, seat: int) -> float:
    """How likely `seat` works against this seat's side."""
    p = ctx.bel.p(seat)
    if ctx.bad:
        return 1.0 - p
    if ctx.kind in ("blue", "green") and seat in ctx.bel.certain:
        k = ctx.bel.certain[seat]
        if k in ("blue", "green"):
            return 0.0 if k == ctx.kind else 0.7
    return p


def exposure_weight(ctx: Ctx, d_now: float) -> float:
    if ctx.public_suspicion > 0.7:
        return 0.4
    shift = AGGR_NEAR * ctx.thin
    if d_now <= 2.5 + shift or ctx.deck <= 3:
        return 0.5
    if d_now <= 4.5 + shift:
        return 2.0
    return EARLY_EXPOSURE * (1.0 - AGGR_EARLY * ctx.thin)


def score_place(ctx: Ctx, move: MoveDict, lookahead: bool = False) -> float:
    card = ctx.hand.get(str(move.get("card")), "")
    info = PATHS.get(card)
    x, y, rot = int(move["x"]), int(move["y"]), bool(move.get("rotated"))
    d0, o0, p0 = ctx.measure(ctx.board)
    b2 = ctx.board.with_card(x, y, card, rot)
    d1, o1, p1 = ctx.measure(b2, door_card=bool(info and info.door))
    gain = d0 - d1  # > 0: my side's goal got nearer
    crystals = info.crystals if info else 0
    if ctx.kind == "geologist":
        return 6.0 * crystals + 2.0 * gain - (0.5 if gain < 0 else 0.0)
    if ctx.bad:
        block = -gain
        if SAB_FIT_W:
            ctx.placed[(x, y, card, rot)] = (b2, gain)
        s = 10.0 * block
        if d1 < 0.01:
            s -= REVEAL_GOLD
        w = exposure_weight(ctx, d0)
        pub_delta = p1 - p0
        if pub_delta > 0:
            s -= w * min(pub_delta, 3.0) + (0.6 * w if info and info.kind == "deadend" else 0)
        elif block >= 0:
            s += 0.4 * w * min(-pub_delta, 1.5)
        elif w >= EARLY_EXPOSURE * (1.0 - AGGR_EARLY * ctx.thin):
            # helping a little while the gold is far: the table will trust this seat later
            s += DISGUISE_W * min(-pub_delta, 1.5)
        if ctx.kind == "profiteer":
            s *= 0.7
        elif quiet_tunnel(ctx, info, gain, pub_delta):
            s += QUIET_W
            ctx.quiet.add((x, y, card, rot))
        return s
    s = 10.0 * gain
    if d1 < 0.01 and ctx.probs:
        s += REVEAL_GOLD * max(ctx.probs.values())
    if ctx.expansion and ctx.kind in ("blue", "green"):
        s += 2.5 * max(-2.0, min(2.0, o1 - o0))
    if abs(gain) < 0.01:
        s -= 1.5 + IDLE_KEEP_W * keep_value(ctx, card)
    if info and info.kind == "deadend" and gain <= 0.01:
        s -= 1.5
    s += 0.3 * crystals
    if gain > 0 and info is not None:
        s += openness(ctx.board, x, y, b2.cells[(x, y)])
    if lookahead and gain > 0:
        s += 0.4 * follow_up(ctx, b2, str(move.get("card")), x, y, d1)
    if lookahead:
        ctx.placed[(x, y, card, rot)] = (b2, gain)
    return s


def quiet_tunnel(ctx: Ctx, info: PathInfo | None, gain: float, pub_delta: float) -> bool:
    """A classic saboteur's tunnel that changes no distance, true or public."""
    return (
        ctx.kind == "saboteur"
        and not ctx.expansion
        and info is not None
        and info.kind != "deadend"
        and abs(gain) < 0.01
        and abs(pub_delta) < 0.01
    )


def fit_bonus(ctx: Ctx, move: MoveDict) -> float:
    """What the fit-aware route length adds to a re-ranked placement's score: the fit
    gain minus the plain gain already counted (classic diggers only)."""
    if not FIT_W or ctx.expansion or ctx.kind != "digger":
        return 0.0
    card, board, gain = _placed(ctx, move)
    return FIT_W * 10.0 * (ctx.fit_gain(board, card) - gain)


def sab_fit_bonus(ctx: Ctx, move: MoveDict) -> float:
    """What the fit-aware block adds beyond the plain block (classic saboteurs only)."""
    if not SAB_FIT_W or ctx.expansion or ctx.kind != "saboteur":
        return 0.0
    _card, board, gain = _placed(ctx, move)
    return SAB_FIT_W * 10.0 * (ctx.sab_fit_block(board) + gain)


def _placed(ctx: Ctx, move: MoveDict) -> tuple[str, Board, float]:
    """(card, the maze after the placement, the plain gain), from the lookahead's cache
    when it scored this placement."""
    card = ctx.hand.get(str(move.get("card")), "")
    x, y, rot = int(move["x"]), int(move["y"]), bool(move.get("rotated"))
    got = ctx.placed.get((x, y, card, rot))
    if got is None:
        b2 = ctx.board.with_card(x, y, card, rot)
        got = (b2, ctx.measure(ctx.board)[0] - ctx.measure(b2)[0])
    return card, got[0], got[1]


def sab_fit_rescore(
    ctx: Ctx, moves: list[MoveDict], scored: list[tuple[float, int]]
) -> dict[int, float]:
    """New scores of a saboteur's SAB_FIT_TOP best placements, chosen by score with
    plain progress not held against them (nor the quiet-tunnel bonus), each plus its
    `sab_fit_bonus`."""
    base = {i: s for s, i in scored}
    key: dict[int, float] = {}
    for s, i in scored:
        m = moves[i]
        if m.get("type") != "place_path":
            continue
        card = ctx.hand.get(str(m.get("card")), "")
        at = (int(m["x"]), int(m["y"]), card, bool(m.get("rotated")))
        got = ctx.placed.get(at)
        # a quiet tunnel's bonus does not crowd the progress-looking placements out
        key[i] = s + 10.0 * max(0.0, got[1] if got else 0.0) - (QUIET_W if at in ctx.quiet else 0)
    top = sorted(key, key=lambda j: key[j])[-SAB_FIT_TOP:] if SAB_FIT_TOP > 0 else []
    return {i: base[i] + sab_fit_bonus(ctx, moves[i]) for i in top}


def openness(board: Board, x: int, y: int, card: Placed) -> float:
    """Bonus for a placed card's conducting exits into empty cells: more open ends near
    the front means more of the next cards will fit (east counts most)."""
    from core.ai.cards import DIRS

    bonus = 0.0
    for gi, g in enumerate(card.groups):
        if not card.conduct[gi]:
            continue
        for bit, dx, dy in DIRS:
            c = (x + dx, y + dy)
            if g & bit and c not in board.cells and c not in board.hidden_goals:
                bonus += 0.9 if dx > 0 else (0.5 if dy else 0.0)
    return bonus


def follow_up(ctx: Ctx, board: Board, used: str, x: int, y: int, d_now: float) -> float:
    """Best progress my remaining path cards could make next to the card just placed."""
    best = 0.0
    conn = board.connected()
    if not any((x, y, gi) in conn for gi in range(len(board.cells[(x, y)].groups))):
        return 0.0
    cells = [c for c in board.frontier() if abs(c[0] - x) + abs(c[1] - y) == 1]
    for iid, card in ctx.hand.items():
        if iid == used or card not in PATHS or PATHS[card].kind == "deadend":
            continue
        for cx, cy in cells:
            for rot in (False, True) if not PATHS[card].symmetric else (False,):
                if fits(board, cx, cy, card, rot, conn):
                    d2 = ctx.measure(board.with_card(cx, cy, card, rot))[0]
                    best = max(best, 10.0 * (d_now - d2))
    return best


def fits(
    board: Board,
    x: int,
    y: int,
    card: str,
    rot: bool,
    conn: set[tuple[int, int, int]] | None = None,
) -> bool:
    """Rule §2 conditions 1-3 (without the ladder exceptions), for lookahead only."""
    from core.ai.cards import DIRS, OPPOSITE

    if (x, y) in board.cells or (x, y) in board.hidden_goals:
        return False
    p = placed(card, rot)
    m = p.mask
    touching = False
    linked = False
    if conn is None:
        conn = board.connected()
    for bit, dx, dy in DIRS:
        q = board.cells.get((x + dx, y + dy))
        if q is None:
            if (x + dx, y + dy) in board.hidden_goals:
                touching = True
            continue
        touching = True
        mine = bool(m & bit)
        theirs = bool(q.mask & OPPOSITE[bit])
        if mine != theirs:
            return False
        if mine:
            gj = q.group_with(OPPOSITE[bit])
            if (x + dx, y + dy, gj) in conn and (q.conduct[gj] or q.info.ladder):
                linked = True
    return touching and linked


def score_rockfall(ctx: Ctx, move: MoveDict) -> float:
    x, y = int(move["x"]), int(move["y"])
    d0, _, p0 = ctx.measure(ctx.board)
    removed = ctx.board.cells.get((x, y))
    b2 = ctx.board.without(x, y)
    d1, _, p1 = ctx.measure(b2)
    if ctx.kind == "geologist":
        return -6.0 if removed and removed.info.crystals else -3.0
    if ctx.bad:
        s = 10.0 * (d1 - d0) - 1.5
        pub = p1 - p0
        if pub > 0:
            s -= exposure_weight(ctx, d0) * min(pub, 3.0)
        return s
    gain = d0 - d1
    s = 10.0 * gain - 2.0
    if removed is not None and removed.info.kind == "deadend" and gain >= 0:
        s += 0.5
    return s if gain > 0 else min(s, -4.0)


def score_map(ctx: Ctx, move: MoveDict) -> float:
    goal = int(move.get("goal", -1))
    p = ctx.probs.get(goal, 0.0)
    known = {int(k["goal"]) for k in (ctx.view.get("you") or {}).get("known_goals") or ()}
    if p <= 0.0 or p >= 0.99 or goal in known:
        return -6.0
    dists = ctx.board.goal_distances()
    d = dists.get(goal, INF)
    near = min((dists.get(g, INF) for g, q in ctx.probs.items() if q > 0), default=INF)
    fresh = max(ctx.probs.values()) < 0.34  # nothing known yet
    base = (12.0 if near <= 5 else 8.5) if fresh else (10.0 if near <= 4 else 5.0)
    if ctx.bad:
        base -= 3.0
    if ctx.kind == "geologist":
        base = 1.0
    # a goal someone we trust already looked at is better left to their digging
    for ev in ctx.events:
        if ev.kind == "map" and ev.goal == goal and ev.seat not in (None, ctx.me):
            base -= 1.5 * max(0.0, 1.0 - 2.0 * ctx.bel.p(ev.seat))
    return base + 2.0 * p - 0.15 * min(d, CAP)


def _target(move: MoveDict) -> int:
    """The seat a card is played on (-1 without one; never None on such a move)."""
    t = move.get("target_seat", -1)
    if t is None:
        raise TypeError("this move names no seat")
    return int(t)


def score_break(ctx: Ctx, move: MoveDict, trap: bool = False) -> float:
    t = _target(move)
    info = ctx.seats.get(t)
    if info is None or t == ctx.me:
        return -10.0
    e = enemy_p(ctx, t)
    impact = 1.0 if not (info.broken or info.trapped) else 0.35
    if info.hand_size == 0:
        impact = 0.05
    if ctx.kind == "geologist":
        return -2.0
    if ctx.bad:
        d0 = ctx.measure(ctx.board)[0]
        urgency = 1.0 + max(0.0, 6.0 - d0) * 0.5
        # the diggers about to move matter most when the gold is near
        n = max(1, len(ctx.seats))
        ahead = (t - ctx.me) % n
        order = 1.0 + ORDER_W * max(0.0, 4.0 - d0) / 4.0 * (1.0 / ahead)
        s = (5.0 * urgency * order - exposure_weight(ctx, d0)) * e * impact - 0.5
        s += AGGR_BREAK * ctx.thin * e * impact
    else:
        s = 14.0 * (e - DIGGER_BREAK_AT) * impact
    return s + (1.0 if trap else 0.0)


def score_repair(ctx: Ctx, move: MoveDict) -> float:
    t = _target(move)
    info = ctx.seats.get(t)
    if info is None:
        return -10.0
    if t == ctx.me:
        paths = sum(1 for c in ctx.hand.values() if c in PATHS)
        blocked = len(info.broken) + info.trapped
        if blocked > 1:
            return 3.0
        return 6.0 + (3.0 if paths and not ctx.bad else 0.0)
    friend = 1.0 - enemy_p(ctx, t)
    still_blocked = len(info.broken) + info.trapped > 1
    return 10.0 * (friend - 0.5) * (0.5 if still_blocked else 1.0) + (1.0 if friend > 0.6 else 0)


def score_discard(ctx: Ctx, cards: list[str]) -> float:
    vals = sorted(keep_value(ctx, ctx.hand.get(c, "")) for c in cards)
    s = -1.0 - 0.5 * vals[0]
    for v in vals[1:]:
        s += (0.3 - 0.3 * v) if ctx.bad else (-0.4 - 0.5 * v)
    return s


def score_move(ctx: Ctx, move: MoveDict, lookahead: bool = False) -> float:
    t = move.get("type")
    if t == "place_path":
        return score_place(ctx, move, lookahead)
    if t == "rockfall":
        return score_rockfall(ctx, move)
    if t == "map":
        return score_map(ctx, move)
    if t == "break_tool":
        return score_break(ctx, move)
    if t == "trap":
        return score_break(ctx, move, trap=True)
    if t in ("repair_tool", "free"):
        return score_repair(ctx, move)
    if t == "discard":
        return score_discard(ctx, [str(c) for c in move.get("cards") or ()])
    from core.ai.s2 import score_s2  # Saboteur 2 actions and phases

    return score_s2(ctx, move)
