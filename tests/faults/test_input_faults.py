"""Faults injected into the inputs for real (issue 11, point 6): files that change while a run
reads them. Each gives the right rows, or one line and exit code 2: never a traceback, never a
false "rerun to retry", never fewer rows than the input holds. (Column layouts, input
directories, over-long fields and other input shapes are in test_input_shapes.py.)"""

from __future__ import annotations

import gzip
import os
import random
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipeline import read
from pipeline.engines.local import LocalEngine
from pipeline.errors import PipelineError
from pipeline.resume import SUMMARY_FILE
from pipeline.run import solve_dataset
from pipeline.settings import load_settings
from pipeline.work import solve_part

EASY = "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3.."
SMALL_BLOCKS = 1 << 12  # read 4 KiB at a time, so that a file of a few hundred KiB is read in steps


def varied_puzzles(count: int, seed: int = 11) -> list[str]:
    """``count`` strings of 81 digits that differ (so that they do not compress to nothing)."""
    rng = random.Random(seed)
    return ["".join(rng.choice("0123456789") for _ in range(81)) for _ in range(count)]


def write_input(path: Path, puzzles: list[str]) -> Path:
    """``puzzles`` as a .txt, .csv or .csv.gz file, by the name of ``path``."""
    lines = puzzles if path.suffix == ".txt" else ["puzzle", *puzzles]
    data = ("\n".join(lines) + "\n").encode()
    path.write_bytes(gzip.compress(data) if path.suffix == ".gz" else data)
    return path


def assert_input_changed(error: PipelineError, path: Path, how: str) -> None:
    """``error`` says, in one line, that ``path`` changed (``how``) and what to do."""
    assert isinstance(error, read.InputChanged), f"{type(error).__name__}: {error}"
    message = str(error)
    assert error.path == str(path) and f"input {path} changed during the run" in message
    assert how in message, message
    assert "cannot be trusted" in message and "--overwrite" in message, message
    assert "\n" not in message


@pytest.fixture
def small_blocks(monkeypatch):
    monkeypatch.setattr(read.text_files, "BLOCK_BYTES", SMALL_BLOCKS)
    monkeypatch.setattr(read.csv_files, "CSV_BLOCK_BYTES", SMALL_BLOCKS)


# --- inputs that change while they are read (point 6) ---------------------------------------


