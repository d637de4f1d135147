"""Hostile input at the solver's door: any text, any bytes; a status, never an exception."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import solver

CELLS = st.sampled_from(list("123456789.0 -_"))


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_any_text_is_a_row_with_a_status(text):
    r = solver.solve(text, max_nodes=200)
    assert r.status in solver.STATUSES
    if r.status == "invalid":
        assert r.error and r.givens is None and r.search_nodes is None
    else:
        assert len(text.rstrip("\r\n")) == 81


@settings(max_examples=100, deadline=None)
@given(st.lists(CELLS, min_size=81, max_size=81).map("".join), st.integers(0, 80), st.characters())
def test_one_bad_character_is_named_with_its_place(cells, where, ch):
    text = cells[:where] + ch + cells[where + 1:]
    r = solver.solve(text, max_nodes=50)
    if ch in "123456789.0 -_":
        assert r.status != "invalid"
    elif ch in "\r\n" and where == 80:  # a line ending at the end is trimmed
        assert r.error == "expected 81 cells, got 80"
    else:
        assert r.error == (f"unexpected character {ch!r} at cell {where} "
                           f"(row {where // 9 + 1}, column {where % 9 + 1})")


@settings(max_examples=50, deadline=None)
@given(st.binary(min_size=81 * 4, max_size=81 * 4))
def test_any_bytes_in_a_batch(data):
    rows = np.frombuffer(data, np.uint8).reshape(4, 81)
    batch = solver.solve_ascii(rows, max_nodes=100)
    assert len(batch) == 4
    for i in range(4):
        r = batch.row(i)
        assert (r.status == "invalid") == (r.error is not None and r.status != "contradictory")
