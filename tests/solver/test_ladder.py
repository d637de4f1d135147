"""SPEC section 5: ``grade``, ``rating`` and ``backdoor_size``, the fast implementation against
Bird-style reference (``solver.reference.ladder``), their laws and their nulls (a worked example
of each rung: test_ladder_examples.py)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings

import solver
from solver import symmetry
from solver.compiled import grade as compiled_grade
from solver.compiled import measures_9x9
from solver.grid import ascii_rows, grids_from_ascii
from solver.reference import bird, ladder
from tests.solver_cases import HUTTON, SHARED_DATASETS, as_text, excerpts, puzzles

# Small enough for the reference search of every copy to stay quick in `make test`; rows whose
# copies need more come out null, and then both implementations must say so.
SAMPLES, BUDGET = 3, 25
SLOW_SAMPLES, SLOW_BUDGET = 6, 300


def grids_of(texts):
    rows, errors = ascii_rows(texts)
    assert not any(errors)
    return grids_from_ascii(rows)[0]


def matrix_of(text):
    return bird.read_mat(text)


def excerpt_texts():
    return [text for _, text in excerpts()]


def unique_rows(texts, **options):
    """The puzzles among ``texts`` whose status is unique, with their solutions."""
    found = solver.solve_strings(texts, rules="singles", max_nodes=200_000, **options)
    return [(text, found.row(i).first_solution) for i, text in enumerate(texts)
            if found.row(i).status == "unique"]


# -- the copies of SPEC 5.2 ------------------------------------------------------------------------


def test_splitmix64_of_zero():
    assert symmetry.splitmix64(0) == 0xE220A8397B1DCDAF


def test_the_copies_are_spec_5_2_decoded_literally():
    """SPEC 5.2's decoding, written out as it stands, gives the same grids as rating_copies."""
    perm3 = [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]
    puzzle = [[9 * r + c for c in range(9)] for r in range(9)]  # each cell holds its index
    for i, cells in enumerate(symmetry.rating_copies(40)):
        x = symmetry.splitmix64(i)
        t = x % 2
        x //= 2
        bands = perm3[x % 6]
        x //= 6
        rows = []
        for _ in range(3):
            rows.append(perm3[x % 6])
            x //= 6
        stacks = perm3[x % 6]
        x //= 6
        cols = []
        for _ in range(3):
            cols.append(perm3[x % 6])
            x //= 6
        g = [list(r) for r in zip(*puzzle, strict=True)] if t == 1 else puzzle
        copy = [[None] * 9 for _ in range(9)]
        for k in range(3):
            for j in range(3):
                for k2 in range(3):
                    for j2 in range(3):
                        copy[3 * k + j][3 * k2 + j2] = \
                            g[3 * bands[k] + rows[k][j]][3 * stacks[k2] + cols[k2][j2]]
        assert [v for row in copy for v in row] == list(cells), i
    assert symmetry.rating_copies(1)[0].tolist() != list(range(81))  # copy 0 is not the identity


def test_a_rating_is_the_mean_depth_of_the_copies_searched_by_the_fast_implementation():
    """An independent path: the copies as explicit grids, searched by ``solver.solve_grids``
    (37 copies: the fast implementation searches them in groups of 32, then 5)."""
    texts = excerpt_texts()[::4]
    grids = grids_of(texts)
    cells = symmetry.rating_copies(37)
    found = solver.solve_grids(grids[:, cells].reshape(-1, 81), rules="singles", max_solutions=2)
    expected = found.search_depth.reshape(len(texts), 37).sum(axis=1) / 37
    assert measures_9x9.ratings(grids, 37, solver.DEFAULT_MAX_NODES).tolist() == expected.tolist()


# -- fast against reference ------------------------------------------------------------------------


@pytest.mark.slow  # test_ladder_rungs.py's excerpt of every set, up to trial, stays in the fast suite
def test_grades_agree_on_every_excerpt_up_to_wings():
    """The rungs below the trials on every excerpt (tests/solver/test_ladder_rungs.py holds the trials:
    the reference's are slow)."""
    texts = excerpt_texts() + list(HUTTON.values())
    fast = [solver.GRADES[code] for code in compiled_grade.grades(grids_of(texts), 3, "wings")]
    assert fast == [ladder.grade(matrix_of(text), "wings") for text in texts]