@pytest.mark.parametrize("name", ["cut.txt", "cut.csv", "cut.csv.gz"])
def test_an_input_cut_short_while_it_is_read_is_input_changed(tmp_path, small_blocks, name):
    """Before: a .txt or .csv cut short gave fewer rows, and exit 0; a .csv.gz, a false
    "is the file complete?"."""
    path = write_input(tmp_path / name, varied_puzzles(5_000))
    batches = read.read_batches(read.inspect_input(path), 100)
    next(batches)
    os.truncate(path, path.stat().st_size // 2)
    with pytest.raises(PipelineError) as caught:
        for _ in batches:
            pass
    how = "bytes" if name.endswith((".txt", ".csv")) else "it now has"
    assert_input_changed(caught.value, path, how)


@pytest.mark.parametrize("name", ["same_size.txt", "same_size.csv"])
def test_an_input_rewritten_to_the_same_size_is_told_by_its_sha256(tmp_path, small_blocks, name):
    """The content read is hashed as it is read, and compared with the plan's digest."""
    path = write_input(tmp_path / name, varied_puzzles(5_000))
    planned, _ = read.file_digest(path)
    batches = read.read_batches(read.inspect_input(path), 100, expected_sha256=planned)
    next(batches)
    write_input(path, varied_puzzles(5_000, seed=12))  # rewritten in place, as many bytes
    with pytest.raises(PipelineError) as caught:
        for _ in batches:
            pass
    assert_input_changed(caught.value, path, "another SHA-256")


def test_an_input_touched_while_read_is_no_change(tmp_path, small_blocks):
    """With the plan's digest, only the bytes count: a new modification time is no change."""
    puzzles = varied_puzzles(5_000)
    path = write_input(tmp_path / "touched.csv", puzzles)
    planned, _ = read.file_digest(path)
    batches = read.read_batches(read.inspect_input(path), 100, expected_sha256=planned)
    first = next(batches)
    os.utime(path, ns=(1, 1))
    table = pa.concat_tables([first, *batches])
    assert table.column("puzzle").to_pylist() == puzzles


def test_an_input_unchanged_reads_whole_with_its_digest(tmp_path):
    puzzles = varied_puzzles(300)
    for name in ("p.txt", "p.csv", "p.csv.gz"):
        path = write_input(tmp_path / name, puzzles)
        source = read.inspect_input(path)
        digest, _ = read.file_digest(path)
        table = pa.concat_tables(read.read_batches(source, 7, expected_sha256=digest))
        assert table.column("puzzle").to_pylist() == puzzles
        with pytest.raises(PipelineError) as caught:  # a digest that is not the file's
            list(read.read_batches(source, 7, expected_sha256="0" * 64))
        assert_input_changed(caught.value, path, "another SHA-256")


PARQUET_REWRITTEN_WHILE_READ = """
import sys
import pyarrow as pa
import pyarrow.parquet as pq
from pipeline.errors import PipelineError
from pipeline.read import inspect_input, read_batches

path = sys.argv[1]
batches = read_batches(inspect_input(path), 1_000)
next(batches)
pq.write_table(pa.table({"puzzle": ["1" * 81] * 10}), path)  # in place: emptied, then written
try:
    rows = sum(batch.num_rows for batch in batches)
except PipelineError as error:
    print(type(error).__name__, error)
else:
    print("rows", rows)
"""


def test_a_parquet_input_rewritten_in_place_while_read_is_input_changed(tmp_path):
    """Before: the file was memory-mapped, and the rewrite killed the run with SIGBUS (so
    this runs in a process of its own)."""
    path = tmp_path / "rewritten.parquet"
    pq.write_table(pa.table({"puzzle": varied_puzzles(50_000)}), path, row_group_size=1_000)
    code_root = Path(read.__file__).resolve().parent.parent  # the code under test
    environment = {**os.environ, "PYTHONPATH": str(code_root)}
    done = subprocess.run(
        [sys.executable, "-c", PARQUET_REWRITTEN_WHILE_READ, str(path)],
        capture_output=True, text=True, timeout=120, env=environment,
    )
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert done.stdout.startswith(f"InputChanged input {path} changed during the run"), done.stdout
    assert "cannot be trusted" in done.stdout


def test_a_parquet_input_replaced_while_read_is_input_changed(tmp_path):
    """Another file of the same size renamed over the input (as editors do) is seen by its
    identity. Before: the old file, still mapped, was read to its end, and nothing said."""
    def write(path: Path, seed: int) -> None:  # plain encoding: the size depends on no value
        table = pa.table({"puzzle": varied_puzzles(5_000, seed)})
        pq.write_table(table, path, row_group_size=500, compression="none", use_dictionary=False)

    path, other = tmp_path / "replaced.parquet", tmp_path / "other.parquet"
    write(path, seed=11)
    batches = read.read_batches(read.inspect_input(path), 500)
    next(batches)
    write(other, seed=12)
    assert other.stat().st_size == path.stat().st_size
    os.replace(other, path)
    with pytest.raises(PipelineError) as caught:
        for _ in batches:
            pass
    assert_input_changed(caught.value, path, "written again")


def solve_part_cutting_its_input_short(unit):
    """``solve_part``, cutting the input file to half its size on the first batch (in the
    worker, while the run goes on reading it)."""
    if unit.part.batch_index == 0:
        os.truncate(unit.part.source, os.path.getsize(unit.part.source) // 2)
    return solve_part(unit)


def test_a_run_whose_input_is_cut_short_stops_with_input_changed(tmp_path, small_blocks):
    """Before: the run ended with exit 0, half the rows, and the old SHA-256 in its summary."""
    path = write_input(tmp_path / "cut.txt", [EASY] * 2_000)
    error = run_changing_its_input(path, tmp_path / "out", solve_part_cutting_its_input_short)
    assert_input_changed(error, path, "bytes")
    assert not (tmp_path / "out" / SUMMARY_FILE).exists()


def run_changing_its_input(path: Path, out: Path, function) -> PipelineError:
    """The error of a run of ``path`` in batches of 50 on one worker running ``function``."""
    engine = LocalEngine(workers=1, function=function)
    with pytest.raises(PipelineError) as caught:
        solve_dataset([path], out, load_settings(workers=1, batch_size=50), engine=engine,
                      progress=False)
    return caught.value


def solve_part_rewriting_its_parquet_input(unit):
    """``solve_part``, writing the Parquet input again on the second batch, before its worker
    reads it."""
    if unit.part.batch_index == 1:
        pq.write_table(pa.table({"puzzle": [EASY] * 10}), unit.part.source)
    return solve_part(unit)


def test_a_parquet_input_rewritten_while_workers_read_it_stops_with_input_changed(tmp_path):
    """Workers that read their own rows check the file after reading, as the run's reader
    does; the parts already written from it are deleted."""
    path = tmp_path / "in.parquet"
    pq.write_table(pa.table({"puzzle": [EASY] * 400}), path, row_group_size=50)
    out = tmp_path / "out"
    error = run_changing_its_input(path, out, solve_part_rewriting_its_parquet_input)
    assert_input_changed(error, path, "")
    assert not (out / SUMMARY_FILE).exists()
    assert not list(out.glob("part-*.parquet"))


def test_a_parquet_input_gone_before_its_batches_are_planned_is_input_changed(tmp_path):
    path = tmp_path / "gone.parquet"
    pq.write_table(pa.table({"puzzle": [EASY] * 100}), path, row_group_size=50)
    source = read.inspect_input(path)
    path.unlink()
    for planning in (lambda: read.worker_batches(source, 50),
                     lambda: read.batch_rows_for(source, 50),
                     lambda: read.read_range(source, 0, 50)):
        with pytest.raises(PipelineError) as caught:
            planning()
        assert_input_changed(caught.value, path, "no longer there")
