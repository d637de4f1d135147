"""Shared fixtures: paths of the committed inputs, and a helper running the CLI in-process."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from pipeline.cli import app
from solver.vocabulary import MEASURES

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
SAMPLE = ROOT / "data" / "sample.csv"
SHARED = ROOT.parent / "shared" / "datasets"
WHOLE_SUITE = 100  # tests collected; fewer (one file, -k) compile only what they call
# "all" but the SE rating, whose compiled kernels take minutes to compile in a fresh clone: the
# fast suite's runs measure these; the runs that measure se are slow tests (make test-slow).
EVERY_MEASURE_BUT_SE = tuple(name for name in MEASURES if name != "se")


@pytest.fixture
def sample_csv() -> Path:
    """The default sample of `make solve-dataset` (every status a default run produces)."""
    return SAMPLE


@pytest.fixture
def kaggle_csv() -> Path:
    return DATA / "kaggle_20.csv"


@pytest.fixture
def euler_txt() -> Path:
    return DATA / "euler_mixed.txt"


@pytest.fixture
def hard_txt() -> Path:
    return DATA / "norvig_hardest_8.txt"


def pytest_collection_finish(session) -> None:
    """A run of many tests compiles the solver's kernels first, on both cores (tests/precompile.py):
    a fresh clone's suite would otherwise compile them one by one on one, and two test
    processes meeting the same uncompiled kernel would both compile it. Under pytest-xdist
    every test process gets here: the first compiles (in two processes) while the others wait
    on a lock, then find the kernels in the cache (four processes compiling the same kernels
    on two cores took twice as long)."""
    if len(session.items) >= WHOLE_SUITE and not session.config.option.collectonly:
        import fcntl
        import hashlib
        import tempfile

        from tests.precompile import ROOT, compile_all

        name = hashlib.sha256(str(ROOT).encode()).hexdigest()[:16]
        with open(Path(tempfile.gettempdir()) / f"sudoku-pipeline-compile-{name}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            compile_all(se=any(item.get_closest_marker("slow") for item in session.items))


def _cli(*args: str | Path):
    return CliRunner().invoke(app, [str(arg) for arg in args])


def _read_output(directory: Path, *, timing: bool = True) -> pa.Table:
    parts = sorted(Path(directory).glob("part-*.parquet"))
    assert parts, f"no parts in {directory}"
    table = pa.concat_tables(pq.read_table(part).replace_schema_metadata(None) for part in parts)
    return table if timing else table.drop_columns(["solve_us"])


@pytest.fixture(scope="session")
def slow(tmp_path_factory):
    """The slow dataset (tests/runs.py) and an uninterrupted run of it, the reference that
    runs stopped and continued are compared with."""
    from tests import runs

    base = tmp_path_factory.mktemp("slow")
    path = runs.write_slow_dataset(base / "slow.txt")
    reference = base / "reference"
    code, stderr = runs.run_here(runs.command(path, reference, *runs.SLOW_OPTIONS, "--workers", "2",
                                              "-q"))
    assert code == 0, stderr
    assert len(runs.parts(reference)) == runs.SLOW_PARTS
    return path, reference


@pytest.fixture(scope="session")
def cluster():
    """A Dask LocalCluster of 2 single-threaded worker processes, shared by the tests that
    reach a cluster by its scheduler address (as they would a remote one)."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as local_cluster:
        yield local_cluster


@pytest.fixture
def cli():
    """``cli(*args)`` runs ``sudoku-pipeline ARGS`` in-process (exit_code, stdout, stderr)."""
    return _cli


@pytest.fixture
def read_output():
    """``read_output(dir, timing=True)``: all parts of a run, in part-name (= input) order;
    ``timing=False`` drops solve_us, the only non-deterministic column."""
    return _read_output


@pytest.fixture(autouse=True)
def _no_process_outlives_its_test():
    """Processes a test started (``tests.runs.start``) end with it, even when it fails."""
    yield
    from tests import runs

    runs.kill_started()
