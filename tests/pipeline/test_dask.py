"""The Dask engine (issue 5): the same run on a real Dask cluster gives the same output.
(The engine contract, retries and checks, is tested on both engines in test_engine_contract.py.)

Real clusters only: a ``LocalCluster`` of 2 worker processes (started by the run itself,
or once per module and reached by its scheduler address, as a remote cluster would be),
real worker deaths (SIGKILL), real failures raised inside the workers.
"""

from __future__ import annotations

import csv
import os
import shutil
import signal
import sys
import threading
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pv
import pyarrow.parquet as pq
import pytest

from pipeline.engines.dask import DaskEngine
from pipeline.errors import RunIncomplete
from pipeline.resume import SUMMARY_FILE
from pipeline.run import solve_dataset
from pipeline.settings import load_settings
from pipeline.work import solve_part
from solver import STATUSES
from tests import runs

distributed = pytest.importorskip("distributed")
dask_engine = pytest.importorskip("pipeline.engines.dask")

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample.csv"
HARD = Path(__file__).resolve().parents[1] / "data" / "norvig_hardest_8.txt"
EASY = "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3.."
# Rows of every kind the sample lacks or has few of: an empty line and a short row
# (invalid), a bad character, a repeated given (contradictory), two hard puzzles that a
# small node budget cuts short (budget_exceeded), a near-empty grid (multiple).
CRAFTED = [
    EASY,
    "",
    EASY[:40],
    EASY[:17] + "x" + EASY[18:],
    "33" + EASY[2:],
    *HARD.read_text().splitlines()[:2],
    "1" + "." * 80,
]
# What may differ between two runs of the same data: timing, and how it was run.
RUN_KEYS = ("wall_seconds", "compile_seconds", "puzzles_per_second", "solve_seconds",
            "worker_seconds", "workers", "engine", "settings")


@pytest.fixture
def client(cluster):
    with distributed.Client(cluster, set_as_default=False) as cluster_client:
        cluster_client.wait_for_workers(2, timeout=30)
        yield cluster_client


def run(inputs: list[Path], output: Path, **settings) -> dict:
    """A whole run through the library, without a progress bar; its summary."""
    return solve_dataset(inputs, output, load_settings(**settings), progress=False)


def comparable(summary) -> dict:
    """The summary's numbers (the output directory's name differs, its part count must not)."""
    found = summary.to_dict()
    numbers = {key: value for key, value in found.items() if key not in RUN_KEYS}
    return {**numbers, "output": found["output"]["parts"]}


def test_dask_local_cluster_run_equals_local_run(tmp_path, read_output):
    crafted = tmp_path / "crafted.txt"
    crafted.write_text("\n".join(CRAFTED) + "\n")
    parquet = tmp_path / "sample.parquet"  # row groups of a batch: the workers read them
    pq.write_table(pv.read_csv(SAMPLE, convert_options=pv.ConvertOptions(
        column_types=dict.fromkeys(SAMPLE.read_text().splitlines()[0].split(","), pa.string()))),
        parquet, row_group_size=16)
    inputs = [SAMPLE, crafted, parquet]
    options = {"batch_size": 16, "max_nodes": 300}
    local = run(inputs, tmp_path / "local", workers=1, **options)
    on_dask = run(inputs, tmp_path / "dask", workers=2, engine="dask", **options)
    expected = read_output(tmp_path / "local", timing=False)
    assert read_output(tmp_path / "dask", timing=False).equals(expected)
    assert comparable(on_dask) == comparable(local)
    assert on_dask.engine == "dask" and on_dask.workers == 2
    assert on_dask.parts == len(list((tmp_path / "dask").glob("part-*.parquet"))) == 27
    assert DaskEngine(workers=2, function=solve_part).reads_in_workers(str(parquet))
    assert not DaskEngine(workers=2, function=solve_part, scheduler="tcp://a:8786").reads_in_workers(
        str(parquet))  # a scheduler's workers may be on machines without this file
    # Every status but "solved", which needs max_solutions = 1 (the CLI test below).
    assert set(expected.column("status").to_pylist()) == set(STATUSES) - {"solved"}


