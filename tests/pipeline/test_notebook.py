"""The pipeline from a notebook (issue 14): solve_frame, read_run, and an output directory
that polars, pyarrow and DuckDB read as one dataset without a glob."""

from __future__ import annotations

import json

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.dataset as ds
import pytest

import pipeline
from pipeline.run import solve_dataset
from pipeline.settings import load_settings

EASY = "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3.."
TIMING = ["solve_us"]


@pytest.fixture(scope="module")
def two_inputs_run(tmp_path_factory):
    """A run over a Kaggle CSV (column quizzes, blanks 0) and a text file, in several parts."""
    from tests.conftest import DATA, SAMPLE

    out = tmp_path_factory.mktemp("run") / "out"
    inputs = [DATA / "kaggle_20.csv", SAMPLE]
    solve_dataset(inputs, out, load_settings(workers=2, batch_size=7), progress=False)
    return inputs, out


def test_the_directory_reads_as_one_dataset_without_a_glob(two_inputs_run, read_output):
    _, out = two_inputs_run
    expected = read_output(out, timing=False)
    assert expected.num_rows == 20 + 199
    for frame in (pl.read_parquet(out), pl.scan_parquet(out).collect()):
        assert frame.drop(TIMING).to_arrow().equals(pl.from_arrow(expected).to_arrow())
    table = ds.dataset(out).to_table()
    assert table.num_rows == expected.num_rows
    assert duckdb.sql(f"SELECT count(*) FROM '{out}/*.parquet'").fetchall() == [(expected.num_rows,)]


def test_read_run_gives_the_rows_in_input_order(two_inputs_run, read_output):
    _, out = two_inputs_run
    lazy = pipeline.read_run(out)
    assert isinstance(lazy, pl.LazyFrame)
    frame = lazy.collect()
    assert frame.select("source", "row").rows() == pl.from_arrow(
        read_output(out).select(["source", "row"])).rows()
    summary = pipeline.read_summary(out)
    assert (summary.rows_in, summary.rows_out) == (219, 219)


def test_one_puzzle_column_whatever_the_input_called_it(two_inputs_run):
    inputs, out = two_inputs_run
    frame = pipeline.read_run(out).collect()
    kaggle = frame.filter(pl.col("source") == str(inputs[0]))
    assert kaggle["grid"].to_list() == [q.replace("0", ".") for q in kaggle["quizzes"]]
    valid = frame.filter(pl.col("status") != "invalid")
    assert valid["grid"].str.len_chars().unique().to_list() == [81]
    assert frame.filter(pl.col("status") == "invalid")["grid"].null_count() == frame.filter(
        pl.col("status") == "invalid").height


def test_solve_frame_gives_the_columns_of_a_run(two_inputs_run, read_output):
    inputs, out = two_inputs_run
    rows = read_output(out, timing=False)
    sample = pl.read_csv(inputs[1], infer_schema=False).fill_null("")  # as the CSV reader
    solved = pipeline.solve_frame(sample, source=str(inputs[1]))
    assert isinstance(solved, pl.DataFrame)
    expected = pl.from_arrow(rows).filter(pl.col("source") == str(inputs[1]))
    assert solved.drop(TIMING).columns == [c for c in expected.columns if c != "quizzes"
                                           and c != "solutions"]
    assert solved.drop(TIMING).equals(expected.select(solved.drop(TIMING).columns))


def test_solve_frame_takes_arrow_tables_nulls_and_settings():
    table = pa.table({"board": [EASY, None, "." * 81], "status": ["mine", "yours", "ours"]})
    solved = pipeline.solve_frame(table, max_solutions=5)
    assert isinstance(solved, pa.Table)
    assert solved.column("status").to_pylist() == ["unique", "invalid", "multiple"]
    assert solved.column("input_status").to_pylist() == ["mine", "yours", "ours"]
    assert solved.column("error").to_pylist()[1] == "missing puzzle (null)"
    assert solved.column("n_solutions").to_pylist() == [1, None, 5]
    assert solved.column("row").to_pylist() == [0, 1, 2]


def test_solve_frame_refuses_what_it_cannot_read():
    with pytest.raises(pipeline.PipelineError, match="no puzzle column"):
        pipeline.solve_frame(pl.DataFrame({"x": [EASY]}))
    with pytest.raises(TypeError, match="polars DataFrame or a pyarrow Table"):
        pipeline.solve_frame([EASY])


def test_solve_frame_refuses_settings_it_cannot_honour():
    """workers=2 was silently ignored: a frame is solved in this process, on one core."""
    frame = pl.DataFrame({"puzzle": ["." * 81]})
    with pytest.raises(TypeError, match="does not take 'workers'.*solve-dataset"):
        pipeline.solve_frame(frame, workers=2)
    with pytest.raises(TypeError, match="does not take 'engine'"):
        pipeline.solve_frame(frame, engine="dask")
    assert pipeline.solve_frame(frame, rules="singles")["status"].to_list() == ["multiple"]


def test_read_run_of_an_incomplete_run_says_so_unless_allowed(tmp_path):
    from tests.conftest import SAMPLE

    out = tmp_path / "out"
    solve_dataset([SAMPLE], out, load_settings(workers=1, batch_size=50), progress=False)
    (out / "part-00000-000001.parquet").unlink()
    with pytest.raises(pipeline.PipelineError, match="incomplete: its parts hold 149 rows.*"
                       "allow_incomplete=True"):
        pipeline.read_run(out)
    assert pipeline.read_run(out, allow_incomplete=True).collect().height == 149


def test_the_summary_as_a_dict_and_as_json_text(two_inputs_run, cli):
    """Issue 33.8: read_summary(...).to_json() returned a dict. to_dict gives the dict,
    to_json the text that summarize --json prints."""
    _, out = two_inputs_run
    summary = pipeline.read_summary(out)
    assert isinstance(summary.to_dict(), dict) and isinstance(summary.to_json(), str)
    assert json.loads(summary.to_json()) == summary.to_dict()
    printed = json.loads(cli("summarize", out, "--json").stdout)
    assert printed["rows"] == summary.to_dict()["rows"]  # recomputed: its times differ
