"""Faults provoked for real: worker processes killed from outside or dying on a batch
(SIGKILL, a segmentation fault), a unit that raises, a full disk (a small tmpfs), a file
size limit (EFBIG), a read-only output directory, and the node budget. Each ends in a
clear message, keeps what was finished, and a rerun of the same command finishes the job."""

from __future__ import annotations

import base64
import csv
import ctypes
import faulthandler
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pyarrow.parquet as pq
import pytest

from pipeline.engines.local import LocalEngine
from pipeline.errors import RunIncomplete
from pipeline.resume import SUMMARY_FILE
from pipeline.run import solve_dataset
from pipeline.settings import load_settings
from pipeline.stats import Stats
from pipeline.summary import MissingRows, format_summary, read_summary, summarize
from pipeline.work import Unit, solve_part
from tests import runs
from tests.units import make_units

# --- workers that die -------------------------------------------------------------------


def test_a_worker_killed_mid_run_changes_nothing(slow, tmp_path):
    path, reference = slow
    out = tmp_path / "out"
    process = runs.start(runs.command(path, out, *runs.SLOW_OPTIONS, "--workers", "2", "-q"))
    runs.wait_for_parts(out, 4, process)
    victim = psutil.Process(process.pid).children()[0]
    victim.send_signal(signal.SIGKILL)
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 0, stderr
    assert "a worker process died (killed by SIGKILL: out of memory?)" in stderr
    assert "error" not in stderr
    # The pool stops the other worker with SIGTERM: it ends quietly (it inherited the command's
    # SIGTERM handler, and printed a Terminated traceback).
    assert "Traceback" not in stderr and "Terminated" not in stderr, stderr
    runs.assert_same_run(out, reference)


def test_the_node_budget_is_counted_in_the_summary(slow):
    _, reference = slow
    summary = read_summary(reference)
    statuses = runs.rows(reference).column("status").to_pylist()
    assert summary.numbers.status["budget_exceeded"] == statuses.count("budget_exceeded") == 168
    assert summary.numbers.search_nodes.max == runs.SLOW_MAX_NODES  # the budget, reached exactly


def solve_part_killed_on_batch_2(unit: Unit) -> Stats:
    """solve_part, but the worker that runs batch 2 is SIGKILLed (as by the kernel's
    out-of-memory killer), every time."""
    if unit.part.batch_index == 2:
        os.kill(os.getpid(), signal.SIGKILL)
    return solve_part(unit)


def solve_part_crashing_on_batch_1(unit: Unit) -> Stats:
    """solve_part, but the worker that runs batch 1 dies of a real segmentation fault."""
    if unit.part.batch_index == 1:
        faulthandler.disable()  # pytest's traceback dump would only clutter the output
        ctypes.string_at(0)
    return solve_part(unit)


def solve_part_raising_on_batch_0(unit: Unit) -> Stats:
    """solve_part, but batch 0 raises, as a worker short of memory would."""
    if unit.part.batch_index == 0:
        raise MemoryError("cannot allocate 2 GiB")
    return solve_part(unit)


@pytest.mark.parametrize(
    ("unit_function", "batch", "reason"),
    [
        (solve_part_killed_on_batch_2, 2, "its worker process died (killed by SIGKILL: out of memory?)"),
        (solve_part_crashing_on_batch_1, 1, "its worker process died (killed by SIGSEGV: a crash)"),
        (solve_part_raising_on_batch_0, 0, "MemoryError: cannot allocate 2 GiB"),
    ],
    ids=["sigkill", "segfault", "exception"],
)
def test_a_batch_that_keeps_failing_is_reported_and_a_rerun_solves_it(
    tmp_path, euler_txt, read_output, unit_function, batch, reason
):
    reference = tmp_path / "reference"
    settings = load_settings(workers=2, batch_size=2)
    solve_dataset([euler_txt], reference, settings, progress=False)
    out = tmp_path / "out"
    failing = LocalEngine(workers=2, function=unit_function)
    with pytest.raises(RunIncomplete) as stopped:
        solve_dataset([euler_txt], out, settings, engine=failing, progress=False)
    first, last = 2 * batch, 2 * batch + 1
    assert str(stopped.value) == (
        f"2 rows are missing from {out}, in 1 batch(es) that kept failing (rows "
        f"{first}-{last} of {euler_txt}: {reason} (3 attempts)); every other row is written, "
        "with the summary; rerun the same command to retry the missing rows (with fewer "
        "--workers or a smaller --batch-size if memory ran out)"
    )
    table = format_summary(stopped.value.summary)
    assert "7 rows out" in table and "MISSING       2 rows in 1 batch(es)" in table
    summary = read_summary(out)
    assert (summary.rows_in, summary.rows_out) == (9, 7) and not summary.complete
    assert summary.missing_rows == (
        MissingRows(str(euler_txt), first, last, 2, f"{reason} (3 attempts)"),
    )
    assert not (out / f"part-00000-{batch:06d}.parquet").exists()
    assert len(runs.parts(out)) == 4
    again = summarize(out)  # from the parts, keeping the reason the run gave
    assert again.missing_rows == summary.missing_rows and not again.complete

    # Whatever killed the batch is fixed: the same command fills the gap.
    summary = solve_dataset([euler_txt], out, settings, progress=False)
    assert read_output(out, timing=False).equals(read_output(reference, timing=False))
    assert summary.missing_rows == () and summary.resumed_rows == 7 and summary.complete


