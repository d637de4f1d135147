"""Inputs no run can take whole, injected for real (issue 11, points 4 and 8; issue 22): column
layouts no output can hold, bad entries in an input directory, over-long CSV fields, gzip bombs,
other delimiters and formats. Each gives the right rows, or one line and exit code 2: never a
traceback, never fewer rows than the input holds. (Inputs that change while they are read are in
test_input_faults.py.)"""

from __future__ import annotations

import gzip
import logging
import os
import sys
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import solver
from pipeline import read
from pipeline.run import solve_dataset
from pipeline.settings import load_settings
from pipeline.summary import read_summary
from tests import runs

EASY = "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3.."


def assert_refused_before_writing(cli, tmp_path: Path, path: Path, words: str, *options: str):
    """One line, exit 2, found at inspection: nothing is written."""
    out = runs.assert_one_line_error(cli, tmp_path, path, words, *options)
    assert not list(out.glob("part-*")), "found at inspection: nothing is written"




# --- column layouts no output can hold, found when inputs are inspected (point 8) ---------


def parquet_with_columns(path: Path, names: list[str]) -> Path:
    """A Parquet file whose columns are called ``names`` (Parquet allows a name twice)."""
    columns = [pa.array([EASY] if name == "puzzle" else ["x"]) for name in names]
    pq.write_table(pa.Table.from_arrays(columns, names=names), path)
    return path


@pytest.mark.parametrize(
    ("names", "twice"),
    [(["puzzle", "puzzle"], "puzzle"), (["puzzle", "id", "id"], "id")],
    ids=["puzzle-column", "other-column"],
)
def test_a_parquet_column_name_given_twice_is_a_clean_error(cli, tmp_path, names, twice):
    """Before: a traceback (the puzzle column), or every batch failing three times and a
    "rerun to retry" that could never succeed (another column)."""
    path = parquet_with_columns(tmp_path / "twice.parquet", names)
    assert_refused_before_writing(cli, tmp_path, path, f"column {twice!r} appears twice; rename one")


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_status_and_input_status_together_are_a_clean_error(cli, tmp_path, kind):
    """``status`` is passed through as ``input_status``, a name the file already has.
    Before: every batch failed three times, and the run said "rerun to retry"."""
    path = tmp_path / f"both.{kind}"
    if kind == "csv":
        path.write_text(f"puzzle,status,input_status\n{EASY},a,b\n")
    else:
        parquet_with_columns(path, ["puzzle", "status", "input_status"])
    assert_refused_before_writing(
        cli, tmp_path, path, "column 'status' has the name of an output column, so it would be "
        "passed through as 'input_status', but the file has a column 'input_status' too"
    )


def test_a_puzzle_column_named_as_an_output_column_is_read(cli, tmp_path):
    """``--column status``: the puzzles are passed through as ``input_status``, and solved.
    Before: every batch failed three times (the puzzle column was looked up by its old name)."""
    path = tmp_path / "status.csv"
    path.write_text(f"status,note\n{EASY},a\n")
    result, out = runs.run_cli(cli, tmp_path, path, "--column", "status")
    assert result.exit_code == 0, result.stderr
    table = pq.read_table(out / "part-00000-000000.parquet")
    assert table.column("input_status").to_pylist() == [EASY]
    assert table.column("status").to_pylist() == ["unique"]


