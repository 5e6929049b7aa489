"""Golden replays: recorded complete games replay to exactly the recorded result.

Each fixture in `golden/` holds a configuration, a seed and the move log (as `replay`
takes it, timeouts included) and the expected outcome: scores, every round's public
result, and a fingerprint (sha256) of the final state's meaning — public log, results with
their private winnings, the final maze and the spectator's view. The fingerprint is built
from content, not from the codec's byte layout, so a codec change does not break it; a rules
change that alters any game does. `state_to_json`/`state_from_json` must round-trip too.

Fixtures change only on purpose:

    .venv/bin/python -m tests.core.engine.test_golden_replay --regenerate

(and then explain in the commit why the recorded games changed).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from core.engine import (
    CURRENT_CATALOGUE,
    Catalogue,
    GameConfig,
    GameState,
    public_log,
    replay,
    resolve_catalogue,
    scores,
    state_from_json,
    state_to_json,
    view_for,
)
from core.engine.cards import CARD_LIST
from core.engine.codec import SCHEMA1_CATALOGUE
from core.sim import walk

GOLDEN = Path(__file__).parent / "golden"

# name -> (edition, players, options, seed, east_bias, timeouts)
RECORDINGS: dict[str, tuple[str, int, dict[str, Any], int, float, float]] = {
    "classic_selfish_competitive_oldmine": (
        "classic", 5, {"selfish_dwarf": True, "competitive": True, "old_mine": True},
        127, 0.85, 0.03,
    ),
    "classic_tournament": ("classic", 7, {"tournament": True, "rounds": 2}, 211, 0.85, 0.02),
    "classic_gold_per_digger_bounded": (
        "classic", 10, {"gold_per_digger": True, "bounded_board": True}, 304, 0.8, 0.0,
    ),
    "expansion_6": ("expansion", 6, {}, 409, 0.85, 0.03),
    "expansion_3_bounded": ("expansion", 3, {"bounded_board": True}, 513, 0.8, 0.05),
}  # fmt: skip


def fingerprint(state: GameState) -> str:
    """sha256 of what the final state means (not how the codec lays it out, nor how the
    engine numbers its cards: cards by catalogue id)."""
    rs = state.rs
    ids = [c.id for c in CARD_LIST]
    doc = {
        "seq": state.seq,
        "phase": state.phase,
        "gold": list(state.gold),
        "nuggets": state.nuggets,
        "results": list(state.results),
        "log": public_log(state),
        "cells": sorted((k, ids[o >> 1], o & 1) for k, o in rs.board.cells.items()),
        "goals": [ids[g] for g in rs.board.goals],
        "hands": [list(h) for h in rs.hands],
        "discard": [ids[c] for c in rs.discard],
        "view": view_for(state, None, log_limit=0),
    }
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def round_summaries(state: GameState) -> list[dict[str, Any]]:
    return [
        {k: r.get(k) for k in ("round", "winners", "winning_seats", "reached_by", "winnings")}
        for r in state.results
    ]


def catalogue_of(rec: dict[str, Any]) -> Catalogue:
    """The catalogue a recording was dealt from (before recordings named it: schema 1's)."""
    return resolve_catalogue(rec.get("catalogue", SCHEMA1_CATALOGUE))


def record(name: str) -> dict[str, Any]:
    edition, players, options, seed, east_bias, timeouts = RECORDINGS[name]
    config = GameConfig.from_options(edition, players, options)
    moves: list[dict[str, Any]] = []
    final = None
    for _b, entry, after in walk(config, seed, east_bias=east_bias, timeouts=timeouts):
        moves.append(entry)
        final = after
    assert final is not None
    return {
        "name": name,
        "catalogue": CURRENT_CATALOGUE.version,
        "edition": edition,
        "players": players,
        "options": options,
        "seed": seed,
        "expected": {
            "seq": final.seq,
            "scores": scores(final),
            "rounds": round_summaries(final),
            "fingerprint": fingerprint(final),
        },
        "moves": moves,
    }


def dump(rec: dict[str, Any]) -> str:
    """One move per line: readable diffs when a fixture is regenerated."""
    head = {k: v for k, v in rec.items() if k != "moves"}
    lines = ",\n".join("    " + json.dumps(m, sort_keys=True) for m in rec["moves"])
    body = json.dumps(head, indent=2, sort_keys=True)[:-2]
    return f'{body},\n  "moves": [\n{lines}\n  ]\n}}\n'


def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((GOLDEN / f"{name}.json").read_text("utf-8"))
    return data


@pytest.mark.parametrize("name", sorted(RECORDINGS))
def test_golden_game_replays_exactly(name: str) -> None:
    rec = load(name)
    config = GameConfig.from_options(rec["edition"], rec["players"], rec["options"])
    final = replay(config, rec["seed"], rec["moves"], catalogue_of(rec))
    exp = rec["expected"]
    assert final.phase == "finished"
    assert final.seq == exp["seq"]
    assert scores(final) == exp["scores"]
    assert round_summaries(final) == exp["rounds"]
    assert fingerprint(final) == exp["fingerprint"]
    assert state_from_json(json.loads(json.dumps(state_to_json(final)))) == final


def test_golden_games_cover_the_outcomes() -> None:
    """The recordings are worth keeping: gold reached and missed, thieves, timeouts."""
    winners: set[str] = set()
    steals = timeouts = 0
    for name in RECORDINGS:
        rec = load(name)
        winners |= {r["winners"] for r in rec["expected"]["rounds"]}
        timeouts += sum(1 for m in rec["moves"] if m.get("timeout"))
        steals += sum(1 for m in rec["moves"] if m.get("move", {}).get("type") == "steal")
    assert {"diggers", "saboteurs"} <= winners and winners & {"blue", "green", "blue+green"}
    assert timeouts > 0 and steals > 0


@pytest.mark.parametrize(
    ("edition", "players", "options", "seed"),
    [
        ("classic", 4, {}, 11),
        ("classic", 9, {"selfish_dwarf": True, "gold_per_digger": True}, 12),
        ("expansion", 4, {}, 13),
        ("expansion", 11, {"rounds": 2}, 14),
    ],
)
def test_replaying_a_log_gives_the_played_state(
    edition: str, players: int, options: dict[str, Any], seed: int
) -> None:
    config = GameConfig.from_options(edition, players, options)
    played: list[GameState] = []
    moves: list[dict[str, Any]] = []
    for _b, entry, after in walk(config, seed, east_bias=0.7, timeouts=0.04):
        moves.append(entry)
        played.append(after)
    final = replay(config, seed, moves)
    assert final == played[-1]
    assert state_to_json(final) == state_to_json(played[-1])
    assert public_log(final) == public_log(played[-1])
    # any prefix replays to the state reached at that point, also through the codec
    rng = random.Random(seed)
    for k in sorted(rng.sample(range(1, len(moves)), 5)):
        mid = replay(config, seed, moves[:k])
        assert mid == played[k - 1]
        assert state_from_json(json.loads(json.dumps(state_to_json(mid)))) == mid


@pytest.mark.parametrize("hash_seed", ["0", "12345"])
def test_replay_is_independent_of_string_hashing(hash_seed: str) -> None:
    """Set/dict order of strings changes with PYTHONHASHSEED: the engine must not depend on
    it, or a game stored by one worker would replay differently in another."""
    name = "expansion_6"
    code = (
        "import json, sys\n"
        "from tests.core.engine.test_golden_replay import catalogue_of, fingerprint, load\n"
        "from core.engine import GameConfig, replay\n"
        f"rec = load({name!r})\n"
        "cfg = GameConfig.from_options(rec['edition'], rec['players'], rec['options'])\n"
        "print(fingerprint(replay(cfg, rec['seed'], rec['moves'], catalogue_of(rec))))\n"
    )
    root = Path(__file__).resolve().parents[3]
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True,
        timeout=120, check=True,
    )  # fmt: skip
    assert out.stdout.strip() == load(name)["expected"]["fingerprint"]


def main() -> None:
    p = argparse.ArgumentParser(description="Regenerate the golden replay fixtures.")
    p.add_argument("--regenerate", action="store_true", help="rewrite tests/core/engine/golden/")
    ns = p.parse_args()
    if not ns.regenerate:
        p.error("nothing to do: pass --regenerate to rewrite the fixtures on purpose")
    GOLDEN.mkdir(exist_ok=True)
    for name in sorted(RECORDINGS):
        rec = record(name)
        (GOLDEN / f"{name}.json").write_text(dump(rec), "utf-8")
        print(name, rec["expected"]["scores"], [r["winners"] for r in rec["expected"]["rounds"]])


if __name__ == "__main__":
    main()
