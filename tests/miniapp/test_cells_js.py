"""miniapp/static/cells.js names every cell as core/cells.py does (the page's log and the
group picture must agree): compared on a wide square of cells, far past the usual maze."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from core.cells import cell_name

CELLS_JS = Path(__file__).resolve().parents[2] / "miniapp" / "static" / "cells.js"
SPAN = range(-40, 41)


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
def test_js_and_python_name_cells_alike() -> None:
    script = (
        f"import {{ cellName }} from {json.dumps(CELLS_JS.as_uri())};\n"
        f"const out = {{}};\n"
        f"for (let x = {SPAN.start}; x < {SPAN.stop}; x++)\n"
        f"  for (let y = {SPAN.start}; y < {SPAN.stop}; y++)\n"
        "    out[`${x},${y}`] = cellName(x, y);\n"
        "console.log(JSON.stringify(out));\n"
    )
    done = subprocess.run(
        ["node", "--input-type=module", "-e", script],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    names = json.loads(done.stdout)
    expected = {f"{x},{y}": cell_name(x, y) for x in SPAN for y in SPAN}
    assert names == expected
    assert names["0,0"] == "G1" and names["8,-2"] == "E9"
