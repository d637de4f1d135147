"""The unit of work: array conversions, and one batch solved, written and counted."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import solver
from pipeline.arrow import ascii_grid, digits_array
from pipeline.columns import RESULT_NAMES
from pipeline.part import PART_KEY, read_footer
from pipeline.provenance import installed
from pipeline.stats import Stats
from pipeline.work import solve_part
from tests.units import make_unit

EASY = "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3.."


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.none(),
            st.text("123456789.0 -_x", min_size=79, max_size=83),
            st.text(max_size=85),
        ),
        max_size=20,
    ),
    st.sampled_from([pa.string(), pa.large_string()]),
    st.integers(0, 3),
)
def test_ascii_grid_matches_python(values, kind, skip):
    array = pa.array(["pad"] * skip + values, kind).slice(skip)
    grid, fits = ascii_grid(array)
    for value, row, fit in zip(values, grid, fits, strict=True):
        expected = value is not None and len(value.encode()) == 81
        assert fit == expected
        assert row.tobytes() == (value.encode() if expected else bytes(81))


def test_ascii_grid_is_zero_copy_in_the_common_case():
    array = pa.array([EASY, EASY.replace(".", "0")])
    grid, fits = ascii_grid(array)
    assert fits.all() and not grid.flags.owndata
    assert grid[1].tobytes() == EASY.replace(".", "0").encode()


def test_digits_array_round_trip():
    grid = np.frombuffer(("1" * 81 + "2" * 81 + "3" * 81).encode(), np.uint8).reshape(3, 81)
    array = digits_array(grid, np.array([True, False, True]))
    array.validate(full=True)
    assert array.to_pylist() == ["1" * 81, None, "3" * 81]


def run_unit(tmp_path, table, *, solution_column=None, **settings):
    """Solve ``table`` as batch 3 of in.csv, rows 100 on: the part written, and its stats."""
    unit = make_unit(table, tmp_path, batch_index=3, first_row=100, source="in.csv",
                     solution_column=solution_column, **settings)
    stats = solve_part(unit)
    return pq.read_table(unit.path), stats


PUZZLES = [
    EASY,
    EASY.replace(".", "0"),
    "",
    None,
    EASY[:80],
    EASY + "\r\n",  # a line ending is not a cell (SPEC section 1)
    EASY[:40] + "\u00e9" + EASY[41:],
    "55" + EASY[2:],
    "." * 81,
    "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......",
]


def test_rows_equal_solver_solve(tmp_path):
    """Every result column is what solver.solve says for that puzzle alone."""
    table = pa.table({"id": list(range(len(PUZZLES))), "puzzle": PUZZLES})
    output, _ = run_unit(tmp_path, table)
    assert output.column_names == ["id", "puzzle", *RESULT_NAMES]
    rows = output.to_pylist()
    for puzzle, row in zip(PUZZLES, rows, strict=True):
        if puzzle is None:
            assert row["status"] == "invalid" and row["error"] == "missing puzzle (null)"
            continue
        expected = solver.solve(puzzle)
        for name in (
            "status",
            "error",
            "givens",
            "n_solutions",
            "solutions_capped",
            "prune_solvable",
            "singles_solvable",
            "search_depth",
            "search_nodes",
            "first_solution",
        ):
            assert row[name] == getattr(expected, name), (puzzle, name)
        assert row["solution_matches"] is None
    assert [row["row"] for row in rows] == list(range(100, 100 + len(PUZZLES)))
    assert {row["source"] for row in rows} == {"in.csv"}
    assert [row["id"] for row in rows] == list(range(len(PUZZLES)))


def test_invalid_rows_have_null_metrics(tmp_path):
    output, _ = run_unit(tmp_path, pa.table({"puzzle": ["x" * 81, ""]}))
    for row in output.to_pylist():
        assert row["status"] == "invalid" and row["error"]
        metrics = RESULT_NAMES[RESULT_NAMES.index("givens"):RESULT_NAMES.index("solve_us")]
        assert all(row[name] is None for name in metrics), row


def test_solution_matches(tmp_path):
    solution = solver.solve(EASY).first_solution
    wrong = ("1" if solution[0] != "1" else "2") + solution[1:]
    table = pa.table(
        {
            "puzzle": [EASY, EASY, EASY, EASY, EASY[:80], "55" + EASY[2:], EASY],
            "solution": [solution, wrong, "", None, solution, solution, solution[:80] + "."],
        }
    )
    output, stats = run_unit(tmp_path, table, solution_column="solution")
    assert output.column("solution_matches").to_pylist() == [
        True,
        False,
        None,
        None,
        None,
        False,
        False,
    ]
    assert stats.solution_matches == {"true": 1, "false": 3}


def test_part_is_written_with_metadata_and_no_leftovers(tmp_path):
    output, stats = run_unit(tmp_path, pa.table({"puzzle": [EASY] * 5}), rules="singles")
    [part] = tmp_path.iterdir()
    assert part.name == "part-00000-000003.parquet"
    metadata = pq.read_schema(part).metadata
    assert json.loads(metadata[PART_KEY]) == {
        "source": "in.csv",
        "file_index": 0,
        "batch_index": 3,
        "first_row": 100,
        "rows": 5,
        "last": False,
    }
    assert read_footer(str(part)).info.describe() == "rows 100-104 of in.csv"
    assert json.loads(metadata[b"sudoku_pipeline"])["settings"]["rules"] == "singles"
    assert read_footer(str(part)).written_by == installed()
    assert stats.rows == 5 and stats.status["unique"] == 5 and stats.worker_seconds > 0
    assert Stats.of_table(output) == stats.with_worker_seconds(0.0)


def test_options_reach_the_solver(tmp_path):
    hard = PUZZLES[-1]
    output, _ = run_unit(tmp_path, pa.table({"puzzle": [hard]}), max_nodes=5, max_solutions=1)
    row = output.to_pylist()[0]
    assert row["status"] == "budget_exceeded" and row["search_nodes"] == 5


@pytest.mark.parametrize("compression", ["zstd", "snappy", "none"])
def test_compression_choices(tmp_path, compression):
    run_unit(tmp_path, pa.table({"puzzle": [EASY]}), compression=compression)
    [part] = tmp_path.iterdir()
    codec = pq.ParquetFile(part).metadata.row_group(0).column(0).compression
    assert codec.lower() == {"none": "uncompressed"}.get(compression, compression)


class _CountingTable:
    """A table that counts how often its list of column names is asked for."""

    def __init__(self, table: pa.Table):
        self._table = table
        self.names_asked = 0

    @property
    def column_names(self) -> list[str]:
        self.names_asked += 1
        return self._table.column_names

    def __getattr__(self, name):
        return getattr(self._table, name)


def test_a_wide_input_costs_time_linear_in_its_columns(tmp_path):
    """Issue 29.4: a Parquet file of 20 rows and 100,000 columns took minutes, quadratic in its
    columns (each output field looked its name up in the table's list of names). Every input
    column passes through, and the list of names is built a fixed number of times."""
    from pipeline.part import output_schema
    from pipeline.work import solve_table

    easy = "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3.."
    table = pa.table({"puzzle": [easy] * 20, **{f"c{i}": list(range(20)) for i in range(3000)}})
    counted = _CountingTable(table)
    solved = solve_table(counted, schema=output_schema(table.schema), puzzle_column="puzzle",
                         solution_column=None, options=solver.SolveOptions(), source="wide",
                         first_row=0)
    assert counted.names_asked <= 2
    assert solved.num_rows == 20 and solved.column("c2999").to_pylist() == list(range(20))
    assert solved.column("status").to_pylist() == ["unique"] * 20
