"""Runs that are stopped (kill -9, Ctrl-C, a time limit) and started again with the same
command: finished parts are kept, the rest is solved, and the output equals an uninterrupted
run's in every column but solve_us. Real processes, real signals."""

from __future__ import annotations

import signal
import subprocess
import sys
from dataclasses import replace

import psutil
import pyarrow.parquet as pq
import pytest

from pipeline.errors import PipelineError, RunIncomplete
from pipeline.resume import LOCK_FILE, MANIFEST_FILE, SUMMARY_FILE
from pipeline.run import solve_dataset
from pipeline.settings import load_settings
from pipeline.summary import read_summary
from tests import runs

EASY = "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3.."


def test_kill_9_of_the_run_then_the_same_command_continues_it(slow, tmp_path):
    path, reference = slow
    out = tmp_path / "out"
    args = runs.command(path, out, *runs.SLOW_OPTIONS, "--workers", "2", "-q")
    process = runs.start(args)
    runs.wait_for_parts(out, 8, process)
    workers = psutil.Process(process.pid).children()
    process.kill()  # SIGKILL: no cleanup of any kind in the parent
    process.communicate()
    assert runs.all_dead(workers)  # they died with their parent: nobody writes into `out` now
    kept = len(runs.parts(out))
    assert 8 <= kept < runs.SLOW_PARTS
    assert not (out / SUMMARY_FILE).exists()

    runs.assert_rerun_completes(args, out, reference)
    summary = read_summary(out)
    assert summary.resumed_rows == 6 * kept  # the kept parts were not solved again


@pytest.mark.parametrize(
    ("sent", "code", "said"),
    [(signal.SIGINT, 130, "interrupted"),
     pytest.param(signal.SIGTERM, 143, "terminated (SIGTERM)", marks=pytest.mark.slow)],
    ids=["ctrl-c", "sigterm"],
)
def test_ctrl_c_or_sigterm_stops_at_once_keeps_the_parts_and_says_how_to_continue(
    slow, tmp_path, sent, code, said
):
    path, reference = slow
    out = tmp_path / "out"
    args = runs.command(path, out, *runs.SLOW_OPTIONS, "--workers", "2", "-q")
    process = runs.start(args)
    runs.wait_for_parts(out, 4, process)
    workers = psutil.Process(process.pid).children()
    process.send_signal(sent)
    _, stderr = process.communicate(timeout=30)  # a guard against a hang, not a timing claim
    assert process.returncode == code
    assert stderr == (
        f"error: {said}; finished parts are kept in {out}; rerun the same command to continue\n"
    )
    assert runs.all_dead(workers, timeout=0)
    assert 4 <= len(runs.parts(out)) < runs.SLOW_PARTS
    assert [p.name for p in out.iterdir() if p.name.startswith(".")] == []  # cleaned up

    runs.assert_rerun_completes(args, out, reference)


def test_a_time_limit_stops_the_run_and_the_same_command_continues_it(slow, tmp_path):
    path, reference = slow
    out = tmp_path / "out"
    # Three batches of 80 rows, two workers, and a limit that passes while the session starts
    # (loading the solver takes longer): each session keeps the batches that finish first, at
    # least one and at most about one a worker, and stops the rest. So the first session
    # cannot finish the run, and four sessions at most finish it (the one that writes the
    # last part may still stop at its limit, before the summary), however loaded the machine
    # (a limit that a session's start could eat made it loop once a part, 40 times, on a busy
    # machine).
    args = runs.command(path, out, "--batch-size", "80", "--max-solutions", "1000000",
                        "--max-nodes", str(runs.SLOW_MAX_NODES), "--workers", "2",
                        "--time-limit", "0.2")
    sessions = []
    for _ in range(4):  # a part a session at least; the last may still stop at its limit
        done = runs.run(args)
        sessions.append((done.returncode, len(runs.parts(out))))
        if done.returncode == 0:
            break
        assert done.returncode == 3, done.stderr
        assert done.stderr.startswith("error: time limit of 0.2 s reached; ")
        assert done.stderr.endswith(f"kept in {out}; rerun the same command to continue\n")
        assert not (out / SUMMARY_FILE).exists()
    assert len(sessions) >= 2 and sessions[-1] == (0, 3), sessions
    counts = [count for _, count in sessions]
    assert counts == sorted(counts) and counts[0] < 3, sessions  # no session lost a part
    runs.assert_same_run(out, reference, batch_rows=80)


def test_a_finished_run_is_not_solved_again(tmp_path, euler_txt):
    out = tmp_path / "out"
    settings = load_settings(workers=1, batch_size=4)
    first = solve_dataset([euler_txt], out, settings, progress=False)
    before = {p.name: p.stat().st_mtime_ns for p in out.iterdir()}
    again = solve_dataset([euler_txt], out, settings, progress=False)
    assert again.resumed_rows == again.rows_out == 9  # nothing was solved
    assert replace(again, resumed_rows=0) == first
    assert {p.name: p.stat().st_mtime_ns for p in out.iterdir()} == before


