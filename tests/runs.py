"""Helpers for the tests that stop runs and continue them: a dataset slow enough to kill a
run part-way (about a second of solving on one core), the real command in a subprocess, and
the comparison of an output directory with an uninterrupted run's."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import psutil
import pyarrow as pa
import pyarrow.parquet as pq

from pipeline.errors import PipelineError
from pipeline.part import part_name, read_footer
from pipeline.settings import DECLARED
from pipeline.summary import read_summary

BIN = Path(sys.executable).parent
DATA = Path(__file__).resolve().parent / "data"
# Near-empty grids with a large max_solutions hit the node budget: each costs max_nodes nodes
# (about 5 ms), so 240 rows in batches of 6 make 40 parts over about a second of one core's
# solving, far longer than a test takes to see a part and stop, kill or damage the run (and
# every run of the dataset to its end, a dozen in `make test`, costs little: 60,000 nodes
# took three times as long for the same checks).
SLOW_MAX_NODES = 20_000
SLOW_OPTIONS = ("--batch-size", "6", "--max-solutions", "1000000",
                "--max-nodes", str(SLOW_MAX_NODES))
SLOW_PARTS = 40
# Columns and summary entries that depend on time, or on the run being continued.
TIMING = ("wall_seconds", "compile_seconds", "puzzles_per_second", "solve_seconds", "worker_seconds",
          "resumed_rows")


def write_slow_dataset(path: Path) -> Path:
    """240 puzzles as a text file: budget-hit near-empty grids, hard puzzles (unique),
    contradictory and invalid rows, in a fixed order."""
    hard = [
        line.strip()
        for line in (DATA / "norvig_hardest_8.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    rows = []
    for i in range(240):
        kind = i % 10
        if kind < 7:
            cell = (i * 7) % 81
            rows.append("." * cell + str(1 + i % 9) + "." * (80 - cell))
        elif kind == 7:
            rows.append(hard[i % 8])
        elif kind == 8:
            rows.append(hard[(i + 3) % 8][:80] if i % 20 == 8 else "55" + hard[0][2:])
        else:
            rows.append(hard[(i + 5) % 8].replace(".", "0"))
    path.write_text("\n".join(rows) + "\n")
    return path


def command(inputs: list[Path] | Path, out: Path, *options: str) -> list[str]:
    """The ``sudoku-pipeline solve-dataset`` command line (the installed console script)."""
    inputs = inputs if isinstance(inputs, list) else [inputs]
    return [
        str(BIN / "sudoku-pipeline"),
        "solve-dataset",
        *map(str, inputs),
        "-o",
        str(out),
        *options,
    ]


def run(args: list[str], timeout: float = 120, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout, **kwargs)


# Runs a command as a child and prints its exit code, the peak resident memory of the largest
# process it waited for (KiB: getrusage's RUSAGE_CHILDREN) and its stderr on one line.
_MEASURED = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(done.returncode, peak, done.stderr.replace("\\n", "|"), sep="\\t")
"""


def measured(args: list[str], timeout: float = 600, **kwargs) -> tuple[int, int, str]:
    """Run ``args``: its exit code, the peak memory of its largest process in MiB, and its
    stderr with line breaks written as ``|``."""
    done = run([sys.executable, "-c", _MEASURED, *map(str, args)], timeout=timeout, **kwargs)
    code, peak_kib, stderr = done.stdout.rstrip("\n").split("\t")
    return int(code), int(peak_kib) >> 10, stderr


def run_here(args: list[str]) -> tuple[int, str]:
    """``args`` (a ``command``) run in this process, as the ``cli`` fixture runs the CLI: its
    exit code and stderr. For a run that only continues a stopped one: it needs no process of
    its own, whose start (loading the solver) costs a second or two."""
    from typer.testing import CliRunner

    from pipeline.cli import app

    assert Path(args[0]).name == "sudoku-pipeline", args
    result = CliRunner().invoke(app, args[1:])
    crashed = "" if isinstance(result.exception, (SystemExit, type(None))) else repr(result.exception)
    return result.exit_code, result.stderr + crashed


STARTED: list[subprocess.Popen] = []  # killed after each test (conftest), should it fail


def start(args: list[str], **kwargs) -> subprocess.Popen:
    process = subprocess.Popen(
        args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs
    )
    STARTED.append(process)
    return process


def kill_started() -> None:
    """Kill the processes ``start`` started that still run (a test that failed before it
    ended them would leave them solving for minutes; their workers die with them)."""
    while STARTED:
        process = STARTED.pop()
        if process.poll() is None:
            process.kill()
            process.communicate()


def parts(out: Path) -> list[Path]:
    return sorted(out.glob("part-*.parquet"))


