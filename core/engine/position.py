"""Position notation: any game position as a JSON document, cards named by catalogue id
(like FEN for chess); the format is docs/CONTRACTS.md §1 "Position notation".

Why: tests, bug reports and the computer players' search worlds need to set up a position
directly, and the stored state is a compact encoding, not an interface.  A position is
checked completely before a state is built from it: unknown keys, cards or seats, and any
breach of card conservation are refused with a PositionError naming the field.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Mapping
from typing import Any, TypeGuard

from .board import GOAL_CELLS, LIMIT, START_KEY, Board, in_bounds, key, unkey
from .cards import CARD_INDEX, CARD_LIST, SYMMETRIC
from .catalogue import CURRENT, Catalogue, resolve
from .codes import EventCode, Phase
from .config import ConfigError, GameConfig
from .deal import table_of
from .log import Log
from .moveset import FRONT_IDS
from .reasons import PositionError
from .setup import (
    BLUE,
    BOSS,
    DIGGER,
    GEOLOGIST,
    GREEN,
    PROFITEER,
    SABOTEUR,
    SELFISH,
    first_start_seat,
    hand_size,
    nugget_pile,
    role_cards,
    start_round,
)
from .shapes import EventDict
from .state import GameState, RoundState

FORMAT = 1
PHASES = tuple(Phase)
ROLES = {
    "classic": frozenset({DIGGER, SABOTEUR, SELFISH}),
    "expansion": frozenset({BLUE, GREEN, SABOTEUR, BOSS, PROFITEER, GEOLOGIST}),
}
KEYS = frozenset(
    {
        "position",
        "edition",
        "players",
        "options",
        "catalogue",
        "seed",
        "seq",
        "round",
        "phase",
        "current",
        "start_seat",
        "last_mover",
        "gold",
        "nuggets",
        "goals",
        "maze",
        "hands",
        "roles",
        "role_pool",
        "in_front",
        "known_goals",
        "known_roles",
        "pile",
        "set_aside",
        "discard",
        "theft_laid",
        "thieves",
        "reached_by",
        "ready",
        "result",
        "results",
    }
)


def _int(v: object) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool)


class _Reader:
    """Reads one position document field by field, refusing with the field's name."""

    def __init__(self, doc: Mapping[str, object]) -> None:
        self.doc = doc

    def integer(self, name: str, default: int, lo: int | None, hi: int | None = None) -> int:
        v = self.doc.get(name, default)
        if not _int(v) or (lo is not None and v < lo) or (hi is not None and v > hi):
            span = f" {lo}..{hi}" if hi is not None else f" >= {lo}" if lo is not None else ""
            raise PositionError(f"{name}: {v!r} is not an integer{span}")
        return v

    def seats(self, name: str, value: object, n: int, *, size: int | None = None) -> list[Any]:
        """A per-seat list (one item per seat)."""
        if not isinstance(value, list) or len(value) != (n if size is None else size):
            raise PositionError(f"{name}: one entry per seat ({n}) expected")
        return value


def seat_of(name: str, v: object, n: int) -> int:
    if not _int(v) or not 0 <= v < n:
        raise PositionError(f"{name}: no seat {v!r} (seats are 0..{n - 1})")
    return v


def seat_or_none(name: str, v: object, n: int) -> int | None:
    return None if v is None else seat_of(name, v, n)


def card_of(name: str, v: object, cat: Catalogue, categories: tuple[str, ...]) -> int:
    """The engine index of a card id the catalogue has, of one of `categories`."""
    idx = CARD_INDEX.get(v) if isinstance(v, str) else None
    if idx is None or not isinstance(v, str) or not cat.has(v):
        raise PositionError(f"{name}: {v!r} is not a card of catalogue {cat.version}")
    if CARD_LIST[idx].category not in categories:
        raise PositionError(f"{name}: {v} is a {CARD_LIST[idx].category} card")
    return idx


def cards_of(name: str, v: object, cat: Catalogue) -> list[int]:
    if not isinstance(v, list):
        raise PositionError(f"{name}: a list of card ids expected")
    return [card_of(f"{name}[{i}]", c, cat, ("path", "action")) for i, c in enumerate(v)]