def test_a_polars_categorical_puzzle_column_is_read_as_text(cli, tmp_path):
    """polars writes a Categorical column as ``dictionary<values=string>``: text, not a
    number. Before: refused as a column that is "not text"."""
    polars = pytest.importorskip("polars")
    solution = solver.solve(EASY).first_solution
    path = tmp_path / "categorical.parquet"
    frame = polars.DataFrame({"puzzle": [EASY, EASY, "123"], "solution": [solution, None, None]})
    frame.with_columns(polars.col("puzzle", "solution").cast(polars.Categorical)).write_parquet(path)
    assert pa.types.is_dictionary(pq.read_schema(path).field("puzzle").type)
    result, out = runs.run_cli(cli, tmp_path, path)
    assert result.exit_code == 0, result.stderr
    table = pq.read_table(sorted(out.glob("part-*.parquet")))
    assert table.schema.field("puzzle").type == pa.string()
    assert table.schema.field("solution").type == pa.string()
    assert table.column("puzzle").to_pylist() == [EASY, EASY, "123"]
    assert table.column("solution").to_pylist() == [solution, None, None]
    assert table.column("status").to_pylist() == ["unique", "unique", "invalid"]
    assert table.column("solution_matches").to_pylist() == [True, None, None]
    summary = read_summary(out)
    assert (summary.rows_in, summary.rows_out) == (3, 3)


# --- input directories (point 4) -------------------------------------------------------------


def directory_with_bad_entries(directory: Path, kaggle_csv: Path) -> Path:
    """Two inputs, and five entries that are not: a symbolic link loop, a dangling symbolic
    link, a hidden file, a file of another kind, a subdirectory."""
    directory.mkdir()
    (directory / "a.csv").write_bytes(kaggle_csv.read_bytes())
    (directory / "b.txt").write_text(EASY + "\n")
    os.symlink("loop", directory / "loop")
    os.symlink("nowhere.csv", directory / "gone.csv")
    (directory / ".hidden.csv").write_text("x\n")
    (directory / "notes.md").write_text("x\n")
    (directory / "sub").mkdir()
    return directory


def test_a_directory_names_what_it_skips(tmp_path, kaggle_csv, caplog):
    """Before: a symbolic link loop made the whole directory unreadable ("cannot list"),
    and the other entries were skipped without a word."""
    directory = directory_with_bad_entries(tmp_path / "inputs", kaggle_csv)
    with caplog.at_level(logging.WARNING, logger="pipeline"):
        found = read.find_inputs([directory])
    assert [Path(path).name for path in found] == ["a.csv", "b.txt"]
    [warning] = [record.getMessage() for record in caplog.records if record.name == "pipeline"]
    assert warning.startswith(f"input directory {directory}: skipped 5 entries"), warning
    assert warning.endswith(
        "gone.csv (a dangling symbolic link), loop (a symbolic link loop), .hidden.csv (hidden), "
        "notes.md, sub (not a file)"
    ), warning


def test_a_directory_names_a_few_of_many_skipped(tmp_path, caplog):
    directory = tmp_path / "inputs"
    directory.mkdir()
    (directory / "p.txt").write_text(EASY + "\n")
    for number in range(8):
        (directory / f"note{number}.md").write_text("x\n")
    with caplog.at_level(logging.WARNING, logger="pipeline"):
        read.find_inputs([directory])
    [warning] = [record.getMessage() for record in caplog.records if record.name == "pipeline"]
    assert warning.endswith("note0.md, note1.md, note2.md, note3.md, note4.md and 3 more"), warning


def test_a_directory_with_bad_links_runs_through_the_command(cli, tmp_path, kaggle_csv):
    directory = directory_with_bad_entries(tmp_path / "inputs", kaggle_csv)
    result, out = runs.run_cli(cli, tmp_path, directory)
    assert result.exit_code == 0, result.stderr
    assert "loop (a symbolic link loop)" in result.stderr
    assert "gone.csv (a dangling symbolic link)" in result.stderr
    summary = read_summary(out)
    assert (summary.rows_in, summary.rows_out) == (21, 21)


# --- over-long CSV fields (point 4 of the CSV side) ------------------------------------------

LONG = 200_000  # over Python's csv.field_size_limit() (128 KiB), far under Arrow's block


