"""The Dask engine: the same units of work as ``pipeline.pool``, run on a Dask cluster.

``run_units`` has the contract of ``pipeline.pool.run_units``: call ``solve_part`` on every
unit and ``on_result`` (in this process) on each result as it arrives, in completion order;
return the units that kept failing as ``pipeline.pool.Failure``; a ``PipelineError`` (from
a unit or from iterating the units) stops the run. So everything ``pipeline.run`` does
around the fan-out (reading ahead, the progress bar, the merge of stats, resuming: skipping
the parts already done, the time limit, reporting missing rows) is the same for both engines.

Units go to the cluster with ``distributed.Client.submit`` and come back with
``distributed.as_completed``; at most two units per worker thread are in flight, so this
process never reads far ahead of the cluster. Without a scheduler address a
``LocalCluster`` of ``workers`` single-threaded processes is started and closed here.

Worker loss is Dask's to handle: a task whose worker dies is rescheduled on another worker
(up to ``distributed.scheduler.allowed-failures`` times, then ``KilledWorker``: the unit is
given up), and a unit that raises is retried by Dask (``retries=``), ``ATTEMPTS`` runs in
all as in the local pool, then given up. A ``PipelineError`` is about the run, not the unit
(the disk is full), so it is passed back as a value, not retried, and stops the run.
Retries are idempotent: a part has a deterministic name and is complete or absent (a
temporary file renamed, or one whole upload to an object store: ``pipeline.storage``), so a
batch solved twice leaves one complete part. Before a result is counted,
this process checks that its part exists, is complete and holds the unit's rows, which also
catches an output directory that the workers do not share with this machine. And a worker
runs a unit only when its installation computes rows as this machine's does (the digest of
the code that decides a row, and the versions of the package and its libraries); a worker
with other code stops the run instead of writing different rows.

``dask`` is imported only when this engine runs; without it, ``missing_dask`` says how to
install it.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import json
import socket
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from pipeline import storage
from pipeline.errors import PipelineError
from pipeline.pool import ATTEMPTS, IN_FLIGHT_PER_WORKER, Failure
from pipeline.work import PART_METADATA_KEY, Unit

CONNECT_TIMEOUT = "10s"  # to reach the scheduler
WORKERS_TIMEOUT = 60  # seconds to wait for a cluster's first worker
INSTALL_HINT = 'pip install ".[dask]" (or pip install "dask[distributed]")'


@dataclass(frozen=True)
class Expected:
    """What a unit's part must be once solved: where it is and what its metadata says
    (the ``sudoku_pipeline.part`` entry that ``solve_part`` writes)."""

    path: str
    info: dict[str, Any]

    @classmethod
    def of(cls, unit: Unit) -> Expected:
        rows = pa.ipc.open_stream(unit.batch).read_all().num_rows  # zero-copy over the bytes
        info = {
            "source": unit.source,
            "file_index": unit.file_index,
            "batch_index": unit.batch_index,
            "first_row": unit.row_offset,
            "rows": rows,
        }
        return cls(unit.part_path, info)

    @property
    def name(self) -> str:
        first, rows = self.info["first_row"], self.info["rows"]
        return (
            f"batch {self.info['batch_index']} of {self.info['source']} "
            f"(rows {first} to {first + rows - 1})"
        )

    def check(self, stats: dict[str, Any]) -> None:
        """Raise ``PipelineError`` unless the part is there, complete, with the unit's rows."""
        import pyarrow.parquet as pq

        try:
            with storage.arrow_source(self.path) as source:
                metadata = pq.read_metadata(source)
        except FileNotFoundError:
            raise PipelineError(
                f"a Dask worker solved {self.name}, but its part {self.path} is not there as seen "
                "from this machine: the output directory must be on a filesystem that this machine "
                "and every worker share, at the same path or URL"
            ) from None
        except (OSError, pa.ArrowException) as err:
            raise PipelineError(f"cannot read part {self.path} back: {_one_line(err)}") from None
        written = json.loads((metadata.metadata or {}).get(PART_METADATA_KEY, b"null"))
        rows = self.info["rows"]
        if written != self.info or metadata.num_rows != rows or stats.get("rows") != rows:
            raise PipelineError(
                f"part {self.path} does not hold {self.name} (it says {written}, "
                f"{metadata.num_rows} rows); was the output directory written by another run "
                "at the same time? rerun with --overwrite"
            )


