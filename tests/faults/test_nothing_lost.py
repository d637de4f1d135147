"""Nothing lost, never stuck (issue 11): the faults a newcomer's first day and a fault-injection
session found, each injected for real (files deleted under a running command, a directory
emptied under it, real Parquet files of another program, real `make`), each failing on the
code before the fix. Workers that stop responding are in test_stalls.py, inputs that change
under a run in test_input_faults.py, SIGTERM in test_resume.py, a lost Dask scheduler in
test_dask.py."""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
from pathlib import Path

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

from pipeline.engines.local import LocalEngine
from pipeline.errors import RunIncomplete
from pipeline.resume import SUMMARY_FILE, read_manifest
from pipeline.run import solve_dataset
from pipeline.settings import load_settings
from pipeline.summary import read_summary
from pipeline.work import solve_part
from tests import runs

ROOT = Path(__file__).resolve().parents[2]
SEVENTEEN = Path(__file__).resolve().parents[1] / "data" / "solver" / "sudoku17_sample500.txt"
EASY = "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3.."


# --- 1. completeness comes from the manifest and the parts, never from the summary --------------


def test_summarize_write_of_a_stopped_run_says_it_is_incomplete_and_the_run_still_finishes(
    slow, tmp_path, cli
):
    path, reference = slow
    out = tmp_path / "out"
    # A limit that passes while the command starts: it keeps the first batches to finish.
    args = runs.command(path, out, *runs.SLOW_OPTIONS, "--workers", "2", "--time-limit", "0.3")
    stopped = runs.run(args)
    assert stopped.returncode == 3, stopped.stderr
    solved = len(runs.parts(out))
    assert solved < runs.SLOW_PARTS

    written = cli("summarize", out, "--write")
    assert written.exit_code == 3
    assert f"{6 * solved:,} rows are solved" in written.stderr
    assert "the rest of 1 input(s), from row" in written.stderr
    summary = read_summary(out)
    assert summary.complete is False and summary.rows_in is None

    # The same command again, and then without the limit, in this process (no start to pay).
    code, stderr = runs.run_here(args)  # before the fix: exit 0, nothing solved, 80% of the
    assert len(runs.parts(out)) > solved  # rows dropped; now it goes on (and may finish)
    assert code == 0 or (code == 3 and stderr.startswith("error: time limit of 0.3 s")), stderr
    code, stderr = runs.run_here(runs.command(path, out, *runs.SLOW_OPTIONS, "--workers", "2"))
    assert code == 0, stderr
    runs.assert_same_run(out, reference)


# --- 2. before the summary is stored, every part is looked at on disk -----------------------


@pytest.mark.parametrize("damage", [
    "delete a part",
    pytest.param("empty the directory", marks=pytest.mark.slow),  # as "remove the directory"
    "remove the directory",
])
def test_parts_lost_during_a_run_end_it_with_exit_3_and_the_same_command_repairs(
    slow, tmp_path, damage
):
    path, reference = slow
    out = tmp_path / "out"
    args = runs.command(path, out, *runs.SLOW_OPTIONS, "--workers", "2", "-q")
    process = runs.start(args)
    runs.wait_for_parts(out, 4, process)
    if damage == "delete a part":
        (out / "part-00000-000000.parquet").unlink()
    elif damage == "empty the directory":  # rm -rf OUT && mkdir OUT
        empty_while_workers_write(out)
    else:  # rm -rf OUT: the next part cannot be written
        remove_while_workers_write(out)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 3, stderr
    if damage == "delete a part":
        assert "part(s) of this run are no longer in" in stderr
        assert "rows 0-5 of" in stderr and "rerun the same command to solve them again" in stderr
    else:  # seen when the next part is read back, or when every part is checked at the end
        assert ("was emptied or removed during the run" in stderr
                or "part(s) of this run are no longer in" in stderr), stderr
    assert not (out / SUMMARY_FILE).exists()

    runs.assert_rerun_completes(args, out, reference)


def solve_part_then_delete_it_on_batch_1(unit):
    """``solve_part``, then (batch 1 only) the part deleted before the main process reads it back."""
    stats = solve_part(unit)
    if unit.part.batch_index == 1:
        os.remove(unit.path)
    return stats


