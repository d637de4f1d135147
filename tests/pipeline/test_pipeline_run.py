"""Whole runs through the library: rows out == rows in, determinism, output formats, summary."""

from __future__ import annotations

import csv
import functools
import gzip
import hashlib
import json
from dataclasses import asdict, replace
from pathlib import Path

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.csv as pv
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

from pipeline.columns import RESULT_NAMES
from pipeline.engines.local import LocalEngine
from pipeline.errors import PipelineError
from pipeline.part import read_footer
from pipeline.resume import MANIFEST_FILE, SUMMARY_FILE, read_manifest
from pipeline.run import solve_dataset
from pipeline.settings import load_settings
from pipeline.summary import read_summary, summarize
from pipeline.work import solve_part

EASY = "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3.."
# Valid, duplicated, invalid (short, empty, bad character), contradictory, multiple solutions.
PUZZLES = [
    EASY,
    "2...8.3...6..7..84.3.5..2.9...1.54.8.........4.27.6...3.1..7.4.72..4..6...4.1...3",
    EASY,
    EASY[:80],
    "",
    "x" + EASY[1:],
    "55" + EASY[2:],
    "8.........95.......76.........426798...571243...893165......916....3.487....1.532",
    "  3 2 6  9  3 5  1  18 64    81 29  7       8  67 82    26 95  8  2 3  9  5 1 3  ",
]

DOCUMENTED_TYPES = {
    "status": pl.String,
    "error": pl.String,
    "boxsize": pl.Int8,
    "givens": pl.Int16,
    "n_solutions": pl.Int32,
    "solutions_capped": pl.Boolean,
    "prune_solvable": pl.Boolean,
    "singles_solvable": pl.Boolean,
    "search_depth": pl.Int32,
    "search_nodes": pl.Int64,
    "first_solution": pl.String,
    "solution_matches": pl.Boolean,
    "solve_us": pl.Float64,
    "source": pl.String,
    "row": pl.Int64,
}


def write_input(tmp_path, kind: str, puzzles: list[str]):
    """The puzzles as an input file of the given kind, with an id column where it can."""
    path = tmp_path / f"input.{kind}"
    if kind == "txt":
        path.write_text("# a comment line is not a row\n" + "\n".join(puzzles) + "\n")
    elif kind == "parquet":
        pq.write_table(pa.table({"id": range(len(puzzles)), "puzzle": puzzles}), path)
    else:
        text = "id,puzzle\n" + "".join(f'{i},"{p}"\n' for i, p in enumerate(puzzles))
        path.write_bytes(gzip.compress(text.encode()) if kind == "csv.gz" else text.encode())
    return path


@pytest.mark.parametrize("kind", ["csv", "csv.gz", "parquet", "txt"])
def test_rows_out_equal_rows_in_for_every_kind(tmp_path, read_output, kind):
    path = write_input(tmp_path, kind, PUZZLES)
    settings = load_settings(workers=1, batch_size=4)
    summary = solve_dataset([path], tmp_path / "out", settings, progress=False)
    table = read_output(tmp_path / "out")
    assert table.column("puzzle").to_pylist() == PUZZLES
    assert table.column("row").to_pylist() == list(range(len(PUZZLES)))
    assert set(table.column("source").to_pylist()) == {str(path)}
    assert (summary.rows_in, summary.rows_out) == (len(PUZZLES), len(PUZZLES))
    assert table.column("status").to_pylist() == [
        "unique",
        "unique",
        "unique",
        "invalid",
        "invalid",
        "invalid",
        "contradictory",
        "multiple",
        "unique",
    ]
    if kind != "txt":
        assert table.column("id").to_pylist() == [str(i) if "csv" in kind else i for i in range(9)]


def test_results_do_not_depend_on_workers_or_batch_size(tmp_path, sample_csv, read_output):
    runs = {}
    for workers, batch_size in ((1, 1000), (2, 7), (2, 64), (1, 1)):
        out = tmp_path / f"w{workers}-b{batch_size}"
        settings = load_settings(workers=workers, batch_size=batch_size)
        solve_dataset([sample_csv], out, settings, progress=False)
        runs[workers, batch_size] = read_output(out, timing=False)
    first = runs[1, 1000]
    assert first.num_rows == sum(1 for _ in open(sample_csv)) - 1
    for table in runs.values():
        assert table.equals(first)


@pytest.fixture(scope="module")
def sample_run(tmp_path_factory):
    """One default run over the sample and two more files, shared by the read-back tests."""
    root = tmp_path_factory.mktemp("run")
    data = Path(__file__).resolve().parents[1] / "data"
    inputs = [data.parent.parent / "data" / "sample.csv", data]
    out = root / "out"
    summary = solve_dataset(inputs, out, load_settings(batch_size=50), progress=False)
    return out, summary


