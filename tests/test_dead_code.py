"""No dead definitions in production code: vulture over the paths of pyproject.toml's
[tool.vulture], with vulture_whitelist.py naming what it cannot see used."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_vulture_finds_no_dead_code() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "vulture"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == ""