@pytest.mark.parametrize("position", ["first", "later"])
def test_an_over_long_csv_field_is_an_invalid_row_wherever_it_is(cli, tmp_path, position):
    """Before: in the first record, a file-level error ("field larger than field limit")."""
    rows = [f"{EASY},a", f"{'1' * LONG},{'n' * LONG}", f"{EASY},b"]
    if position == "first":
        rows = rows[1:] + rows[:1]
    path = tmp_path / "long.csv"
    path.write_text("puzzle,note\n" + "\n".join(rows) + "\n")
    result, out = runs.run_cli(cli, tmp_path, path)
    assert result.exit_code == 0, result.stderr
    table = pq.read_table(sorted(out.glob("part-*.parquet")))
    by_puzzle = dict(zip(table.column("puzzle").to_pylist(), table.column("error").to_pylist(),
                         strict=True))
    assert by_puzzle["1" * LONG] == f"expected 81 cells, got {LONG}"
    assert table.column("note").to_pylist().count("n" * LONG) == 1


@pytest.mark.parametrize("position", ["first", "later"])
def test_a_csv_record_over_the_readers_block_is_one_error_wherever_it_is(cli, tmp_path, position):
    huge = "1" * (3 * read.csv_files.CSV_BLOCK_BYTES)  # a record may straddle one block, not two
    rows = [EASY, huge, EASY] if position == "later" else [huge, EASY]
    path = tmp_path / "huge.csv"
    path.write_text("puzzle\n" + "\n".join(rows) + "\n")
    where = ("record 3 (the header is record 1)" if position == "later"  # issue 29.8: which
             else "line 2")  # the first record is read with the header, line by line
    assert_refused_before_writing(cli, tmp_path, path, f"{where} is longer than 8 MiB")


# --- issue 22: bounded records, more formats, messages that stay one line ----------------------

BOMB = """
import sys
from pipeline.cli import main
sys.argv = ["sudoku-pipeline", "solve-dataset", sys.argv[1], "-o", sys.argv[2], "-q",
            "--workers", "1"]
main()
"""


