"""`python -m core.sim` as a user runs it: a subprocess, one JSON line, the exit status."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
LABELS = {"diggers", "saboteurs", "selfish_dwarf", "blue", "green", "blue+green"}


def run_sim(*args: str) -> tuple[int, dict[str, Any], str]:
    proc = subprocess.run(
        [sys.executable, "-m", "core.sim", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = [ln for ln in proc.stdout.splitlines() if ln.strip()]
    assert len(lines) == 1, proc.stdout + proc.stderr
    return proc.returncode, json.loads(lines[0]), proc.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["--edition", "classic", "--players", "4", "--games", "3"],
        ["--edition", "classic", "--players", "10", "--games", "2", "--option", "rounds=1"],
        [
            "--edition", "classic", "--players", "6", "--games", "2",
            "--option", "selfish_dwarf", "--option", "competitive", "--option", "old_mine",
        ],
        ["--edition", "classic", "--players", "7", "--games", "2", "--option", "tournament"],
        ["--edition", "expansion", "--players", "2", "--games", "2"],
        [
            "--edition", "expansion", "--players", "9", "--games", "2",
            "--option", "bounded_board", "--option", "rounds=2",
        ],
    ],
)  # fmt: skip
def test_sim_plays_checked_games(args: list[str]) -> None:
    code, out, err = run_sim(*args, "--seed", "5")
    assert code == 0, err
    games = int(args[args.index("--games") + 1])
    assert out["games"] == games
    assert out["invariant_violations"] == 0
    assert set(out["outcomes"]) == LABELS
    assert sum(out["outcomes"].values()) == out["rounds"]
    rounds = out["options"]["rounds"]
    assert out["rounds"] == games * rounds
    assert out["moves"] > out["rounds"] * 10
    assert out["seconds"] > 0 and out["games_per_sec"] > 0 and out["moves_per_sec"] > 0
    if "expansion" in args:
        assert out["outcomes"]["diggers"] == out["outcomes"]["selfish_dwarf"] == 0
    else:
        assert out["outcomes"]["blue"] == out["outcomes"]["green"] == 0


def test_same_seed_same_games() -> None:
    a = run_sim("--games", "2", "--players", "5", "--seed", "9", "--no-check")[1]
    b = run_sim("--games", "2", "--players", "5", "--seed", "9", "--no-check")[1]
    assert a["invariant_violations"] is None
    assert (a["moves"], a["outcomes"]) == (b["moves"], b["outcomes"])


def test_forced_violation_exits_non_zero() -> None:
    code, out, _ = run_sim("--games", "1", "--players", "5", "--inject-violation")
    assert code != 0
    assert out["invariant_violations"] and out["invariant_violations"] > 0
    assert any("card conservation" in v for v in out["first_violations"])


def test_bad_configuration_is_refused() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "core.sim", "--edition", "expansion", "--option", "old_mine"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert "classic-only" in proc.stderr


def test_ai_agents_report_win_rates_and_beliefs() -> None:
    code, out, err = run_sim(
        "--games", "1", "--players", "5", "--option", "rounds=1", "--seed", "3",
        "--diggers", "ai:easy", "--saboteurs", "random", "--agent", "saboteur=random",
    )  # fmt: skip
    assert code == 0, err
    assert out["agents"] == {"default": "random", "diggers": "ai:easy", "saboteurs": "random",
                             "saboteur": "random"}  # fmt: skip
    rates = out["win_rates"]
    assert set(rates) == LABELS
    for r in rates.values():
        lo, hi = r["ci95"]
        assert 0.0 <= lo <= r["rate"] <= hi <= 1.0
    acc = out["belief_accuracy"]
    assert acc is None or 0.0 <= acc <= 1.0
