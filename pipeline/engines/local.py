"""The local engine: units of work on a pool of worker processes on this machine.

Units run in a ``concurrent.futures.ProcessPoolExecutor`` (the standard library's pool over
``multiprocessing``, which, unlike ``multiprocessing.Pool``, notices a worker that died
instead of waiting for it for ever), even with one worker: the solver's compiled loop never
looks at signals, so only a solver in another process can be stopped promptly by Ctrl-C,
and only there can it crash or run out of memory without taking the run with it.
At most ``IN_FLIGHT_PER_WORKER`` units per worker are in flight, so the parent never reads far
ahead of the workers and its memory stays bounded.

Faults (the contract of ``pipeline.engines.contract``):

- A worker that dies (killed, out of memory, a crash) breaks the executor, which fails every
  unit in flight without saying which one killed it. The pool is rebuilt and those units,
  the suspects, run again one at a time, so a unit that kills its worker again is known to
  be the culprit. A unit that raises an exception is retried too. A unit that fails
  ``ATTEMPTS`` times is given up: it is returned as a ``Failure`` and the others go on.
- A worker that stops responding (stopped by SIGSTOP, hung, swapped out) would hold its batch
  for ever: each worker beats a heartbeat (a thread writing the time into memory shared with
  this process, every second, also while the compiled solver runs, which releases the GIL),
  and one silent for ``stall_seconds`` is killed, so that its batches take the way back of a
  worker that died.
- The executor's own thread in this process sends units and takes results; when an exception
  ends it (its queue cannot start a thread: "can't start new thread", out of address space)
  the executor does not notice, and its futures would wait for ever. The fan-out looks at
  that thread whenever it waits, and stops the run with a clean error that says why (the
  exception in one line, not a traceback); a rerun continues it.
- Stopping for any reason (Ctrl-C, the deadline) kills the workers at once rather than waiting
  for their batches; what they were writing is a temporary file (or an upload not yet
  made), never a part. Workers die with this process too, even on ``kill -9`` (Linux), so a
  killed run leaves no orphans.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import TYPE_CHECKING

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

PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>
HEARTBEAT_SECONDS = 1.0  # how often a worker says it is alive
STALL_SECONDS = 60.0  # a worker silent this long is killed (its batches run again)
log = logging.getLogger("pipeline")


class LocalEngine(Engine):
    """A process pool of ``workers`` processes on this machine; a worker whose heartbeat is
    silent for ``stall_seconds`` is killed."""

    name = "local"

    def __init__(self, *, workers: int, function: UnitFunction,
                 stall_seconds: float = STALL_SECONDS):
        super().__init__(workers=workers, function=function)
        self.stall_seconds = stall_seconds

    def reads_in_workers(self, path: str) -> bool:
        return True  # on this machine

    def run(self, units: Iterable[Unit], on_result: OnResult, *,
            deadline: float | None = None) -> Outcome:
        fan_out = _FanOut(self.function, self.workers, on_result, deadline, self.stall_seconds)
        try:
            fan_out.run(iter(units))
        except BaseException:
            fan_out.close(kill=True)
            raise
        fan_out.close(kill=fan_out.outcome.stopped)
        return fan_out.outcome


@dataclass
class _Task:
    unit: Unit
    attempts: int = 0


class _FanOut:
    """The state of one fan-out: the executor, the units in flight and the suspects."""

    def __init__(self, function: UnitFunction, workers: int, on_result: OnResult,
                 deadline: float | None, stall_seconds: float = STALL_SECONDS):
        self.function = function
        self.workers = workers
        self.on_result = on_result
        self.deadline = deadline
        self.heartbeats = _Heartbeats(workers, stall_seconds)
        self.expected = installed()  # computed before the fork: workers inherit it
        self.outcome = Outcome()
        self.progressed = False  # a result that is progress came (the deadline counts)
        self.pending: dict[Future, _Task] = {}
        self.suspects: deque[_Task] = deque()  # to run again, one at a time
        self.executor: ProcessPoolExecutor | None = None
        self.processes: list[multiprocessing.Process] = []
        self.thread_error = ""  # why the executor's thread ended, if an exception ended it
        self._hook_before: Callable[[threading.ExceptHookArgs], object] | None = None
        self._start()

    def run(self, units: Iterator[Unit]) -> None:
        more = True
        while True:
            if self._past_deadline():
                # Stopped, unless nothing is left to do: no unit in flight, to run again, or
                # to read.
                if self.pending or self.suspects or (more and next(units, None) is not None):
                    self.outcome.stopped = True
                return
            if self.suspects:
                if not self.pending:
                    self._submit(self.suspects.popleft())
            else:
                while more and len(self.pending) < IN_FLIGHT_PER_WORKER * self.workers:
                    unit = next(units, None)
                    if unit is None:
                        more = False
                    else:
                        self._submit(_Task(unit))
            if not self.pending:
                if not more and not self.suspects:
                    return
                continue
            done, _ = wait(self.pending, timeout=self._next_look(), return_when=FIRST_COMPLETED)
            stopped = "" if done else self._executor_stopped(self.pending)
            if stopped:
                raise PipelineError(
                    f"the worker pool stopped (out of memory? {stopped}); finished parts are "
                    "kept: rerun the same command, with fewer --workers, to continue"
                )
            self.heartbeats.kill_silent()
            if any(isinstance(future.exception(), BrokenProcessPool) for future in done):
                # Every unit in flight fails with the pool: wait for all of them to settle; read
                # how the worker died before the survivors are stopped, which would hide it.
                done, _ = wait(self.pending)
                death = self._death()
                self.close(kill=True)
                lost = sum(isinstance(future.exception(), BrokenProcessPool) for future in done)
                log.warning(
                    "a worker process died (%s) with %d batch(es) in flight; "
                    "they run again, one at a time",
                    death,
                    lost,
                )
                self._start()
                self._collect(done, death)
            else:
                self._collect(done)

    def close(self, *, kill: bool) -> None:
        """Shut the executor down; ``kill``: without waiting for the units in flight."""
        if self.executor is None:
            return
        if kill:
            for process in self.processes:
                if process.exitcode is None:
                    process.kill()
        with contextlib.suppress(RuntimeError):  # its thread never started: none to wait for
            self.executor.shutdown(wait=True, cancel_futures=True)
        self.executor = None
        if threading.excepthook == self._keep_thread_error:
            threading.excepthook = self._hook_before

    def _start(self) -> None:
        self.executor = ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=_context(),
            initializer=_init_worker,
            initargs=(os.getpid(), self.heartbeats.start()),
        )
        self.thread_error = ""
        if threading.excepthook != self._keep_thread_error:
            self._hook_before, threading.excepthook = threading.excepthook, self._keep_thread_error
        try:
            # Start every worker now, before this process reads any input: with "fork" the
            # children then copy a process that has no reader threads running yet.
            ready = self.executor.submit(_ready)
            while not wait([ready], timeout=HEARTBEAT_SECONDS).done:
                stopped = self._executor_stopped([ready])
                if stopped:
                    raise RuntimeError(stopped)
            ready.result()
        except RuntimeError as error:  # BrokenProcessPool, or a thread that could not start
            self._keep_processes()
            self.close(kill=True)
            raise PipelineError(
                f"cannot start worker processes (out of memory? {one_line(error)}); "
                "try fewer --workers"
            ) from None
        self._keep_processes()

    def _keep_processes(self) -> None:
        # The executor starts all its processes at once under "fork"; keep them to kill them
        # promptly and to read how they ended (the executor's own list is private).
        self.processes = list((getattr(self.executor, "_processes", None) or {}).values())

    def _keep_thread_error(self, args: threading.ExceptHookArgs) -> None:
        """``threading.excepthook`` while the pool runs: the exception that ends the executor's
        thread is kept in one line, to say why the run stopped; any other thread's goes to the
        hook that was there before."""
        if args.thread is not None and args.thread is self._executor_thread():
            self.thread_error = f"{args.exc_type.__name__}: {one_line(args.exc_value)}"
        elif self._hook_before is not None:
            self._hook_before(args)

    def _executor_thread(self) -> threading.Thread | None:
        # The executor's thread in this process, once a unit was submitted (private, as its
        # list of processes).
        return getattr(self.executor, "_executor_manager_thread", None)

    def _executor_stopped(self, futures: Iterable[Future]) -> str:
        """Why the executor's thread ended with ``futures`` still waiting, which nothing will
        complete then; "" while it runs. (It ends of itself when the pool breaks, after
        failing every future.)"""
        thread = self._executor_thread()
        if thread is None or thread.is_alive() or any(future.done() for future in futures):
            return ""
        return self.thread_error or "its thread in this process ended"

    def _past_deadline(self) -> bool:
        """Past the deadline, once a result was progress (see ``pipeline.engines.contract``)."""
        return self.deadline is not None and self.progressed and time.monotonic() >= self.deadline

    def _next_look(self) -> float:
        """Seconds to wait for a unit before looking at the heartbeats and the deadline."""
        look = HEARTBEAT_SECONDS
        if self.deadline is not None and self.progressed:
            look = min(look, max(0.0, self.deadline - time.monotonic()))
        return look

    def _submit(self, task: _Task) -> None:
        assert self.executor is not None
        try:
            future = self.executor.submit(run_checked, self.function, task.unit, self.expected)
            task.attempts += 1
        except BrokenProcessPool:
            # A worker died since the last look, and the executor refuses new work. A failed
            # future stands in for this unit, so that it takes the same way back as the units
            # in flight (a new pool, then a run of its own); not run, it used no attempt.
            future = Future()
            future.set_exception(BrokenProcessPool("the pool broke before this unit was sent"))
        self.pending[future] = task

    def _collect(self, done: Iterable[Future], death: str = "") -> None:
        # Results first: a unit's error may stop the run (an input that changed), and the parts
        # finished beside it must be known to the run by then (to be kept, or deleted).
        for future in sorted(done, key=_failed):
            task = self.pending.pop(future)
            error = future.exception()
            if error is None:
                if self.on_result(task.unit, accept(task.unit, future.result())) is not False:
                    self.progressed = True
            elif isinstance(error, BrokenProcessPool):
                self._retry(task, f"its worker process died ({death})", alone=True)
            elif isinstance(error, PipelineError):
                raise error
            elif isinstance(error, Exception):
                self._retry(task, f"{type(error).__name__}: {one_line(error)}", alone=False)
            else:  # KeyboardInterrupt or SystemExit in a worker: not the unit's fault
                raise error

    def _retry(self, task: _Task, reason: str, *, alone: bool) -> None:
        if task.attempts >= ATTEMPTS:
            log.warning("giving up a batch after %d attempts: %s", task.attempts, reason)
            self.outcome.failures.append(Failure(task.unit, reason, task.attempts))
        elif alone:
            self.suspects.append(task)
        else:
            self._submit(task)

    def _exit_codes(self, patience: float = 2.0) -> list[int]:
        """The exit codes of the pool's processes that ended, the executor's SIGTERM to the
        survivors of a broken pool last. A process that died may take a moment to be reaped:
        wait up to ``patience`` seconds for one that did not end by that SIGTERM."""
        deadline = time.monotonic() + patience
        while True:
            codes = [process.exitcode for process in self.processes if process.exitcode]
            codes.sort(key=lambda code: code == -signal.SIGTERM)
            if (codes and codes[0] != -signal.SIGTERM) or time.monotonic() >= deadline:
                return codes
            time.sleep(0.01)

    def _death(self) -> str:
        """How the workers of a broken pool ended, e.g. 'killed by SIGKILL'."""
        if self.heartbeats.killed:
            return (f"stopped responding: no heartbeat for {self.heartbeats.stall_seconds:g} s, "
                    "so it was killed")
        codes = self._exit_codes()
        if not codes:
            return "cause unknown"
        code = codes[0]
        if code < 0:
            name = signal.Signals(-code).name
            hint = {"SIGKILL": ": out of memory?", "SIGSEGV": ": a crash"}.get(name, "")
            return f"killed by {name}{hint}"
        return f"exit code {code}"


def _failed(future: Future) -> bool:
    """Whether a finished unit failed: raised, or returned the ``PipelineError`` that stops the
    run (``run_checked``)."""
    return future.exception() is not None or isinstance(future.result(), PipelineError)


def _context() -> multiprocessing.context.BaseContext:
    """Fork where available: the children start at once, sharing the parent's imported
    modules and compiled solver, instead of importing everything again."""
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def _init_worker(parent: int, heartbeats: tuple) -> None:
    """Workers leave Ctrl-C to the parent, which stops them; end quietly on SIGTERM (the pool
    stops them with it; the command's own handler, inherited by the fork, would print a
    traceback); die with the parent; and beat."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _die_with(parent)
    _Heartbeats.beat_in_this_worker(*heartbeats)


