"""Names of maze cells, the same everywhere a player reads one.

A cell is named like a square on a chess board: its row's letter, then its column's
number — the start card is ``G1`` and the goals are ``E9``, ``G9`` and ``I9``. The group
picture labels its rim with the same letters and numbers, and the bot's buttons, the
logs and the Mini App use these names, so a player finds "G5" at a glance. The names are
the same in every language (the words around them are translated).

Why these origins: mazes grow past the 9×5 start area in every direction, rows above the
top goal often (a maze reaching y = -5 is seen), so row ``A`` is y = -6 and the usual rows
all get one letter; column 1 is the start's, so the goals are in column 9 as on the table
(columns to the west of the start are 0, -1, ...). Any cell of the unbounded maze has a
name: rows past ``Z`` go on as ``AA``, ``AB``... and rows above ``A`` are ``-A``, ``-B``....
"""

from __future__ import annotations

import re

FIRST_ROW = -6  # the y of row "A"
FIRST_COLUMN = 0  # the x of column 1
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_NAME = re.compile(r"(-?)([A-Z]+)(-?\d+)")


def _letters(n: int) -> str:
    """1 → A, 26 → Z, 27 → AA (bijective base 26, as spreadsheet columns)."""
    out = ""
    while n > 0:
        n, r = divmod(n - 1, 26)
        out = LETTERS[r] + out
    return out


def _number(letters: str) -> int:
    n = 0
    for ch in letters:
        n = n * 26 + LETTERS.index(ch) + 1
    return n


def row_name(y: int) -> str:
    """The letter(s) of row ``y``: A for y = -6, G for the start's row."""
    index = y - FIRST_ROW  # 0 for row A
    return _letters(index + 1) if index >= 0 else "-" + _letters(-index)


def column_name(x: int) -> str:
    """The number of column ``x``: 1 for the start's column, 9 for the goals'."""
    return str(x - FIRST_COLUMN + 1)


def cell_name(x: int, y: int) -> str:
    """``G1`` for the start (0, 0); ``E9`` for the top goal (8, -2)."""
    return row_name(y) + column_name(x)


def parse_cell(name: str) -> tuple[int, int]:
    """(x, y) of a cell name; ValueError for anything that is not one."""
    match = _NAME.fullmatch(name.strip().upper())
    if match is None:
        raise ValueError(f"not a cell name: {name!r}")
    sign, letters, number = match.groups()
    index = _number(letters)
    y = FIRST_ROW + (index - 1 if not sign else -index)
    return int(number) - 1 + FIRST_COLUMN, y


def describe() -> dict[str, int]:
    """The naming rule for clients that draw or name cells themselves (the Mini App)."""
    return {"first_row": FIRST_ROW, "first_column": FIRST_COLUMN}