def test_lost_and_half_written_parts_are_redone(tmp_path, euler_txt, read_output):
    out, reference = tmp_path / "out", tmp_path / "reference"
    settings = load_settings(workers=2, batch_size=2)
    solve_dataset([euler_txt], reference, settings, progress=False)
    solve_dataset([euler_txt], out, settings, progress=False)
    # What a machine lost mid-run leaves: parts missing, a temporary file, no summary.
    (out / "part-00000-000001.parquet").unlink()
    (out / "part-00000-000003.parquet").rename(out / ".part-00000-000003.parquet.999.tmp")
    (out / SUMMARY_FILE).unlink()
    summary = solve_dataset([euler_txt], out, settings, progress=False)
    assert summary.resumed_rows == 5  # parts 0, 2 and 4 (2, 2 and 1 rows) were kept
    assert read_output(out, timing=False).equals(read_output(reference, timing=False))
    assert sorted(p.name for p in out.iterdir() if p.name.startswith(".")) == []


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"max_nodes": 123}, r"max_nodes = \d+ \(this run has 123\)"),
        ({"rules": "singles"}, r"rules = 'bird' \(this run has 'singles'\)"),
    ],
)
def test_a_run_with_other_settings_is_refused(tmp_path, euler_txt, change, words):
    out = tmp_path / "out"
    solve_dataset([euler_txt], out, load_settings(workers=1, batch_size=4), progress=False)
    (out / "part-00000-000000.parquet").unlink()  # an unfinished run
    before = sorted(p.name for p in out.iterdir())
    other = load_settings(**{"workers": 1, "batch_size": 4, **change})
    with pytest.raises(PipelineError, match=f"holds a run with {words}.*--overwrite") as error:
        solve_dataset([euler_txt], out, other, progress=False)
    assert "\n" not in str(error.value)
    assert sorted(p.name for p in out.iterdir()) == before  # nothing touched
    overwrite = load_settings(**{"workers": 1, "batch_size": 4, **change, "overwrite": True})
    assert solve_dataset([euler_txt], out, overwrite, progress=False).resumed_rows == 0


def test_settings_that_do_not_change_the_rows_may_differ(tmp_path, euler_txt, read_output):
    out = tmp_path / "out"
    solve_dataset([euler_txt], out, load_settings(workers=1, batch_size=4), progress=False)
    expected = read_output(out, timing=False)
    (out / "part-00000-000001.parquet").unlink()
    other = load_settings(workers=2, batch_size=4, compression="snappy", time_limit=100)
    assert solve_dataset([euler_txt], out, other, progress=False).resumed_rows == 5
    assert read_output(out, timing=False).equals(expected)


def test_a_continued_run_may_take_another_batch_size_for_what_is_left(tmp_path, euler_txt,
                                                                       kaggle_csv, read_output):
    """After running out of memory, say: an input with kept parts is finished in its own
    batches, the inputs not started yet take the new size; the rows are the same."""
    inputs = [euler_txt, kaggle_csv]
    reference = tmp_path / "reference"
    solve_dataset(inputs, reference, load_settings(workers=1, batch_size=4), progress=False)
    out = tmp_path / "out"
    solve_dataset(inputs, out, load_settings(workers=1, batch_size=4), progress=False)
    for part in sorted(out.glob("part-*.parquet"))[1:]:
        part.unlink()  # the first part of euler is kept, the rest to solve again
    again = solve_dataset(inputs, out, load_settings(workers=1, batch_size=7), progress=False)
    assert again.complete and again.resumed_rows == 4 and again.batch_rows is None
    sizes = [pq.read_metadata(part).num_rows for part in sorted(out.glob("part-*.parquet"))]
    assert sizes == [4, 4, 1, 7, 7, 6]  # euler's 9 rows in fours, kaggle's 20 in sevens
    assert read_output(out, timing=False).equals(read_output(reference, timing=False))


def test_changed_or_other_inputs_are_refused(tmp_path):
    path = tmp_path / "in.txt"
    path.write_text(EASY + "\n" + EASY[:80] + "\n")
    out = tmp_path / "out"
    settings = load_settings(workers=1)
    solve_dataset([path], out, settings, progress=False)
    path.write_text(EASY + "\n" + EASY + "\n")
    with pytest.raises(PipelineError, match="holds a run with input .*in.txt as it was before"):
        solve_dataset([path], out, settings, progress=False)
    other = tmp_path / "other.txt"
    other.write_text(EASY + "\n")
    with pytest.raises(PipelineError, match="holds a run with other inputs"):
        solve_dataset([other], out, settings, progress=False)


def test_an_unreadable_manifest_is_refused(tmp_path, euler_txt):
    out = tmp_path / "out"
    solve_dataset([euler_txt], out, load_settings(workers=1), progress=False)
    (out / MANIFEST_FILE).write_bytes(b"PAR1 not")  # e.g. a disk that lost its last write
    with pytest.raises(PipelineError, match="_manifest.parquet cannot be read; add --overwrite"):
        solve_dataset([euler_txt], out, load_settings(workers=1), progress=False)
    solve_dataset([euler_txt], out, load_settings(workers=1, overwrite=True), progress=False)