def state_from_position(doc: Mapping[str, Any]) -> GameState:
    """The game state a position describes (PositionError, a StateError, if it cannot be).

    What the document leaves out is the seed's deal of that round: roles, role pool, goals
    and hands as dealt, the pile the rest of the deck in the deal's order."""
    if not isinstance(doc, Mapping):
        raise PositionError("a position is a JSON object")
    unknown = sorted(set(doc) - KEYS)
    if unknown:
        raise PositionError(f"unknown field(s): {', '.join(map(str, unknown))}")
    r = _Reader(doc)
    if doc.get("position", FORMAT) != FORMAT:
        raise PositionError(f"position: format {doc.get('position')!r} is not {FORMAT}")
    cat = resolve(doc.get("catalogue", CURRENT.version))
    options = doc.get("options", {})
    if not isinstance(options, dict):
        raise PositionError("options: an object expected")
    try:
        cfg = GameConfig.from_options(doc.get("edition", ""), doc.get("players", 0), options)
    except ConfigError as e:
        raise PositionError(f"edition/players/options: {e.message}") from None
    n = cfg.players
    seed = r.integer("seed", 0, None)
    seq = r.integer("seq", 0, 0)
    number = r.integer("round", 1, 1, cfg.rounds)
    if doc.get("phase", Phase.PLAYING) not in PHASES:
        raise PositionError(f"phase: {doc.get('phase')!r} is not one of {', '.join(PHASES)}")
    phase = Phase(doc.get("phase", Phase.PLAYING))
    start_seat = seat_or_none("start_seat", doc.get("start_seat", None), n)
    if start_seat is None:
        start_seat = first_start_seat(cfg, seed)
    wanted = ("roles", "role_pool", "goals", "hands", "pile")
    need_deal = any(k not in doc for k in wanted) or (cfg.expansion and "set_aside" not in doc)
    dealt = start_round(cfg, cat, seed, number, start_seat) if need_deal else None
    dealt_cards = dealt.table.cards if dealt is not None else ()

    # ---------------------------------------------------------------- roles
    all_roles = role_cards(cfg, cat)
    if "roles" in doc:
        roles = r.seats("roles", doc["roles"], n)
    else:
        assert dealt is not None
        roles = list(dealt.roles)
    for s, role in enumerate(roles):
        if role not in ROLES[cfg.edition]:
            raise PositionError(f"roles[{s}]: {role!r} is not a role of {cfg.edition}")
    if "role_pool" in doc:
        pool = doc["role_pool"]
        if not isinstance(pool, list) or any(p not in ROLES[cfg.edition] for p in pool):
            raise PositionError(f"role_pool: a list of {cfg.edition} role ids expected")
    elif "roles" not in doc:
        assert dealt is not None
        pool = list(dealt.role_pool)
    else:
        # the role cards left, in the order of the deal's pool first
        left = Counter(all_roles) - Counter(roles)
        pool = []
        for x in (*(dealt.role_pool if dealt else ()), *sorted(all_roles)):
            if left[x] > 0:
                left[x] -= 1
                pool.append(x)
    extra = Counter(roles) + Counter(pool) - Counter(all_roles)
    if extra:
        what = ", ".join(f"{k} x{v}" for k, v in sorted(extra.items()))
        raise PositionError(f"roles + role_pool: more role cards than this game has: {what}")

    # ---------------------------------------------------------------- maze and goals
    if "goals" in doc:
        goal_ids = doc["goals"]
        if not isinstance(goal_ids, list) or len(goal_ids) != 3:
            raise PositionError("goals: three goal card ids expected")
        goals = tuple(card_of(f"goals[{g}]", c, cat, ("goal",)) for g, c in enumerate(goal_ids))
        if sorted(goals) != sorted(cat.goals):
            raise PositionError("goals: each goal card of the catalogue once")
    else:
        assert dealt is not None
        goals = dealt.board.goals
    cells: dict[int, int] = {START_KEY: 2 * cat.start}
    revealed = [False, False, False]
    maze = doc.get("maze", [])
    if not isinstance(maze, list):
        raise PositionError("maze: a list of [x, y, card id] or [x, y, card id, turned]")
    in_maze: list[int] = []
    for i, cell in enumerate(maze):
        where = f"maze[{i}]"
        if not isinstance(cell, list) or len(cell) not in (3, 4):
            raise PositionError(f"{where}: [x, y, card id] or [x, y, card id, turned] expected")
        x, y, cid = cell[0], cell[1], cell[2]
        turned = cell[3] if len(cell) == 4 else False
        if not (_int(x) and _int(y) and -LIMIT < x < LIMIT and -LIMIT < y < LIMIT):
            raise PositionError(f"{where}: ({x!r}, {y!r}) is not a cell of the maze")
        if cfg.bounded_board and not in_bounds(x, y):
            raise PositionError(f"{where}: ({x}, {y}) is outside the bounded board")
        if not isinstance(turned, bool):
            raise PositionError(f"{where}: turned is true or false")
        k = key(x, y)
        if k == START_KEY:
            raise PositionError(f"{where}: (0, 0) holds the start card")
        if k in cells:
            raise PositionError(f"{where}: ({x}, {y}) holds two cards")
        if (x, y) in GOAL_CELLS:
            g = GOAL_CELLS.index((x, y))
            idx = card_of(where, cid, cat, ("goal",))
            if idx != goals[g]:
                raise PositionError(f"{where}: goal {g} is {CARD_LIST[goals[g]].id}, not {cid}")
            revealed[g] = True
        else:
            idx = card_of(where, cid, cat, ("path",))
            in_maze.append(idx)
        cells[k] = 2 * idx + (1 if turned and not SYMMETRIC[idx] else 0)

    # ---------------------------------------------------------------- cards
    if "hands" in doc:
        hand_docs = r.seats("hands", doc["hands"], n)
        hands = [cards_of(f"hands[{s}]", h, cat) for s, h in enumerate(hand_docs)]
    else:
        assert dealt is not None
        hands = [[dealt_cards[p] for p in h] for h in dealt.hands]
    most = hand_size(cfg, cat)
    for s, h in enumerate(hands):
        if len(h) > most:
            raise PositionError(f"hands[{s}]: {len(h)} cards, a hand holds at most {most}")
    front_docs = r.seats("in_front", doc.get("in_front", [[]] * n), n)
    in_front: list[tuple[str, ...]] = []
    for s, f in enumerate(front_docs):
        if not isinstance(f, list):
            raise PositionError(f"in_front[{s}]: a list of card ids expected")
        for c in f:
            idx = card_of(f"in_front[{s}]", c, cat, ("action",))
            if CARD_LIST[idx].id not in FRONT_IDS:
                raise PositionError(f"in_front[{s}]: {c} does not stay in front of a seat")
        if len(set(f)) != len(f):
            raise PositionError(f"in_front[{s}]: a card twice")
        in_front.append(tuple(f))
    discard = cards_of("discard", doc.get("discard", []), cat)
    placed = Counter(in_maze) + Counter(discard)
    for h in hands:
        placed.update(h)
    for f in in_front:
        placed.update(CARD_INDEX[c] for c in f)
    pile = cards_of("pile", doc["pile"], cat) if "pile" in doc else None
    aside = cards_of("set_aside", doc["set_aside"], cat) if "set_aside" in doc else None
    placed.update(pile or ())
    placed.update(aside or ())
    deck = Counter(cat.decks[cfg.edition])
    over = placed - deck
    if over:
        what = ", ".join(f"{CARD_LIST[i].id} ({placed[i]} of {deck[i]})" for i in sorted(over))
        raise PositionError(f"more copies than the catalogue has: {what}")
    rest = _rest(deck - placed, placed, dealt)
    removed = cat.removed if cfg.expansion else 0
    if aside is None:
        aside, rest = rest[:removed], rest[removed:]
    if len(aside) != removed:
        raise PositionError(f"set_aside: {removed} cards in {cfg.edition}, not {len(aside)}")
    if pile is None:
        pile, rest = rest, []
    if rest:
        what = ", ".join(f"{CARD_LIST[c].id} x{k}" for c, k in sorted(Counter(rest).items()))
        raise PositionError(f"cards of the deck that are nowhere: {what}")

    # ---------------------------------------------------------------- the rest
    gold = r.seats("gold", doc.get("gold", [0] * n), n)
    if not all(_int(g) and g >= 0 for g in gold):
        raise PositionError("gold: an integer >= 0 per seat")
    nuggets = doc.get("nuggets")
    if nuggets is None:
        nuggets = nugget_pile(cfg, cat, seed)
    full = Counter(nugget_pile(cfg, cat, seed))
    if not isinstance(nuggets, str) or Counter(nuggets) - full:
        raise PositionError("nuggets: a string of the nugget cards left (digits), top first")
    kg_docs = r.seats("known_goals", doc.get("known_goals", [[]] * n), n)
    known_goals = []
    for s, kg in enumerate(kg_docs):
        if not isinstance(kg, list) or any(not _int(g) or not 0 <= g <= 2 for g in kg):
            raise PositionError(f"known_goals[{s}]: a list of goal positions 0, 1, 2")
        known_goals.append(tuple(sorted(set(kg))))
    kr_docs = r.seats("known_roles", doc.get("known_roles", [[]] * n), n)
    known_roles = []
    for s, kr in enumerate(kr_docs):
        if not isinstance(kr, list):
            raise PositionError(f"known_roles[{s}]: a list of [seat, role, stale]")
        entries = []
        for item in kr:
            if not (isinstance(item, list) and len(item) == 3 and isinstance(item[2], bool)):
                raise PositionError(f"known_roles[{s}]: [seat, role, stale], not {item!r}")
            q = seat_of(f"known_roles[{s}]", item[0], n)
            if item[1] not in ROLES[cfg.edition]:
                raise PositionError(f"known_roles[{s}]: {item[1]!r} is not a role")
            entries.append((q, str(item[1]), item[2]))
        if len({q for q, _, _ in entries}) != len(entries):
            raise PositionError(f"known_roles[{s}]: a seat twice")
        known_roles.append(tuple(sorted(entries)))
    theft = r.seats("theft_laid", doc.get("theft_laid", [-1] * n), n)
    if not all(_int(t) and t >= -1 for t in theft):
        raise PositionError("theft_laid: the seq its theft card was laid (-1: none) per seat")
    last_mover = seat_or_none("last_mover", doc.get("last_mover"), n)
    reached_by = seat_or_none("reached_by", doc.get("reached_by"), n)
    thieves_doc = doc.get("thieves", [])
    if not isinstance(thieves_doc, list):
        raise PositionError("thieves: a list of seats")
    thieves = tuple(seat_of("thieves", t, n) for t in thieves_doc)
    ready_doc = doc.get("ready", [])
    if not isinstance(ready_doc, list):
        raise PositionError("ready: a list of seats")
    ready = frozenset(seat_of("ready", t, n) for t in ready_doc)
    result = copy.deepcopy(doc.get("result"))
    if result is not None:
        _check_result("result", result, n)
    results = copy.deepcopy(doc.get("results", []))
    if not isinstance(results, list):
        raise PositionError("results: a list of round results")
    for i, res in enumerate(results):
        _check_result(f"results[{i}]", res, n)
    default_current: int | None = start_seat
    if phase == Phase.STEALING:
        if not thieves or result is None:
            raise PositionError("phase stealing: thieves and the round's result are needed")
        default_current = thieves[0]
    elif phase in (Phase.ROUND_OVER, Phase.FINISHED):
        if result is None:
            raise PositionError(f"phase {phase}: the round's result is needed")
        default_current = None
    elif thieves or ready:
        raise PositionError("thieves and ready belong to the stealing and round_over phases")
    current = seat_or_none("current", doc.get("current", default_current), n)
    if phase == Phase.PLAYING and (current is None or not hands[current]):
        raise PositionError("current: in play, the seat to act holds a card")
    if phase == Phase.STEALING and current != thieves[0]:
        raise PositionError("current: the first of the thieves steals")
    if phase in (Phase.ROUND_OVER, Phase.FINISHED) and current is not None:
        raise PositionError(f"current: nobody acts in {phase}")

    # ---------------------------------------------------------------- the state
    layout = [*aside, *in_maze, *discard]
    for f in in_front:
        layout += [CARD_INDEX[c] for c in f]
    positions: list[tuple[int, ...]] = []
    for h in hands:
        positions.append(tuple(range(len(layout), len(layout) + len(h))))
        layout += h
    drawn = len(layout)
    layout += pile
    table = table_of(cat, seed, number, tuple(layout))
    rs = RoundState(
        number=number,
        table=table,
        drawn=drawn,
        hands=tuple(positions),
        roles=tuple(roles),
        role_pool=tuple(pool),
        board=Board(cells, goals, (revealed[0], revealed[1], revealed[2]), cfg.bounded_board),
        discard=tuple(discard),
        in_front=tuple(in_front),
        known_goals=tuple(known_goals),
        known_roles=tuple(known_roles),
        current=current,
        start_seat=start_seat,
        last_mover=last_mover,
        theft_laid=tuple(theft),
        thieves=thieves,
        reached_by=reached_by,
        result=result,
    )
    started: EventDict = {
        "seq": seq,
        "seat": None,
        "code": EventCode.ROUND_STARTED,
        "round": number,
    }
    return GameState(
        config=cfg,
        seed=seed,
        seq=seq,
        phase=phase,
        gold=tuple(gold),
        nuggets=nuggets,
        rs=rs,
        log=Log.of(({**started, "start_seat": start_seat},)),
        results=tuple(results),
        ready=ready,
        catalogue=cat,
    )


