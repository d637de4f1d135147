"""``generate`` (SPEC 8): every guarantee checked against the reference engine on small runs,
the same puzzles whatever runs them or stops them (its settings: test_generate_settings.py)."""

from __future__ import annotations

import signal

import numpy as np
import polars as pl
import psutil
import pytest

import solver
from pipeline.errors import RunIncomplete
from pipeline.generate import generate_dataset
from pipeline.generate_work import Draws, draw_table
from pipeline.resume import SUMMARY_FILE
from pipeline.settings import load_generation
from pipeline.summary import read_summary
from solver.compiled import generate as generate_module
from solver.compiled.generate import candidates, orbits
from solver.grid import tables
from solver.options import SolveOptions
from solver.reference.canonical import canonical_reference as reference_canonical
from solver.vocabulary import GRADES, SYMMETRIES
from tests import runs


def generate(out, **settings):
    """A generated run through the library, without a progress bar; its summary."""
    return generate_dataset(out, *load_generation(quiet=True, **settings), progress=False)


def rows(out) -> pl.DataFrame:
    """A run's rows in part order, without solve_us (the only timing column)."""
    return pl.read_parquet(sorted(out.glob("part-*.parquet"))).drop("solve_us")


def reference(puzzles: list[str], boxsize: int, **options):
    return solver.solve_strings(puzzles, SolveOptions(boxsize=boxsize, **options),
                                implementation="reference")


def blanked(puzzle: str, orbit) -> str:
    cells = list(puzzle)
    for cell in orbit:
        if cell >= 0:
            cells[cell] = "."
    return "".join(cells)


def given_orbits(puzzle: str, boxsize: int, symmetry: str) -> list:
    """The orbits of the pattern symmetry whose cells are all given."""
    return [orbit for orbit in orbits(boxsize, symmetry)
            if all(puzzle[c] != "." for c in orbit if c >= 0)]


def assert_spec_8(found: pl.DataFrame, boxsize: int, *, symmetry: str = "none",
                  grades: tuple[str, ...] = GRADES, minimal: bool = True,
                  check_minimal: int = 10**9) -> None:
    """SPEC 8's guarantees, by the reference engine: exactly one solution and ``solution`` is
    it; the grade in ``grades``; the pattern symmetric; minimal (checked on the first
    ``check_minimal`` puzzles): blanking any orbit of givens leaves several solutions."""
    puzzles = found["puzzle"].to_list()
    checked = reference(puzzles, boxsize)
    assert checked.statuses() == ["unique"] * len(puzzles)
    assert [solution.decode() for solution in map(bytes, checked.first_solution)] == (
        found["solution"].to_list())
    assert set(checked.grades()) <= set(grades)
    assert checked.grades() == found["grade"].to_list()
    for puzzle in puzzles:
        for orbit in orbits(boxsize, symmetry):
            cells = {puzzle[c] == "." for c in orbit if c >= 0}
            assert len(cells) == 1, (puzzle, orbit)  # all given, or all blank
    if minimal:
        for puzzle in puzzles[:check_minimal]:
            fewer = [blanked(puzzle, orbit) for orbit in given_orbits(puzzle, boxsize, symmetry)]
            assert set(reference(fewer, boxsize, rules="singles").statuses()) == {"multiple"}


# --- the guarantees --------------------------------------------------------------------------


@pytest.mark.parametrize("symmetry", SYMMETRIES)
def test_4x4_puzzles_are_unique_minimal_and_symmetric(tmp_path, symmetry):
    summary = generate(tmp_path / "out", count=40, boxsize=2, symmetry=symmetry, seed=5,
                       workers=1, batch_size=16)
    found = rows(tmp_path / "out")
    assert found.height == 40 == summary.rows_out and summary.complete
    assert found["row"].to_list() == list(range(40))
    assert found["draw"].to_list() == sorted(found["draw"].to_list())
    assert_spec_8(found, 2, symmetry=symmetry)


@pytest.mark.parametrize("symmetry", ["none", "rotate180", "diagonal"])
def test_9x9_puzzles_are_unique_minimal_and_symmetric(tmp_path, symmetry):
    generate(tmp_path / "out", count=4, seed=11, symmetry=symmetry, workers=1)
    assert_spec_8(rows(tmp_path / "out"), 3, symmetry=symmetry, check_minimal=1)


