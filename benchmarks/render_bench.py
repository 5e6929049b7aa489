"""Board picture render benchmark: time (median, p95) and output bytes.

    .venv/bin/python benchmarks/render_bench.py [--runs 30]

Boards: a typical 10-player classic game in mid-round (played by the engine with random
path moves when ``core.engine`` is importable, else built by hand), a crowded 60-card board
with 12 players, and the round-end picture with the gold route highlighted.  Prints a
Markdown table (the one in docs/benchmarks/render.md).
"""

from __future__ import annotations

import argparse
import io
import platform
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PIL import Image

from telegram_bot.board_picture import catalogue, render_board
from telegram_bot.fonts import find_font

NAMES = [
    "Alice",
    "张伟",
    "李小龙",
    "Bob",
    "王芳",
    "Дмитрий",
    "Zoë",
    "陳大文",
    "Mohammed",
    "Eve",
    "小明",
    "Ola",
]


def hand_made(players: int, cards: int, seed: int = 1) -> dict[str, Any]:
    """A spectator view with ``cards`` random path cards around the start-goal area."""
    rnd = random.Random(seed)
    ids = [i for i, c in catalogue().items() if c["kind"] not in ("start", "goal")]
    cells = [
        (x, y)
        for x in range(-2, 11)
        for y in range(-4, 5)
        if (x, y) != (0, 0) and (x, y) not in ((8, -2), (8, 0), (8, 2))
    ]
    rnd.shuffle(cells)
    board = [{"x": 0, "y": 0, "card": "S1_START", "rotated": False}]
    board += [
        {"x": x, "y": y, "card": rnd.choice(ids), "rotated": rnd.random() < 0.5}
        for x, y in cells[:cards]
    ]
    return {
        "status": "playing",
        "round": 2,
        "rounds": 3,
        "deck_size": 12,
        "current_seat": 3,
        "board": board,
        "goals": [
            {"goal": k, "x": 8, "y": y, "revealed": False, "kind": None}
            for k, y in enumerate((-2, 0, 2))
        ],
        "seats": [
            {
                "seat": i,
                "name": NAMES[i % len(NAMES)],
                "hand_size": 4,
                "in_front": [["BREAK_CART"], [], ["TRAPPED", "BREAK_LANTERN"]][i % 3],
            }
            for i in range(players)
        ],
        "round_result": None,
    }


def engine_mid_round(players: int = 10, moves: int = 30, seed: int = 3) -> dict[str, Any] | None:
    """A real spectator view from the engine after ``moves`` turns (None without engine)."""
    try:
        from core import engine
    except ImportError:
        return None
    rnd = random.Random(seed)
    state = engine.new_game(engine.GameConfig(edition="classic", players=players), seed=seed)
    for _ in range(moves):
        if engine.phase(state) != "playing":
            break
        seat = engine.actor(state)
        if seat is None:
            break
        legal = engine.legal_moves(state, seat)
        paths = [m for m in legal if m["type"] == "place_path"]
        state, _ = engine.apply_move(state, seat, rnd.choice(paths or legal))
    view: dict[str, Any] = engine.view_for(state, None)
    for i, s in enumerate(view["seats"]):
        s["name"] = NAMES[i % len(NAMES)]
    return view


def measure(view: dict[str, Any], runs: int) -> dict[str, Any]:
    render_board(view)  # warm-up: fonts and the catalogue are loaded once per process
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        data, mime = render_board(view)
        times.append((time.perf_counter() - t) * 1000)
    times.sort()
    size = Image.open(io.BytesIO(data)).size
    return {
        "median": statistics.median(times),
        "p95": times[max(0, round(0.95 * runs) - 1)],
        "bytes": len(data),
        "mime": mime,
        "size": size,
        "cards": len(view["board"]),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=30)
    args = ap.parse_args()
    typical = engine_mid_round()
    source = "engine, 30 turns" if typical else "hand-made"
    typical = typical or hand_made(10, 22)
    crowded = hand_made(12, 59, seed=2)
    routed = hand_made(10, 22, seed=4) | {
        "status": "round_over",
        "round_result": {"route": [[x, 0] for x in range(9)]},
    }
    cases = [
        (f"typical 10 players mid-round ({source})", typical),
        ("crowded: 60 cards, 12 players", crowded),
        ("round end, route highlighted, 10 players", routed),
    ]
    print(
        f"Python {platform.python_version()}, {platform.machine()}, font {find_font()}, "
        f"{args.runs} runs each\n"
    )
    print("| board | cards | picture (px) | median ms | p95 ms | bytes | format |")
    print("|---|---|---|---|---|---|---|")
    for name, view in cases:
        r = measure(view, args.runs)
        print(
            f"| {name} | {r['cards']} | {r['size'][0]}×{r['size'][1]} | {r['median']:.0f} "
            f"| {r['p95']:.0f} | {r['bytes']:,} | {r['mime'].split('/')[1]} |"
        )


if __name__ == "__main__":
    main()
