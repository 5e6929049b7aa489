"""A short evaluation with loose bounds: the agents beat random play and read the table.

The full evaluation (300 rounds per configuration) is `benchmarks/ai_eval.py`; its
figures are in docs/benchmarks/ai.md. Here a few rounds must clear bounds that a working
agent passes with overwhelming probability (seeded, so the run is reproducible anyway).
"""

from __future__ import annotations

from core.ai.evaluate import Assignment, parse_kind, play_games, wilson
from tests.core.ai.conftest import engine


def _cfg(players: int) -> object:
    return engine.GameConfig.from_options("classic", players, {"rounds": 3})


def test_ai_diggers_beat_random_saboteurs() -> None:
    a = Assignment(by_side={"diggers": "ai", "saboteurs": "random"})
    t = play_games(_cfg(5), games=3, seed=77, assignment=a, max_rounds=6)
    assert t.rounds == 6
    assert t.outcomes["diggers"] >= 4, t.summary()


def test_ai_saboteurs_beat_random_diggers() -> None:
    a = Assignment(by_side={"diggers": "random", "saboteurs": "ai"})
    t = play_games(_cfg(6), games=3, seed=78, assignment=a, max_rounds=6)
    assert t.outcomes["saboteurs"] >= 5, t.summary()


def test_ai_diggers_find_the_saboteurs() -> None:
    t = play_games(_cfg(5), games=2, seed=79, assignment=Assignment(default="ai"), max_rounds=4)
    acc = t.belief_accuracy()
    assert acc is not None and acc >= 0.5, t.summary()
    assert set(t.outcomes) <= {"diggers", "saboteurs"}


def test_kinds_and_interval() -> None:
    assert parse_kind("ai") == ("ai", "normal")
    assert parse_kind("AI:hard") == ("ai", "hard")
    assert parse_kind("random") == ("random", "")
    lo, hi = wilson(270, 300)
    assert 0.85 < lo < 0.9 < hi < 0.93
    a = Assignment(default="random", by_side={"saboteurs": "ai:easy"}, by_role={"boss": "ai"})
    assert a.kind_for("SABOTEUR") == "ai:easy"
    assert a.kind_for("BOSS") == "ai"
    assert a.kind_for("GOLD_DIGGER_BLUE") == "random"


def test_seat_substitution_short() -> None:
    """The CI version of the seat-substitution protocol (docs/benchmarks/ai.md): 6 deals
    per role at 5 players. Loose bounds: `hard` in the seat loses at most 2 of the 6
    deals its `normal` self won (the full protocol's interval is what judges strength),
    the paired gold difference is at most 2 nuggets per deal lost on average, and a
    hard decision's p95 stays under 0.6 s of CPU: a guard against a budget gone wrong by
    a multiple, not the 250 ms target (CPU time on this shared box varies by a third from
    run to run; the benchmark measures the target)."""
    import time

    from core.ai.substitution import mean_ci, seat_substitution

    cfg = engine.GameConfig.from_options("classic", 5, {"rounds": 1})
    for role in ("digger", "saboteur"):
        p = seat_substitution(cfg, deals=6, seed=4200, tested=role, clock=time.process_time)
        s = p.summary()
        assert s["deals"] == 6 and s["skipped"] == 0, s
        assert sum(p.win) >= -2, s
        assert s["gold_diff"]["mean"] >= -2.0, s
        assert s["ms_p95"] < 600, s
    ci = mean_ci([1.0, 0.0, 1.0, 0.0])
    assert ci is not None and ci["lo"] < ci["mean"] == 0.5 < ci["hi"]


def test_decision_consistency_is_measured_and_replayable() -> None:
    """The search's noise in a minute (docs/benchmarks/ai.md, "How often two searches of
    one view agree"): shares in [0, 1] over every decision of the tested role, the same
    figures when asked again (seeded), and `easy`'s random moves and large noise agree
    with themselves less often than `normal` does."""
    from core.ai.substitution import decision_consistency

    cfg = engine.GameConfig.from_options("classic", 5, {"rounds": 1})
    easy = decision_consistency(cfg, deals=2, seed=4300, tested="digger", level="easy")
    assert easy["decisions"] >= 10
    for key in ("same_level_level", "same_level_normal", "same_normal_normal"):
        assert 0.0 <= easy[key] <= 1.0
    assert easy["same_level_level"] < easy["same_normal_normal"], easy
    again = decision_consistency(cfg, deals=2, seed=4300, tested="digger", level="easy")
    assert again == easy


def test_the_verdict_signal_reads_noise_as_about_one_and_a_clear_choice_above_it() -> None:
    """`verdict_signal` (docs/benchmarks/ai.md): candidates that differ only by their
    worlds' noise read about 1; one candidate better in every world by three times the
    noise reads far above it; a difference with no noise at all reads infinite."""
    import math
    import random

    from core.ai.substitution import verdict_signal

    rng = random.Random(5)
    noise = [{i: rng.gauss(0.0, 10.0) for i in range(4)} for _ in range(2000)]
    assert 0.9 < verdict_signal(noise) < 1.1
    clear = [{0: 30.0 + rng.gauss(0.0, 10.0), 1: rng.gauss(0.0, 10.0)} for _ in range(8)]
    assert verdict_signal(clear) > 3.0
    assert verdict_signal([{0: 5.0, 1: 0.0}, {0: 15.0, 1: 10.0}]) == math.inf
    assert verdict_signal([{0: 1.0, 1: 1.0}, {0: 2.0, 1: 2.0}]) == 0.0