HOLD_THE_LOCK = """
import sys, time
from pathlib import Path
import pyarrow as pa
from pipeline.resume import open_output
from pipeline.provenance import RunRecord
from pipeline.settings import load_settings
run = RunRecord.new(load_settings(workers=1), [])
output = open_output(Path(sys.argv[1]), run, pa.schema([("puzzle", pa.string())]), overwrite=False)
print("locked", flush=True)
sys.stdin.read()  # until the test closes it
output.close()
"""


def test_one_run_at_a_time_per_directory(tmp_path, euler_txt):
    out = tmp_path / "out"
    holder = subprocess.Popen(  # another run, in progress
        [sys.executable, "-c", HOLD_THE_LOCK, str(out)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline() == "locked\n"
        with pytest.raises(PipelineError, match="in use by another sudoku-pipeline run"):
            solve_dataset([euler_txt], out, load_settings(workers=1, overwrite=True), progress=False)
    finally:
        holder.communicate(timeout=30)
    assert not (out / LOCK_FILE).exists()
    solve_dataset([euler_txt], out, load_settings(workers=1, overwrite=True), progress=False)


def test_what_a_run_killed_at_its_start_leaves_is_no_obstacle(tmp_path, euler_txt):
    out = tmp_path / "out"
    out.mkdir()
    (out / LOCK_FILE).write_text("")  # left by kill -9; the kernel released the lock itself
    (out / f".{MANIFEST_FILE}.4321.tmp").write_text('{"vers')  # killed writing its manifest
    solve_dataset([euler_txt], out, load_settings(workers=1), progress=False)
    assert sorted(p.name for p in out.iterdir() if p.name.startswith(".")) == []


def test_the_time_limit_through_the_library(tmp_path, euler_txt):
    """A time limit already passed: the run still leaves progress (a part or two: the first
    unit to finish, and one in flight with it may finish too), the error says how to continue,
    and each rerun under the same limit gets further, until the run is complete."""
    out = tmp_path / "out"
    settings = load_settings(workers=1, batch_size=2, time_limit=1e-9)
    parts = []
    for _ in range(5):  # 9 rows in batches of 2: 5 parts
        try:
            solve_dataset([euler_txt], out, settings, progress=False)
            break
        except RunIncomplete as error:
            assert "rerun the same command to continue" in str(error)
            assert len(runs.parts(out)) > len(parts)
            parts = runs.parts(out)
    else:
        raise AssertionError("five reruns did not finish a run of five parts")
    assert read_summary(out).complete


@pytest.mark.slow  # test_a_time_limit_stops_the_run_and_the_same_command_continues_it runs the same
def test_a_time_limit_shorter_than_a_batch_still_makes_progress(slow, tmp_path):
    """Batches that each take longer than the limit: every run of the command still keeps
    parts, and rerunning it ends the run (a batch in flight at the limit used to be thrown
    away, so every rerun ended where it started)."""
    path, reference = slow
    out = tmp_path / "out"
    args = runs.command(path, out, "--batch-size", "60", "--max-solutions", "1000000",
                        "--max-nodes", str(runs.SLOW_MAX_NODES), "--workers", "2",
                        "--time-limit", "0.2")
    kept = []
    for _ in range(8):  # 4 batches of 60 rows, at least one a run
        done = runs.run(args)
        if done.returncode == 0:
            break
        assert done.returncode == 3, done.stderr
        assert len(runs.parts(out)) > len(kept), "a run under the time limit made no progress"
        kept = runs.parts(out)
    assert done.returncode == 0, done.stderr
    assert runs.rows(out).equals(runs.rows(reference).slice(0, 240))


@pytest.mark.slow
def test_with_overwrite_the_time_limit_says_to_rerun_without_it(slow, tmp_path):
    path, _ = slow
    out = tmp_path / "out"
    done = runs.run(runs.command(path, out, *runs.SLOW_OPTIONS, "--workers", "1",
                                 "--time-limit", "0.5", "--overwrite"))
    assert done.returncode == 3, done.stderr
    assert "rerun the same command without --overwrite" in done.stderr


def test_a_dangling_link_in_the_output_is_named_for_what_it_is(cli, tmp_path, euler_txt):
    """Issue 29.8: a part replaced by a dangling symbolic link was called a file sudoku-pipeline
    did not write, with nothing to say what was wrong with it."""
    out = tmp_path / "out"
    assert cli("solve-dataset", euler_txt, "-o", out, "-q", "--workers", "1").exit_code == 0
    part = sorted(out.glob("part-*.parquet"))[0]
    part.unlink()
    part.symlink_to(tmp_path / "gone.parquet")
    again = cli("solve-dataset", euler_txt, "-o", out, "-q", "--workers", "1")
    assert again.exit_code == 2
    assert f"(e.g. {part.name}, a dangling symbolic link)" in again.stderr
    summarized = cli("summarize", out)
    assert summarized.exit_code == 2
    assert f"{part.name}, a dangling symbolic link: not written by" in summarized.stderr
