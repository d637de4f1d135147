"""Generated runs that stop (issue 29, points 5 and 6): under a time limit they keep what was
finished in draw order, and stopped, they leave no candidates a Parquet reader would count."""

from __future__ import annotations

import json
import signal
import sys
import time

import polars as pl
import pytest

from pipeline.engines.local import LocalEngine
from pipeline.errors import RunIncomplete
from pipeline.generate import generate_dataset
from pipeline.generate_work import generate_part
from pipeline.settings import load_generation
from tests import runs


def generate_part_slow_on_batch_0(unit):
    """generate_part, but batch 0 takes 3 s longer, so that the batches after it finish first."""
    if unit.part.batch_index == 0:
        time.sleep(3)
    return generate_part(unit)


def test_a_time_limit_keeps_what_finished_though_later_batches_finish_first(tmp_path):
    """Issue 29.5: the deadline counted from the first batch that finished; when batch 1 ended
    before batch 0, batch 0 was stopped at the limit and batch 1, which must follow it, thrown
    away: nothing kept. It counts from the first batch placed."""
    settings, generation = load_generation(count=200, seed=7, workers=2, batch_size=5,
                                           time_limit=1, quiet=True)
    engine = LocalEngine(workers=2, function=generate_part_slow_on_batch_0)
    with pytest.raises(RunIncomplete) as stopped:
        generate_dataset(tmp_path / "out", settings, generation, engine=engine, progress=False)
    assert "time limit of 1 s reached" in str(stopped.value)
    assert stopped.value.summary.rows_out >= 5  # batch 0, and the batches done behind it


# A generated run whose batch 1 is written but never returns: stopped then, its candidates are
# on disk, not placed.
HOLDING_BATCH_1 = """
import sys, time
from pipeline.generate_work import generate_part
from pipeline.engines.local import LocalEngine
from pipeline.generate import generate_dataset
from pipeline.settings import load_generation

def hold_batch_1(unit):
    stats = generate_part(unit)
    if unit.part.batch_index == 1:
        time.sleep(120)
    return stats

settings, generation = load_generation(count=200, seed=7, workers=2, batch_size=5, quiet=True)
generate_dataset(sys.argv[1], settings, generation, progress=False,
                 engine=LocalEngine(workers=2, function=hold_batch_1))
"""


def test_a_stopped_generate_leaves_no_candidates_a_reader_counts(tmp_path, cli):
    """Issue 29.6: after Ctrl-C a glob of the directory read 193 rows where summarize said 124:
    a worker's candidates, never placed, were a part. Candidates have a name of their own, and
    a stopped run deletes them; summarize says which command finishes the run."""
    out = tmp_path / "out"
    process = runs.start([sys.executable, "-c", HOLDING_BATCH_1, str(out)])
    runs._wait_for(lambda: len(list(out.glob("part-00000-000001.*"))), 1, process, 60,
                   "candidates of batch 1")
    time.sleep(0.5)
    process.send_signal(signal.SIGINT)
    process.communicate(timeout=30)
    assert not list(out.glob("*.candidates"))
    summarized = cli("summarize", str(out))
    assert summarized.exit_code == 3
    assert "rerun the generate command that wrote it to finish it" in summarized.stderr
    counted = json.loads(cli("summarize", str(out), "--json").stdout)["rows"]["out"]
    read = pl.scan_parquet(out / "*.parquet").select(pl.len()).collect().item()
    assert read == counted == sum(runs._placed_rows(path) for path in runs.parts(out)) > 0


def test_generating_25x25_puzzles_starts_at_once_and_stops_on_ctrl_c(tmp_path):
    """Issue 29.7: the warm-up drew draw 0 in the main process, about 5 minutes of 25 x 25
    drawing deaf to Ctrl-C before the time limit counted. It compiles, draws nothing, and the
    run stops promptly when interrupted."""
    out = tmp_path / "out"
    process = runs.start([str(runs.BIN / "sudoku-pipeline"), "generate", "-o", str(out),
                          "--boxsize", "5", "--rules", "singles", "--count", "1", "--workers",
                          "1", "-q"])
    runs._wait_for(lambda: (out / "_manifest.parquet").exists(), 1, process, 120,
                   "manifest (the warm-up is over)")
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 130 and "rerun the same command" in stderr, stderr
    assert not list(out.glob("*.candidates"))
