"""Inputs and outputs at fsspec URLs (issue 5): a real S3 API, served locally by moto, and
inputs from a real web server.

A moto server runs for this module on a free port (``tools/local_s3.py``); the AWS variables
point every process at it (this one, the forked pool workers, the Dask workers, the command in
a subprocess), as ``AWS_ENDPOINT_URL`` would point a user's at MinIO or any S3-compatible
store. Each test gets a bucket of its own. Runs on S3 are compared with the same runs on local files.
"""

from __future__ import annotations

import functools
import gzip
import http.server
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest
import s3fs

from pipeline import storage
from pipeline.errors import PipelineError
from pipeline.read import inspect_input, worker_batches
from pipeline.resume import SUMMARY_FILE
from pipeline.run import solve_dataset
from pipeline.settings import load_settings
from pipeline.summary import read_summary, summarize
from tests import runs
from tools.local_s3 import local_s3

DATA = Path(__file__).resolve().parents[1] / "data"
ROOT = DATA.parent.parent
LOCK = ".sudoku-pipeline.lock"
# What differs between a run on S3 and the same run on local files: where things are.
PLACES = ("output", "inputs", "wall_seconds", "compile_seconds", "puzzles_per_second",
          "solve_seconds", "worker_seconds", "by_input", "labels")


@pytest.fixture(scope="module")
def s3_server():
    """A moto S3 server, and the AWS variables that point every process at it."""
    with local_s3() as server:
        s3fs.S3FileSystem.clear_instance_cache()  # no client of another endpoint is reused
        yield server.endpoint
    s3fs.S3FileSystem.clear_instance_cache()


@pytest.fixture
def bucket(s3_server) -> str:
    """A new, empty bucket: its name."""
    name = f"test-{uuid.uuid4().hex[:12]}"
    s3fs.S3FileSystem(use_listings_cache=False).mkdir(name)
    return name


@pytest.fixture
def s3(s3_server):
    """An S3 client that never answers from a cached listing (the runs write behind its back)."""
    return s3fs.S3FileSystem(use_listings_cache=False)


@pytest.fixture
def local_inputs(tmp_path, kaggle_csv, euler_txt, hard_txt) -> list[Path]:
    """One input of every format: csv, csv.gz, parquet and txt."""
    folder = tmp_path / "inputs"
    folder.mkdir()
    gz = folder / "b_kaggle.csv.gz"
    gz.write_bytes(gzip.compress(kaggle_csv.read_bytes()))
    parquet = folder / "c_sample.parquet"
    header = (ROOT / "data" / "sample.csv").read_text().splitlines()[0].split(",")
    sample = pacsv.read_csv(  # every column as text, as the pipeline reads a CSV file
        ROOT / "data" / "sample.csv",
        convert_options=pacsv.ConvertOptions(column_types=dict.fromkeys(header, pa.string())),
    )
    pq.write_table(sample, parquet, row_group_size=40)  # batches of 40: workers read them
    csv = folder / "a_kaggle.csv"
    csv.write_bytes(kaggle_csv.read_bytes())
    txt = folder / "d_euler.txt"
    txt.write_bytes(euler_txt.read_bytes() + hard_txt.read_bytes())
    return sorted(folder.iterdir())


def upload(s3, files: list[Path], prefix: str) -> str:
    """Copy ``files`` under ``s3://PREFIX/``; the prefix's URL."""
    for file in files:
        s3.put(str(file), f"{prefix}/{file.name}")
    return f"s3://{prefix}"


def download(s3, url: str, folder: Path) -> Path:
    """Copy every file of the output at ``url`` (hidden ones included) into ``folder``."""
    folder.mkdir()
    for name in s3.ls(url, detail=False):
        s3.get(name, str(folder / name.rsplit("/", 1)[-1]))
    return folder


def part_count(s3, url: str) -> int:
    """The parts written at ``url`` so far."""
    try:
        return sum("/part-" in name for name in s3.ls(url))
    except FileNotFoundError:
        return 0


def run(inputs, output, **settings) -> dict:
    return solve_dataset(inputs, output, load_settings(**settings), progress=False)


def rows(folder: Path) -> pa.Table:
    """Every row in part order, without what depends on time or on where the input was."""
    return runs.rows(folder).drop_columns(["source"])


def numbers(summary) -> dict:
    return {key: value for key, value in summary.to_dict().items() if key not in PLACES}