def _rest(left: Counter[int], placed: Counter[int], dealt: RoundState | None) -> list[int]:
    """The deck's cards the position places nowhere, in the deal's order: the placed cards
    are taken from the dealt hands first, then from the bottom of the dealt pile, then
    from the set-aside cards, so what a position leaves out stays as dealt."""
    if dealt is None:
        return sorted(left.elements())
    cards = dealt.table.cards
    in_hands = [p for h in dealt.hands for p in h]
    held = set(in_hands)
    pile = range(len(cards) - 1, dealt.drawn - 1, -1)
    aside = [p for p in range(dealt.drawn) if p not in held]
    need = placed.copy()
    taken: set[int] = set()
    for p in (*in_hands, *pile, *aside):
        if need[cards[p]] > 0:
            need[cards[p]] -= 1
            taken.add(p)
    return [c for p, c in enumerate(cards) if p not in taken]


def _check_result(name: str, res: object, n: int) -> None:
    """A round result as the engine writes it: the parts the engine reads again."""
    if not isinstance(res, dict):
        raise PositionError(f"{name}: a round result object")
    win = res.get("winnings")
    if not isinstance(win, list) or len(win) != n or not all(_int(w) for w in win):
        raise PositionError(f"{name}: winnings, an integer per seat")
    for k in ("round", "winners", "winning_seats", "roles", "gold_goal", "route"):
        if k not in res:
            raise PositionError(f"{name}: {k} is missing")