class _Heartbeats:
    """The last heartbeat of each worker of a pool, in memory shared with the workers.

    A worker takes a slot when it starts (``beat_in_this_worker``) and a thread of its own
    writes ``time.monotonic()`` (one clock for every process of the machine) there every
    ``HEARTBEAT_SECONDS``. ``kill_silent`` kills every worker silent for ``stall_seconds``.
    """

    def __init__(self, workers: int, stall_seconds: float):
        self.slots = workers
        self.stall_seconds = stall_seconds
        self.killed: list[int] = []

    def start(self) -> tuple:
        """New shared memory for a new pool; what its workers' initializer receives."""
        self.times = multiprocessing.Array(ctypes.c_double, self.slots, lock=False)
        self.pids = multiprocessing.Array(ctypes.c_int, self.slots, lock=False)
        self.taken = multiprocessing.Value(ctypes.c_int, 0)
        self.killed = []
        return self.times, self.pids, self.taken

    @staticmethod
    def beat_in_this_worker(times, pids, taken) -> None:
        with taken.get_lock():
            slot = taken.value
            taken.value += 1
        if slot >= len(times):  # not expected: the pool starts `workers` processes once
            return
        times[slot] = time.monotonic()  # before the pid: a slot is never read without a time
        pids[slot] = os.getpid()

        def beat() -> None:
            while True:
                times[slot] = time.monotonic()
                time.sleep(HEARTBEAT_SECONDS)

        threading.Thread(target=beat, name="heartbeat", daemon=True).start()

    def kill_silent(self) -> None:
        now = time.monotonic()
        for slot in range(min(self.taken.value, self.slots)):
            pid = self.pids[slot]
            if pid and pid not in self.killed and now - self.times[slot] > self.stall_seconds:
                log.warning("a worker process (pid %d) stopped responding: no heartbeat for "
                            "%g s; it is killed, and its batches run again", pid, self.stall_seconds)
                self.killed.append(pid)
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)


def _die_with(parent: int) -> None:
    """On Linux, have the kernel SIGKILL this process when its parent dies, so that a run
    killed with ``kill -9`` leaves no worker solving on (and writing into the output)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: orphans finish their batch and exit
        return
    if os.getppid() != parent:  # the parent died before prctl
        os._exit(1)


def _ready() -> bool:
    return True