def test_a_part_deleted_before_it_is_read_back_is_a_lost_part_not_an_unshared_directory(
    tmp_path, euler_txt
):
    """Seen under load: a part deleted between its write and its check was reported as an
    output directory the workers do not share (exit 2) though the run's other parts were there
    to see; it is a part lost during the run (exit 3), and the same command solves it again."""
    out = tmp_path / "out"
    settings = load_settings(workers=1, batch_size=3)
    engine = LocalEngine(workers=1, function=solve_part_then_delete_it_on_batch_1)
    with pytest.raises(RunIncomplete) as caught:
        solve_dataset([euler_txt], out, settings, engine=engine, progress=False)
    message = str(caught.value)
    assert message.startswith(f"1 part(s) of this run are no longer in {out} "), message
    assert "rows 3-5 of" in message and "rerun the same command to solve them again" in message
    assert solve_dataset([euler_txt], out, settings, progress=False).rows_out == 9


def remove_while_workers_write(out):
    """rm -rf OUT while the run goes on. A worker may put a part in OUT between rmtree's
    listing and its rmdir ("Directory not empty"); a user would run rm -rf again."""
    while out.exists():
        shutil.rmtree(out, ignore_errors=True)


def empty_while_workers_write(out):
    """rm -rf OUT && mkdir OUT while the run goes on (a part may be written while OUT is not
    there, or the pipeline may make OUT again first)."""
    remove_while_workers_write(out)
    out.mkdir(exist_ok=True)


# --- 5. --overwrite deletes only what the pipeline wrote ----------------------------------


def test_files_of_other_programs_are_refused_even_with_overwrite(tmp_path, cli):
    puzzles = tmp_path / "in.txt"
    puzzles.write_text(EASY + "\n")
    out = tmp_path / "out"
    ds.write_dataset(pa.table({"puzzle": [EASY]}), out, format="parquet")  # part-0.parquet
    mimic = out / "part-00000-000000.parquet"  # our name, not our metadata
    pq.write_table(pa.table({"puzzle": [EASY]}), mimic)
    before = sorted(p.name for p in out.iterdir())
    for extra in ([], ["--overwrite"]):
        result = cli("solve-dataset", puzzles, "-o", out, *extra)
        assert result.exit_code == 2
        assert "holds files sudoku-pipeline did not write (e.g. part-0.parquet)" in result.stderr
        assert "--overwrite" not in result.stderr  # it would not help
    assert sorted(p.name for p in out.iterdir()) == before


# --- 7. batches sized for the data ----------------------------------------------------------


def test_the_automatic_batch_size_keeps_every_worker_busy_and_resumes_with_it(tmp_path):
    """500 17-clue puzzles (under 50,000 rows): several batches a worker, not one batch; the
    size is in the parts and the summary, and a continued run keeps it whatever --workers it
    is given."""
    out = tmp_path / "out"
    settings = load_settings(workers=2, rules="singles")
    first = solve_dataset([SEVENTEEN], out, settings, progress=False)
    assert read_manifest(str(out)).settings.batch_size == 0
    parts = runs.parts(out)
    assert len(parts) >= 4 * 2 and first.parts == len(parts)
    size = pq.read_metadata(parts[0]).num_rows
    assert first.batch_rows == size
    parts[1].unlink()
    again = solve_dataset([SEVENTEEN], out, load_settings(workers=1, rules="singles"),
                          progress=False)
    assert again.resumed_rows == 500 - size and again.batch_rows == size


def test_each_input_gets_batches_for_its_own_work(tmp_path):
    """An easy input first, then a hard one: the hard one's batches are sized on its own rows,
    not on the easy one's (whose batches would take minutes there), so the bar moves and the
    pool stays busy to the end."""
    easy = tmp_path / "easy.txt"
    easy.write_text("\n".join([EASY] * 40_000) + "\n")
    hard = tmp_path / "hard.txt"
    hard.write_text(SEVENTEEN.read_text())
    summary = solve_dataset([easy, hard], tmp_path / "out", load_settings(workers=2),
                            progress=False)
    rows = {}
    for part in runs.parts(tmp_path / "out"):
        rows.setdefault(part.name[5:10], []).append(pq.read_metadata(part).num_rows)
    assert max(rows["00000"]) > 5 * max(rows["00001"]), rows
    easy_rows, hard_rows = (entry.batch_rows for entry in summary.inputs)
    assert easy_rows > 5 * hard_rows  # each input's size, as the summary and the report give it


# --- 8. smaller ones ------------------------------------------------------------------------


