"""Scenario builders: set a position up directly (hands, maze, goals, roles, in-front cards)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from core.engine import GameConfig, GameState, new_game
from core.engine.board import Board, key
from core.engine.cards import CARD_INDEX, GOAL_CARDS, GOLD

STONES = tuple(g for g in GOAL_CARDS if g != GOLD)


def goals_with_gold_at(g: int) -> tuple[int, ...]:
    out = list(STONES)
    out.insert(g, GOLD)
    return tuple(out)


def make_board(
    cells: list[tuple[int, int, str, bool]] = (),  # type: ignore[assignment]
    *,
    gold_at: int = 1,
    revealed: tuple[bool, bool, bool] = (False, False, False),
    goal_turns: tuple[bool, bool, bool] = (False, False, False),
    bounded: bool = False,
) -> Board:
    goals = goals_with_gold_at(gold_at)
    d = {key(0, 0): 2 * CARD_INDEX["S1_START"]}
    for x, y, cid, rot in cells:
        d[key(x, y)] = 2 * CARD_INDEX[cid] + int(rot)
    for g, (gx, gy) in enumerate(((8, -2), (8, 0), (8, 2))):
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
    cells: list[tuple[int, int, str, bool]] = (),  # type: ignore[assignment]
    gold_at: int = 1,
    revealed: tuple[bool, bool, bool] = (False, False, False),
    roles: list[str] | None = None,
    in_front: dict[int, list[str]] | None = None,
    current: int = 0,
    deck_left: int | None = None,
    gold: list[int] | None = None,
    pool: list[str] | None = None,
) -> GameState:
    """A round-1 position of a real game, with the given parts replaced."""
    cfg = GameConfig.from_options(edition, players, options or {})
    s = new_game(cfg, seed)
    rs = s.rs
    table = rs.table
    changes: dict[str, Any] = {"current": current, "start_seat": current}
    if hands is not None:
        dealt = {p for h in rs.hands for p in h}
        used: set[int] = set()

        def pick(cid: str) -> int:
            idx = CARD_INDEX[cid]
            order = sorted(range(len(table.cards)), key=lambda p: (p in dealt, p))
            for p in order:
                if table.cards[p] == idx and p not in used:
                    used.add(p)
                    return p
            raise ValueError(f"no more {cid} in the deck")

        new_hands = []
        for seat in range(players):
            if seat in hands:
                new_hands.append(tuple(pick(c) for c in hands[seat]))
            else:
                new_hands.append(rs.hands[seat])
        # picked cards must not stay in other (default) hands
        new_hands = [
            h if seat in hands else tuple(p for p in h if p not in used)
            for seat, h in enumerate(new_hands)
        ]
        changes["hands"] = tuple(new_hands)
    changes["board"] = make_board(
        cells, gold_at=gold_at, revealed=revealed, bounded=cfg.bounded_board
    )
    if roles is not None:
        changes["roles"] = tuple(roles)
    if pool is not None:
        changes["role_pool"] = tuple(pool)
    if in_front is not None:
        changes["in_front"] = tuple(tuple(in_front.get(i, ())) for i in range(players))
    if deck_left is not None:
        changes["drawn"] = len(table.cards) - deck_left
    s = replace(s, rs=replace(rs, **changes))
    if gold is not None:
        s = replace(s, gold=tuple(gold))
    return s


def iid(state: GameState, seat: int, cid: str, nth: int = 0) -> str:
    """The instance id of the nth copy of catalogue card `cid` in a seat's hand."""
    rs = state.rs
    found = [rs.table.iids[p] for p in rs.hands[seat] if rs.table.cards[p] == CARD_INDEX[cid]]
    return found[nth]


def hand_ids(state: GameState, seat: int) -> list[str]:
    rs = state.rs
    return [list(CARD_INDEX)[rs.table.cards[p]] for p in rs.hands[seat]]