def _gzip_bomb(path: Path, header: bytes, line_bytes: int) -> Path:
    """A gzip file whose first record (after ``header``) is one line of ``line_bytes`` zeros:
    a few hundred kilobytes on disk."""
    chunk = b"0" * (1 << 20)
    with gzip.open(path, "wb", compresslevel=1) as file:
        file.write(header)
        for _ in range(line_bytes // len(chunk)):
            file.write(chunk)
        file.write(b"\n" + EASY.encode() + b"\n")
    return path


@pytest.mark.parametrize("name, header", [("bomb.csv.gz", b"puzzle\n"), ("bomb.txt.gz", b"")])
def test_a_gzip_bomb_is_a_one_line_error_in_bounded_memory(tmp_path, name, header):
    """A record of 256 MiB (a 260 kB file) is refused at once, never read whole: the process
    stays far below the size of the record."""
    path = _gzip_bomb(tmp_path / name, header, 256 << 20)
    assert path.stat().st_size < 2 << 20
    code, peak_mib, stderr = runs.measured(
        [sys.executable, "-c", BOMB, path, tmp_path / "out"], timeout=300, cwd=tmp_path)
    assert code == 2, stderr
    assert stderr.startswith("error: ") and stderr.count("|") == 1, stderr
    assert "longer than 8 MiB" in stderr
    assert peak_mib < 200, f"peak {peak_mib} MiB"


def test_txt_gz_inputs_are_read_like_txt(tmp_path, euler_txt):
    packed = tmp_path / "euler.txt.gz"
    packed.write_bytes(gzip.compress(euler_txt.read_bytes()))
    plain = solve_dataset([euler_txt], tmp_path / "plain", load_settings(workers=1),
                          progress=False)
    packed_run = solve_dataset([packed], tmp_path / "packed", load_settings(workers=1),
                               progress=False)
    assert packed_run.numbers == plain.numbers and packed_run.inputs[0].format == "txt"
    assert (pl.read_parquet(tmp_path / "packed").drop("solve_us", "source").equals(
        pl.read_parquet(tmp_path / "plain").drop("solve_us", "source")))


def test_tab_and_other_delimiters(cli, tmp_path, kaggle_csv):
    rows = kaggle_csv.read_text().splitlines()
    tsv = tmp_path / "kaggle.tsv"
    tsv.write_text("\n".join(line.replace(",", "\t") for line in rows) + "\n")
    semicolons = tmp_path / "kaggle_semicolons.csv"
    semicolons.write_text("\n".join(line.replace(",", ";") for line in rows) + "\n")
    tabs = tmp_path / "tabs.csv"
    tabs.write_bytes(tsv.read_bytes())
    runs.assert_one_line_error(cli, tmp_path, semicolons, "--delimiter ';'")
    runs.assert_one_line_error(cli, tmp_path, tabs, "--delimiter '\\t'")
    for path, options in ((tsv, ()), (semicolons, ("--delimiter", ";")),
                          (tabs, ("--delimiter", "tab"))):
        out = tmp_path / path.stem
        assert cli("solve-dataset", path, "-o", out, "-q", "--workers", "1",
                   *options).exit_code == 0
        frame = pl.read_parquet(out)
        assert frame.height == 20 and frame["solution_matches"].all(), path.name
    assert cli("solve-dataset", tabs, "-o", tmp_path / "x", "-q", "--delimiter", "ab").exit_code == 2


def test_a_csv_without_a_header_says_to_name_it_txt(cli, tmp_path):
    path = tmp_path / "noheader.csv"
    path.write_text(f"{EASY}\n{EASY}\n")
    assert_refused_before_writing(cli, tmp_path, path, "its first line is a puzzle, not column "
                                  "names; name the file .txt")


def test_a_line_break_in_a_file_name_stays_escaped_in_the_one_line_error(cli, tmp_path):
    path = tmp_path / "two\nlines.csv"
    path.write_text("nothing,here\n1,2\n")
    runs.assert_one_line_error(cli, tmp_path, path, "two\\nlines.csv has no puzzle column")


@pytest.mark.parametrize("kind, words", [
    (pa.binary(), "cast the bytes to UTF-8 text"),
    (pa.list_(pa.string()), "join each value into one string"),
    (pa.struct([("cells", pa.string())]), "join each value into one string"),
    (pa.int64(), "has lost the leading zeros"),
])
def test_a_puzzle_column_that_is_not_text_is_named_for_what_it_is(cli, tmp_path, kind, words):
    values = {pa.binary(): [EASY.encode()], pa.list_(pa.string()): [list(EASY)],
              pa.int64(): [5]}.get(kind, [{"cells": EASY}])
    path = tmp_path / "typed.parquet"
    pq.write_table(pa.table({"puzzle": pa.array(values, kind)}), path)
    assert_refused_before_writing(cli, tmp_path, path, words)
    if kind != pa.int64():
        result, _ = runs.run_cli(cli, tmp_path, path)
        assert "leading zeros" not in result.stderr


def test_cast_reads_an_input_column_as_numbers(cli, tmp_path):
    """Radcliffe's difficulty arrives from CSV as text; --cast makes it a number."""
    path = tmp_path / "rated.csv"
    path.write_text(f"puzzle,difficulty,level\n{EASY},0.0,easy\n{EASY},2.5,hard\n")
    out = tmp_path / "out"
    done = cli("solve-dataset", path, "-o", out, "-q", "--workers", "1", "--cast",
               "difficulty:float")
    assert done.exit_code == 0, done.stderr
    frame = pl.read_parquet(out)
    assert frame.schema["difficulty"] == pl.Float64 and frame["difficulty"].to_list() == [0, 2.5]
    assert frame.schema["level"] == pl.String
    for case, (words, cast) in enumerate([
            ("cannot cast column 'level' to int64", "level:int"),
            ("no input has", "dificulty:float"),
            ("TYPE one of int, float, bool, string", "difficulty:decimal")]):
        runs.assert_one_line_error(cli, tmp_path / str(case), path, words, "--cast", cast)