def assert_ratings_agree(texts, samples, max_nodes):
    fast = measures_9x9.ratings(grids_of(texts), samples, max_nodes)
    for text, mine in zip(texts, fast, strict=True):
        oracle = ladder.rating(matrix_of(text), samples, max_nodes)
        assert (None if np.isnan(mine) else mine) == oracle, text


@pytest.mark.slow
def test_ratings_agree_on_every_excerpt():
    """Every row, whatever its status (the copies of a puzzle with several solutions stop at their
    second), at a budget that some copies hit."""
    assert_ratings_agree(excerpt_texts(), SAMPLES, BUDGET)


@pytest.mark.slow
def test_ratings_agree_on_every_excerpt_with_more_copies_and_nodes():
    assert_ratings_agree(excerpt_texts(), SLOW_SAMPLES, SLOW_BUDGET)


def assert_backdoors_agree(pairs):
    fast = measures_9x9.backdoor_sizes(grids_of([t for t, _ in pairs]),
                                      grids_of([s for _, s in pairs]))
    for (text, solution), mine in zip(pairs, fast, strict=True):
        oracle = ladder.backdoor_size(matrix_of(text), matrix_of(solution))
        assert (None if mine < 0 else mine) == oracle, text


def test_backdoors_agree_on_the_excerpts_singles_finish_with_a_cell_or_two():
    """The reference tries every pair of open cells before it says 3: the excerpts that need at
    most one cell, and the first few that need two."""
    pairs = unique_rows(excerpt_texts())
    sizes = measures_9x9.backdoor_sizes(grids_of([t for t, _ in pairs]),
                                       grids_of([s for _, s in pairs]))
    chosen = [p for p, size in zip(pairs, sizes, strict=True) if size <= 1]
    chosen += [p for p, size in zip(pairs, sizes, strict=True) if size == 2][:4]
    assert_backdoors_agree(chosen)


@pytest.mark.slow
def test_backdoors_agree_on_every_excerpt_up_to_two_cells_and_on_one_of_three():
    pairs = unique_rows(excerpt_texts())
    sizes = measures_9x9.backdoor_sizes(grids_of([t for t, _ in pairs]),
                                       grids_of([s for _, s in pairs]))
    chosen = [p for p, size in zip(pairs, sizes, strict=True) if size <= 2]
    chosen += [p for p, size in zip(pairs, sizes, strict=True) if size == 3][:1]
    assert_backdoors_agree(chosen)


@settings(max_examples=25, deadline=None)
@given(puzzles(min_givens=20, max_givens=40))
def test_implementations_agree_on_generated_puzzles(text):
    """Through the public API, nulls included: both implementations, every measure."""
    options = {"max_nodes": 300, "rules": "singles", "measures": ("rating", "backdoor"),
               "rating_samples": 2}
    fast = solver.solve(text, implementation="fast", **options)
    reference = solver.solve(text, implementation="reference", **options)
    assert (fast.grade, fast.rating, fast.backdoor_size) == \
        (reference.grade, reference.rating, reference.backdoor_size)


@pytest.mark.slow
@pytest.mark.skipif(not SHARED_DATASETS.is_dir(), reason="../shared/datasets is not here")
def test_fresh_samples_of_the_shared_sets():
    """Three new puzzles of every shared set at each run (the seed is printed)."""
    seed = random.randrange(2**32)
    print(f"sample seed {seed}")
    rng = random.Random(seed)
    for path in sorted(SHARED_DATASETS.glob("*.txt")) + sorted(SHARED_DATASETS.glob("*.csv")):
        lines = [line.strip() for line in path.read_text().splitlines() if line.strip()]
        if path.suffix == ".csv":
            lines = [line.split(",")[0] for line in lines[1:]]
        texts = rng.sample(lines, 3)
        fast = [solver.GRADES[code] for code in compiled_grade.grades(grids_of(texts), 3, "trial")]
        assert fast == [ladder.grade(matrix_of(text), "trial") for text in texts], path.name
        pairs = unique_rows(texts)
        sizes = measures_9x9.backdoor_sizes(grids_of([t for t, _ in pairs]),
                                           grids_of([s for _, s in pairs]))
        assert_backdoors_agree([p for p, size in zip(pairs, sizes, strict=True) if size <= 2])
        assert_ratings_agree(texts, 2, 200)


