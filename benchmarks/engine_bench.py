"""Engine benchmark (issue 3 performance targets), one process pinned to one core.

    .venv/bin/python benchmarks/engine_bench.py              # all three, JSON lines
    .venv/bin/python benchmarks/engine_bench.py --profile    # + cProfile of the sim games
    .venv/bin/python benchmarks/engine_bench.py --root /tmp/old   # the engine of another checkout

1. `legal_moves` of a 6-card hand (4 tunnels, a ladder, a rockfall) on a crowded
   Saboteur 2 maze of >= 60 path cards, median and p95 (target <= 0.3 ms). Three cases:
   `fresh` (a board object never queried: the whole frontier is computed), `after_move`
   (the board a placement just produced from a queried parent: what play does), `cached`
   (the same state asked again, e.g. view + legal moves).
2. `apply_move` median over moves sampled from random games (target <= 50 us), by kind.
3. one move as the service makes it: state JSON in, apply, state JSON out, the view.
4. complete classic 10-player 3-round random games per second, as `core.sim --no-check`
   runs them (target >= 100 games/s, aim 200).
5. `--only permove`: CPU per move as a game makes it (process time): the engine's
   apply_move and the next seat's legal_moves, and the service's encode_state of a state and
   decode_state of the stored one; and a whole move through GameService (the mover's view
   and submit) on the memory store and on Redis (`service_memory_us`, `service_redis_us`).
   `--alternate DIR --times 5` runs it alternately on the
   checkout in DIR and on this one, in separate processes, and compares the medians:

    git worktree add /tmp/before 9a8ea83    # or: git archive 9a8ea83 | tar -x -C /tmp/before
    nice -n 19 .venv/bin/python benchmarks/engine_bench.py --alternate /tmp/before --times 5

Figures and their discussion: docs/benchmarks/engine.md.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import random
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any


def _root(argv: list[str]) -> str:
    """`--root DIR`: import the engine from another checkout (a before/after comparison run
    from the same script, e.g. `git archive <commit> core | tar -x -C /tmp/old`)."""
    for i, a in enumerate(argv):
        if a == "--root" and i + 1 < len(argv):
            return str(Path(argv[i + 1]).resolve())
        if a.startswith("--root="):
            return str(Path(a.split("=", 1)[1]).resolve())
    return str(Path(__file__).resolve().parent.parent)


sys.path.insert(0, _root(sys.argv[1:]))

from core.engine import (  # noqa: E402
    GameConfig,
    GameState,
    apply_move,
    legal_moves,
    new_game,
    state_from_json,
    state_to_json,
    view_for,
)
from core.engine.board import GOAL_SET, START_KEY, Board, unkey  # noqa: E402
from core.engine.cards import CARD_LIST, GOLD, MASK  # noqa: E402
from core.sim import parse_args, simulate, walk  # noqa: E402


def pin(cpu: int | None) -> list[int]:
    if cpu is not None and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {cpu})
    return sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []


def quantiles(xs: list[float]) -> dict[str, float]:
    xs = sorted(xs)
    return {
        "median_us": round(statistics.median(xs) * 1e6, 1),
        "p95_us": round(xs[int(0.95 * (len(xs) - 1))] * 1e6, 1),
        "n": len(xs),
    }


# ---------------------------------------------------------------- crowded maze


def crowded_board(seed: int, size: int = 60) -> Board:
    """A maze of `size`+ path cards, grown by random legal placements (gold left hidden)."""
    rng = random.Random(seed)
    state = new_game(GameConfig.from_options("expansion", 6, {}), seed)
    board = state.rs.board
    paths = [i for i, c in enumerate(CARD_LIST) if c.category == "path" and not c.ladder]
    misses = 0
    while sum(1 for k in board.cells if k != START_KEY and k not in GOAL_SET) < size:
        if misses > 200:  # dead ends closed the maze: start again
            board, misses = state.rs.board, 0
        idx = rng.choice(paths)
        o = 2 * idx + rng.randrange(2)
        spots = [k for k, packed in board.frontier() if packed >> MASK[o] & 1]
        if not spots:
            misses += 1
            continue
        x, y = unkey(rng.choice(spots))
        new, newly = board.place(o, x, y)
        if any(board.goals[g] == GOLD for g in newly):
            continue
        board = new
    return board


def crowded_state(seed: int) -> tuple[GameState, int]:
    """A playing Saboteur 2 state on the crowded maze, the actor holding the test hand."""
    state = new_game(GameConfig.from_options("expansion", 6, {}), seed)
    rs = state.rs
    board = crowded_board(seed)
    want = ["S1_CURVE_NE", "S1_T_NES", "S2_DOOR_BLUE_NE", "S2_CRYSTAL_T_NEW", "S2_LADDER_ES"]
    want.append("ROCKFALL")
    hand: list[int] = []
    for w in want:
        hand.append(next(p for p, c in enumerate(rs.table.cards) if CARD_LIST[c].id == w))
    seat = rs.current
    assert seat is not None
    hands = list(rs.hands)
    hands[seat] = tuple(hand)
    return replace(state, rs=replace(rs, board=board, hands=tuple(hands))), seat


def fresh(board: Board) -> Board:
    return Board(dict(board.cells), board.goals, board.revealed, board.bounded, dict(board.conn))


def bench_legal_moves(seed: int, reps: int) -> dict[str, Any]:
    state, seat = crowded_state(seed)
    board = state.rs.board
    cards = sum(1 for k in board.cells if k != START_KEY and k not in GOAL_SET)
    out: dict[str, Any] = {"maze_cards": cards, "hand": [], "moves": 0}
    out["hand"] = [CARD_LIST[state.rs.table.cards[p]].id for p in state.rs.hands[seat]]
    out["moves"] = len(legal_moves(state, seat))
    # fresh: a board nobody asked yet
    times = []
    for _ in range(reps):
        s = replace(state, rs=replace(state.rs, board=fresh(board)))
        t0 = time.perf_counter()
        legal_moves(s, seat)
        times.append(time.perf_counter() - t0)
    out["fresh"] = quantiles(times)
    # after_move: the board one placement made from a parent whose frontier is known
    rng = random.Random(seed)
    parent = fresh(board)
    parent.frontier()
    orients = [2 * i + r for i, c in enumerate(CARD_LIST) if c.is_path and not c.ladder
               for r in (0, 1)]  # fmt: skip
    spots = [(k, o) for k, packed in parent.frontier() for o in orients if packed >> MASK[o] & 1]
    times = []
    for _ in range(reps):
        k, o = rng.choice(spots)
        x, y = unkey(k)
        child, _ = parent.place(o, x, y)
        s = replace(state, rs=replace(state.rs, board=child))
        t0 = time.perf_counter()
        legal_moves(s, seat)
        times.append(time.perf_counter() - t0)
    out["after_move"] = quantiles(times)
    times = []
    legal_moves(state, seat)
    for _ in range(reps):
        t0 = time.perf_counter()
        legal_moves(state, seat)
        times.append(time.perf_counter() - t0)
    out["cached"] = quantiles(times)
    return out


# ---------------------------------------------------------------- apply_move


def bench_apply(seed: int, samples: int) -> dict[str, Any]:
    rng = random.Random(seed)
    pairs: list[tuple[GameState, int, dict[str, Any]]] = []
    configs = [("classic", 10), ("classic", 5), ("expansion", 6)]
    g = 0
    while len(pairs) < samples:
        ed, n = configs[g % len(configs)]
        for before, entry, _after in walk(GameConfig.from_options(ed, n, {}), seed + g):
            if "seat" in entry and before.phase == "playing" and rng.random() < 0.3:
                pairs.append((before, entry["seat"], entry["move"]))
        g += 1
    by_kind: dict[str, list[float]] = {}
    allt: list[float] = []
    reps = 5
    for state, seat, move in pairs[:samples]:
        t0 = time.perf_counter()
        for _ in range(reps):
            apply_move(state, seat, move)
        dt = (time.perf_counter() - t0) / reps
        allt.append(dt)
        kind = move["type"] if move["type"] in ("place_path", "discard") else "action"
        by_kind.setdefault(kind, []).append(dt)
    return {"all": quantiles(allt), **{k: quantiles(v) for k, v in sorted(by_kind.items())}}


# ---------------------------------------------------------------- one move in the service


def bench_service(seed: int, samples: int) -> dict[str, Any]:
    """What the game service does per move with the engine: read the stored state JSON,
    apply the move, write the state JSON, build the mover's view (the store's compression
    and Redis are not included: docs/benchmarks/store.md).  States are sampled from the
    second half of classic 10-player games (a long public log inside the state)."""
    rng = random.Random(seed)
    cfg = GameConfig.from_options("classic", 10, {})
    items: list[tuple[str, int, dict[str, Any]]] = []
    g = 0
    while len(items) < samples:
        for before, entry, _after in walk(cfg, seed + g):
            if "seat" in entry and before.seq > 110 and rng.random() < 0.2:
                raw = json.dumps(state_to_json(before), separators=(",", ":"))
                items.append((raw, entry["seat"], entry["move"]))
        g += 1
    items = items[:samples]
    load: list[float] = []
    app: list[float] = []
    save: list[float] = []
    view: list[float] = []
    total: list[float] = []
    pc = time.perf_counter
    for raw, seat, move in items:
        t0 = pc()
        state = state_from_json(json.loads(raw))
        t1 = pc()
        new, _ = apply_move(state, seat, move)
        t2 = pc()
        json.dumps(state_to_json(new), separators=(",", ":"))
        t3 = pc()
        view_for(new, seat)
        t4 = pc()
        load.append(t1 - t0)
        app.append(t2 - t1)
        save.append(t3 - t2)
        view.append(t4 - t3)
        total.append(t4 - t0)
    size = statistics.median(len(raw) for raw, _, _ in items)
    return {
        "state_json_bytes": size,
        "load": quantiles(load),
        "apply": quantiles(app),
        "save": quantiles(save),
        "view": quantiles(view),
        "move_total": quantiles(total),
    }


# ---------------------------------------------------------------- per move, engine and codec


def bench_per_move(seed: int, samples: int, batches: int = 15) -> dict[str, Any]:
    """CPU time per move (the median over `batches` passes of the mean per move): the
    engine part (apply_move, then legal_moves for the next seat, as a game asks) and the
    service's state codec (encode the state, decode the stored one; compression included).
    Moves are sampled from random games: classic 6 and 10 players, Saboteur 2 with 6."""
    from core.service.records import decode_state, encode_state

    rng = random.Random(seed)
    items: list[tuple[GameState, int, dict[str, Any], str]] = []
    configs = [("classic", 6), ("expansion", 6), ("classic", 10)]
    g = 0
    while len(items) < samples:
        ed, n = configs[g % len(configs)]
        for before, entry, _after in walk(GameConfig.from_options(ed, n, {}), seed + g):
            if "seat" in entry and before.phase == "playing" and rng.random() < 0.3:
                legal_moves(before, entry["seat"])  # what the mover was shown
                items.append((before, entry["seat"], entry["move"], encode_state(before)))
        g += 1
    items = items[:samples]
    engine: list[float] = []
    codec: list[float] = []
    cpu = time.process_time
    for _ in range(batches):
        t0 = cpu()
        for state, seat, move, _stored in items:
            new, _ = apply_move(state, seat, move)
            if new.phase == "playing" and new.rs.current is not None:
                legal_moves(new, new.rs.current)
        t1 = cpu()
        for state, _seat, _move, stored in items:
            encode_state(state)
            decode_state(stored)
        t2 = cpu()
        engine.append((t1 - t0) / len(items))
        codec.append((t2 - t1) / len(items))
    totals = [a + b for a, b in zip(engine, codec, strict=True)]
    return {
        "moves": len(items),
        "engine_us": round(statistics.median(engine) * 1e6, 2),
        "codec_us": round(statistics.median(codec) * 1e6, 2),
        "total_us": round(statistics.median(totals) * 1e6, 2),
    }


def bench_service_flow(seed: int, games: int, backend: str) -> dict[str, Any]:
    """CPU per move through the service and the store, as a client makes it: the mover's
    view (the GET) and its submit (the POST: decide, engine, commit). Games of 6 humans
    (classic, then Saboteur 2) played with random legal moves on `backend` (`memory`, or
    `redis` on 127.0.0.1:6379: this process's CPU, the client side of the store).
    Only the service's public API is used, so any checkout can be measured."""
    import asyncio
    import secrets

    from core.service import GameService, ServiceConfig, UserRef
    from core.store import MemoryStore, RedisStore

    async def play(service: GameService, rng: random.Random, edition: str) -> tuple[int, float]:
        lobby = await service.create_lobby(chat=None, creator=UserRef(1, "p1"), edition=edition)
        game_id = lobby["game_id"]
        for user in range(2, 7):
            await service.join(game_id, UserRef(user, f"p{user}"))
        view = await service.start(game_id, 1)
        moves, cpu = 0, 0.0
        clock = time.process_time
        while view["status"] not in ("finished", "cancelled"):
            movers = [view["current_seat"]] if view.get("current_seat") is not None else []
            movers = movers or list(range(6))  # a round's end: whoever may go on
            for seat in movers:
                t0 = clock()
                view = await service.view(game_id, seat + 1)
                legal = [m for m in view["legal_moves"] or () if m["type"] != "take_seat_back"]
                if not legal:
                    cpu += clock() - t0
                    continue
                result = await service.submit(game_id, seat + 1, rng.choice(legal), view["version"])
                cpu += clock() - t0
                assert result.status == "ok", result
                assert result.view is not None
                view, moves = result.view, moves + 1
        return moves, cpu

    async def run() -> dict[str, Any]:
        rng = random.Random(seed)
        # the same deals on every checkout: the service draws a game's seed from secrets
        deals = random.Random(seed + 1)
        secrets.randbits = deals.getrandbits  # type: ignore[assignment]
        store: Any = (
            MemoryStore()
            if backend == "memory"
            else RedisStore.from_url("redis://127.0.0.1:6379/0", prefix=f"bench{os.getpid()}:")
        )
        config = ServiceConfig(think_delay_s=0.0, bot_ready_delay_s=0.0, round_pause_s=0)
        service = GameService(store, config)
        per_game: list[float] = []
        total_moves = 0
        try:
            for g in range(games):
                moves, cpu = await play(service, rng, ("classic", "expansion")[g % 2])
                per_game.append(cpu / moves)
                total_moves += moves
        finally:
            await store.close()
        return {"moves": total_moves, "us": round(statistics.median(per_game) * 1e6, 1)}

    return asyncio.run(run())


def alternate(before: str, times: int, cpu: int | None) -> int:
    """Run `--only permove` alternately on the checkout `before` and on this one."""
    import subprocess

    me = str(Path(__file__).resolve())
    here = str(Path(__file__).resolve().parent.parent)
    runs: dict[str, list[dict[str, Any]]] = {"before": [], "after": []}
    pin_args = ["--cpu", str(cpu)] if cpu is not None else []
    for i in range(times):
        for label, root in (("before", before), ("after", here)):
            out = subprocess.run(
                [sys.executable, me, "--only", "permove", "--root", root, *pin_args],
                capture_output=True, text=True, check=True,
            ).stdout.splitlines()  # fmt: skip
            res = json.loads(out[-1])
            runs[label].append(res)
            print(json.dumps({"run": i + 1, "code": label, **res}), flush=True)
    summary: dict[str, Any] = {"bench": "permove_alternated", "times": times}
    for key in ("engine_us", "codec_us", "total_us", "service_memory_us", "service_redis_us"):
        b = statistics.median(r[key] for r in runs["before"])
        a = statistics.median(r[key] for r in runs["after"])
        summary[key] = {"before": b, "after": a, "change_pct": round(100 * (a - b) / b, 1)}
    print(json.dumps(summary))
    return 0


# ---------------------------------------------------------------- whole games


SIM_ARGS = ["--games", "200", "--players", "10", "--edition", "classic", "--no-check"]


def bench_games(runs: int, profile: bool) -> dict[str, Any]:
    best: dict[str, Any] | None = None
    for r in range(runs):
        c0 = time.process_time()
        res = simulate(parse_args([*SIM_ARGS, "--seed", str(1 + 1000 * r)]))
        cpu = time.process_time() - c0
        # CPU time of this process: on a shared machine, wall time includes waiting
        res["cpu_seconds"] = round(cpu, 3)
        res["games_per_cpu_sec"] = round(res["games"] / cpu, 1)
        res["moves_per_cpu_sec"] = round(res["moves"] / cpu, 1)
        if best is None or res["games_per_sec"] > best["games_per_sec"]:
            best = res
    assert best is not None
    keys = ("games", "rounds", "moves", "seconds", "games_per_sec", "moves_per_sec",
            "cpu_seconds", "games_per_cpu_sec", "moves_per_cpu_sec")  # fmt: skip
    out = {k: best[k] for k in keys}
    if profile:
        prof = cProfile.Profile()
        prof.enable()
        simulate(parse_args([*SIM_ARGS, "--seed", "1"]))
        prof.disable()
        buf = io.StringIO()
        pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(15)
        out["profile"] = buf.getvalue()
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--cpu", type=int, default=1, help="core to pin to (default 1)")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--reps", type=int, default=2000)
    p.add_argument("--samples", type=int, default=3000)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument(
        "--only", choices=["legal", "apply", "service", "games", "permove"], default=None
    )
    p.add_argument("--alternate", metavar="DIR", help="compare per-move CPU with DIR's code")
    p.add_argument("--times", type=int, default=5)
    p.add_argument("--root", default=None, help="import core/ from this checkout instead")
    p.add_argument("--profile", action="store_true")
    ns = p.parse_args(argv)
    if ns.alternate:
        return alternate(str(Path(ns.alternate).resolve()), ns.times, ns.cpu)
    cpus = pin(ns.cpu)
    head = {"python": sys.version.split()[0], "cpus": cpus, "load": os.getloadavg()[0]}
    head["root"] = _root(sys.argv[1:] if argv is None else argv)
    print(json.dumps({"bench": "env", **head}))
    if ns.only in (None, "legal"):
        print(json.dumps({"bench": "legal_moves", **bench_legal_moves(ns.seed, ns.reps)}))
    if ns.only in (None, "apply"):
        print(json.dumps({"bench": "apply_move", **bench_apply(ns.seed, ns.samples)}))
    if ns.only in (None, "service"):
        print(json.dumps({"bench": "service_move", **bench_service(ns.seed, ns.samples // 3)}))
    if ns.only == "permove":
        res = bench_per_move(ns.seed, 600)
        for backend in ("memory", "redis"):
            flow = bench_service_flow(ns.seed, 6, backend)
            res[f"service_{backend}_us"] = flow["us"]
            res[f"service_{backend}_moves"] = flow["moves"]
        print(json.dumps({"bench": "permove", **res}))
    if ns.only in (None, "games"):
        res = bench_games(ns.runs, ns.profile)
        prof = res.pop("profile", None)
        print(json.dumps({"bench": "classic_10p_games", "args": SIM_ARGS, **res}))
        if prof:
            print(prof)
    return 0


if __name__ == "__main__":
    sys.exit(main())
