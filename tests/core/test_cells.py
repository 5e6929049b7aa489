"""Cell names (core.cells): stable, unique and readable for any cell of the unbounded maze."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.cells import cell_name, column_name, parse_cell, row_name


def test_the_table_reads_like_the_real_one() -> None:
    assert cell_name(0, 0) == "G1"  # the start
    assert [cell_name(8, y) for y in (-2, 0, 2)] == ["E9", "G9", "I9"]  # the goals
    assert [row_name(y) for y in range(-6, 20)] == list("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    assert column_name(-1) == "0" and column_name(-3) == "-2"  # west of the start


def test_rows_beyond_the_alphabet_still_have_names() -> None:
    assert row_name(20) == "AA" and row_name(45) == "AZ" and row_name(46) == "BA"
    assert row_name(-7) == "-A" and row_name(-32) == "-Z" and row_name(-33) == "-AA"
    assert cell_name(-2, -7) == "-A-1"


@given(st.integers(-500, 500), st.integers(-500, 500))
def test_every_cell_has_one_name_and_the_name_one_cell(x: int, y: int) -> None:
    name = cell_name(x, y)
    assert parse_cell(name) == (x, y)
    assert parse_cell(name.lower()) == (x, y)


def test_names_of_neighbours_differ() -> None:
    names = {cell_name(x, y) for x in range(-30, 30) for y in range(-40, 40)}
    assert len(names) == 60 * 80


@pytest.mark.parametrize("bad", ["", "G", "1", "G1x", "1G", "g 1", "--A1", "Ä1"])
def test_what_is_not_a_name_is_refused(bad: str) -> None:
    with pytest.raises(ValueError):
        parse_cell(bad)
