"""The Dask engine: the same units of work as the local engine, run on a Dask cluster.

``DaskEngine.run`` keeps the contract of ``pipeline.engines.contract``, so everything
``pipeline.run`` does around the fan-out (reading ahead, the progress bar, the stats,
resuming, the time limit, reporting missing rows) is the same for both engines.

Units go to the cluster with ``distributed.Client.submit`` and come back with
``distributed.as_completed``; at most ``IN_FLIGHT_PER_WORKER`` units per worker thread are in
flight, so this process never reads far ahead of the cluster. Without a scheduler address a
``LocalCluster`` of ``workers`` single-threaded processes is started and closed here.

Worker loss is Dask's to handle: a task whose worker dies is rescheduled on another worker
(up to ``distributed.scheduler.allowed-failures`` times, then ``KilledWorker``: the unit is
given up), and a unit that raises is retried by Dask (``retries=``), ``ATTEMPTS`` runs in
all as in the local engine, then given up. Retries are idempotent: a part has a deterministic
name and is complete or absent (a temporary file renamed, or one whole upload to an object
store: ``pipeline.storage``), so a batch solved twice leaves one complete part.

A batch travels inside its task, but for a Parquet input at a URL (an object store, which every
worker reaches as the output), or any Parquet input on a ``LocalCluster``: its workers read
their rows of it themselves (``reads_in_workers``), so this process does not stream the data
through the scheduler.

``dask`` is imported only when this engine runs; without it, ``missing_dask`` says how to
install it.
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
import time
import uuid
from collections.abc import Iterable, Iterator
from concurrent.futures import CancelledError
from typing import TYPE_CHECKING, Any

from pipeline import storage
from pipeline.engines.contract import (
    ATTEMPTS,
    IN_FLIGHT_PER_WORKER,
    Engine,
    Failure,
    OnResult,
    Outcome,
    UnitFunction,
    accept,
    run_checked,
)
from pipeline.errors import PipelineError, one_line
from pipeline.provenance import installed

if TYPE_CHECKING:
    from pipeline.work import Unit

CONNECT_TIMEOUT = "10s"  # to reach the scheduler
WORKERS_TIMEOUT = 60  # seconds to wait for a cluster's first worker
POLL_SECONDS = 0.05  # how often a deadline-bound wait looks for a finished unit
INSTALL_HINT = 'pip install ".[dask]" (or pip install "dask[distributed]")'


def missing_dask() -> str | None:
    """Why the Dask engine cannot run here (a one-line message), or None when it can."""
    if importlib.util.find_spec("distributed") is None:
        return f"engine dask needs Dask, which is not installed; {INSTALL_HINT}"
    return None


class DaskEngine(Engine):
    """The scheduler at ``scheduler`` (``tcp://HOST:8786``), or, when it is empty, a new
    ``LocalCluster`` of ``workers`` processes with one thread each, closed at the end."""

    name = "dask"

    def __init__(self, *, workers: int, function: UnitFunction, scheduler: str = ""):
        super().__init__(workers=workers, function=function)
        self.scheduler = scheduler

    def check(self) -> None:
        if missing := missing_dask():
            raise PipelineError(missing)

    def _lost(self, err: BaseException) -> PipelineError:
        where = f"at {self.scheduler}" if self.scheduler else "of the LocalCluster"
        return PipelineError(
            f"lost the Dask scheduler {where} ({type(err).__name__}: {one_line(err)}); the parts "
            "finished so far are kept: once the scheduler and its workers run again, rerun the "
            "same command to continue"
        )

    def reads_in_workers(self, path: str) -> bool:
        # A LocalCluster's workers are on this machine; a scheduler's may be on others, where a
        # local path is not this file.
        return not self.scheduler or storage.is_url(path)

    def run(self, units: Iterable[Unit], on_result: OnResult, *,
            deadline: float | None = None) -> Outcome:
        """Raises ``PipelineError`` when Dask is missing, the scheduler cannot be reached, a
        unit returns one, or a part is missing or incomplete."""
        try:
            import distributed
        except ImportError:
            raise PipelineError(missing_dask() or f"cannot import Dask; {INSTALL_HINT}") from None
        # Keys of this run never meet an older run's on a shared scheduler.
        run_id = uuid.uuid4().hex[:8]
        # The client logs every failed reconnection with a traceback; a lost scheduler is
        # reported here, in one line.
        for name in ("distributed.client", "distributed.core", "distributed.comm"):
            logging.getLogger(name).setLevel(logging.CRITICAL)
        outcome = Outcome()
        expected = installed()
        with _client(distributed, self.scheduler, self.workers) as client:
            pending: dict[str, tuple[Any, Unit]] = {}  # future and its unit, by key
            completed = distributed.as_completed(loop=client.loop)

            progressed = []  # a result that is progress came (the deadline counts)

            def collect(future) -> None:
                _, unit = pending.pop(future.key)
                try:
                    result = _result(future, unit, distributed, client)
                finally:
                    future.release()
                if isinstance(result, Failure):
                    outcome.failures.append(result)
                else:
                    if on_result(unit, accept(unit, result)) is not False:
                        progressed.append(unit)

            def drain(limit: int) -> bool:
                """Collect finished units until at most ``limit`` are in flight; False when
                the deadline comes first."""
                while len(pending) > limit:
                    if past_deadline() or (deadline is not None and progressed
                                           and not _ready_by(completed, deadline)):
                        return False
                    collect(next(completed))
                return True

            def past_deadline() -> bool:
                """Past the deadline, once a result was progress (the engine contract)."""
                return deadline is not None and bool(progressed) and time.monotonic() >= deadline

            try:
                for unit in units:
                    room = drain(IN_FLIGHT_PER_WORKER * _threads(client) - 1)
                    if not room or past_deadline():
                        outcome.stopped = True
                        break
                    future = _submit(client, self.function, unit, run_id, expected)
                    pending[future.key] = (future, unit)
                    completed.add(future)
                else:
                    outcome.stopped = not drain(0)
            except PipelineError:
                raise
            except (OSError, TimeoutError, CancelledError, distributed.comm.CommClosedError) as err:
                raise self._lost(err) from None
            finally:
                if pending and client.status == "running":  # stopped early: drop the rest
                    client.cancel([future for future, _ in pending.values()])
        return outcome


def _scheduler_lost(client) -> bool:
    return client.status != "running"


def _ready_by(completed, deadline: float) -> bool:
    """Wait until one of the futures of ``completed`` (``distributed.as_completed``) is done,
    or until ``deadline`` (``time.monotonic()``); whether one is. (Polled: ``distributed.wait``
    needs a default client, and the run's is not one.)"""
    while not completed.has_ready():
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        time.sleep(min(POLL_SECONDS, left))
    return True


@contextlib.contextmanager
def _client(distributed, scheduler: str, workers: int) -> Iterator[Any]:
    """A client of the scheduler at ``scheduler``, or of a new LocalCluster of ``workers``."""
    if scheduler:
        try:
            client = distributed.Client(scheduler, timeout=CONNECT_TIMEOUT, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as err:
            raise PipelineError(
                f"cannot reach the Dask scheduler at {scheduler} ({one_line(err)}); start it with "
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
        # A worker silent this long (stopped, hung) is removed and its batches rescheduled,
        # as the local engine kills a worker whose heartbeat is silent for 60 s.
        "distributed.scheduler.worker-ttl": "60s",
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


def _submit(client, function: UnitFunction, unit: Unit, run_id: str, expected: dict[str, str]):
    """Submit one unit under a readable, unique key, with Dask's retries."""
    key = f"{function.__name__}-{unit.part.file_index:05d}-{unit.part.batch_index:06d}-{run_id}"
    # A unit carries its batch (megabytes), by design, unless its worker reads it from an object
    # store: the worker needs nothing but the output directory. Dask's advice to load data
    # through Dask instead does not apply.
    with _dask_config({"distributed.admin.large-graph-warning-threshold": "4GiB"}):
        return client.submit(
            run_checked, function, unit, expected, key=key, retries=ATTEMPTS - 1, pure=False
        )


def _threads(client) -> int:
    """Worker threads on the cluster now (it may grow or shrink during a run), at least 1."""
    return max(1, sum(client.nthreads().values()))


def _result(future, unit: Unit, distributed, client) -> Any:
    """What a finished unit returned (stats or a ``PipelineError``), or a ``Failure`` when it
    was given up. A unit cancelled because the scheduler went away is no failure of its own:
    that is raised, for ``run`` to report."""
    try:
        return future.result()
    except CancelledError:
        raise
    except distributed.KilledWorker as err:
        attempts = getattr(err, "allowed_failures", ATTEMPTS - 1) + 1
        return Failure(unit, "its Dask worker died each time it ran (out of memory?)", attempts)
    except Exception as err:  # raised by the unit on every attempt, unless the scheduler went away
        if _scheduler_lost(client):
            raise
        return Failure(unit, f"{type(err).__name__}: {one_line(err)}", ATTEMPTS)