# -- laws ------------------------------------------------------------------------------------------


# The reference's rungs cheap enough to compute from scratch for a law on many puzzles (its
# trials take seconds a puzzle; tests/solver/test_ladder_rungs.py holds them to their laws).
CHEAP_RUNGS = ("prune", "singles", "intersections", "subsets", "fish", "wings")


def solved_by_each_rung(text):
    m = bird.choices(matrix_of(text))
    return [ladder.solved(ladder.closure(ladder.RUNGS[rung], m)) for rung in CHEAP_RUNGS]


def test_the_rungs_are_spec_5_1_table_in_order():
    assert [*ladder.RUNGS, "search"] == list(solver.GRADES)
    assert [len(rules) for rules in ladder.RUNGS.values()] == [1, 2, 3, 4, 5, 6, 7, 8]  # a rule each


def assert_rungs_monotone(text):
    solved = solved_by_each_rung(text)
    assert solved == sorted(solved), (text, solved)  # once solved, solved on every later rung
    first = solved.index(True) if True in solved else len(solved)
    expected = CHEAP_RUNGS[first] if first < len(CHEAP_RUNGS) else "search"
    assert ladder.grade(matrix_of(text), CHEAP_RUNGS[-1]) == expected


@pytest.mark.slow  # the generated puzzles' law below stays in the fast suite
def test_rungs_are_monotone_on_excerpts():
    for text in excerpt_texts()[::3]:
        assert_rungs_monotone(text)


@pytest.mark.slow
@settings(max_examples=8, deadline=None)
@given(puzzles(min_givens=22, max_givens=40))
def test_rungs_are_monotone_on_generated_puzzles(text):
    assert_rungs_monotone(text)


def assert_invariant_under_symmetries(texts, rng, times=3):
    """grade and backdoor_size of every image, digits relabelled too, equal the original's."""
    pairs = unique_rows(texts)
    grids, solutions = grids_of([t for t, _ in pairs]), grids_of([s for _, s in pairs])
    grade = compiled_grade.grades(grids, 3)
    backdoor = measures_9x9.backdoor_sizes(grids, solutions)
    for _ in range(times):
        cells, relabel = symmetry.random_symmetry(rng)
        images = symmetry.apply(grids, cells, relabel)
        assert compiled_grade.grades(images, 3).tolist() == grade.tolist()
        image_solutions = symmetry.apply(solutions, cells, relabel)
        assert measures_9x9.backdoor_sizes(images, image_solutions).tolist() == backdoor.tolist()


def test_grade_and_backdoor_are_invariant_under_symmetries_on_excerpts():
    assert_invariant_under_symmetries(excerpt_texts(), np.random.default_rng(5))


@settings(max_examples=30, deadline=None)
@given(puzzles(min_givens=20, max_givens=40))
def test_grade_and_backdoor_are_invariant_under_symmetries_on_generated_puzzles(text):
    assert_invariant_under_symmetries([text], np.random.default_rng(abs(hash(text)) % 2**32))


def assert_lower_rungs_are_the_classes(texts):
    found = solver.solve_strings(texts, max_nodes=2_000)
    graded = found.grade >= 0
    grade = np.array(found.grades(), dtype=object)
    assert np.array_equal(np.isin(grade, ["prune", "singles"])[graded],
                          found.singles_solvable[graded])
    assert np.array_equal((grade == "prune")[graded], found.prune_solvable[graded])
    # and every row that the fast implementation grades at all gets the grade of the pure function
    assert found.grade[graded].tolist() == compiled_grade.grades(grids_of(texts)[graded], 3).tolist()


def test_prune_and_singles_rungs_are_prune_and_singles_solvable_on_excerpts():
    assert_lower_rungs_are_the_classes(excerpt_texts() + list(HUTTON.values()))


@settings(max_examples=40, deadline=None)
@given(puzzles(min_givens=20))
def test_prune_and_singles_rungs_are_the_classes_on_generated_puzzles(text):
    assert_lower_rungs_are_the_classes([text])