def missing_dask() -> str | None:
    """Why the Dask engine cannot run here (a one-line message), or None when it can."""
    if importlib.util.find_spec("distributed") is None:
        return f"engine dask needs Dask, which is not installed; {INSTALL_HINT}"
    return None


def run_units(
    function: Callable[[Unit], dict[str, Any]],
    units: Iterable[Unit],
    *,
    workers: int,
    scheduler: str,
    on_result: Callable[[dict[str, Any]], None],
) -> list[Failure[Unit]]:
    """Call ``function`` on every unit on a Dask cluster and ``on_result`` on each result;
    return the units given up (they kept failing or killing their workers).

    ``scheduler``: the address of a running scheduler (``tcp://HOST:8786``); empty starts
    a ``LocalCluster`` of ``workers`` processes with one thread each, closed at the end.
    Raises ``PipelineError`` when Dask is missing, the scheduler cannot be reached, a unit
    raises one, or a part is missing or incomplete.
    """
    try:
        import distributed
    except ImportError:
        raise PipelineError(missing_dask() or f"cannot import Dask; {INSTALL_HINT}") from None
    run_id = uuid.uuid4().hex[:8]  # keys of this run never meet an older run's on a shared scheduler
    failures: list[Failure[Unit]] = []
    with _client(distributed, scheduler, workers) as client:
        pending: dict[str, tuple[Any, Unit]] = {}  # future and its unit, by key
        completed = distributed.as_completed(loop=client.loop)

        def collect(future) -> None:
            _, unit = pending.pop(future.key)
            try:
                outcome = _outcome(future, unit, distributed)
            finally:
                future.release()
            if isinstance(outcome, Failure):
                failures.append(outcome)
            else:
                on_result(outcome)

        try:
            for unit in units:
                future = _submit(client, function, unit, run_id)
                pending[future.key] = (future, unit)
                completed.add(future)
                while len(pending) >= IN_FLIGHT_PER_WORKER * _threads(client):
                    collect(next(completed))
            for future in completed:
                collect(future)
        finally:
            if pending:  # stopped early: drop what has not run yet
                client.cancel([future for future, _ in pending.values()])
    return failures


