"""Workers that stop responding (issue 11, point 3), for real: a worker stopped with SIGSTOP
from outside, and a batch that stops its worker every time it runs. The run notices the
silent heartbeat, kills the worker, runs its batches again, and never waits for ever."""

from __future__ import annotations

import os
import signal
import sys

import psutil
import pytest

from pipeline.engines.local import LocalEngine
from pipeline.errors import RunIncomplete
from pipeline.run import solve_dataset
from pipeline.settings import load_settings
from pipeline.stats import Stats
from pipeline.work import Unit, solve_part
from tests import runs

STALL = 2.0  # seconds of silence before a worker is killed (the command's default is 60)
# The slow dataset's run, through the library, with a short stall limit.
RUN_WITH_SHORT_STALLS = f"""
import sys
from pipeline.engines.local import LocalEngine
from pipeline.run import solve_dataset
from pipeline.settings import load_settings
from pipeline.work import solve_part

settings = load_settings(batch_size=6, max_solutions=1_000_000, max_nodes={runs.SLOW_MAX_NODES},
                         workers=2)
engine = LocalEngine(workers=2, function=solve_part, stall_seconds={STALL})
solve_dataset([sys.argv[1]], sys.argv[2], settings, engine=engine, progress=False)
"""


@pytest.mark.slow
def test_a_worker_stopped_with_sigstop_is_killed_and_its_batch_runs_again(slow, tmp_path):
    path, reference = slow
    out = tmp_path / "out"
    process = runs.start([sys.executable, "-c", RUN_WITH_SHORT_STALLS, str(path), str(out)])
    runs.wait_for_parts(out, 4, process)
    victim = psutil.Process(process.pid).children()[0]
    victim.send_signal(signal.SIGSTOP)  # alive, holding its batch, doing nothing
    _, stderr = process.communicate(timeout=120)  # before the fix: never ends
    assert process.returncode == 0, stderr
    assert f"a worker process (pid {victim.pid}) stopped responding: no heartbeat for 2 s" in stderr
    assert not psutil.pid_exists(victim.pid) or victim.status() == psutil.STATUS_ZOMBIE
    runs.assert_same_run(out, reference)


def solve_part_stopping_its_worker_on_batch_1(unit: Unit) -> Stats:
    """solve_part, but the worker that runs batch 1 stops itself (as if hung), every time."""
    if unit.part.batch_index == 1:
        os.kill(os.getpid(), signal.SIGSTOP)
    return solve_part(unit)


@pytest.mark.slow
def test_a_batch_that_keeps_hanging_is_given_up_after_three_attempts(tmp_path, euler_txt):
    settings = load_settings(workers=2, batch_size=2)
    engine = LocalEngine(workers=2, function=solve_part_stopping_its_worker_on_batch_1,
                         stall_seconds=1.0)
    with pytest.raises(RunIncomplete) as stopped:
        solve_dataset([euler_txt], tmp_path / "out", settings, engine=engine, progress=False)
    assert (f"rows 2-3 of {euler_txt}: its worker process died (stopped responding: no heartbeat "
            "for 1 s, so it was killed) (3 attempts)") in str(stopped.value)
    assert (stopped.value.summary.rows_in, stopped.value.summary.rows_out) == (9, 7)


def test_a_slow_batch_of_another_box_size_is_not_taken_for_a_dead_worker(tmp_path):
    """Issue 29.1: every compiled kernel releases the GIL, so a worker's heartbeat beats on while
    a 16 x 16 batch searches for several times the stall limit; the rows come out with their
    status (here the node budget), none is lost."""
    hexadoku = runs.DATA / "boxsize" / "hexadoku.csv"
    hard = [line for line in hexadoku.read_text().splitlines() if line.startswith("hard1,")]
    path = tmp_path / "hard.csv"
    path.write_text("name,puzzle,solution\n" + "\n".join(hard * 2) + "\n")  # two 3 s searches
    settings = load_settings(workers=1, batch_size=2, boxsize=4, alphabet="0123456789ABCDEF")
    engine = LocalEngine(workers=1, function=solve_part, stall_seconds=STALL)
    summary = solve_dataset([path], tmp_path / "out", settings, engine=engine, progress=False)
    assert (summary.rows_in, summary.rows_out) == (2, 2)
    assert summary.numbers.status["budget_exceeded"] == 2