def test_a_rating_does_not_depend_on_the_rest_of_the_batch():
    texts = [text for text, _ in unique_rows(excerpt_texts())][::3]
    alone = [measures_9x9.ratings(grids_of([text]), 4, 5_000)[0] for text in texts]
    together = measures_9x9.ratings(grids_of(texts), 4, 5_000)
    order = np.random.default_rng(3).permutation(len(texts))
    shuffled = measures_9x9.ratings(grids_of([texts[i] for i in order]), 4, 5_000)
    assert together.tolist() == alone
    assert shuffled.tolist() == [alone[i] for i in order]
    # through the API, between rows of every other kind
    mixed = ["x" * 81, "55" + "." * 79, "." * 81] + texts
    batch = solver.solve_strings(mixed, measures=("rating",), rating_samples=4, max_nodes=5_000)
    assert batch.rating[3:].tolist() == alone


# -- nulls -----------------------------------------------------------------------------------------


# The last cell of row 1 can only be 9, which its column and box already hold: no solution, but no
# given repeats either.
UNSOLVABLE = "12345678." + "........9" + "." * 63


def test_known_nulls():
    measures = {"measures": ("rating", "backdoor")}
    gentle = HUTTON["gentle"]
    for implementation in ("fast", "reference"):
        for text in ("x" * 81, "55" + "." * 79, UNSOLVABLE):
            r = solver.solve(text, implementation=implementation, max_nodes=300, **measures)
            assert (r.grade, r.rating, r.backdoor_size) == (None, None, None), (implementation, text)
        # several solutions, or a budget that runs out: no grade either
        assert solver.solve(HUTTON["blank"], implementation=implementation, **measures).grade is None
        r = solver.solve(HUTTON["diabolical"], implementation=implementation, max_nodes=2, **measures)
        assert (r.status, r.grade, r.rating) == ("budget_exceeded", None, None)
        # max_solutions 1: solved, graded, but not known unique
        r = solver.solve(gentle, implementation=implementation, max_solutions=1, **measures)
        assert (r.status, r.grade, r.rating, r.backdoor_size) == ("solved", "singles", None, None)
        # unique: graded; the optional measures only when asked for
        r = solver.solve(gentle, implementation=implementation)
        assert (r.grade, r.rating, r.backdoor_size) == ("singles", None, None)
        r = solver.solve(gentle, implementation=implementation, **measures)
        assert (r.grade, r.rating, r.backdoor_size) == ("singles", 0.0, 0)


def test_rating_is_null_when_a_copy_hits_the_budget_the_puzzle_itself_stays_within():
    """A row can be unique within ``max_nodes`` while one of its copies needs more."""
    grids = grids_of([text for text, _ in unique_rows(excerpt_texts())])
    copies = symmetry.rating_copies(4)
    own = solver.solve_grids(grids, rules="singles").search_nodes
    most = solver.solve_grids(grids[:, copies].reshape(-1, 81), rules="singles").search_nodes
    most = most.reshape(len(grids), 4).max(axis=1)
    row = int(np.flatnonzero(own < most)[0])
    text = as_text(grids[row])
    options = {"rules": "singles", "measures": ("rating",), "rating_samples": 4}
    tight = solver.solve(text, max_nodes=int(own[row]), **options)
    assert (tight.status, tight.rating) == ("unique", None)
    assert solver.solve(text, max_nodes=int(most[row]), **options).rating is not None


def test_batch_columns_hold_their_nulls_as_minus_one_and_nan():
    batch = solver.solve_strings(["x" * 81, HUTTON["gentle"]], measures=("backdoor",))
    assert batch.grade.dtype == np.int8 and batch.backdoor_size.dtype == np.int8
    assert batch.grade.tolist() == [-1, solver.GRADES.index("singles")]
    assert batch.backdoor_size.tolist() == [-1, 0]
    assert np.isnan(batch.rating).all()  # not asked for


@pytest.mark.parametrize("bad, message", [
    ({"measures": "rating"}, "measures must be a sequence"),
    ({"measures": ("rating", "canonical?")}, "measures may hold only rating, backdoor"),
    ({"rating_samples": 0}, "rating_samples must be a whole number from 1 to 1,024"),
    ({"rating_samples": 2.5}, "rating_samples"),
])
def test_bad_measure_options_are_refused(bad, message):
    with pytest.raises(ValueError, match=message):
        solver.solve(HUTTON["easy"], **bad)
