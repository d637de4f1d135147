"""numba's cache is keyed to the solver's whole source (``solver.jit``): an edit to a kernel that
another file inlines is never run stale."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import solver
from solver import jit

ROOT = Path(__file__).resolve().parent.parent
# Norvig's hardest (tests/data/norvig_hardest_8.txt, line 1): a search of many nodes, whose
# count depends on the cell each node expands.
HARD = "85...24..72......9..4.........1.7..23.5...9...4...........8..7..17..........36.4."
NODES = """
import numpy as np, solver
grid = np.frombuffer(b"{puzzle}", np.uint8) - 48
print(int(solver.solve_grids(np.where(grid > 9, 0, grid)).search_nodes[0]))
"""


def test_the_cache_directory_is_named_after_the_source_digest():
    digest = solver.source_digest()
    assert len(digest) == 64 and digest == jit.source_digest()
    assert Path(jit.cache_directory()).name == digest[:16]
    assert Path(jit.cache_directory()).is_dir()


def _nodes(package_parent: Path) -> int:
    env = {key: value for key, value in os.environ.items() if key != "NUMBA_CACHE_DIR"}
    env["PYTHONPATH"] = str(package_parent)
    done = subprocess.run([sys.executable, "-c", NODES.format(puzzle=HARD)], env=env,
                          capture_output=True, text=True, timeout=600, cwd=package_parent)
    assert done.returncode == 0, done.stderr
    return int(done.stdout)


@pytest.mark.slow
def test_an_edit_to_a_shared_kernel_compiles_every_caller_again(tmp_path):
    """A copy of the solver is compiled and cached; then ``kernels.pick_cell``, which
    ``solver.fast`` inlines from another file, is edited to expand the first open cell: the next
    process runs the edited kernel (the search of ``cell = "first"``), not fast.py's cached
    code, and the cache of the old source is gone."""
    copy = tmp_path / "solver"
    shutil.copytree(ROOT / "solver", copy, ignore=shutil.ignore_patterns("__pycache__"))
    before = _nodes(tmp_path)
    grid = np.frombuffer(HARD.encode(), np.uint8) - 48
    grid = np.where(grid > 9, 0, grid)
    assert before == solver.solve_grids(grid).search_nodes[0]
    assert _nodes(tmp_path) == before  # cached this time: the same code
    old_caches = set((copy / "__pycache__" / "numba").iterdir())
    kernels = copy / "kernels.py"
    source = kernels.read_text()
    assert source.count("if first_cell or n == 2:") == 1
    kernels.write_text(source.replace("if first_cell or n == 2:", "if True:"))
    after = _nodes(tmp_path)
    assert after == solver.solve_grids(grid, cell="first").search_nodes[0] != before
    assert not old_caches & set((copy / "__pycache__" / "numba").iterdir())
