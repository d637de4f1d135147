"""Fan-out of units of work over a pool of worker processes.

One worker runs in-process (no pool, no pickling). Several run in a
``concurrent.futures.ProcessPoolExecutor`` (the standard library's pool over
``multiprocessing``, which, unlike ``multiprocessing.Pool``, notices a worker that died
instead of waiting for it for ever). At most two units per worker are in flight, so the
parent never reads far ahead of the workers and its memory stays bounded.
"""

from __future__ import annotations

import multiprocessing
import signal
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from pipeline.errors import PipelineError

U = TypeVar("U")
R = TypeVar("R")
IN_FLIGHT_PER_WORKER = 2


def run_units(
    function: Callable[[U], R],
    units: Iterable[U],
    *,
    workers: int,
    on_result: Callable[[R], None],
    engine: str = "local",
    scheduler: str = "",
) -> None:
    """Call ``function`` on every unit, in ``workers`` processes, and ``on_result`` (in this
    process) on each result as it arrives, in completion order.

    The first exception raised by ``function`` or by iterating ``units`` stops the run:
    units not yet started are cancelled, and the exception is raised here.
    ``engine="dask"`` runs the units on a Dask cluster instead (``pipeline.dask_engine``:
    the scheduler at ``scheduler``, or a LocalCluster of ``workers`` processes).
    """
    if engine == "dask":
        from pipeline.dask_engine import run_units as run_units_on_dask

        run_units_on_dask(function, units, workers=workers, scheduler=scheduler, on_result=on_result)
        return
    if workers <= 1:
        for unit in units:
            on_result(function(unit))
        return
    pool = ProcessPoolExecutor(
        max_workers=workers, mp_context=_context(), initializer=_ignore_interrupts
    )
    try:
        # Start every worker now, before this process reads any input: with "fork" the
        # children then copy a process that has no reader threads running yet.
        pool.submit(_ready).result()
        pending: set[Future] = set()
        for unit in units:
            pending.add(pool.submit(function, unit))
            if len(pending) >= IN_FLIGHT_PER_WORKER * workers:
                pending = _collect(pending, on_result, FIRST_COMPLETED)
        while pending:
            pending = _collect(pending, on_result, FIRST_COMPLETED)
    except BrokenProcessPool:
        raise PipelineError(
            "a worker process died (killed, or out of memory?); finished parts are kept; "
            "rerun, perhaps with fewer --workers or a smaller --batch-size"
        ) from None
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _collect(pending: set[Future], on_result: Callable[[Any], None], when: str) -> set[Future]:
    done, pending = wait(pending, return_when=when)
    for future in done:
        on_result(future.result())
    return pending


def _context() -> multiprocessing.context.BaseContext:
    """Fork where available: the children start at once, sharing the parent's imported
    modules and compiled solver, instead of importing everything again."""
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def _ignore_interrupts() -> None:
    """Workers leave Ctrl-C to the parent, which stops handing out work."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _ready() -> bool:
    return True