# --- disks that are full or read-only ---------------------------------------------------


def write_notes_csv(path: Path) -> Path:
    """60 easy puzzles with a note of random text: 100 bytes in the first 30 rows, 40,000 in
    the last 30, so parts 0-2 (10 rows each) are small and parts 3-5 about 300 kB."""
    rng = random.Random(4)
    easy = "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3.."
    with open(path, "w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(["puzzle", "note"])
        for i in range(60):
            size = 100 if i < 30 else 40_000
            writer.writerow([easy, base64.b64encode(rng.randbytes(size * 3 // 4)).decode()])
    return path


@pytest.fixture(scope="module")
def notes(tmp_path_factory):
    base = tmp_path_factory.mktemp("notes")
    path = write_notes_csv(base / "notes.csv")
    reference = base / "reference"
    code, stderr = runs.run_here(runs.command(path, reference, *NOTES_OPTIONS))
    assert code == 0, stderr
    return path, reference


NOTES_OPTIONS = ("--batch-size", "10", "--workers", "2", "-q")


@pytest.fixture
def small_disk(tmp_path):
    """A real 512 kB tmpfs (needs root and permission to mount); ``remount(options)``."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(mount)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")

    def remount(options: str) -> None:
        subprocess.run(["mount", "-o", f"remount,{options}", str(mount)], check=True)

    try:
        yield mount, remount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def test_a_full_disk_is_a_clean_error_and_the_rerun_continues(notes, small_disk):
    path, reference = notes
    disk, remount = small_disk
    out = disk / "out"
    args = runs.command(path, out, *NOTES_OPTIONS)
    full = runs.run(args)
    assert full.returncode == 2
    assert full.stderr.count("\n") == 1 and full.stderr.startswith(f"error: cannot write {out}/part-")
    assert full.stderr.endswith(
        ": No space left on device; the parts already written are kept: rerun the same command "
        "once this is fixed, to continue\n"
    )
    kept = runs.parts(out)
    assert 3 <= len(kept) < 6
    for part in kept:
        assert pq.read_metadata(part).num_rows == 10  # complete, readable parts only

    remount("size=16m")
    runs.assert_rerun_completes(args, out, reference)


@pytest.mark.slow
def test_a_file_size_limit_is_a_clean_error_and_the_rerun_continues(notes, tmp_path):
    """Without root: RLIMIT_FSIZE makes writing past 100 kB fail with EFBIG, for real."""
    path, reference = notes
    out = tmp_path / "out"
    args = runs.command(path, out, *NOTES_OPTIONS)

    def limit_file_size() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, 100_000))

    limited = runs.run(args, preexec_fn=limit_file_size)
    assert limited.returncode == 2
    assert limited.stderr.count("\n") == 1
    assert ": File too large; the parts already written are kept: rerun the same command" in (
        limited.stderr
    )
    assert 1 <= len(runs.parts(out)) < 6
    runs.assert_rerun_completes(args, out, reference)


def test_a_read_only_output_is_a_clean_error_and_the_rerun_continues(notes, small_disk):
    path, reference = notes
    disk, remount = small_disk
    remount("size=16m")
    out = disk / "out"
    args = runs.command(path, out, *NOTES_OPTIONS)
    shutil.copytree(reference, out)  # the same command's run, finished
    for name in ("part-00000-000001.parquet", "part-00000-000004.parquet", SUMMARY_FILE):
        (out / name).unlink()  # as a run stopped part-way leaves it
    remount("ro")
    assert runs.run_here(args) == (
        2, f"error: cannot write into output directory {out}: Read-only file system\n")
    assert runs.run_here(runs.command(path, disk / "new", *NOTES_OPTIONS)) == (
        2, f"error: cannot create output directory {disk / 'new'}: Read-only file system\n")

    remount("rw")
    runs.assert_rerun_completes(args, out, reference)
    assert read_summary(out).resumed_rows == 40


def test_a_unit_sent_to_a_pool_that_just_broke_takes_the_way_back(tmp_path):
    """A worker dies between two looks at the pool: the executor then refuses new work
    (``submit`` raises BrokenProcessPool); that unit is retried like the ones in flight."""
    from pipeline.engines import local

    results: list[int] = []
    fan_out = local._FanOut(solve_part, 1, lambda unit, stats: results.append(unit.part.batch_index),
                            None)
    for process in fan_out.processes:
        process.kill()
    deadline = time.monotonic() + 10
    while not getattr(fan_out.executor, "_broken", True) and time.monotonic() < deadline:
        time.sleep(0.01)  # the executor's own thread notices the death
    fan_out.run(iter(make_units(tmp_path / "out", 3)))
    fan_out.close(kill=False)
    assert sorted(results) == [0, 1, 2]
    assert fan_out.outcome.failures == []


# --- the main process out of memory ---------------------------------------------------------

# A fan-out started under an address-space limit that leaves no room for a thread's stack
# (8 MiB): the executor's thread cannot start its queue's feeder thread (or cannot start).
NO_ROOM_FOR_A_THREAD = """
import resource
from pipeline.engines.local import _FanOut
from pipeline.errors import PipelineError
from pipeline.work import solve_part

with open("/proc/self/status") as status:
    size = next(int(line.split()[1]) << 10 for line in status if line.startswith("VmSize"))
limit = size + (4 << 20)
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
try:
    _FanOut(solve_part, 1, lambda unit, stats: None, None)
except PipelineError as error:
    print(error)
"""


def test_a_pool_that_cannot_start_a_thread_is_a_clean_error():
    """The executor's own thread dies of "can't start new thread" and the executor does not
    notice: its futures would wait for ever (a run hung so). The fan-out notices, stops its
    workers and says why in one line, without a traceback."""
    done = subprocess.run([sys.executable, "-c", NO_ROOM_FOR_A_THREAD], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("cannot start worker processes (out of memory? "), done.stdout
    assert "can't start new thread" in done.stdout, done.stdout
    assert "Traceback" not in done.stderr, done.stderr


LIMITED = """
import resource, sys
limit = 1 << 30
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
from pipeline.cli import main
sys.argv = ["sudoku-pipeline", "solve-dataset", *sys.argv[1:]]
main()
"""


@pytest.mark.slow
def test_out_of_memory_reading_a_batch_is_reported_and_resumable(tmp_path, kaggle_csv):
    """A Parquet file small on disk whose one batch needs a gigabyte in memory (a wide text
    column that compresses to nothing), read under a 1 GiB address-space limit by the worker
    that solves it (workers read their own batches of a Parquet input): the batch is given up,
    exit 3, one line says which rows are missing and how to get them, and the rerun in smaller
    batches continues. (Each process of the run has 0.7 GiB of address space before it reads,
    most of it only reserved; under 800 MiB the run's own process was sometimes left too
    little to start a thread: a clean error then, but not this test's.)"""
    import pyarrow as pa

    # 40,000 rows of 25 kB: 1 GB in one batch (and few puzzles for the rerun to solve)
    groups, rows = 20, 2_000
    puzzles = [line.split(",")[0] for line in kaggle_csv.read_text().splitlines()[1:]]
    group = pa.table({"puzzle": [puzzles[i % 20] for i in range(rows)],
                      "note": pa.array(["w" * 25_000] * rows)})
    path = tmp_path / "wide.parquet"
    with pq.ParquetWriter(path, group.schema, compression="zstd", use_dictionary=False) as file:
        for _ in range(groups):
            file.write_table(group)
    del group
    assert path.stat().st_size < 10 << 20
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-c", LIMITED, str(path), "-o", str(out), "-q",
                           "--workers", "1", "--batch-size", str(groups * rows)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 3, done.stderr
    error = done.stderr.splitlines()[-1]
    assert error.startswith("error: 40,000 rows are missing"), done.stderr
    assert "ArrowMemoryError" in error and "--batch-size" in error, error
    code, stderr = runs.run_here(runs.command(path, out, "-q", "--workers", "1", "--batch-size",
                                              str(rows)))
    assert code == 0, stderr
    assert pq.read_metadata(sorted(out.glob("part-*.parquet"))[-1]).num_rows == rows