def position_of(state: GameState) -> dict[str, object]:
    """The position of a state, every field written (`state_from_position` reads it back
    to a state with the same cards everywhere; card instance ids and the public log are
    not part of a position)."""
    rs = state.rs
    cfg = state.config
    cards = rs.table.cards
    ids = [c.id for c in CARD_LIST]
    removed = state.catalogue.removed if cfg.expansion else 0
    maze: list[list[object]] = []
    for k in sorted(rs.board.cells):
        if k == START_KEY:
            continue
        o = rs.board.cells[k]
        x, y = unkey(k)
        maze.append([x, y, ids[o >> 1], True] if o & 1 else [x, y, ids[o >> 1]])
    return {
        "position": FORMAT,
        "edition": cfg.edition,
        "players": cfg.players,
        "options": cfg.options(),
        "catalogue": state.catalogue.version,
        "seed": state.seed,
        "seq": state.seq,
        "round": rs.number,
        "phase": state.phase,
        "current": rs.current,
        "start_seat": rs.start_seat,
        "last_mover": rs.last_mover,
        "gold": list(state.gold),
        "nuggets": state.nuggets,
        "goals": [ids[g] for g in rs.board.goals],
        "maze": maze,
        "hands": [[ids[cards[p]] for p in h] for h in rs.hands],
        "roles": list(rs.roles),
        "role_pool": list(rs.role_pool),
        "in_front": [list(f) for f in rs.in_front],
        "known_goals": [list(k) for k in rs.known_goals],
        "known_roles": [[[s, r, st] for s, r, st in k] for k in rs.known_roles],
        "pile": [ids[c] for c in cards[rs.drawn :]],
        "set_aside": [ids[c] for c in cards[:removed]],
        "discard": [ids[c] for c in rs.discard],
        "theft_laid": list(rs.theft_laid),
        "thieves": list(rs.thieves),
        "reached_by": rs.reached_by,
        "ready": sorted(state.ready),
        "result": copy.deepcopy(rs.result),
        "results": copy.deepcopy(list(state.results)),
    }