def test_a_finished_run_says_it_is_complete_and_names_settings_it_keeps(tmp_path, cli, euler_txt):
    out = tmp_path / "out"
    assert cli("solve-dataset", euler_txt, "-o", out, "--workers", "1").exit_code == 0
    again = cli("solve-dataset", euler_txt, "-o", out, "--workers", "1", "--compression", "snappy")
    assert again.exit_code == 0
    assert again.stdout.startswith(f"nothing to solve: {out} holds this run already, complete")
    assert again.stderr == (
        "warning: this run continues with compression = 'zstd', as it started; --compression "
        "snappy applies to a new run only (add --overwrite to start again)\n"
    )


def test_far_more_workers_than_cores_is_a_warning(tmp_path, euler_txt, caplog):
    settings = load_settings(workers=1000)
    with caplog.at_level(logging.WARNING, logger="pipeline"):
        solve_dataset([euler_txt], tmp_path / "out", settings,
                      engine=LocalEngine(workers=1, function=solve_part), progress=False)
    assert "--workers 1000 is far above the" in caplog.text


def test_the_node_budget_has_a_documented_maximum(tmp_path, cli, euler_txt):
    result = cli("solve-dataset", euler_txt, "-o", tmp_path / "out", "--max-nodes", str(2**62))
    assert result.exit_code == 2
    assert ("max_nodes must be a whole number from 1 to 1,000,000,000; got 4611686018427387904 "
            "(0 means the solver's default, 5,000,000)") in result.stderr
    assert "1,000,000,000" in (ROOT / "docs" / "usage.md").read_text()  # the settings table


@pytest.fixture
def project_copy(tmp_path):
    """A copy of the project's Makefile and configs whose .venv is this one, installed."""
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy(ROOT / name, tmp_path / name)
    shutil.copytree(ROOT / "configs", tmp_path / "configs")
    venv = tmp_path / ".venv"
    venv.mkdir()
    (venv / "bin").symlink_to(Path(runs.BIN))
    for stamp in (".run-stamp", ".dev-stamp"):
        (venv / stamp).touch()
    return tmp_path


def make(directory: Path, *arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run(["make", *arguments], cwd=directory, capture_output=True, text=True,
                          timeout=120)


def test_make_solve_dataset_installs_only_what_running_needs(tmp_path):
    """`make -n` in a copy without a .venv: what a fresh clone's first command would run."""
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    planned = make(tmp_path, "-n", "solve-dataset")
    assert "pip install --quiet -e ." in planned.stdout
    assert "[dev]" not in planned.stdout
    assert "-e '.[dev]'" in make(tmp_path, "-n", "test").stdout


@pytest.mark.slow
def test_through_make_the_hint_says_overwrite_1(project_copy, euler_txt, cli):
    # The run `make solve-dataset INPUT=... OUTPUT=out` makes (in this process: a second less)
    first = cli("solve-dataset", euler_txt, "--output", project_copy / "out", "--config",
                project_copy / "configs" / "default.toml")
    assert first.exit_code == 0, first.stderr
    other = make(project_copy, "solve-dataset", f"INPUT={euler_txt}", "OUTPUT=out",
                 "CONFIG=configs/fast.toml")
    assert other.returncode != 0
    assert "add OVERWRITE=1 to replace it" in other.stderr
    again = make(project_copy, "solve-dataset", f"INPUT={euler_txt}", "OUTPUT=out",
                 "CONFIG=configs/fast.toml", "OVERWRITE=1")
    assert again.returncode == 0, again.stderr


@pytest.mark.slow
def test_a_first_run_on_a_new_machine_says_the_solver_is_compiled(tmp_path, euler_txt):
    """An empty numba cache, as on a new machine, and stderr not a terminal (make, a log): a
    note on stderr, and the summary tells compiling from solving; the next run says nothing."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    first = runs.run(runs.command(euler_txt, tmp_path / "first", "--workers", "1"), env=env,
                     timeout=900)
    assert first.returncode == 0, first.stderr
    assert first.stderr.startswith("compiling the solver for this machine (first run of this "
                                   "source only): ") and first.stderr.count("\n") == 1
    assert "s of it compiling the solver: first run only)" in first.stdout
    again = runs.run(runs.command(euler_txt, tmp_path / "again", "--workers", "1"), env=env)
    assert again.returncode == 0 and again.stderr == ""
    assert "compiling" not in again.stdout