def test_output_reads_back_with_polars_pyarrow_and_duckdb(sample_run, read_output):
    out, summary = sample_run
    rows = summary.rows_out
    frame = pl.read_parquet(out / "*.parquet")
    assert frame.height == rows
    in_order = read_output(out)
    assert frame["source"].to_list() == in_order.column("source").to_pylist()  # glob order
    assert frame["row"].to_list() == in_order.column("row").to_pylist()
    assert {name: frame.schema[name] for name in DOCUMENTED_TYPES} == DOCUMENTED_TYPES
    dataset = ds.dataset(sorted(map(str, out.glob("*.parquet"))), format="parquet")
    assert dataset.count_rows() == rows
    directory = ds.dataset(out, format="parquet", exclude_invalid_files=True)  # skips the JSON
    assert directory.to_table().num_rows == rows
    assert dataset.schema.field("givens").type == pa.int16()
    sql = f"SELECT count(*), count(DISTINCT source) FROM '{out}/*.parquet'"
    assert duckdb.sql(sql).fetchall() == [(rows, 4)]
    described = duckdb.sql(f"DESCRIBE SELECT * FROM '{out}/*.parquet'").fetchall()
    types = {name: kind for name, kind, *_ in described}
    assert types["givens"] == "SMALLINT" and types["search_nodes"] == "BIGINT"
    # Inputs' columns are all there (null where a file lacks them), then the results.
    assert frame.columns[:5] == ["puzzle", "solution", "collection", "quizzes", "solutions"]


def test_an_input_named_twice_is_refused(tmp_path, kaggle_csv):
    with pytest.raises(PipelineError, match="given twice"):
        solve_dataset([kaggle_csv, kaggle_csv.parent], tmp_path / "out", load_settings())


def test_parquet_metadata_names_version_settings_and_inputs(sample_run):
    out, summary = sample_run
    for part in sorted(out.glob("part-*.parquet")):
        footer = read_footer(str(part))
        record = json.loads(pq.read_schema(part).metadata[b"sudoku_pipeline"])
        assert record["settings"]["rules"] == "bird"
        assert record["settings"] == summary.settings.to_dict()
        assert record["written_by"]["sudoku_pipeline"] == record["version"]
        assert record["written_by"] == footer.written_by and "code" in record["written_by"]
        source = record["input"]
        assert source["path"] == footer.info.source
        assert source["sha256"] == hashlib.sha256(open(source["path"], "rb").read()).hexdigest()
    manifest = read_manifest(str(out))
    assert [asdict(entry) for entry in manifest.inputs] == [
        {key: value for key, value in asdict(entry).items() if key not in ("rows", "batch_rows")}
        for entry in summary.inputs]
    assert manifest.identity == footer.run
    # Each input's batches: 50 rows, or the whole input where one batch holds it.
    assert [entry.batch_rows for entry in summary.inputs] == [50, 9, 20, 8]


