"""A run's warm-up (``pipeline.warm_up``) loads the kernels its options use and no others: a
9 x 9 run none of the any-size search's (16 x 16 and the other sizes), nor the measures it does
not ask for; and it says which modules compile, when some do."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Which solver modules have compiled code in a process after its warm-up: the modules whose
# dispatchers have signatures (compiled, or loaded from the cache: either way, what the run uses).
LOADED = """
import json, sys
from numba.core.registry import CPUDispatcher
from pipeline.warm_up import load_solver
from solver.options import SolveOptions

load_solver(SolveOptions(**json.loads(sys.argv[1])), quiet=True)
print(json.dumps(sorted({
    value.py_func.__module__
    for name, module in list(sys.modules.items()) if name.startswith("solver.compiled")
    for value in vars(module).values()
    if isinstance(value, CPUDispatcher) and value.signatures
})))
"""
COMPILED = "solver.compiled."
SEARCH_9X9, SEARCH, GRADE = (COMPILED + name for name in ("search_9x9", "search", "grade"))
MEASURES = {COMPILED + name for name in ("measures", "measures_9x9")}
NEVER_IN_A_RUN = {COMPILED + "generate"}  # only a generated run draws


def _loaded(**options) -> set[str]:
    done = subprocess.run([sys.executable, "-c", LOADED, json.dumps(options)], cwd=ROOT,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout))


def _se_modules(loaded: set[str]) -> set[str]:
    """The SE rating's kernels (``solver/compiled/se*.py``): only its own measure loads them."""
    return {name for name in loaded
            if re.fullmatch(r"se(_\w+)?", name.removeprefix(COMPILED))}


def test_a_9x9_run_loads_the_9x9_search_and_the_grade_and_nothing_else():
    loaded = _loaded()
    assert {SEARCH_9X9, GRADE} <= loaded
    assert SEARCH not in loaded  # the any-size search: 4 x 4, 16 x 16, 25 x 25
    assert not loaded & (MEASURES | NEVER_IN_A_RUN | {COMPILED + "canonical"})
    assert not _se_modules(loaded)


def test_a_measure_asked_for_loads_its_kernels_and_no_other_measure():
    loaded = _loaded(measures=["rating"])
    assert {SEARCH_9X9, GRADE, COMPILED + "measures_9x9"} <= loaded
    assert not loaded & {SEARCH, COMPILED + "canonical"}
    assert not _se_modules(loaded)
    assert COMPILED + "canonical" in _loaded(measures=["canonical"])


SE_AFTER = """
import json, sys
from numba.core import event
from pipeline.warm_up import SE_WARM_UP, load_solver
from solver.compiled.se import se_rating
from solver.compiled.se_chains import compile_nested
from solver.options import SolveOptions

load_solver(SolveOptions(**json.loads(sys.argv[1])), quiet=True)
compiling = []


class Compiles(event.Listener):
    def on_start(self, ev):
        compiling.append(ev.data["dispatcher"].py_func.__qualname__)

    def on_end(self, ev):
        pass


with event.install_listener("numba:compile", Compiles()):
    se_rating(SE_WARM_UP)  # chains up to dynamic (+)
    compile_nested()  # the nested levels 2 and 5 (5 calls 2, 3 and 4's search)
print(json.dumps(compiling))
"""


@pytest.mark.slow
def test_a_run_rating_se_compiles_the_whole_rating_before_its_rows():
    """The SE rating's kernels, the nested levels' (ER 9.5 and up, minutes to compile) too,
    are compiled at the warm-up, where it says so: none in a worker at its first such row."""
    done = subprocess.run([sys.executable, "-c", SE_AFTER, json.dumps({"measures": ["se"]})],
                          cwd=ROOT, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []


def test_a_16x16_run_loads_the_any_size_search_and_not_the_9x9_one():
    loaded = _loaded(boxsize=4, alphabet="0123456789ABCDEF")  # the 9 x 9 warm-up takes none
    assert {SEARCH, GRADE} <= loaded
    assert not loaded & ({SEARCH_9X9} | MEASURES | NEVER_IN_A_RUN)


NOW = """
import numpy as np
from pipeline.warm_up import announcing_compiles
from solver.compiled.kernels import now_ns

with announcing_compiles():
    now_ns(np.zeros(2, np.int64))
"""


@pytest.mark.slow
def test_a_kernel_compiling_is_named_on_one_line_and_a_cached_one_says_nothing(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    runs = [subprocess.run([sys.executable, "-c", NOW], cwd=ROOT, env=env, capture_output=True,
                           text=True, timeout=300) for _ in range(2)]
    assert all(run.returncode == 0 for run in runs), runs[0].stderr + runs[1].stderr
    first, again = (run.stderr for run in runs)
    assert first.startswith("compiling the solver for this machine"), first
    assert first.partition(":")[2].split()[0] == "kernels" and first.endswith(" s)\n")
    assert again == ""


# A run's warm-up, and what of the grade this process compiled (qualified name: times).
GRADE_COMPILES = """
import collections, json
from numba.core import event
from pipeline.warm_up import load_solver
from solver.options import SolveOptions

compiled = collections.Counter()


class Compiles(event.Listener):
    def on_start(self, ev):
        function = ev.data["dispatcher"].py_func
        if function.__module__ == "solver.compiled.grade":
            compiled[function.__qualname__] += 1

    def on_end(self, ev):
        pass


with event.install_listener("numba:compile", Compiles()):
    load_solver(SolveOptions())
print(json.dumps(compiled))
"""


@pytest.mark.slow
def test_the_warm_up_names_the_modules_it_compiles(tmp_path):
    """An empty cache: the line names the 9 x 9 search and the grade (compiled in two
    processes), not what the run does not use; a warm cache: nothing is said. The grade is
    shared out: this process compiles the trials' passes (``compile_passes(0)``) and the
    grade's batch, each once, and none of the rules below the trials nor the grade's arrays
    (the second process's): the batch finds every pass in the cache."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    command = [sys.executable, "-c", GRADE_COMPILES]
    first = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True,
                           timeout=900)
    assert first.returncode == 0, first.stderr
    line = first.stderr
    assert line.startswith("compiling the solver for this machine") and line.count("\n") == 1
    named = set(line.partition(":")[2].split())
    assert {"search_9x9", "grade"} <= named
    assert not named & {"search", "measures", "measures_9x9", "canonical", "generate"}
    compiled = json.loads(first.stdout)
    assert compiled["_grade_batch"] == 1 and max(compiled.values()) == 1, compiled
    assert {"t1_pass", "t2_pass", "_singles_trial_blocked", "take_images"} <= set(compiled)
    second_process = {"_root", "lock_pass", "subsets_pass", "fish_pass", "wings_pass",
                      "trial_arrays"}
    assert not second_process & set(compiled), compiled
    again = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True,
                           timeout=300)
    assert again.returncode == 0 and again.stderr == "" and json.loads(again.stdout) == {}