def test_without_minimal_the_puzzles_are_unique_but_fuller(tmp_path):
    generate(tmp_path / "out", count=4, seed=11, minimal=False, workers=1)
    found = rows(tmp_path / "out")
    assert_spec_8(found, 3, minimal=False)
    generate(tmp_path / "minimal", count=4, seed=11, workers=1)
    assert found["givens"].mean() > rows(tmp_path / "minimal")["givens"].mean()


def test_the_grade_is_in_the_set_asked_for(tmp_path):
    asked = ("intersections", "subsets")
    summary = generate(tmp_path / "out", count=6, seed=2, grade=",".join(asked), workers=1)
    found = rows(tmp_path / "out")
    assert set(found["grade"]) <= set(asked)
    assert_spec_8(found, 3, grades=asked, check_minimal=0)
    assert summary.generated["drawn"] > summary.generated["kept"] == 6
    assert 0 < summary.generated["acceptance"] < 1


def test_distinct_keeps_one_puzzle_of_each_class_up_to_symmetry(tmp_path):
    """Canonical forms (SPEC 6) exist for 9 x 9 only: every form kept differs, and the first
    ones are the reference's."""
    generate(tmp_path / "out", count=30, seed=4, distinct=True, workers=2, batch_size=7)
    found = rows(tmp_path / "out")
    forms = found["canonical"].to_list()
    assert len(set(forms)) == len(forms) == 30
    for puzzle, form in list(zip(found["puzzle"], forms, strict=True))[:3]:
        assert reference_canonical(puzzle) == form


def test_of_any_grade_every_draw_is_kept_in_draw_order(tmp_path):
    """Without a grade or distinct, the run keeps draws 0, 1, 2, ... as candidates makes them."""
    generate(tmp_path / "out", count=50, boxsize=2, seed=9, workers=1, batch_size=9)
    puzzles, _ = candidates(9, 0, 50, 2)
    found = rows(tmp_path / "out")
    assert found["draw"].to_list() == list(range(50))
    expected = draw_table(Draws(9, 2, "none", True), 0, 50).column("puzzle").to_pylist()
    assert found["puzzle"].to_list() == expected
    assert (puzzles != 0).sum(axis=1).tolist() == found["givens"].to_list()


def test_16x16_puzzles_are_unique_and_minimal(tmp_path):
    """By the fast engine (the reference takes half a minute a 16 x 16 puzzle: below)."""
    generate(tmp_path / "out", count=2, boxsize=4, seed=1, workers=1, symmetry="rotate180",
             rules="singles")
    found = rows(tmp_path / "out")
    options = SolveOptions(boxsize=4, rules="singles")
    checked = solver.solve_strings(found["puzzle"].to_list(), options)
    assert checked.statuses() == ["unique", "unique"]
    for puzzle in found["puzzle"]:
        fewer = [blanked(puzzle, orbit) for orbit in given_orbits(puzzle, 4, "rotate180")]
        assert set(solver.solve_strings(fewer, options).statuses()) == {"multiple"}


@pytest.mark.slow
def test_16x16_puzzles_by_the_reference_engine(tmp_path):
    generate(tmp_path / "out", count=1, boxsize=4, seed=1, workers=1, rules="singles")
    found = rows(tmp_path / "out")
    checked = reference(found["puzzle"].to_list(), 4, rules="singles")
    assert checked.statuses() == ["unique"]
    assert bytes(checked.first_solution[0]).decode() == found["solution"][0]
    assert checked.grades() == found["grade"].to_list()


def test_16x16_needs_the_singles_rules(tmp_path, cli):
    result = cli("generate", "-o", tmp_path / "out", "--boxsize", "4")
    assert result.exit_code == 2 and "generate them with --rules singles" in result.stderr


# --- the same puzzles, whatever runs them ----------------------------------------------------

SAME = {"count": 40, "seed": 21, "grade": "singles,subsets,search", "distinct": True}


@pytest.fixture(scope="module")
def reference_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("generated") / "reference"
    generate(out, workers=1, batch_size=50, **SAME)
    return out


@pytest.mark.parametrize("how", [{"workers": 2}, {"workers": 2, "batch_size": 3},
                                 {"workers": 1, "batch_size": 17}],
                         ids=["auto-batches", "batches-of-3", "one-worker"])