def test_summary_counts_the_rows(sample_run):
    out, summary = sample_run
    assert read_summary(out) == summary
    frame = pl.read_parquet(out / "*.parquet")
    counts = dict(frame.group_by("status").len().iter_rows())
    assert summary.numbers.status == {name: counts.get(name, 0) for name in summary.numbers.status}
    assert summary.rows_in == summary.rows_out == frame.height
    assert [entry.rows for entry in summary.inputs] == [
        frame.filter(pl.col("source") == entry.path).height for entry in summary.inputs
    ]
    graded = frame.filter(~pl.col("status").is_in(["invalid", "contradictory"]))
    ladder = summary.numbers.ladder
    assert ladder["prune_solvable"] == graded["prune_solvable"].sum()
    assert ladder["needs_search"] == (~graded["singles_solvable"]).sum()
    assert sum(ladder.values()) == graded.height
    nodes = frame["search_nodes"].drop_nulls().sort()
    assert summary.numbers.search_nodes.max == nodes.max()
    assert summary.numbers.search_nodes.p50 == nodes[(len(nodes) + 1) // 2 - 1]
    depths = dict(frame["search_depth"].drop_nulls().value_counts().iter_rows())
    assert summary.numbers.search_depth_histogram == {k: depths[k] for k in sorted(depths)}
    assert sum(summary.numbers.givens_histogram.values()) == frame["givens"].count()
    assert summary.workers >= 1 and summary.engine == "local"
    assert summary.wall_seconds > 0 and summary.puzzles_per_second > 0


def test_summarize_recomputes_the_same_summary(sample_run):
    out, summary = sample_run
    again = summarize(out)
    assert again.solve_seconds == pytest.approx(summary.solve_seconds, abs=0.002)
    assert replace(again, solve_seconds=0) == replace(summary, solve_seconds=0)


def test_clashing_input_columns_are_kept_under_another_name(tmp_path, read_output):
    path = tmp_path / "in.csv"
    path.write_text(f"puzzle,status,row\n{EASY},mine,7\n")
    solve_dataset([path], tmp_path / "out", load_settings(workers=1), progress=False)
    table = read_output(tmp_path / "out")
    assert table.column_names[:3] == ["puzzle", "input_status", "input_row"]
    assert table.column("input_status").to_pylist() == ["mine"]
    assert table.column("status").to_pylist() == ["unique"]


def test_conflicting_column_types_are_refused(tmp_path):
    pq.write_table(pa.table({"puzzle": [EASY], "id": [1]}), tmp_path / "a.parquet")
    (tmp_path / "b.csv").write_text(f"puzzle,id\n{EASY},1\n")
    with pytest.raises(PipelineError, match="'id' is int64 in .* but string in"):
        solve_dataset([tmp_path], tmp_path / "out", load_settings(workers=1), progress=False)
    assert not (tmp_path / "out").exists()  # nothing written before the inputs are checked


def test_another_run_in_the_output_needs_overwrite_and_foreign_files_are_never_deleted(tmp_path):
    path = write_input(tmp_path, "txt", [EASY])
    out = tmp_path / "out"
    settings = load_settings(workers=1)
    first = solve_dataset([path], out, settings, progress=False)
    again = solve_dataset([path], out, settings, progress=False)  # complete: nothing to do
    assert again.resumed_rows == again.rows_out == first.rows_out
    assert replace(again, resumed_rows=0) == first
    with pytest.raises(PipelineError, match="holds a run with max_nodes = .*add --overwrite"):
        solve_dataset([path], out, load_settings(workers=1, max_nodes=99), progress=False)
    again = load_settings(workers=1, overwrite=True, max_nodes=99)
    solve_dataset([path], out, again, progress=False)
    (out / "notes.txt").write_text("mine")
    with pytest.raises(PipelineError, match="did not write .*notes.txt"):
        solve_dataset([path], out, again, progress=False)
    assert (out / "notes.txt").read_text() == "mine"
    with pytest.raises(PipelineError, match="is not a directory"):
        solve_dataset([path], path, again, progress=False)


def test_a_run_leaves_only_parts_manifest_and_summary(tmp_path):
    path = write_input(tmp_path, "csv", PUZZLES)
    solve_dataset([path], tmp_path / "out", load_settings(workers=2, batch_size=2), progress=False)
    names = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert names == [MANIFEST_FILE, SUMMARY_FILE] + [f"part-00000-{i:06d}.parquet" for i in range(5)]


def test_csv_written_by_the_csv_module_round_trips(tmp_path, read_output):
    """Quotes, commas and spaces inside fields survive (a user's exported spreadsheet)."""
    path = tmp_path / "in.csv"
    with open(path, "w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(["Puzzle", "comment"])
        writer.writerows([[EASY, 'has "quotes", and commas'], [EASY.replace(".", " "), ""]])
    solve_dataset([path], tmp_path / "out", load_settings(workers=1), progress=False)
    table = read_output(tmp_path / "out")
    assert table.column("comment").to_pylist() == ['has "quotes", and commas', ""]
    assert table.column("status").to_pylist() == ["unique", "unique"]


def test_inputs_inside_the_output_directory_are_refused(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    path = write_input(out, "txt", [EASY])
    with pytest.raises(PipelineError, match="inside the output directory"):
        solve_dataset([path], out, load_settings(overwrite=True), progress=False)
    assert path.exists()


def test_summarize_notices_a_missing_part(tmp_path, cli):
    path = write_input(tmp_path, "txt", PUZZLES)
    solve_dataset([path], tmp_path / "out", load_settings(workers=1, batch_size=3), progress=False)
    (tmp_path / "out" / "part-00000-000001.parquet").unlink()
    summary = summarize(tmp_path / "out")
    assert not summary.complete and summary.rows_out == len(PUZZLES) - 3
    assert [(m.first_row, m.rows) for m in summary.missing_rows] == [(3, 3)]
    result = cli("summarize", tmp_path / "out")
    assert result.exit_code == 3
    assert result.stderr.startswith(f"error: the run in {tmp_path / 'out'} is incomplete: ")
    assert "3 rows in 1 batch(es)" in result.stderr and "rerun the solve-dataset command" in (
        result.stderr)


def test_a_run_given_as_input_reads_as_the_dataset_it_is(tmp_path, cli):
    """Issue 33.1: `solve-dataset generated/` failed on the run's manifest, and its parts named
    by hand came back with 20 columns renamed input_*. A run's directory reads as its parts,
    in order, without the pipeline's own result columns; named by hand, they keep them."""
    generated, again = tmp_path / "generated", tmp_path / "again"
    assert cli("generate", "--count", "30", "--seed", "5", "-o", generated, "-q").exit_code == 0
    done = cli("solve-dataset", generated, "-o", again, "-q", "--workers", "1")
    assert done.exit_code == 0, done.stderr
    first, second = pl.read_parquet(generated / "*.parquet"), pl.read_parquet(again / "*.parquet")
    assert second.columns == first.columns  # puzzle, solution, draw, then the result columns
    assert second.select("puzzle", "solution", "draw", "grade").equals(
        first.select("puzzle", "solution", "draw", "grade"))
    assert second["solution_matches"].all()
    by_hand = cli("solve-dataset", *sorted(generated.glob("part-*.parquet")), "-o",
                  tmp_path / "by-hand", "-q", "--workers", "1")
    assert by_hand.exit_code == 0
    assert "input_grade" in pl.read_parquet(tmp_path / "by-hand" / "*.parquet").columns


def test_a_stopped_run_given_as_input_is_one_line(tmp_path, cli):
    generated = tmp_path / "generated"
    assert cli("generate", "--count", "30", "--seed", "5", "-o", generated, "-q").exit_code == 0
    sorted(generated.glob("part-*.parquet"))[-1].unlink()
    done = cli("solve-dataset", generated, "-o", tmp_path / "again", "-q")
    assert done.exit_code == 2
    assert "is a run that is not complete: rerun the generate command" in done.stderr


def solve_part_noting_who_read(log: Path, unit):
    """``solve_part``, noting in ``log`` whether the worker read the unit's rows itself."""
    with open(log, "a") as file:
        file.write("worker\n" if unit.batch is None else "run\n")
    return solve_part(unit)


def test_workers_read_their_own_rows_of_a_parquet_input(tmp_path, sample_csv, read_output):
    """The local engine's workers read their batch of a Parquet file themselves where its row
    groups allow (whole row groups a batch, or small ones), and the run's process reads it
    where they would decode far more than their rows: the same rows either way, as from CSV."""
    expected = read_output(_run(tmp_path / "csv", [sample_csv], 50), timing=False)
    path = tmp_path / "sample.parquet"
    pq.write_table(pv.read_csv(sample_csv, convert_options=pv.ConvertOptions(
        column_types={name: pa.string() for name in expected.schema.names})).select(
        [name for name in expected.schema.names if name not in RESULT_NAMES]),
        path, row_group_size=25)
    for batch_size, reader in ((50, "worker"), (25, "worker"), (0, "worker"), (10, "run")):
        log = tmp_path / f"read-{batch_size}.log"
        out = _run(tmp_path / f"b{batch_size}", [path], batch_size,
                   function=functools.partial(solve_part_noting_who_read, log))
        assert set(log.read_text().split()) == {reader}, batch_size
        table = read_output(out, timing=False)
        assert table.drop_columns(["source"]).equals(expected.drop_columns(["source"]))


def _run(out: Path, inputs: list[Path], batch_size: int, function=solve_part) -> Path:
    settings = load_settings(workers=2, batch_size=batch_size)
    engine = LocalEngine(workers=2, function=function)
    solve_dataset(inputs, out, settings, engine=engine, progress=False)
    return out


def test_batches_hold_about_two_seconds_of_rows_and_keep_every_worker_busy():
    from pipeline.run import batch_rows_by

    assert batch_rows_by(20e-6, 199, 2) == 25  # easy rows: four batches a worker
    assert batch_rows_by(20e-6, 10, 2) == 16  # at least 16 rows, the rows being cheap
    assert batch_rows_by(20e-6, 10_000_000, 2) == 50_000
    assert batch_rows_by(20e-6, None, 2) == 50_000  # the rows not known
    assert batch_rows_by(0.01, 10_000, 2) == 200  # two seconds of work
    # Rows of seconds each (the SE rating of a hard puzzle): down to a row a batch, so that a
    # small hard input is shared among the workers
    assert batch_rows_by(0.5, 40, 2) == 4
    assert batch_rows_by(2.5, 40, 2) == 1
    assert batch_rows_by(2.5, 10, 2) == 1
