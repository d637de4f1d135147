"""Any box size (issue 19, SPEC section 7): Bird's laws for b = 2, 3, 4; the fast engines against
the reference, to the node, on generated and published puzzles of every size, under every
variant and both rule sets; the measures; and runs of 16 x 16 and mixed-size files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import solver
from pipeline.run import solve_dataset
from pipeline.settings import load_settings
from solver.compiled import generate
from solver.grid import symbols
from solver.reference import bird
from tests import runs

DATA = Path(__file__).resolve().parents[1] / "data" / "boxsize"
HEXADOKU = DATA / "hexadoku.csv"
HEX = "0123456789ABCDEF"  # the published hexadoku puzzles' alphabet: 0 is a digit
VARIANTS = [{"prune": "fixpoint", "cell": "smallest"}, {"prune": "once", "cell": "smallest"},
            {"prune": "once", "cell": "first"}, {"prune": "fixpoint", "cell": "first"},
            {"rules": "singles"}]


def generated(boxsize: int) -> list[str]:
    """tests/data/boxsize/generated_b*.txt: unique puzzles, then one with several solutions,
    a contradictory one, a solution, and two invalid rows (see tools/make_boxsize_data.py)."""
    lines = (DATA / f"generated_b{boxsize}.txt").read_text().splitlines()
    return [line for line in lines if not line.startswith("#")]


def hexadoku() -> pl.DataFrame:
    return pl.read_csv(HEXADOKU, infer_schema=False)


# --- Bird's laws, for any box size ---------------------------------------------------------------


def matrices(n: int):
    cell = st.text(solver.vocabulary.SYMBOLS[:n], min_size=0, max_size=n)
    return st.lists(st.lists(cell, min_size=n, max_size=n), min_size=n, max_size=n)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([4, 9, 16]).flatmap(matrices))
def test_rows_cols_boxs_are_involutions_for_every_box_size(m):
    assert bird.rows(bird.rows(m)) == m
    assert bird.cols(bird.cols(m)) == m
    assert bird.boxs(bird.boxs(m)) == m


def test_boxs_is_huttons_example_for_box_size_2():
    m = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], [13, 14, 15, 16]]
    assert bird.boxs(m) == [[1, 2, 5, 6], [3, 4, 7, 8], [9, 10, 13, 14], [11, 12, 15, 16]]


@settings(max_examples=30, deadline=None)
@given(st.sampled_from([2, 3, 4]), st.integers(0, 10**6))
def test_pruning_never_loses_the_solution(boxsize, draw):
    """Every digit ``fix prune`` (and hidden singles) removes is no digit of the solution, on
    generated puzzles of each size."""
    puzzle, solution = generate.candidates(11, draw, 1, boxsize, minimal=boxsize < 4)
    written = symbols(boxsize)
    g = bird.read_mat(written.text(puzzle[0]))
    for propagate in (bird.prune, bird.prune_singles):
        m = bird.fix(propagate, bird.choices(g))
        flat = [xs for row in m for xs in row]
        assert all(written.symbols[v - 1] in xs for v, xs in zip(solution[0], flat, strict=True))


@pytest.mark.parametrize("boxsize", [2, 3, 4])
def test_huttons_blank_grid_of_every_box_size(boxsize):
    """Hutton's ``blank = replicate n (replicate n '.') where n = boxsize ^ 2``: many solutions,
    the same search in both implementations (a budget for 16 x 16, whose first solution is deep)."""
    blank = "." * boxsize**4
    assert_agree([blank], boxsize=boxsize, max_nodes=400)
    assert solver.solve(blank, boxsize=boxsize, max_nodes=400).status in ("multiple",
                                                                         "budget_exceeded")


# --- the fast engines against the reference -----------------------------------------------------


def assert_agree(puzzles: list[str], **options) -> None:
    fast = solver.solve_strings(puzzles, implementation="fast", **options)
    reference = solver.solve_strings(puzzles, implementation="reference", **options)
    for i, text in enumerate(puzzles):
        a, b = fast.row(i), reference.row(i)
        assert {**vars(a), "solve_us": 0} == {**vars(b), "solve_us": 0}, (text, options)


def size_and_variant_cases():
    """Every box size under every variant; from 9 x 9 up the fast suite keeps some variants (the
    reference takes seconds a puzzle beyond 9 x 9; test_implementations runs every variant on
    9 x 9) and ``make test-slow`` runs the others, and the published 16 x 16 puzzles."""
    kept = {3: ("fixpoint-smallest", "once-smallest", "singles"), 4: ("fixpoint-smallest",),
            5: ("once-smallest",)}
    for boxsize in (2, 3, 4, 5):
        for variant in VARIANTS:
            name = "-".join(variant.values())
            fast = boxsize == 2 or name in kept[boxsize]
            yield pytest.param(boxsize, variant, id=f"{boxsize}-{name}",
                               marks=() if fast else pytest.mark.slow)


# A budget for the near-empty puzzles, and for the invalid rows, which the reference searches as
# blank grids (2,000 nodes of a blank 25 x 25 grid take it 3 s): above every other row's search
# (at most 244 nodes at 16 x 16, 890 at 25 x 25), so each status stays.
GENERATED_BUDGET = {2: 2_000, 3: 2_000, 4: 300, 5: 1_000}


@pytest.mark.parametrize("boxsize, variant", list(size_and_variant_cases()))
def test_generated_puzzles_of_every_size_agree_to_the_node(boxsize, variant):
    """Every column but solve_us, the grade included."""
    assert_agree(generated(boxsize), boxsize=boxsize, max_nodes=GENERATED_BUDGET[boxsize],
                 **variant)


@pytest.mark.parametrize("variant", [{"rules": "singles"},
                                     pytest.param({"prune": "fixpoint"}, marks=pytest.mark.slow)])
@pytest.mark.slow
def test_published_hexadoku_agree_to_the_node(variant):
    frame = hexadoku()
    assert_agree(frame["puzzle"].to_list(), boxsize=4, alphabet=HEX, max_nodes=3_000, **variant)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from(VARIANTS))
def test_random_4x4_puzzles_agree(draw, variant):
    puzzle, _ = generate.candidates(5, draw, 1, 2, minimal=bool(draw % 2))
    text = symbols(2).text(puzzle[0])
    assert_agree([text, text.replace("1", ".")], boxsize=2, **variant)


@pytest.mark.parametrize("boxsize", [2, 4])
def test_measures_of_other_sizes_agree(boxsize):
    """grade, rating over the generalised copies (SPEC 7), backdoor size (up to 1 beyond 9 x 9),
    canonical null."""
    puzzles = generated(boxsize)[:5]
    options = {"boxsize": boxsize, "rules": "singles", "rating_samples": 4,
               "measures": ("rating", "backdoor", "canonical")}
    assert_agree(puzzles, **options)
    found = solver.solve_strings(puzzles, **options)
    assert all(found.row(i).canonical is None for i in range(len(puzzles)))
    if boxsize == 4:
        assert {found.row(i).backdoor_size for i in range(len(puzzles))} <= {0, 1, None}


def test_the_copies_of_a_rating_are_symmetries_of_any_size():
    for b in (2, 3, 4, 5):
        copies = solver.symmetry.rating_copies(6, b)
        assert copies.shape == (6, b**4)
        assert all(sorted(row) == list(range(b**4)) for row in copies.tolist())
    nine = solver.symmetry.rating_copies(3, 3)
    assert nine.tolist() == solver.symmetry.rating_copies(3).tolist()  # SPEC 5.2 exactly


# --- puzzles as text -----------------------------------------------------------------------------


def test_errors_say_what_spec_7_says():
    assert solver.solve("1" * 256).error == (
        "expected 81 cells, got 256 (a 16 x 16 puzzle: --boxsize 4 or auto)")
    assert solver.solve("1" * 80, boxsize="auto").error == (
        "expected 16, 81, 256 or 625 cells, got 80")
    bad = "." * 20 + "H" + "." * 235
    assert solver.solve(bad, boxsize=4).error == ("unexpected character 'H' at cell 20 "
                                                 "(row 2, column 5)")
    assert solver.solve("g" + "." * 255, boxsize=4).status == "multiple"  # letters either case
    assert solver.solve("0" * 256, boxsize=4, alphabet=HEX).status == "contradictory"
    assert solver.solve("0" * 256, boxsize=4).status == "multiple"  # "0" blank by default
    with pytest.raises(ValueError, match="alphabet holds 9 symbols"):
        solver.SolveOptions(boxsize=4, alphabet="123456789")


@pytest.mark.parametrize("boxsize, alphabet, words", [
    (3, "12345678\u00e9", "'\u00e9' is not"),
    (4, "0123456789ABCDE\u00e9", "'\u00e9' is not"),
    (3, "\u03b1\u03b2\u03b3\u03b4\u03b5\u03b6\u03b7\u03b8\u03b9", "'\u03b1' is not"),
])
def test_an_alphabet_beyond_ascii_is_refused_by_name_before_anything_runs(cli, tmp_path, boxsize,
                                                                          alphabet, words):
    """Issue 29.2: a symbol is one byte, so one above 127 is refused where the setting is
    read, with the rule; before, it passed, then every batch raised (rows lost on 16 x 16)."""
    puzzles = tmp_path / "puzzles.txt"
    puzzles.write_text(("." * boxsize**4 + "\n") * 3)
    result = cli("solve-dataset", str(puzzles), "-o", str(tmp_path / "out"),
                 "--boxsize", str(boxsize), "--alphabet", alphabet)
    assert result.exit_code == 2
    assert result.stderr.strip().startswith("error: setting alphabet symbols must be ASCII characters, "
                                            "one byte each"), result.stderr
    assert words in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "out").exists()
    result = cli("solve", "." * boxsize**4, "--boxsize", str(boxsize), "--alphabet", alphabet)
    assert result.exit_code == 2 and "must be ASCII characters" in result.stderr


def test_under_auto_an_invalid_row_of_a_valid_length_has_no_boxsize(cli, tmp_path):
    """Issue 29.8, SPEC 7: "null for an invalid row under auto", whatever its length; a row of
    81 bad characters had boxsize 3. Under a fixed box size the row keeps it."""
    assert solver.solve("X" * 81, boxsize="auto").boxsize is None
    assert solver.solve("X" * 81).boxsize == 3
    path = tmp_path / "mixed.txt"
    path.write_text("X" * 81 + "\n" + "1" * 16 + "\n" + "." * 80 + "\n" + "." * 16 + "\n")
    assert cli("solve-dataset", str(path), "-o", str(tmp_path / "out"), "--boxsize", "auto",
               "-q", "--workers", "1").exit_code == 0
    found = pl.read_parquet(tmp_path / "out" / "*.parquet")
    assert found["status"].to_list() == ["invalid", "contradictory", "invalid", "multiple"]
    assert found["boxsize"].to_list() == [None, 2, None, 2]


def test_a_25x25_puzzle_that_exhausts_the_budget_is_budget_exceeded():
    found = solver.solve("." * 625, boxsize=5, max_nodes=500)
    assert (found.status, found.search_nodes, found.boxsize) == ("budget_exceeded", 500, 5)


@pytest.mark.parametrize("boxsize, alphabet", [(2, ""), (3, ""), (4, ""), (5, ""), (4, HEX),
                                               (3, "ABCDEFGHI")])
def test_symbols_ascii_writes_each_value_as_its_symbol_and_blanks_as_dots(boxsize, alphabet):
    written = symbols(boxsize, alphabet)
    grids = np.arange(written.cells, dtype=np.uint8).reshape(1, -1) % (written.size + 1)
    expected = "".join("." if v == 0 else written.symbols[v - 1] for v in grids[0])
    assert written.ascii(grids).tobytes().decode() == expected


def test_a_published_solution_in_lower_case_matches(tmp_path):
    frame = hexadoku().head(1).with_columns(pl.col("solution").str.to_lowercase())
    frame.write_csv(tmp_path / "lower.csv")
    solve_dataset([tmp_path / "lower.csv"], tmp_path / "out",
                  load_settings(workers=1, boxsize=4, alphabet=HEX, rules="singles"),
                  progress=False)
    assert pl.read_parquet(tmp_path / "out")["solution_matches"].to_list() == [True]


def test_put_draws_any_size():
    drawn = bird.put(bird.read_mat(generated(4)[0])).splitlines()
    assert len(drawn) == 16 + 5 and all(len(line) == 16 + 5 for line in drawn)
    assert drawn[0] == "-" * 21 and drawn[1].count("|") == 5


# --- runs -----------------------------------------------------------------------------------------


def test_a_hexadoku_file_runs_end_to_end(tmp_path):
    out = tmp_path / "out"
    summary = solve_dataset([HEXADOKU], out, load_settings(workers=2, boxsize=4, alphabet=HEX,
                                                           rules="singles"), progress=False)
    frame = pl.read_parquet(out)
    assert frame["status"].to_list() == ["unique"] * 3 + ["multiple", "contradictory"]
    assert frame["solution_matches"].to_list()[:3] == [True] * 3
    assert frame["boxsize"].to_list() == [4] * 5
    assert frame["error"][4] == "digit B twice in row 1"
    assert summary.numbers.boxsize_histogram == {4: 5}
    expected = solver.solve_strings(frame["puzzle"].to_list(), boxsize=4, alphabet=HEX,
                                    rules="singles")
    assert frame["first_solution"].to_list() == [expected.row(i).first_solution for i in range(5)]
    assert frame["grid"][0] == frame["puzzle"][0]  # the alphabet's own symbols, "." blanks


def test_a_file_of_every_size_runs_under_auto(tmp_path, read_output):
    rows = [row for b in (2, 3, 4, 5) for row in generated(b)]
    path = tmp_path / "mixed.txt"
    path.write_text("\n".join(rows) + "\n" + "1" * 80 + "\n")
    out = tmp_path / "out"
    summary = solve_dataset([path], out, load_settings(workers=2, boxsize="auto", batch_size=9,
                                                       max_nodes=5_000), progress=False)
    table = read_output(out)
    assert table.num_rows == len(rows) + 1 == summary.rows_out
    expected = solver.solve_strings(rows + ["1" * 80], boxsize="auto", max_nodes=5_000)
    for name in ("status", "error", "boxsize", "givens", "search_nodes", "first_solution",
                 "grade"):
        assert table.column(name).to_pylist() == [
            getattr(expected.row(i), name) for i in range(len(expected))], name
    # Each size's two invalid rows have no box size (SPEC 7): one cell short (its length is none
    # of 16, 81, 256, 625), and one of its length with a bad symbol.
    assert summary.numbers.boxsize_histogram == {b: len(generated(b)) - 2 for b in (2, 3, 4, 5)}
    assert table.column("boxsize").to_pylist()[-1] is None  # no size: its length is none


def test_summarize_by_boxsize_and_a_one_line_error_for_the_default(cli, tmp_path):
    path = tmp_path / "hex.txt"
    path.write_text("\n".join(generated(4)[:3]) + "\n")
    out = tmp_path / "out"
    done = cli("solve-dataset", path, "-o", out, "-q", "--workers", "1")
    assert done.exit_code == 0  # every row invalid, each saying why
    frame = pl.read_parquet(out)
    assert set(frame["error"]) == {
        "expected 81 cells, got 256 (a 16 x 16 puzzle: --boxsize 4 or auto)"}
    again = tmp_path / "again"
    assert cli("solve-dataset", path, "-o", again, "-q", "--boxsize", "4").exit_code == 0
    grouped = cli("summarize", again, "--by", "boxsize")
    assert grouped.exit_code == 0 and grouped.stdout.splitlines()[1].split()[:2] == ["4", "3"]


@pytest.mark.slow
def test_memory_stays_flat_on_a_file_of_25x25_puzzles(tmp_path):
    """Three times the rows of 625 cells (90,000 against 30,000, in batches of 100; 56 and 19 MB
    files, both past the 16 MiB a text file is read by) cost the run no more memory: its
    largest process holds a block and a few batches, never the file."""
    puzzle, _ = generate.candidates(3, 0, 1, 5, minimal=False)
    text = symbols(5).text(puzzle[0])
    peaks = []
    for rows in (30_000, 90_000):
        path = tmp_path / f"big-{rows}.txt"
        path.write_text((text + "\n") * rows)
        out = tmp_path / f"out-{rows}"
        code, peak_mib, stderr = runs.measured(
            runs.command(path, out, "--boxsize", "5", "--workers", "2", "--rules", "singles",
                         "--batch-size", "100", "-q"), timeout=900)
        assert code == 0, stderr
        assert pl.read_parquet(out)["status"].unique().to_list() == ["unique"]
        peaks.append(peak_mib)
    assert peaks[1] < peaks[0] + 25, f"peak {peaks[0]} MiB for 30,000 rows, {peaks[1]} for 90,000"


@settings(max_examples=200, deadline=None)
@given(st.sampled_from([4, 9]).flatmap(
    lambda n: st.lists(st.sets(st.sampled_from(solver.vocabulary.SYMBOLS[:n]), max_size=n)
                       .map(lambda ds: "".join(sorted(ds))), min_size=n, max_size=n)))
def test_subsets_by_hall_are_subsets_one_by_one(row):
    """The reference's two ways to S and to a crowded unit (every subset of cells; Hall's
    theorem, for units of more than 9 cells) are the same."""
    from solver.reference import bird, ladder

    assert ladder.crowded_by_subsets(row) == (ladder.matching(row) is None)
    if not ladder.crowded_by_subsets(row):
        assert ladder.exclude_by_matching(row) == bird.fix(ladder.exclude_by_subsets, row)


def test_a_run_whose_rows_hit_the_budget_says_what_to_try(cli, tmp_path):
    """Issue 33.6: hexadoku's hard1 ran out of Bird's budget with no hint that --rules singles
    solves it in 35 nodes."""
    out = tmp_path / "out"
    published = Path(__file__).resolve().parents[2] / "data" / "hexadoku.csv"
    done = cli("solve-dataset", published, "-o", out, "--boxsize", "4",
               "--alphabet", HEX,
               "--max-nodes", "100000", "--workers", "1")
    assert done.exit_code == 0, done.stderr
    assert ("hint: 1 row ran out of the node budget (100,000 nodes); --rules singles (hidden "
            "singles at every node) often needs far fewer nodes") in done.stdout
    again = cli("summarize", out)
    assert "hint: 1 row ran out" in again.stdout
