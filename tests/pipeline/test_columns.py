"""Issue 30: one field table (``solver.records.FIELDS``) names the fields of every result
record, in one order: ``Difficulty``, ``BatchResult``, ``Result`` and the part's columns."""

from __future__ import annotations

import dataclasses

import numpy as np
import pyarrow as pa

import solver
from pipeline.columns import RESULT_COLUMNS, SOLVER_COLUMNS, SPECIAL
from solver.records import FIELDS, MEASURE, ROW, SEARCH

PIPELINE_OWN = ("grid", "solution_matches", "source", "row")  # the columns not the solver's
PUBLIC = [field.name for field in FIELDS if field.public]


def test_the_records_name_the_table_fields_in_its_order():
    assert [f.name for f in dataclasses.fields(solver.BatchResult)] == [f.name for f in FIELDS]
    assert [column.name for column in SOLVER_COLUMNS] == PUBLIC
    assert [column.name for column in RESULT_COLUMNS if column.name not in PIPELINE_OWN] == PUBLIC
    assert list(solver.Difficulty._fields) == [f.name for f in FIELDS if f.group == MEASURE]
    # Result's order, which ``solve --json`` prints: the table's, but for solve_us and boxsize,
    # kept where they were before the table
    kept = [name for name in PUBLIC if name not in ("solve_us", "boxsize")]
    kept.insert(kept.index("first_solution") + 1, "solve_us")
    assert [f.name for f in dataclasses.fields(solver.Result)] == list(ROW) == [*kept, "boxsize"]
    assert list(ROW)[:11] == [
        "status", "error", "givens", "n_solutions", "solutions_capped", "prune_solvable",
        "singles_solvable", "search_depth", "search_nodes", "first_solution", "solve_us"]


def test_each_column_takes_its_name_meaning_and_nullability_from_the_table():
    by_name = {field.name: field for field in FIELDS}
    for column in SOLVER_COLUMNS:
        field = by_name[column.name]
        assert (column.meaning, column.nullable) == (field.meaning, field.nullable)
        if column.name not in SPECIAL:  # a plain number: the Arrow type of its numpy type
            assert column.type == pa.from_numpy_dtype(np.dtype(field.dtype)), column.name


def test_the_search_fields_are_the_search_record_s():
    """A ``SEARCH`` field is copied from ``SearchColumns`` as it is: the same name and type."""
    found = solver.SearchColumns.empty(2)
    for field in FIELDS:
        if field.group == SEARCH:
            assert getattr(found, field.name).dtype == np.dtype(field.dtype), field.name


def test_null_measures_read_as_none():
    """``Difficulty.null`` holds each measure's null, which a row reads as None."""
    measured = solver.Difficulty.null(3)
    for field in FIELDS:
        if field.group == MEASURE and field.shape == "scalar":
            values = getattr(measured, field.name)
            assert values.dtype == np.dtype(field.dtype) and field.nulls(values).all()
    assert solver.Difficulty.null(3).se_techniques.shape == (3, len(solver.SE_TECHNIQUES))