def test_the_same_seed_gives_the_same_rows_whatever_the_workers_and_batches(
        tmp_path, reference_run, how):
    generate(tmp_path / "out", **SAME, **how)
    assert rows(tmp_path / "out").equals(rows(reference_run))


@pytest.mark.slow  # the Dask engine's kind is test_dask's; this is the generator on it
def test_the_dask_engine_gives_the_same_rows(tmp_path, reference_run):
    pytest.importorskip("distributed")
    summary = generate(tmp_path / "out", engine="dask", workers=2, batch_size=6, **SAME)
    assert summary.engine == "dask"
    assert rows(tmp_path / "out").equals(rows(reference_run))


def test_another_seed_gives_other_puzzles(tmp_path, reference_run):
    generate(tmp_path / "out", **{**SAME, "seed": 22}, workers=2)
    assert not set(rows(tmp_path / "out")["puzzle"]) & set(rows(reference_run)["puzzle"])


def test_a_candidate_is_a_pure_function_of_its_draw():
    whole = candidates(3, 0, 12, 3, "rotate90")
    for first, count in ((0, 5), (5, 1), (6, 6)):
        part = candidates(3, first, count, 3, "rotate90")
        for got, expected in zip(part, whole, strict=True):
            assert (got == expected[first:first + count]).all()


def any_size_candidates(seed, first, count, symmetry, minimal):
    """9 x 9 draws by the kernels every other box size uses (``candidates`` has its own)."""
    puzzles = np.zeros((count, 81), np.uint8)
    solutions = np.zeros((count, 81), np.uint8)
    generate_module._candidates(np.uint64(seed), first, puzzles, solutions,
                                orbits(3, symmetry), minimal, tables(3))
    return puzzles, solutions


@pytest.mark.parametrize(("symmetry", "minimal"), [("none", True), ("rotate90", True),
                                                   ("mirror", False)])
def test_9x9_draws_are_those_of_the_any_size_kernels(symmetry, minimal):
    """The 9 x 9 kernels (9-bit masks, swap sets) change how fast a draw is made, not what."""
    for got, expected in zip(candidates(8, 100, 60, 3, symmetry, minimal),
                             any_size_candidates(8, 100, 60, symmetry, minimal), strict=True):
        assert (got == expected).all()


def test_every_swap_set_swaps_into_another_grid():
    """Each swap set holds two digits, and swapping them there leaves a grid: the set needs a
    given in every puzzle of one solution. The sets of a pair of digits share no cell and
    cover its 18 cells."""
    _, solutions = candidates(4, 0, 20, 3)
    sets = np.zeros((generate_module.MAX_SWAP_SETS, 2), np.uint64)
    for solution in solutions:
        found = generate_module.swap_sets(solution, sets)
        covered = {}
        for lo, hi in sets[:found]:
            cells = [c for c in range(81) if (int(hi) << 64 | int(lo)) >> c & 1]
            a, b = sorted({int(solution[c]) for c in cells})
            swapped = solution.copy()
            for c in cells:
                swapped[c] = a + b - solution[c]
            assert all(len(set(swapped[unit])) == 9 for unit in tables(3).units)
            assert (swapped != solution).any()
            assert not covered.get((a, b), set()) & set(cells)
            covered.setdefault((a, b), set()).update(cells)
        assert len(covered) == 36 and all(len(cells) == 18 for cells in covered.values())


@pytest.mark.slow
def test_a_run_killed_with_sigkill_continues_to_the_same_rows(tmp_path, reference_run):
    out = tmp_path / "out"
    args = [str(runs.BIN / "sudoku-pipeline"), "generate", "-o", str(out), "--count",
            str(SAME["count"]), "--seed", str(SAME["seed"]), "--grade", SAME["grade"],
            "--distinct", "--workers", "2", "--batch-size", "1", "-q"]
    process = runs.start(args)
    runs.wait_for_placed_rows(out, 3, process)
    workers = psutil.Process(process.pid).children()
    process.kill()  # SIGKILL: no cleanup of any kind in the parent
    process.communicate()
    assert runs.all_dead(workers)
    assert not (out / SUMMARY_FILE).exists()
    again = runs.run(args)
    assert again.returncode == 0, again.stderr
    assert rows(out).equals(rows(reference_run))
    assert 0 < read_summary(out).resumed_rows < SAME["count"]


