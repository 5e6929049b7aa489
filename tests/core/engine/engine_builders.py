"""Scenario builders on top of the position notation (core.engine.state_from_position):
a real game's round-1 deal with some parts replaced (hands, maze, goals, roles, fronts)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from core.engine import GOAL_CELLS, GameState, position_of, state_from_position
from core.engine.board import Board, key
from core.engine.cards import CARD_INDEX, CARD_LIST, GOAL_CARDS, GOLD
from core.engine.catalogue import CURRENT

STONES = tuple(g for g in GOAL_CARDS if g != GOLD)
Cell = tuple[int, int, str, bool]


# cards that lead east-west, in the order `tunnel` takes them (the deck holds 5, 5, 3)
THROUGH = ("S1_T_NEW", "S1_CROSS", "S1_STRAIGHT_EW")


def tunnel(
    xs: range, y: int = 0, *, cards: tuple[str, ...] = THROUGH, keep: dict[str, int] | None = None
) -> list[Cell]:
    """An east-west tunnel over columns `xs` at row `y`, as a real deck can lay it: each
    card of `cards` as often as the deck has it, first to last, less `keep` copies (the
    ones the test holds in hand)."""
    left = Counter(CARD_LIST[c].id for c in CURRENT.decks["expansion"])
    left.subtract(keep or {})
    out: list[Cell] = []
    for x in xs:
        cid = next(c for c in cards if left[c] > 0)
        left[cid] -= 1
        out.append((x, y, cid, False))
    return out


def goals_with_gold_at(g: int) -> tuple[int, ...]:
    out = list(STONES)
    out.insert(g, GOLD)
    return tuple(out)


def make_board(
    cells: list[Cell] = (),  # type: ignore[assignment]
    *,
    gold_at: int = 1,
    revealed: tuple[bool, bool, bool] = (False, False, False),
    goal_turns: tuple[bool, bool, bool] = (False, False, False),
    bounded: bool = False,
) -> Board:
    """Just a maze (no game around it)."""
    goals = goals_with_gold_at(gold_at)
    d = {key(0, 0): 2 * CARD_INDEX["S1_START"]}
    for x, y, cid, rot in cells:
        d[key(x, y)] = 2 * CARD_INDEX[cid] + int(rot)
    for g, (gx, gy) in enumerate(GOAL_CELLS):
        if revealed[g]:
            d[key(gx, gy)] = 2 * goals[g] + int(goal_turns[g])
    return Board(d, goals, revealed, bounded)


def build(
    edition: str = "classic",
    players: int = 4,
    *,
    seed: int = 7,
    options: dict[str, Any] | None = None,
    hands: dict[int, list[str]] | None = None,
    cells: list[Cell] = (),  # type: ignore[assignment]
    gold_at: int = 1,
    revealed: tuple[bool, bool, bool] = (False, False, False),
    goal_turns: tuple[bool, bool, bool] = (False, False, False),
    roles: list[str] | None = None,
    in_front: dict[int, list[str]] | None = None,
    current: int = 0,
    deck_left: int | None = None,
    gold: list[int] | None = None,
    pool: list[str] | None = None,
    **fields: Any,
) -> GameState:
    """The seed's round-1 deal with the given parts replaced; any other position field
    (`nuggets`, `theft_laid`, `known_goals`, ...) passes through as it is.

    Cards given to a seat are taken from the pile; the seats not named keep their dealt
    hands, less the copies the others took. `deck_left=k` leaves the bottom k cards of the
    pile and puts the others on the discard pile."""
    doc = position_of(
        state_from_position(
            {"edition": edition, "players": players, "options": options or {}, "seed": seed}
        )
    )
    del doc["pile"], doc["set_aside"]
    goals = goals_with_gold_at(gold_at)
    doc["goals"] = [CARD_LIST[g].id for g in goals]
    doc["maze"] = [[x, y, cid, rot] for x, y, cid, rot in cells] + [
        [gx, gy, CARD_LIST[goals[g]].id, goal_turns[g]]
        for g, (gx, gy) in enumerate(GOAL_CELLS)
        if revealed[g]
    ]
    doc.update(current=current, start_seat=current)
    if in_front is not None:
        doc["in_front"] = [list(in_front.get(s, ())) for s in range(players)]
    if hands is not None:
        deck = Counter(CARD_LIST[c].id for c in CURRENT.decks[edition])
        used = Counter(c for h in hands.values() for c in h)
        used.update(c[2] for c in cells)
        used.update(c for f in doc["in_front"] for c in f)
        new_hands = []
        for s, dealt in enumerate(doc["hands"]):
            if s in hands:
                new_hands.append(list(hands[s]))
                continue
            kept = []
            for c in dealt:
                if used[c] < deck[c]:
                    used[c] += 1
                    kept.append(c)
            new_hands.append(kept)
        doc["hands"] = new_hands
    if roles is not None:
        doc["roles"] = list(roles)
        if pool is None:
            del doc["role_pool"]
    if pool is not None:
        doc["role_pool"] = list(pool)
    if gold is not None:
        doc["gold"] = list(gold)
    doc.update(fields)
    state = state_from_position(doc)
    if deck_left is None:
        return state
    doc = position_of(state)
    cut = len(doc["pile"]) - deck_left
    doc["discard"] += doc["pile"][:cut]
    doc["pile"] = doc["pile"][cut:]
    return state_from_position(doc)


def alter(state: GameState, **fields: Any) -> GameState:
    """The same position with some of its fields changed (card instance ids are new)."""
    return state_from_position({**position_of(state), **fields})


def iid(state: GameState, seat: int, cid: str, nth: int = 0) -> str:
    """The instance id of the nth copy of catalogue card `cid` in a seat's hand."""
    rs = state.rs
    found = [rs.table.iids[p] for p in rs.hands[seat] if rs.table.cards[p] == CARD_INDEX[cid]]
    return found[nth]


def hand_ids(state: GameState, seat: int) -> list[str]:
    rs = state.rs
    return [CARD_LIST[rs.table.cards[p]].id for p in rs.hands[seat]]
