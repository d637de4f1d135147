"""What every engine promises, and the pieces of that promise they share.

An engine calls the unit function it is given (``pipeline.work.solve_part`` in a run) on every
unit, somewhere, and
``on_result(unit, stats)`` in this process on each result as it arrives. Whatever runs them:

- a unit that fails (raises, or its worker dies) is retried; one that fails ``ATTEMPTS`` times
  is given up and returned as a ``Failure``, and the other units go on;
- a ``PipelineError`` is about the run, not the unit (a full disk, a worker with other code):
  it stops the run and is raised from ``run``, as is any exception from iterating the units;
- a unit runs only where the installed code computes rows as here (``run_checked``);
- a result counts only once its part's footer is read back from here (``accept``);
- past ``deadline`` (``time.monotonic()``) no unit starts, the units in flight are stopped, and
  ``Outcome.stopped`` is true; they are neither done nor failed, and a rerun solves them. The
  deadline counts from the first result that is progress: a run under a time limit always
  leaves progress behind (at least one part kept), so that rerunning it always ends, even when
  one batch takes longer than the limit. A result is progress unless ``on_result`` returns
  False for it (a generated batch finished before the batch it must follow, which a stop
  would throw away).
"""

from __future__ import annotations

import abc
import socket
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pipeline.errors import PipelineError
from pipeline.part import PARTS_KEPT, read_footer
from pipeline.provenance import installed
from pipeline.stats import Stats

if TYPE_CHECKING:  # engines run any unit function on units; they need no more of pipeline.work
    from pipeline.work import Unit

ATTEMPTS = 3  # a unit runs at most this many times
IN_FLIGHT_PER_WORKER = 2  # units handed out per worker: the reader never runs far ahead

UnitFunction = Callable[["Unit"], Stats]
# Returns False when the result is no progress yet (see the module docstring), else None or True.
OnResult = Callable[["Unit", Stats], "bool | None"]


@dataclass
class Failure:
    """A unit given up after ``attempts`` runs, and why its last run failed."""

    unit: Unit
    reason: str
    attempts: int


@dataclass
class Outcome:
    """How a dispatch ended: the units given up, and whether the deadline stopped it."""

    failures: list[Failure] = field(default_factory=list)
    stopped: bool = False


class PartMissing(PipelineError):
    """A unit's part is not there, as seen from this process, right after it was written: the
    workers write somewhere this process does not see, or the directory changed under the run."""

    def __init__(self, unit: Unit):
        super().__init__(
            f"a worker solved {unit.part.describe()}, but its part {unit.path} is not there as "
            "seen from this machine: the output directory must be one that this machine and "
            "every worker share, at the same path or URL"
        )
        self.unit = unit


class Engine(abc.ABC):
    """Runs units of work on ``workers`` workers (see the module docstring for the contract)."""

    name = "engine"

    def __init__(self, *, workers: int, function: UnitFunction):
        self.workers = max(workers, 1)
        self.function = function

    def check(self) -> None:
        """Raise ``PipelineError`` when this engine cannot run here (before anything is written);
        every engine can run where this package is installed unless it says otherwise."""
        return None

    def reads_in_workers(self, path: str) -> bool:
        """Whether the workers can read their own rows of the input ``path``
        (``pipeline.work.Unit.source``) rather than be sent them: where they see it as this
        process does."""
        return False

    @abc.abstractmethod
    def run(self, units: Iterable[Unit], on_result: OnResult, *,
            deadline: float | None = None) -> Outcome:
        """Run every unit; return the units given up and whether the deadline stopped the run."""


def run_checked(function: UnitFunction, unit: Unit, expected: dict[str, str]) -> Stats | PipelineError:
    """``function(unit)`` in a worker whose installation is the ``expected`` one.

    A ``PipelineError`` is returned, not raised, so that no engine retries it: it is about
    the run (a full disk, a worker with other code), and stops it.
    """
    try:
        found = installed()
        if found != expected:
            different = sorted(key for key in expected if found.get(key) != expected[key])
            raise PipelineError(
                f"the worker on {socket.gethostname()} runs other code than this machine "
                f"(different: {', '.join(different)}; its sudoku-pipeline is "
                f"{found.get('sudoku_pipeline')}, here {expected.get('sudoku_pipeline')}); "
                "install the same sudoku-pipeline and libraries on every machine"
            )
        return function(unit)
    except PipelineError as err:
        return err


def accept(unit: Unit, result: Stats | PipelineError) -> Stats:
    """The stats of a finished unit once its part is read back from here: there, complete,
    holding the unit's rows. Raises the ``PipelineError`` a unit returned, or one saying what is
    wrong with the part (which also catches an output directory the workers do not share)."""
    if isinstance(result, PipelineError):
        raise result
    try:
        footer = read_footer(unit.path)
    except FileNotFoundError:
        raise PartMissing(unit) from None
    except PipelineError as err:  # the store went away, say: as a failed write would be
        raise PipelineError(f"{err}{PARTS_KEPT}") from None
    if not unit.holds(footer, result):
        raise PipelineError(
            f"part {unit.path} does not hold {unit.part.describe()} (it says {footer.info}, "
            f"{footer.num_rows} rows); was the output directory written by another run at the "
            "same time? rerun with --overwrite"
        )
    return result