def wait_for_parts(out: Path, count: int, process: subprocess.Popen, timeout: float = 60) -> int:
    """Wait until ``out`` holds at least ``count`` parts; the number it holds."""
    return _wait_for(lambda: len(parts(out)), count, process, timeout, f"parts in {out}")


def wait_for_placed_rows(out: Path, count: int, process: subprocess.Popen,
                         timeout: float = 60) -> int:
    """Wait until the parts a generated run has placed (selected, in draw order) hold at least
    ``count`` rows; how many they hold. A worker's candidates are parts too before the run
    places them, so counting files would not do: on a busy machine the workers can write
    several before the run places the first (a continued run keeps only placed parts)."""
    return _wait_for(lambda: sum(map(_placed_rows, parts(out))), count, process, timeout,
                     f"placed rows in {out}")


def _wait_for(found_now: Callable[[], int], count: int, process: subprocess.Popen,
              timeout: float, what: str) -> int:
    """Poll ``found_now`` until it reaches ``count`` (its value then), while ``process`` runs."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = found_now()
        if found >= count:
            return found
        if process.poll() is not None:
            raise AssertionError(f"the run ended early: {process.communicate()}")
        time.sleep(0.005)
    raise AssertionError(f"fewer than {count} {what} after {timeout} s")


def _placed_rows(path: Path) -> int:
    """The rows of the part at ``path`` when the run has placed it; 0 for candidates, or a part
    deleted or replaced while it was read."""
    try:
        info = read_footer(str(path)).info
    except (FileNotFoundError, PipelineError):
        return 0
    return info.rows if info and info.placed else 0


def all_dead(processes: list[psutil.Process], timeout: float = 5) -> bool:
    """Whether every process has ended within ``timeout`` (a zombie has ended: it only waits
    for its new parent to reap it)."""
    deadline = time.monotonic() + timeout
    while any(_alive(process) for process in processes):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.01)
    return True


def _alive(process: psutil.Process) -> bool:
    try:
        return process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def rows(out: Path) -> pa.Table:
    """Every row of a run in part order, without solve_us (the only timing column)."""
    tables = [pq.read_table(part).replace_schema_metadata(None) for part in parts(out)]
    return pa.concat_tables(tables).drop_columns(["solve_us"])


def summary(out: Path) -> dict:
    """The stored summary (as JSON) without what depends on time, on where the output is, or
    on how this session ran (the settings of scope "session": workers, engine, time limit...)."""
    found = read_summary(out).to_dict()
    for key in (*TIMING, "workers", "engine"):
        found.pop(key, None)
    found["output"].pop("directory")
    found["settings"] = {key: value for key, value in found["settings"].items()
                         if DECLARED[key].scope != "session"}
    return found


def assert_same_run(out: Path, reference: Path, batch_rows: int | None = None) -> None:
    """``out`` holds what an uninterrupted run wrote in ``reference``: the same parts, the
    same rows in every column but solve_us, the same summary numbers, nothing else.

    ``batch_rows``: ``out`` was run in batches of that many rows (a setting that does not
    change the rows) from one input: its parts are those batches', and its summary says so
    where the reference's gives its own batches."""
    expected = summary(reference)
    if batch_rows is None:
        assert [p.name for p in parts(out)] == [p.name for p in parts(reference)]
    else:
        count = -(-expected["rows"]["in"] // batch_rows)
        assert [p.name for p in parts(out)] == [part_name(0, index) for index in range(count)]
        expected["output"] = {**expected["output"], "parts": count, "batch_rows": batch_rows}
        (entry,) = expected["inputs"]
        entry["batch_rows"] = batch_rows
    assert rows(out).equals(rows(reference))
    assert summary(out) == expected
    leftovers = sorted(p.name for p in out.iterdir() if p.name.startswith("."))
    assert leftovers == [], leftovers  # no temporary file, no lock file


def assert_rerun_completes(args: list[str], out: Path, reference: Path) -> None:
    """The same command, run again (in this process: ``run_here``), finishes the run in
    ``out`` as ``reference`` has it."""
    code, stderr = run_here(args)
    assert code == 0, stderr
    assert_same_run(out, reference)


def run_cli(cli, tmp_path: Path, path: Path, *options: str):
    """``solve-dataset PATH`` through the ``cli`` fixture, never with a traceback; the result
    and the output directory."""
    out = tmp_path / "out"
    result = cli("solve-dataset", path, "-o", out, "--workers", "1", "-q", *options)
    assert "Traceback" not in result.stdout + result.stderr, result.stderr
    return result, out


def assert_one_line_error(cli, tmp_path: Path, path: Path, words: str, *options: str) -> Path:
    """``solve-dataset PATH`` fails with one line on stderr holding ``words``, exit 2; the
    output directory."""
    result, out = run_cli(cli, tmp_path, path, *options)
    assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr)
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, result.stderr
    assert words in result.stderr, result.stderr
    return out
