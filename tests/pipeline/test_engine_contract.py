"""The contract every engine keeps (``pipeline.engines.contract``), checked on each engine
with real workers: a local process pool, and a real Dask LocalCluster. Units that fail are
retried, given up after 3 attempts while the others go on; a PipelineError stops the run;
a part this machine cannot read back is never counted; a worker with other code solves
nothing; past the deadline nothing starts and the run says it stopped."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pipeline.engines.contract import ATTEMPTS, run_checked
from pipeline.engines.local import LocalEngine
from pipeline.errors import PipelineError
from pipeline.part import part_name
from pipeline.provenance import installed
from pipeline.stats import Stats
from pipeline.work import Unit, solve_part
from tests.units import make_units

ENGINES = ["local", "dask"]


@pytest.fixture
def engine(request):
    """``engine(kind, function)``: an engine of that kind, 2 workers, running ``function``;
    ``own_cluster=True`` gives Dask its own LocalCluster (started by the engine)."""

    def build(kind: str, function, *, own_cluster: bool = False):
        if kind == "local":
            return LocalEngine(workers=2, function=function)
        from pipeline.engines.dask import DaskEngine

        address = "" if own_cluster else request.getfixturevalue("cluster").scheduler_address
        return DaskEngine(workers=2, scheduler=address, function=function)

    return build


def collect(engine, units: list[Unit], **options):
    """Run ``units``; the stats by batch index and the outcome."""
    results: dict[int, Stats] = {}
    outcome = engine.run(units, lambda unit, stats: results.update({unit.part.batch_index: stats}),
                         **options)
    return results, outcome


def solve_part_failing_once(unit: Unit) -> Stats:
    """solve_part, after failing the first attempt of each unit (a transient I/O error)."""
    attempted = Path(unit.path).parent.parent / "attempted" / Path(unit.path).name
    if not attempted.exists():
        attempted.touch()
        raise OSError(f"simulated transient failure of {attempted.name}")
    return solve_part(unit)


def solve_part_raising_on_batch_1(unit: Unit) -> Stats:
    if unit.part.batch_index == 1:
        raise RuntimeError("simulated bug\nwith a second line")
    return solve_part(unit)


def solve_part_killing_its_worker_on_batch_1(unit: Unit) -> Stats:
    if unit.part.batch_index == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    return solve_part(unit)


def solve_part_on_a_full_disk(unit: Unit) -> Stats:
    raise PipelineError(f"cannot write {unit.path}: No space left on device")


def solve_part_on_unshared_disk(unit: Unit) -> Stats:
    """solve_part on a worker whose output directory is not the one this machine sees."""
    stats = solve_part(unit)
    os.unlink(unit.path)
    return stats


@pytest.mark.parametrize("kind", ENGINES)
def test_units_that_fail_once_are_retried(tmp_path, engine, kind):
    (tmp_path / "attempted").mkdir()
    units = make_units(tmp_path / "out", 6)
    results, outcome = collect(engine(kind, solve_part_failing_once), units)
    assert outcome.failures == [] and not outcome.stopped
    assert len(list((tmp_path / "attempted").iterdir())) == 6  # every first attempt failed
    expected = [solve_part(unit) for unit in make_units(tmp_path / "expected", 6)]
    assert [results[i].status for i in range(6)] == [stats.status for stats in expected]
    for unit in units:
        written = pq.read_table(unit.path).drop_columns(["solve_us"])
        reference = pq.read_table(tmp_path / "expected" / Path(unit.path).name)
        assert written.equals(reference.drop_columns(["solve_us"]))


@pytest.mark.parametrize("kind", ENGINES)
def test_a_unit_that_keeps_raising_is_given_up_and_the_others_go_on(tmp_path, engine, kind):
    units = make_units(tmp_path / "out", 4)
    results, outcome = collect(engine(kind, solve_part_raising_on_batch_1), units)
    assert [(f.unit.part.batch_index, f.attempts) for f in outcome.failures] == [(1, ATTEMPTS)]
    assert outcome.failures[0].reason.startswith("RuntimeError: simulated bug")
    assert sorted(results) == [0, 2, 3]
    assert sorted(path.name for path in (tmp_path / "out").iterdir()) == [
        part_name(0, index) for index in (0, 2, 3)
    ]


# Dask: a LocalCluster of its own (its workers die), 10 s; test_dask.py kills a Dask worker
# mid-run in the fast suite.
@pytest.mark.parametrize("kind", ["local", pytest.param("dask", marks=pytest.mark.slow)])
def test_a_unit_that_keeps_killing_its_worker_is_given_up(tmp_path, engine, kind):
    units = make_units(tmp_path / "out", 4)
    chosen = engine(kind, solve_part_killing_its_worker_on_batch_1, own_cluster=True)
    results, outcome = collect(chosen, units)
    assert [(f.unit.part.batch_index, f.attempts) for f in outcome.failures] == [(1, ATTEMPTS)]
    assert "died" in outcome.failures[0].reason
    assert sorted(results) == [0, 2, 3]


@pytest.mark.parametrize("kind", ENGINES)
def test_a_pipeline_error_in_a_unit_stops_the_run(tmp_path, engine, kind):
    with pytest.raises(PipelineError, match="No space left on device"):  # not retried
        collect(engine(kind, solve_part_on_a_full_disk), make_units(tmp_path / "out", 20))


@pytest.mark.parametrize("kind", ENGINES)
def test_a_part_this_machine_cannot_read_back_is_not_counted(tmp_path, engine, kind):
    counted: list = []
    chosen = engine(kind, solve_part_on_unshared_disk)
    with pytest.raises(PipelineError, match="must be one that this machine and every worker share"):
        chosen.run(make_units(tmp_path / "out", 3), lambda unit, stats: counted.append(stats))
    assert counted == []


@pytest.mark.parametrize("kind", ENGINES)
def test_past_the_deadline_only_the_first_units_to_finish_count(tmp_path, engine, kind):
    """A deadline passed already: the deadline counts from the first unit that finishes, so
    there is progress, but no more units start after it."""
    units = make_units(tmp_path / "out", 8)
    results, outcome = collect(engine(kind, solve_part), units, deadline=time.monotonic())
    assert outcome.stopped and 1 <= len(results) < 8 and outcome.failures == []
    # A unit in flight at the stop may have written its part already: a rerun keeps it.
    written = {path.name for path in (tmp_path / "out").glob("part-*.parquet")}
    assert {unit.part.name for unit in units if unit.part.batch_index in results} <= written


def test_a_worker_with_other_code_solves_nothing(tmp_path):
    (unit,) = make_units(tmp_path / "out", 1)
    other = {**installed(), "code": "0" * 64}
    error = run_checked(solve_part, unit, other)
    assert isinstance(error, PipelineError)
    assert "runs other code than this machine (different: code;" in str(error)
    assert not Path(unit.path).exists()
    assert run_checked(solve_part, unit, installed()).rows == 4