def test_the_consistency_run_reports_how_far_the_searches_tell_candidates_apart() -> None:
    from core.ai.substitution import decision_consistency

    cfg = engine.GameConfig.from_options("classic", 5, {"rounds": 1})
    hard = decision_consistency(cfg, deals=1, seed=4300, tested="saboteur", level="hard")
    assert 0.0 < hard["searched"] <= 1.0, hard
    assert hard["verdict_signal_median"] >= 0.0
    assert 0.0 <= hard["verdict_signal_over_2"] <= 1.0


def test_an_oracle_seat_is_told_every_role_and_the_gold_and_believes_them() -> None:
    """The headroom levels (docs/benchmarks/ai.md, "how much one seat could gain"): the
    seat's view carries the truths, its beliefs take them as certain, the view it was
    built from is untouched and a seat substitution with them is replayable."""
    from core.ai.policy import make_ctx
    from core.ai.substitution import ORACLES, seat_substitution, told

    cfg = engine.GameConfig.from_options("classic", 6, {"rounds": 1})
    state = engine.new_game(cfg, 77)
    seat = engine.actor(state)
    view = engine.view_for(state, seat)
    seen = told(view, state, ORACLES["oracle"])
    assert view["you"]["known_roles"] == [] and view["you"]["known_goals"] == []
    ctx = make_ctx(seen, careful=True)
    roles = state.rs.roles
    for s in range(6):
        if s != seat:
            assert ctx.bel.p(s) == (1.0 if roles[s] == "SABOTEUR" else 0.0), (s, roles)
    gold = [g for g, c in enumerate(state.rs.board.goals) if c == engine.cards.GOLD]
    assert ctx.probs == {g: (1.0 if g == gold[0] else 0.0) for g in range(3)}
    only_gold = make_ctx(told(view, state, ORACLES["oracle-gold"]), careful=True)
    assert only_gold.probs == ctx.probs and 0.0 < only_gold.bel.p((seat + 1) % 6) < 1.0

    runs = [
        seat_substitution(cfg, deals=3, seed=4300, tested="digger", level="oracle") for _ in (0, 1)
    ]
    assert runs[0].summary() == runs[1].summary() and runs[0].summary()["deals"] == 3


def test_the_protocol_reports_what_the_seat_did_at_each_level() -> None:
    """`seat_log_per_deal`: the tested seat's own log entries by code, and those aimed
    at it, per deal at `level` and at `base` (how the saboteur told the gold was read,
    docs/benchmarks/ai.md): a seat that knows the gold has no use for a map."""
    from core.ai.substitution import seat_substitution

    cfg = engine.GameConfig.from_options("classic", 6, {"rounds": 1})
    run = seat_substitution(cfg, deals=6, seed=4400, tested="saboteur", level="oracle-gold")
    did = run.summary()["seat_log_per_deal"]
    assert "map_used" not in did["level"]
    for side in ("level", "base"):
        assert did[side]["path_placed"] > 0
        assert all(v > 0 for v in did[side].values())
    for side, totals in run.seat_log.items():
        assert did[side] == {c: round(k / 6, 3) for c, k in totals.items()}


def test_departures_split_what_a_level_changes_by_the_kind_of_move() -> None:
    """`departures` (docs/benchmarks/ai.md, "Which of hard's choices cost"): a level that
    plays like its base departs nowhere; `easy` departs, every departure is counted once
    under "base kind -> level kind", per deal and replayably."""
    from core.ai.substitution import departures

    cfg = engine.GameConfig.from_options("classic", 5, {"rounds": 1})
    same = departures(cfg, deals=2, seed=4500, tested="digger", level="normal", playouts=2)
    assert same.summary()["departures"] == 0 and same.win == [0.0, 0.0] and same.decisions > 0
    runs = [
        departures(cfg, deals=2, seed=4500, tested="digger", level="easy", playouts=2).summary()
        for _ in (0, 1)
    ]
    assert runs[0] == runs[1]
    got = runs[0]
    assert got["deals"] == 2 and 0 < got["departures"] <= got["decisions"]
    assert sum(k["n"] for k in got["by_kind"].values()) == got["departures"]
    for change, k in got["by_kind"].items():
        assert " -> " in change and -1.0 <= k["win"]["mean"] <= 1.0, (change, k)


def test_a_door_or_ladder_placement_is_its_own_kind_of_move() -> None:
    from core.ai.cards import PATHS
    from core.ai.substitution import move_kind

    found = set()
    for seed in range(40):
        state = engine.new_game(engine.GameConfig.from_options("expansion", 5, {}), seed)
        view = engine.view_for(state, engine.actor(state))
        cards = {c["id"]: c["card"] for c in view["you"]["hand"]}
        for m in view["legal_moves"]:
            if m["type"] == "place_path":
                info = PATHS[cards[m["card"]]]
                want = (
                    f"place_path:{info.door}"
                    if info.door
                    else "place_path:ladder"
                    if info.ladder
                    else "place_path"
                )
                assert move_kind(view, m) == want
                found.add(want)
            else:
                assert move_kind(view, m) == m["type"]
    assert {"place_path", "place_path:blue", "place_path:green", "place_path:ladder"} <= found