@pytest.mark.slow
def test_ctrl_c_stops_and_the_same_command_continues(tmp_path, reference_run):
    out = tmp_path / "out"
    args = [str(runs.BIN / "sudoku-pipeline"), "generate", "-o", str(out), "--count", "40",
            "--seed", "21", "--grade", SAME["grade"], "--distinct", "--workers", "1",
            "--batch-size", "1", "-q"]
    process = runs.start(args)
    runs.wait_for_parts(out, 4, process)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 130 and "rerun the same command" in stderr, stderr
    assert runs.run(args).returncode == 0
    assert rows(out).equals(rows(reference_run))


def test_a_time_limit_stops_with_progress_and_the_same_command_continues(tmp_path, cli,
                                                                        reference_run):
    out = tmp_path / "out"
    args = ["generate", "-o", out, "--count", "40", "--seed", "21", "--grade", SAME["grade"],
            "--distinct", "--workers", "1", "--batch-size", "2", "-q"]
    stopped = cli(*args, "--time-limit", "0.01")
    assert stopped.exit_code == 3, stopped.stderr
    assert stopped.stderr.startswith("error: time limit of 0.01 s reached; kept ")
    assert 0 < len(list(out.glob("part-*.parquet")))
    assert cli(*args).exit_code == 0
    assert rows(out).equals(rows(reference_run))


# --- max_draws -------------------------------------------------------------------------------


def test_max_draws_stops_with_what_was_kept_and_a_larger_one_continues(tmp_path, cli,
                                                                       reference_run):
    out = tmp_path / "out"
    args = ["generate", "-o", out, "--count", "40", "--seed", "21", "--grade", SAME["grade"],
            "--distinct", "--workers", "2", "--max-draws", "45", "-q"]
    stopped = cli(*args)
    assert stopped.exit_code == 3, stopped.stderr
    assert stopped.stderr.startswith("error: max_draws reached: kept ")
    assert "in 45 draws (acceptance rate " in stopped.stderr and "--max-draws" in stopped.stderr
    assert stopped.stderr.count("\n") == 1
    summary = read_summary(out)
    assert not summary.complete and summary.generated["drawn"] == 45
    assert cli("summarize", out).exit_code == 3
    finished = cli(*args[:-3], "--max-draws", "0", "-q")
    assert finished.exit_code == 0, finished.stderr
    assert rows(out).equals(rows(reference_run))


def test_max_draws_through_the_library_says_how_many_were_kept(tmp_path):
    with pytest.raises(RunIncomplete, match=r"kept \d+ of 5 puzzles in 5 draws"):
        generate(tmp_path / "out", count=5, max_draws=5, grade="search", workers=1, seed=1)


# --- the output is a run ---------------------------------------------------------------------


def test_the_output_is_a_run_summarize_report_and_read_back(tmp_path, cli):
    out = tmp_path / "out"
    done = cli("generate", "-o", out, "--count", "12", "--seed", "3", "--workers", "1",
               "--measures", "rating")
    assert done.exit_code == 0, done.stderr
    assert "generated     12 of 12 puzzles kept from 12 draws" in done.stdout
    found = rows(out)
    assert found.columns[:3] == ["puzzle", "solution", "draw"]
    assert found["rating"].null_count() == 0 and set(found["status"]) == {"unique"}
    assert found["solution_matches"].all()
    assert "grade (SPEC 5.1)" in cli("summarize", out).stdout
    assert cli("report", out, "-o", tmp_path / "report.html").exit_code == 0
    again = cli("generate", "-o", out, "--count", "12", "--seed", "3", "--measures", "rating")
    assert again.exit_code == 0 and again.stdout.startswith("nothing to generate")
    refused = cli("generate", "-o", out, "--count", "12", "--seed", "4", "--measures", "rating",
                  "-q")
    assert refused.exit_code == 2 and "seed = 3 (this run has 4)" in refused.stderr


def test_generate_frame_returns_the_puzzles_as_a_polars_frame(tmp_path):
    from pipeline.notebook import generate_frame

    frame = generate_frame(count=5, seed=3, boxsize=2, output=tmp_path / "out")
    assert isinstance(frame, pl.DataFrame) and frame.height == 5
    assert frame["puzzle"].to_list() == rows(tmp_path / "out")["puzzle"].to_list()
    assert generate_frame(count=5, seed=3, boxsize=2)["puzzle"].to_list() == (
        frame["puzzle"].to_list())