def test_a_run_from_s3_to_s3_equals_the_local_run(tmp_path, s3, bucket, local_inputs):
    options = {"workers": 2, "batch_size": 40}
    local = run([local_inputs[0].parent], tmp_path / "local", **options)
    inputs = upload(s3, local_inputs, f"{bucket}/inputs")
    on_s3 = run([inputs], f"s3://{bucket}/runs/one", **options)

    output = download(s3, f"s3://{bucket}/runs/one", tmp_path / "s3")
    assert rows(output).equals(rows(tmp_path / "local"))
    assert numbers(on_s3) == numbers(local)
    assert on_s3.directory == f"s3://{bucket}/runs/one"
    assert [entry.path for entry in on_s3.inputs] == [
        f"{inputs}/{file.name}" for file in local_inputs
    ]
    assert runs.rows(output).column("source")[0].as_py() == f"{inputs}/a_kaggle.csv"
    # Only the program's files: no lock object is left, and nothing temporary was written.
    assert sorted(p.name for p in output.iterdir() if not p.name.startswith("part-")) == [
        "_manifest.parquet",
        "_summary.parquet",
    ]
    assert read_summary(output) == on_s3
    assert numbers(summarize(f"s3://{bucket}/runs/one")) == numbers(on_s3)
    # Analytics read the output where it is: polars finds the endpoint in the same variables.
    counts = pl.scan_parquet(f"s3://{bucket}/runs/one/part-*.parquet").group_by("status").len()
    assert dict(counts.collect().iter_rows()) == {
        status: count for status, count in on_s3.numbers.status.items() if count
    }


@pytest.mark.slow
def test_a_killed_run_on_s3_continues_where_it_stopped(tmp_path, s3, bucket, slow):
    dataset, reference = slow
    url = f"s3://{bucket}/slow"
    args = runs.command(dataset, url, *runs.SLOW_OPTIONS, "--workers", "2")
    process = runs.start(args)
    deadline = time.monotonic() + 60
    while part_count(s3, url) < 3:
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)  # no clean-up at all: the lock object stays behind
    process.communicate()
    assert s3.exists(f"{bucket}/slow/{LOCK}")
    parts_at_kill = part_count(s3, url)
    assert 0 < parts_at_kill < runs.SLOW_PARTS

    code, stderr = runs.run_here(args)  # takes over the lock of the dead run on this host
    assert code == 0, stderr
    summary = read_summary(url)
    assert summary.resumed_rows >= parts_at_kill * 6 - 6
    runs.assert_same_run(download(s3, url, tmp_path / "s3"), reference)


def test_a_lock_object_of_a_live_run_refuses_another_run(tmp_path, s3, bucket, euler_txt, cli):
    url = f"s3://{bucket}/busy"
    holder = {"host": "worker-7", "pid": 4242, "token": "x", "since": "2026-11-22 05:00:00 UTC"}
    s3.pipe_file(f"{bucket}/busy/{LOCK}", json.dumps(holder).encode())
    result = cli("solve-dataset", euler_txt, "-o", url, "--quiet")
    assert result.exit_code == 2
    message = result.output.strip()
    assert "in use by another sudoku-pipeline run (on worker-7, pid 4242" in message
    assert f"delete {url}/{LOCK} and rerun" in message
    assert "\n" not in message and "Traceback" not in message
    # On this host, a holder that is alive (this test process) refuses too...
    holder.update(host=socket.gethostname(), pid=os.getpid())
    s3.pipe_file(f"{bucket}/busy/{LOCK}", json.dumps(holder).encode())
    assert cli("solve-dataset", euler_txt, "-o", url, "--quiet").exit_code == 2
    # ...and one that has ended is taken over, then released.
    holder["pid"] = _ended_pid()
    s3.pipe_file(f"{bucket}/busy/{LOCK}", json.dumps(holder).encode())
    assert cli("solve-dataset", euler_txt, "-o", url, "--quiet").exit_code == 0
    assert not s3.exists(f"{bucket}/busy/{LOCK}")


@pytest.mark.slow  # a LocalCluster of its own (its workers need this module's variables), 10 s
def test_the_dask_engine_reads_and_writes_s3(tmp_path, s3, bucket, local_inputs):
    """The batches of the local inputs travel in their tasks; those of the Parquet file on S3
    are read by the workers."""
    pytest.importorskip("distributed")
    options = {"workers": 2, "batch_size": 40}
    local = run(local_inputs, tmp_path / "local", **options)
    settings = {**local.settings.to_dict(), "engine": "dask"}
    parquet = upload(s3, local_inputs[2:3], f"{bucket}/inputs")
    inputs = [*local_inputs[:2], f"{parquet}/{local_inputs[2].name}", local_inputs[3]]
    assert worker_batches(inspect_input(inputs[2]), 40)  # whole row groups: workers read them
    for url, given in ((f"s3://{bucket}/dask", local_inputs), (f"s3://{bucket}/read", inputs)):
        on_dask = run(given, url, engine="dask", **options)
        assert rows(download(s3, url, tmp_path / url.rsplit("/", 1)[1])).equals(
            rows(tmp_path / "local"))
        assert numbers(on_dask) == {**numbers(local), "engine": "dask", "settings": settings}


