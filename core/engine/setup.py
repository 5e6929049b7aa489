"""Setup of a game and of each round (RULES §4 setup, §5 nugget pile, §6 roles and deck)."""

from __future__ import annotations

from .board import Board
from .catalogue import Catalogue
from .config import GameConfig
from .deal import dealt_table, rng_for
from .state import RoundState

DIGGER = "GOLD_DIGGER"
SABOTEUR = "SABOTEUR"
SELFISH = "SELFISH_DWARF"
BLUE = "GOLD_DIGGER_BLUE"
GREEN = "GOLD_DIGGER_GREEN"
BOSS = "BOSS"
PROFITEER = "PROFITEER"
GEOLOGIST = "GEOLOGIST"

# Tournament roles for 5..9 players: (saboteurs, diggers); plus one Selfish Dwarf.
TOURNAMENT = {5: (1, 3), 6: (2, 3), 7: (2, 4), 8: (2, 5), 9: (3, 5)}


def role_cards(cfg: GameConfig, cat: Catalogue) -> list[str]:
    """The role cards shuffled for one round (may be more than players: the rest is hidden)."""
    if cfg.expansion:
        return list(cat.s2_roles)
    if cfg.tournament:
        sab, dig = TOURNAMENT[cfg.players]
        return [SABOTEUR] * sab + [DIGGER] * dig + [SELFISH]
    sab, dig = cat.roles_by_players[cfg.players]
    if cfg.max_saboteurs:
        dig -= 1
    roles = [SABOTEUR] * sab + [DIGGER] * dig
    if cfg.selfish_dwarf:
        roles[-1] = SELFISH
    return roles


def hand_size(cfg: GameConfig, cat: Catalogue) -> int:
    return cat.s2_hand_size if cfg.expansion else cat.hand_sizes[cfg.players]


def nugget_pile(cfg: GameConfig, cat: Catalogue, seed: int) -> str:
    """The classic nugget pile, shuffled once per game (top first)."""
    if cfg.expansion:
        return ""
    values = list(cat.nuggets)
    if cfg.old_mine:
        for _ in range(6):
            values.remove(1)
        values += [0] * 6
    rng = rng_for(seed, "nuggets")
    rng.shuffle(values)
    return "".join(map(str, values))


def first_start_seat(cfg: GameConfig, seed: int) -> int:
    return rng_for(seed, "start").randrange(cfg.players)


def start_round(
    cfg: GameConfig, cat: Catalogue, seed: int, number: int, start_seat: int
) -> RoundState:
    n = cfg.players
    rng = rng_for(seed, number, "setup")
    roles = role_cards(cfg, cat)
    rng.shuffle(roles)
    goals = list(cat.goals)
    rng.shuffle(goals)
    table = dealt_table(cat, seed, number, cfg.edition)
    pos = cat.removed if cfg.expansion else 0
    h = hand_size(cfg, cat)
    hands = tuple(tuple(range(pos + i * h, pos + (i + 1) * h)) for i in range(n))
    return RoundState(
        number=number,
        table=table,
        drawn=pos + n * h,
        hands=hands,
        roles=tuple(roles[:n]),
        role_pool=tuple(roles[n:]),
        board=Board.initial(cat.start, tuple(goals), cfg.bounded_board),
        discard=(),
        in_front=((),) * n,
        known_goals=((),) * n,
        known_roles=((),) * n,
        current=start_seat,
        start_seat=start_seat,
        theft_laid=(-1,) * n,
    )
