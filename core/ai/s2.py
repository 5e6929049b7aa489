"""Saboteur 2 actions and the phases between turns.

Why apart: these moves do not touch the maze; they are valued from beliefs (who is on
my side) and from the seat's own role: everyone likes a theft card, hands off goes on a
rival thief, inspections go where the beliefs are least sure, swap-hats on a seat known
to be an enemy, discard-to-remove frees a blocked digger who holds path cards.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.ai.cards import PATHS
from core.engine.shapes import MoveDict

if TYPE_CHECKING:
    from core.ai.policy import Ctx


def score_s2(ctx: Ctx, move: MoveDict) -> float:
    from core.ai.policy import enemy_p, keep_value

    t = move.get("type")
    target = move.get("target_seat")
    ts = int(target) if target is not None else None
    if t == "next_round":
        return 100.0
    if t == "take_seat_back":
        return -100.0
    if t == "steal":
        if ts is None:
            return 0.0
        return 5.0 + 4.0 * enemy_p(ctx, ts) - 0.01 * ts
    if t == "theft":
        return 4.5
    if t == "hands_off":
        if ts is None or ts == ctx.me:
            return -10.0
        return 1.5 + 2.0 * enemy_p(ctx, ts)
    if t == "inspect":
        if ts is None or ts == ctx.me or ts in ctx.bel.certain:
            return -5.0
        p = ctx.bel.p(ts)
        return 2.0 + 4.0 * (1.0 - abs(2.0 * p - 1.0))
    if t == "swap_hats":
        if ts is None:
            return -5.0
        if ts == ctx.me:
            # a role that cannot win this round is worth gambling away
            return 1.0 if ctx.kind == "geologist" and ctx.board.crystals() == 0 else -3.0
        known = ctx.bel.certain.get(ts)
        e = enemy_p(ctx, ts)
        return (6.0 if known else 0.0) * e + 3.0 * (e - 0.6)
    if t == "swap_hand":
        mine = sum(keep_value(ctx, c) for c in ctx.hand.values())
        per = mine / max(1, len(ctx.hand))
        return -0.5 + max(0.0, 1.2 - per) * 3.0
    if t == "discard_to_remove":
        what = str(move.get("remove") or "")
        if "THEFT" in what:
            return -10.0
        cards = [ctx.hand.get(str(c), "") for c in move.get("cards") or ()]
        cost = sum(keep_value(ctx, c) for c in cards)
        paths = sum(
            1 for iid, c in ctx.hand.items() if c in PATHS and iid not in (move.get("cards") or ())
        )
        me = ctx.seats.get(ctx.me)
        still = (len(me.broken) + int(me.trapped) - 1) if me else 0
        value = 6.0 if (paths and not ctx.bad and still == 0) else 1.5
        if "TRAP" in what:
            value += 3.0  # trapped at round end means no winnings at all
        return value - 0.8 * cost
    return -1.0