def test_s3_mistakes_are_one_line_errors(tmp_path, s3, bucket, euler_txt, cli):
    def error(*args) -> str:
        result = cli("solve-dataset", *args, "--quiet")
        assert result.exit_code == 2, result.output
        assert "Traceback" not in result.output and result.output.count("\n") == 1
        return result.output

    assert f"input not found: s3://{bucket}/nothing.csv" in error(f"s3://{bucket}/nothing.csv")
    assert "create the bucket first" in error(euler_txt, "-o", "s3://no-such-bucket-here/out")
    s3.pipe_file(f"{bucket}/in/notes.md", b"hello")
    assert "holds no .csv" in error(f"s3://{bucket}/in", "-o", tmp_path / "out")
    s3.pipe_file(f"{bucket}/out/notes.md", b"hello")
    assert "did not write (e.g. notes.md)" in error(euler_txt, "-o", f"s3://{bucket}/out")
    upload(s3, [euler_txt], f"{bucket}/both")
    assert "inside the output directory" in error(f"s3://{bucket}/both", "-o", f"s3://{bucket}")


def test_other_urls(tmp_path, euler_txt, cli, monkeypatch):
    """file:// is a local path; memory:// cannot be shared with workers; an unknown protocol
    or a missing fsspec is named."""
    out = tmp_path / "out"
    result = cli("solve-dataset", euler_txt.as_uri(), "-o", out.as_uri(), "--quiet")
    assert result.exit_code == 0, result.output
    assert (out / SUMMARY_FILE).is_file()
    assert storage.location(out.as_uri()) == str(out)

    result = cli("solve-dataset", euler_txt, "-o", "memory://out", "--quiet")
    assert result.exit_code == 2 and "private to this process" in result.output
    result = cli("solve-dataset", "nosuch://bucket/x.csv", "-o", out, "--quiet")
    assert result.exit_code == 2 and "nosuch://bucket/x.csv" in result.output
    assert "Traceback" not in result.output

    # As if s3fs were not installed (in a new process: fsspec keeps the classes it has loaded).
    without_s3fs = "import sys; sys.modules['s3fs'] = None; from pipeline.cli import main; main()"
    result = subprocess.run(
        [sys.executable, "-c", without_s3fs, "solve-dataset", "s3://bucket/x.csv", "-o", out],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 2
    assert result.stderr == (
        "error: cannot use s3://bucket/x.csv: Install s3fs to access S3 (pip install \".[s3]\")\n"
    )
    monkeypatch.setitem(sys.modules, "fsspec", None)  # as if fsspec were not installed
    with pytest.raises(PipelineError, match=r"needs fsspec; pip install \".\[s3\]\""):
        storage.kind("s3://bucket/x.csv")


def _ended_pid() -> int:
    """The pid of a process that has ended (and been reaped)."""
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_inputs_from_a_web_server(tmp_path, euler_txt, kaggle_csv):
    """https:// datasets are read as they are published (fsspec's HTTP filesystem)."""
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(DATA))
    handler.log_message = lambda *args: None
    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{server.server_address[1]}"
        try:
            over_http = run([f"{base}/{euler_txt.name}", f"{base}/{kaggle_csv.name}"],
                            tmp_path / "http", batch_size=10)
            with pytest.raises(PipelineError, match="input not found: http://.*/nothing.txt"):
                run([f"{base}/nothing.txt"], tmp_path / "none")
        finally:
            server.shutdown()
    local = run([euler_txt, kaggle_csv], tmp_path / "local", batch_size=10)
    assert rows(tmp_path / "http").equals(rows(tmp_path / "local"))
    assert numbers(over_http) == numbers(local)
    assert over_http.inputs[0].path == f"{base}/{euler_txt.name}"


@pytest.mark.slow  # about 20 s: the S3 client retries before it gives up
def test_an_object_store_that_goes_away_mid_run_is_a_one_line_error(tmp_path, s3_server):
    with local_s3() as server:  # a server of its own, to kill (this one's variables meanwhile)
        s3 = s3fs.S3FileSystem(use_listings_cache=False, skip_instance_cache=True)
        s3.mkdir("going-away")
        dataset = runs.write_slow_dataset(tmp_path / "slow.txt")
        # Ten times the slow dataset's budget: seconds of solving, so the store goes away
        # mid-run (at its own budget the run could be writing its last parts by then).
        options = (*runs.SLOW_OPTIONS, "--max-nodes", str(10 * runs.SLOW_MAX_NODES))
        process = runs.start(runs.command(dataset, "s3://going-away/out", *options))
        deadline = time.monotonic() + 60
        while part_count(s3, "s3://going-away/out") < 3:
            assert process.poll() is None and time.monotonic() < deadline, process.communicate()
            time.sleep(0.05)
        server.process.kill()
        _, stderr = process.communicate(timeout=300)
    assert process.returncode == 2, stderr
    # A part's write fails, or the read back of one just written (it was a traceback)
    assert stderr.startswith(("error: cannot write s3://going-away/out/part-",
                              "error: cannot read s3://going-away/out/part-")), stderr
    assert "Could not connect to the endpoint URL" in stderr
    assert stderr.endswith("the parts already written are kept: rerun the same command once this "
                           "is fixed, to continue\n")
    assert stderr.count("\n") == 1