@contextlib.contextmanager
def _client(distributed, scheduler: str, workers: int) -> Iterator[Any]:
    """A client of the scheduler at ``scheduler``, or of a new LocalCluster of ``workers``."""
    if scheduler:
        try:
            client = distributed.Client(scheduler, timeout=CONNECT_TIMEOUT, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as err:
            raise PipelineError(
                f"cannot reach the Dask scheduler at {scheduler} ({_one_line(err)}); start it with "
                "`dask scheduler` and its workers with `dask worker`, or check --scheduler"
            ) from None
        with client:
            _wait_for_workers(client, scheduler)
            yield client
        return
    # A unit whose workers keep dying is given up after ATTEMPTS runs, as in the local pool
    # (a remote scheduler has its own settings). Worker saturation 1.0: a worker holds only the
    # unit it runs, so a unit that kills its worker never takes an innocent queued unit's
    # allowed failures with it.
    settings = {
        "distributed.scheduler.allowed-failures": ATTEMPTS - 1,
        "distributed.scheduler.worker-saturation": 1.0,
    }
    with _dask_config(settings):
        cluster = distributed.LocalCluster(
            n_workers=max(workers, 1),
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",  # any free port: a fixed one clashes with other clusters here
        )
    with cluster, distributed.Client(cluster, set_as_default=False) as client:
        client.register_plugin(_ignore_interrupts(distributed), name="sudoku-pipeline-ignore-sigint")
        yield client


def _ignore_interrupts(distributed):
    """A worker plugin: the worker ignores SIGINT, as the local pool's workers do.

    Ctrl-C in a terminal reaches every process of the group, the LocalCluster's workers
    included; an interrupted worker is only killed after seconds, while this process stops
    the run anyway (cancelling what is left and closing the cluster). Registered plugins
    also run on workers that a nanny restarts. (Defined here, not at the top level, so that
    this module does not import Dask; cloudpickle ships the class by value.)
    """

    class IgnoreInterrupts(distributed.WorkerPlugin):
        idempotent = True

        def setup(self, worker) -> None:
            import signal
            import threading

            if threading.current_thread() is threading.main_thread():
                signal.signal(signal.SIGINT, signal.SIG_IGN)

    return IgnoreInterrupts()


def _wait_for_workers(client, scheduler: str) -> None:
    try:
        client.wait_for_workers(1, timeout=WORKERS_TIMEOUT)
    except TimeoutError:
        raise PipelineError(
            f"the Dask scheduler at {scheduler} has no workers after {WORKERS_TIMEOUT} s; start "
            f"some with `dask worker {scheduler} --nthreads 1 --nworkers N`"
        ) from None


def _dask_config(values: dict[str, Any]):
    import dask

    return dask.config.set(values)


def _submit(client, function: Callable, unit: Unit, run_id: str):
    """Submit one unit under a readable, unique key, with Dask's retries."""
    key = f"{function.__name__}-{unit.file_index:05d}-{unit.batch_index:06d}-{run_id}"
    # A unit carries its batch (megabytes), by design: the worker needs nothing but the
    # output directory. Dask's advice to load data through Dask instead does not apply.
    with _dask_config({"distributed.admin.large-graph-warning-threshold": "4GiB"}):
        return client.submit(
            run_unit, function, unit, installed(), key=key, retries=ATTEMPTS - 1, pure=False
        )


def run_unit(function: Callable[[Unit], dict[str, Any]], unit: Unit, expected: dict[str, str]) -> Any:
    """``function(unit)`` on a worker whose installation is the ``expected`` one.

    A ``PipelineError`` is returned, not raised, so that Dask does not retry it: it is
    about the run (a full disk, a worker with other code), and stops it.
    """
    try:
        found = installed()
        if found != expected:
            different = sorted(key for key in expected if found.get(key) != expected[key])
            raise PipelineError(
                f"the Dask worker on {socket.gethostname()} runs other code than this machine "
                f"(different: {', '.join(different)}; its sudoku-pipeline is "
                f"{found.get('sudoku_pipeline')}, here {expected.get('sudoku_pipeline')}); "
                "install the same sudoku-pipeline and libraries on every machine"
            )
        return function(unit)
    except PipelineError as err:
        return err


@functools.cache
def installed() -> dict[str, str]:
    """What decides a row, as installed in this process: the digest of the code that computes
    rows and the versions of the package and its libraries (computed once per process)."""
    from pipeline.run import code_digest, versions

    return {"code": code_digest(), **versions()}


def _threads(client) -> int:
    """Worker threads on the cluster now (it may grow or shrink during a run), at least 1."""
    return max(1, sum(client.nthreads().values()))


def _outcome(future, unit: Unit, distributed) -> dict[str, Any] | Failure[Unit]:
    """The stats of a finished unit, its part checked, or a ``Failure`` when it was given up;
    raises the ``PipelineError`` a unit returned."""
    try:
        result = future.result()
    except distributed.KilledWorker as err:
        attempts = getattr(err, "allowed_failures", ATTEMPTS - 1) + 1
        return Failure(unit, "its Dask worker died each time it ran (out of memory?)", attempts)
    except Exception as err:  # raised by the unit on every attempt
        return Failure(unit, f"{type(err).__name__}: {_one_line(err)}", ATTEMPTS)
    if isinstance(result, PipelineError):
        raise result
    Expected.of(unit).check(result)
    return result


def _one_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return text[0] if text else type(err).__name__
