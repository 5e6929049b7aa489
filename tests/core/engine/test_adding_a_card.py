"""docs/ADDING_A_CARD.md is true: its worked example, applied to a scratch copy of the
repository, adds a playable card in at most 6 source files outside the tests and the
translation catalogues, and the tests it names pass there.

    .venv/bin/python -m tests.core.engine.test_adding_a_card DIR   # the example, in DIR
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
DOC = ROOT / "docs" / "ADDING_A_CARD.md"
MOST = 6


def blocks(marker: str) -> list[str]:
    """The sh blocks of the page that follow `<!-- marker -->`."""
    return re.findall(rf"<!-- {marker} -->\s*```sh\n(.*?)```", DOC.read_text("utf-8"), re.S)


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "example", "GIT_AUTHOR_EMAIL": "example@localhost"}
    env |= {"GIT_COMMITTER_NAME": "example", "GIT_COMMITTER_EMAIL": "example@localhost"}
    done = subprocess.run(
        ["git", *args], cwd=repo, env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, (args, done.stderr)
    return done.stdout


def apply_example(repo: Path) -> None:
    """A copy of the tracked files in `repo` (a git repository), then the page's example."""
    files = git(ROOT, "ls-files", "-z").split("\0")
    for name in filter(None, files):
        src = ROOT / name
        if src.is_file():
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, repo / name)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "before the example")
    for script in blocks("run"):
        subprocess.run(["bash", "-ec", script], cwd=repo, check=True)
    patch = "".join(re.findall(r"```diff\n(.*?)```", DOC.read_text("utf-8"), re.S))
    (repo.parent / "example.diff").write_text(patch, "utf-8")
    git(repo, "apply", "--recount", str(repo.parent / "example.diff"))


def test_the_worked_example_adds_a_card_in_at_most_six_files(tmp_path: Path) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "repo"
    repo.mkdir()
    apply_example(repo)
    (count,) = blocks("count")
    counted = subprocess.run(
        ["bash", "-ec", count], cwd=repo, capture_output=True, text=True, check=True
    )
    touched = counted.stderr.split()
    assert int(counted.stdout) == len(touched) <= MOST, touched
    assert "core/engine/data/catalogues/697b065de483.json" in touched
    (names,) = blocks("tests")
    env = {**os.environ, "PYTHONPATH": str(repo), "PYTHONDONTWRITEBYTECODE": "1"}
    where = subprocess.run(
        [sys.executable, "-c", "import core.engine; print(core.engine.__file__)"],
        cwd=repo, env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert where.stdout.startswith(str(repo)), where.stdout  # the copy's engine, not ours
    shared = "tests/core/engine/test_engine_cards.py::test_packaged_copy_matches_shared_cards_json"
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--deselect", shared,
         *names.split()],
        cwd=repo, env=env, capture_output=True, text=True, timeout=900, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-3000:]


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    repo = Path(sys.argv[1]).resolve()
    repo.mkdir(parents=True)
    apply_example(repo)
    print(f"the example is applied in {repo}: git -C {repo} status")


if __name__ == "__main__":
    main()
