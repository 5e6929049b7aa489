"""JSON encode/decode of a mid-game state and a view: orjson against the standard library
(docs/benchmarks/hotpath.md).

    nice .venv/bin/python benchmarks/json_bench.py
"""

from __future__ import annotations

import json
import random
import timeit

import orjson

from core.engine import GameConfig, apply_move, legal_moves, new_game, state_to_json, view_for


def main() -> None:
    state = new_game(GameConfig.from_options("classic", 6, {}), 7)
    rng = random.Random(1)
    for _ in range(40):  # a mid-game state: 40 random legal moves in
        seat = state.rs.current
        if seat is None:
            break
        state, _ = apply_move(state, seat, rng.choice(legal_moves(state, seat)))
    n = 2000
    for name, obj in (("state", state_to_json(state)), ("view", view_for(state, 0))):
        raw = orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS)

        def std_dumps(o: object = obj) -> str:
            return json.dumps(o, ensure_ascii=False, separators=(",", ":"))

        def fast_dumps(o: object = obj) -> bytes:
            return orjson.dumps(o, option=orjson.OPT_NON_STR_KEYS)

        cost = {
            "json_dumps": timeit.timeit(std_dumps, number=n),
            "orjson_dumps": timeit.timeit(fast_dumps, number=n),
            "json_loads": timeit.timeit(lambda r=raw: json.loads(r), number=n),
            "orjson_loads": timeit.timeit(lambda r=raw: orjson.loads(r), number=n),
        }
        us = ", ".join(f"{k} {v / n * 1e6:.1f} µs" for k, v in cost.items())
        print(f"{name} ({len(raw)} B): {us}")


if __name__ == "__main__":
    main()
