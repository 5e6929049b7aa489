"""Regenerate the golden replay fixtures (run only after an intended rules change):

.venv/bin/python tests/core/engine/make_golden.py
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from core.engine import (
    GameConfig,
    actor,
    apply_move,
    apply_timeout,
    legal_moves,
    new_game,
    phase,
    state_to_json,
    waiting_on,
)

HERE = Path(__file__).parent / "data"
GAMES = {
    "golden_classic.json": ("classic", 5, {"old_mine": True}, 2032),
    "golden_expansion.json": ("expansion", 6, {}, 2028),
}


def record(edition: str, players: int, options: dict, seed: int) -> dict:
    cfg = GameConfig.from_options(edition, players, options)
    s = new_game(cfg, seed)
    rng = random.Random(seed)
    moves: list[dict] = []
    while phase(s) != "finished":
        if phase(s) == "round_over":
            for seat in sorted(waiting_on(s)):
                s, _ = apply_move(s, seat, {"type": "next_round"})
                moves.append({"seat": seat, "move": {"type": "next_round"}})
            continue
        if rng.random() < 0.05:
            s, _ = apply_timeout(s)
            moves.append({"timeout": True})
            continue
        a = actor(s)
        lm = legal_moves(s, a)
        paths = [m for m in lm if m["type"] == "place_path"]
        if paths and rng.random() < 0.6:
            # lean east so that goals get reached and every kind of round end appears
            best = max(m["x"] for m in paths)
            move = rng.choice([m for m in paths if m["x"] == best])
        else:
            move = rng.choice(lm)
        s, _ = apply_move(s, a, move)
        moves.append({"seat": a, "move": move})
    return {
        "edition": edition,
        "players": players,
        "options": options,
        "seed": seed,
        "moves": moves,
        "final_state": state_to_json(s),
    }


if __name__ == "__main__":
    HERE.mkdir(exist_ok=True)
    for name, args in GAMES.items():
        (HERE / name).write_text(json.dumps(record(*args), separators=(",", ":")) + "\n")
        print("wrote", name)
