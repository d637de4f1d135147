"""numba's cache is keyed per module to its source and the solver modules it imports
(``solver.jit``): an edit to a kernel that another file inlines is never run stale, and an edit
elsewhere (a docstring of ``solver/api.py``) recompiles nothing."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pytest

import solver
from solver import jit

ROOT = Path(__file__).resolve().parents[2]
# Norvig's hardest (tests/data/norvig_hardest_8.txt, line 1): a search of many nodes, whose
# count depends on the cell each node expands.
HARD = "85...24..72......9..4.........1.7..23.5...9...4...........8..7..17..........36.4."
NODES = """
import numpy as np, solver
grid = np.frombuffer(b"{puzzle}", np.uint8) - 48
print(int(solver.solve_grids(np.where(grid > 9, 0, grid)).search_nodes[0]))
"""


def test_each_module_is_cached_in_a_directory_named_after_its_digest():
    digest = solver.source_digest()
    assert len(digest) == 64 and digest == jit.source_digest()
    directory = Path(jit.cache_directory(jit.SEARCH_MODULE))
    assert directory.name == f"{jit.SEARCH_MODULE}-{jit.module_digest(jit.SEARCH_MODULE)[:16]}"
    assert directory.is_dir()


def _compiled_modules() -> list[str]:
    """The solver modules that define compiled functions."""
    return [".".join(path.relative_to(jit.PACKAGE.parent).with_suffix("").parts)
            for path in jit.source_files() if "@compiled" in path.read_text()]


def test_a_kernel_module_is_keyed_to_what_it_imports_and_nothing_else():
    modules = _compiled_modules()
    assert jit.SEARCH_MODULE in modules and len(modules) >= 5
    for module in modules:
        keyed = jit.imported_modules(module)
        assert module in keyed and "solver.jit" in keyed
        # the API, the package's __init__ (which imports the API) and the reference are not
        assert not {"solver", "solver.api"} & set(keyed), (module, keyed)
    search = jit.imported_modules(jit.SEARCH_MODULE)
    kernels = [name for name in search if name != jit.SEARCH_MODULE and "kernels" in name]
    assert kernels, search  # the search inlines the kernel library: an edit there recompiles it


def test_the_import_lines_give_the_imports_of_the_whole_module():
    """The import graph is read from the import statements alone (fast); for every module of
    the package it is the one the whole module's syntax tree gives."""
    import ast

    for path in jit.source_files():
        module = ".".join(path.relative_to(jit.PACKAGE.parent).with_suffix("").parts)
        module = module.removesuffix(".__init__")
        text = path.read_text()
        assert (jit._imported_names(module, jit._import_statements(text))
                == jit._imported_names(module, ast.parse(text))), module
    # a docstring line that starts like an import but is prose: the whole module is parsed
    prose = '"""Why:\nimport the kernels once, then search.\n"""\nfrom solver.grid import tables\n'
    assert jit._imported_names("solver.api", jit._import_statements(prose)) == {"solver.grid"}


def _nodes(package_parent: Path) -> int:
    env = {key: value for key, value in os.environ.items() if key != "NUMBA_CACHE_DIR"}
    env["PYTHONPATH"] = str(package_parent)
    done = subprocess.run([sys.executable, "-c", NODES.format(puzzle=HARD)], env=env,
                          capture_output=True, text=True, timeout=600, cwd=package_parent)
    assert done.returncode == 0, done.stderr
    return int(done.stdout)


@pytest.mark.slow
def test_an_edit_to_a_shared_kernel_compiles_every_caller_again(tmp_path):
    """A copy of the solver is compiled and cached; then ``kernels_9x9.pick_cell``, which
    ``solver.compiled.search_9x9`` inlines from another file, is edited to expand the first
    open cell: the next process runs the edited kernel (the search of ``cell = "first"``), not
    search_9x9.py's cached code, and the cache of the old source of the search is gone."""
    copy = tmp_path / "solver"
    shutil.copytree(ROOT / "solver", copy, ignore=shutil.ignore_patterns("__pycache__"))
    before = _nodes(tmp_path)
    grid = np.frombuffer(HARD.encode(), np.uint8) - 48
    grid = np.where(grid > 9, 0, grid)
    assert before == solver.solve_grids(grid).search_nodes[0]
    assert _nodes(tmp_path) == before  # cached this time: the same code
    old_caches = set((copy / "__pycache__" / "numba").iterdir())
    kernels = copy / "compiled" / "kernels_9x9.py"
    source = kernels.read_text()
    assert source.count("if first_cell or n == 2:") == 1
    kernels.write_text(source.replace("if first_cell or n == 2:", "if True:"))
    after = _nodes(tmp_path)
    assert after == solver.solve_grids(grid, cell="first").search_nodes[0] != before
    # the caches of the old source of the search are gone, those of modules not built on the
    # edited kernels (the canonical form's) are kept
    new_caches = set((copy / "__pycache__" / "numba").iterdir())
    assert not {path for path in old_caches if path.name.startswith(jit.SEARCH_MODULE + "-")} \
        & new_caches