@pytest.mark.slow
def test_cli_with_a_scheduler_address_equals_local_run(tmp_path, cli, read_output, cluster):
    args = [SAMPLE, "--batch-size", "50", "--max-solutions", "1", "--quiet"]
    assert cli("solve-dataset", *args, "-o", tmp_path / "local", "--workers", "1").exit_code == 0
    result = cli(
        "solve-dataset", *args, "-o", tmp_path / "dask", "--engine", "dask",
        "--scheduler", cluster.scheduler_address,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    expected = read_output(tmp_path / "local", timing=False)
    assert read_output(tmp_path / "dask", timing=False).equals(expected)


@pytest.mark.slow
def test_a_worker_killed_mid_run_loses_and_duplicates_nothing(tmp_path, read_output, cluster, client):
    # 1,592 rows in 32 parts: long enough to kill a worker while it is solving (a part takes
    # tens of milliseconds, the kill a few).
    path = tmp_path / "many.txt"
    with open(SAMPLE, newline="") as file:
        puzzles = [row["puzzle"] for row in csv.DictReader(file)]
    path.write_text("\n".join(puzzles * 8) + "\n")
    options = {"batch_size": 50}
    local = run([path], tmp_path / "local", workers=1, **options)

    output = tmp_path / "dask"
    settings = load_settings(engine="dask", scheduler=cluster.scheduler_address, **options)
    outcome: dict = {}

    def run_in_background() -> None:
        try:
            outcome["summary"] = solve_dataset([path], output, settings, progress=False)
        except BaseException as err:  # handed to the test thread
            outcome["error"] = err

    thread = threading.Thread(target=run_in_background)
    thread.start()
    deadline = time.monotonic() + 60
    while not list(output.glob("part-*.parquet")) or not any(client.processing().values()):
        assert thread.is_alive() and time.monotonic() < deadline, outcome
        time.sleep(0.01)
    busy = next(address for address, keys in client.processing().items() if keys)
    victim = client.run(os.getpid, workers=[busy])[busy]
    os.kill(victim, signal.SIGKILL)
    parts_at_kill = len(list(output.glob("part-*.parquet")))
    thread.join(timeout=120)

    assert not thread.is_alive() and "error" not in outcome, outcome
    assert parts_at_kill < 32
    assert read_output(output, timing=False).equals(read_output(tmp_path / "local", timing=False))
    assert comparable(outcome["summary"]) == comparable(local)
    assert victim not in client.run(os.getpid).values()  # the worker did die (and was replaced)


@pytest.mark.slow
def test_a_stopped_run_resumes_on_dask_as_it_would_locally(tmp_path, read_output, cluster):
    local = run([SAMPLE], tmp_path / "local", workers=1, batch_size=20)
    # The same run as if stopped part-way: some parts and the summary not written yet.
    stopped = tmp_path / "stopped"
    shutil.copytree(tmp_path / "local", stopped)
    parts = sorted(stopped.glob("part-*.parquet"))
    for part in parts[::3]:
        part.unlink()
    (stopped / SUMMARY_FILE).unlink()
    resumed = run([SAMPLE], stopped, batch_size=20, engine="dask", scheduler=cluster.scheduler_address)
    assert read_output(stopped, timing=False).equals(read_output(tmp_path / "local", timing=False))
    kept = sum(pq.read_metadata(part).num_rows for part in parts[1::3] + parts[2::3])
    assert resumed.resumed_rows == kept
    assert comparable(resumed) == {**comparable(local), "resumed_rows": kept}


@pytest.mark.slow
def test_a_time_limit_on_dask_stops_with_progress_and_the_rerun_finishes(slow, tmp_path, cluster,
                                                                       read_output):
    """--engine dask with --time-limit (it crashed: distributed.wait without the run's
    client): the run stops with exit 3 and parts kept, and reruns finish it."""
    path, reference = slow
    out = tmp_path / "out"
    options = {"batch_size": 6, "max_solutions": 1_000_000, "max_nodes": runs.SLOW_MAX_NODES,
               "engine": "dask", "scheduler": cluster.scheduler_address}
    with pytest.raises(RunIncomplete, match="time limit of 0.1 s reached"):
        run([path], out, time_limit=0.1, **options)
    assert 0 < len(list(out.glob("part-*.parquet"))) < 40
    run([path], out, **options)
    assert read_output(out, timing=False).equals(read_output(reference, timing=False))


# --- settings and expected failures ----------------------------------------------------


def test_without_dask_the_engine_says_how_to_install_it(tmp_path, cli, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if it were not installed
    result = cli("solve-dataset", SAMPLE, "-o", tmp_path / "out", "--engine", "dask")
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        'error: engine dask needs Dask, which is not installed; pip install ".[dask]" '
        '(or pip install "dask[distributed]")'
    ]
    assert not (tmp_path / "out").exists()  # refused before anything is written


def test_a_scheduler_needs_the_dask_engine(tmp_path, cli):
    result = cli("solve-dataset", SAMPLE, "-o", tmp_path / "out", "--scheduler", "tcp://127.0.0.1:8786")
    assert result.exit_code == 2
    assert "add --engine dask" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_an_unreachable_scheduler_is_one_line(tmp_path, cli, monkeypatch):
    monkeypatch.setattr(dask_engine, "CONNECT_TIMEOUT", "1s")
    result = cli(
        "solve-dataset", SAMPLE, "-o", tmp_path / "out", "--engine", "dask",
        "--scheduler", "tcp://127.0.0.1:1",
    )  # fmt: skip
    assert result.exit_code == 2
    assert result.stderr.startswith("error: cannot reach the Dask scheduler at tcp://127.0.0.1:1")
    assert len(result.stderr.strip().splitlines()) == 1


# --- a scheduler that goes away -------------------------------------------------------------


@pytest.fixture
def scheduler_process(tmp_path):
    """``start()``: a real `dask scheduler` on a fixed free port, and 2 `dask worker`
    processes, each a subprocess; ``stop_scheduler()`` kills the scheduler (SIGKILL).
    Both may be called again: the new scheduler listens at the same address."""
    import socket
    import subprocess

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    started: list = []

    def start() -> str:
        started.append(subprocess.Popen(
            [str(runs.BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", str(port),
             "--dashboard-address", ":0"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        started.append(subprocess.Popen(
            [str(runs.BIN / "dask"), "worker", address, "--nthreads", "1", "--nworkers", "2"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        return address

    def stop_scheduler() -> None:
        started[-2].kill()
        started[-2].wait()

    yield start, stop_scheduler
    for process in started:
        process.kill()
        process.wait()


@pytest.mark.slow  # a real `dask scheduler` and `dask worker` processes, twice: about 30 s
def test_a_lost_scheduler_is_one_line_and_the_same_command_continues(slow, tmp_path, scheduler_process):
    path, reference = slow
    start, stop_scheduler = scheduler_process
    out = tmp_path / "out"
    args = runs.command(path, out, *runs.SLOW_OPTIONS, "--engine", "dask", "--scheduler", start(),
                        "-q")
    process = runs.start(args)
    runs.wait_for_parts(out, 3, process, timeout=90)
    stop_scheduler()
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 2, stderr
    assert "Traceback" not in stderr and stderr.count("\n") == 1, stderr
    assert stderr.startswith("error: lost the Dask scheduler at tcp://127.0.0.1:")
    assert stderr.endswith("rerun the same command to continue\n")
    assert 3 <= len(runs.parts(out)) < runs.SLOW_PARTS

    start()  # the scheduler and its workers are back
    runs.assert_rerun_completes(args, out, reference)
