"""Runs over the real public sets in ../shared/datasets, skipped when they are absent."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow.compute as pc
import pytest

import solver
from pipeline.run import solve_dataset
from pipeline.settings import load_settings

SHARED = Path(__file__).resolve().parents[3] / "shared" / "datasets"
pytestmark = pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/datasets is absent")


def test_kaggle_sample_matches_its_published_solutions(tmp_path, read_output):
    settings = load_settings(workers=2, batch_size=2500)
    summary = solve_dataset([SHARED / "kaggle_1m_sample.csv"], tmp_path, settings, progress=False)
    assert (summary.rows_in, summary.rows_out) == (10_000, 10_000)
    assert summary.numbers.status["unique"] == 10_000
    assert summary.numbers.solution_matches == {"true": 10_000, "false": 0}
    table = read_output(tmp_path)
    assert table.column("quizzes").to_pylist()[0].startswith("0043")  # leading zeros kept


SETS = [
    "euler96_easy50.txt",
    "norvig_top95.txt",
    "norvig_hardest.txt",
    "magictour_topn87.txt",
    "forum_hardest_1106.txt",
    "serg_benchmark.txt",
    "radcliffe_3m_sample.csv",
]


@pytest.mark.slow
@pytest.mark.parametrize("rules", ["bird", "singles"])
def test_every_row_equals_the_solver_api(tmp_path, read_output, rules):
    """The pipeline's rows are, column for column, what solver.solve_strings gives."""
    inputs = [SHARED / name for name in SETS]
    settings = load_settings(workers=2, batch_size=997, rules=rules)
    summary = solve_dataset(inputs, tmp_path, settings, progress=False)
    table = read_output(tmp_path, timing=False)
    assert summary.rows_in == summary.rows_out == table.num_rows
    puzzles = table.column("puzzle").to_pylist()
    expected = solver.solve_strings(puzzles, rules=rules)
    assert table.column("status").to_pylist() == expected.statuses()
    for name in ("givens", "n_solutions", "search_depth", "search_nodes", "prune_solvable"):
        assert np.array_equal(table.column(name).to_numpy(), getattr(expected, name)), name
    first = [
        row.tobytes().decode() if found else None
        for row, found in zip(expected.first_solution, expected.has_solution, strict=True)
    ]
    assert table.column("first_solution").to_pylist() == first
    radcliffe = table.filter(pc.equal(table["source"], str(SHARED / "radcliffe_3m_sample.csv")))
    assert radcliffe.num_rows == 5000
    assert all(radcliffe.column("solution_matches").to_pylist())