def _holds_arrays(numba_type) -> bool:
    from numba.core import types

    if isinstance(numba_type, types.BaseTuple):  # named tuples of arrays too
        return any(_holds_arrays(member) for member in numba_type.types)
    return isinstance(numba_type, (types.Array, types.Buffer))


def test_a_borrowing_function_returns_no_array():
    """``compiled(borrows=True)`` leaves out numba's reference counts, so an array such a
    function returned would be released by its caller while its owner still holds it. numba
    refuses to compile one returning an array that is not an argument, but lets an argument or
    a tuple holding an array through: every borrowing function's compiled signatures (read from
    the cache the suite's warm-up filled: the SE rating's with the slow tests) return none."""
    import importlib

    from numba.core.registry import CPUDispatcher

    checked = 0
    for module in _compiled_modules():
        for name, value in vars(importlib.import_module(module)).items():
            if not (isinstance(value, CPUDispatcher) and jit.borrowing(value)
                    and value.py_func.__module__ == module):  # not one imported from another
                continue
            # the cache's index: one key per compiled signature, its argument types first
            for key in value._cache._cache_file._load_index():
                result = value._cache.load_overload(key[0], value.targetctx)
                assert not _holds_arrays(result.signature.return_type), (module, name)
                checked += 1
    assert checked >= 30  # the grade's alone are 21


def _inlined_twice(n):
    """A callee of several blocks (loops, branches) and many variables, inlined twice."""
    total = 0
    for i in range(n):
        if i % 3 == 0:
            total += i
        elif i % 3 == 1:
            total -= 1
        else:
            for j in range(i):
                total ^= j
    return total


_inline_into = numba.njit(inline="always")(_inlined_twice)


def _calls_twice(n):
    return _inline_into(n) + _inline_into(n + 1)


def _compiled_asm(function, inline_ir) -> str:
    """``function`` compiled (not cached) while numba's inliner is ``inline_ir``: its machine
    code, with numba's numbering of compiled functions (``B2v1``) taken out."""
    import re

    from numba.core import inline_closurecall

    installed = inline_closurecall.InlineWorker.inline_ir
    inline_closurecall.InlineWorker.inline_ir = inline_ir
    try:
        dispatcher = numba.njit(function)
        dispatcher(5)
        return re.sub(r"B\d+v\d+", "", dispatcher.inspect_asm(dispatcher.signatures[0]))
    finally:
        inline_closurecall.InlineWorker.inline_ir = installed


def test_inlining_with_one_copy_of_the_scope_compiles_the_same_code():
    """``solver.jit`` makes numba's inliner copy a callee's scope once, not once a block: the
    machine code is the same as numba's own inliner gives."""
    from numba.core import inline_closurecall

    jit._inline_with_one_copy_of_the_scope()
    ours = inline_closurecall.InlineWorker.inline_ir
    assert hasattr(ours, "__wrapped__"), "the inliner is numba's own: nothing to compare"
    assert _compiled_asm(_calls_twice, ours) == _compiled_asm(_calls_twice, ours.__wrapped__)
    assert numba.njit(_calls_twice)(7) == _inlined_twice(7) + _inlined_twice(8)


# A 9 x 9 run's kernels loaded (or compiled), a puzzle solved, and which of numba's modules the
# process imported.
LOADS = """
import json, sys
from pipeline.warm_up import load_solver
from solver.options import SolveOptions
import solver

load_solver(SolveOptions(), quiet=True)
print(json.dumps([int(solver.solve_strings(["{puzzle}"]).grade[0]),
                  sorted(name for name in sys.modules if name.startswith("numba"))]))
"""


def test_a_process_that_only_loads_kernels_imports_nothing_numba_compiles_with():
    """Loading cached kernels skips numba's refresh of its target context (the imports and
    registries of everything it can compile) and its inliner: a tenth of a second, and more, in
    every run. The second process of two finds every kernel in the cache; its grades are the
    first's."""
    script = LOADS.replace("{puzzle}", HARD)
    runs = [subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                           text=True, timeout=900) for _ in range(2)]
    assert all(run.returncode == 0 for run in runs), runs[0].stderr + runs[1].stderr
    (first_grade, _), (grade, modules) = (json.loads(run.stdout) for run in runs)
    assert grade == first_grade == int(solver.solve_strings([HARD]).grade[0])
    assert "numba.core.caching" in modules
    assert not {"numba.np.polynomial.polynomial_functions", "numba.core.inline_closurecall",
                "numba.np.random.generator_methods"} & set(modules)
