"""The measures of SPEC sections 5 and 6 in a run (issues 12 and 13): their columns, their
summary sections, the same numbers as the solver's, whatever the workers or batches, and the
public record (Radcliffe's difficulty) where ../shared/datasets is present."""

from __future__ import annotations

import csv

import polars as pl
import pytest

import pipeline
import solver
from pipeline.duplicates import duplicates
from pipeline.run import solve_dataset
from pipeline.settings import load_settings
from pipeline.summary import summarize
from tests.conftest import DATA, EVERY_MEASURE_BUT_SE, ROOT, SAMPLE, SHARED

INPUTS = [SAMPLE, DATA / "kaggle_20.csv", DATA / "norvig_hardest_8.txt"]
MEASURED = ["grade", "rating", "backdoor_size", "canonical"]


@pytest.fixture(scope="module")
def measured_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("measured") / "out"
    # the SE rating with a small work budget: the hardest puzzles are over it in seconds
    summary = solve_dataset(INPUTS, out, load_settings(workers=2, measures=EVERY_MEASURE_BUT_SE,
                                                       batch_size=40), progress=False)
    return out, summary, pipeline.read_run(out).collect()


def test_every_row_carries_the_solvers_measures(measured_run):
    _, _, frame = measured_run
    valid = frame.filter(pl.col("grid").is_not_null())
    batch = solver.solve_strings(valid["grid"].to_list(), measures=("rating", "backdoor", "canonical"))
    expected = [batch.row(i) for i in range(len(batch))]
    assert valid["grade"].to_list() == [r.grade for r in expected]
    assert valid["rating"].to_list() == [r.rating for r in expected]  # to the bit
    assert valid["backdoor_size"].to_list() == [r.backdoor_size for r in expected]
    assert valid["canonical"].to_list() == [r.canonical for r in expected]
    invalid = frame.filter(pl.col("grid").is_null())
    assert invalid.height and invalid.select(MEASURED).null_count().row(0) == (invalid.height,) * 4


def test_the_summary_counts_them(measured_run):
    out, summary, frame = measured_run
    numbers = summary.numbers
    grades = dict(frame["grade"].drop_nulls().value_counts().iter_rows())
    assert numbers.grade_ladder == {name: grades.get(name, 0) for name in solver.GRADES}
    ratings = frame["rating"].drop_nulls().sort()
    assert numbers.rating.rows == len(ratings)
    assert numbers.rating.max == ratings.max()
    assert numbers.rating.p50 == ratings[(len(ratings) + 1) // 2 - 1]
    sizes = dict(frame["backdoor_size"].drop_nulls().value_counts().iter_rows())
    assert numbers.backdoor_size_histogram == {k: sizes[k] for k in sorted(sizes)}
    exact, symmetry = summary.duplicates["exact"], summary.duplicates["symmetry"]
    assert exact.distinct == frame["grid"].drop_nulls().n_unique()
    assert symmetry.distinct == frame["canonical"].drop_nulls().n_unique()
    classes = (frame.filter(pl.col("canonical").is_not_null()).group_by("canonical")
               .agg(pl.len(), pl.col("source").first(), pl.col("row").first())
               .filter(pl.col("len") > 1).sort("len", descending=True))
    assert symmetry.repeated == classes.height
    assert [c.rows for c in symmetry.largest] == classes["len"].to_list()[:10]
    biggest = symmetry.largest[0]
    members = frame.filter(pl.col("canonical") == biggest.value)
    assert biggest.where[0] == (members["source"][0], members["row"][0])
    assert biggest.inputs == dict(members["source"].value_counts().iter_rows())
    again = summarize(out)
    assert again.numbers == summary.numbers and again.duplicates == summary.duplicates


def test_duplicates_across_inputs_name_the_inputs_they_share(tmp_path):
    """Two inputs sharing two puzzles exactly and one more up to symmetry (a transposed copy):
    the classes they share are counted per set of inputs."""
    puzzles = [line for line in (DATA / "norvig_hardest_8.txt").read_text().splitlines()]
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_text("\n".join(puzzles[:5]) + "\n")
    transposed = "".join(puzzles[4][9 * c + r] for r in range(9) for c in range(9))
    second.write_text("\n".join([puzzles[0], puzzles[1], transposed, puzzles[6]]) + "\n")
    out = tmp_path / "out"
    summary = solve_dataset([first, second], out, load_settings(workers=1, measures="canonical"),
                            progress=False)
    exact, symmetry = summary.duplicates["exact"], summary.duplicates["symmetry"]
    assert exact.shared == {(str(first), str(second)): 2}
    assert symmetry.shared == {(str(first), str(second)): 3}
    assert (exact.rows, exact.distinct, exact.repeated) == (9, 7, 2)
    parts = [(str(path), str(first if path.name.startswith("part-00000-") else second))
             for path in sorted(out.glob("part-*.parquet"))]
    assert duplicates(parts) == summary.duplicates


def test_without_measures_only_the_grade(tmp_path, euler_txt):
    out = tmp_path / "out"
    summary = solve_dataset([euler_txt], out, load_settings(workers=1), progress=False)
    frame = pipeline.read_run(out).collect()
    assert frame["grade"].drop_nulls().len() > 0
    assert frame.select("rating", "backdoor_size", "canonical").null_count().row(0) == (
        frame.height,) * 3
    assert summary.duplicates is None and summary.numbers.rating.rows == 0


def test_measures_do_not_depend_on_workers_or_batches(tmp_path, measured_run):
    _, _, frame = measured_run
    out = tmp_path / "out"
    solve_dataset(INPUTS, out, load_settings(workers=1, measures=EVERY_MEASURE_BUT_SE,
                                             batch_size=97), progress=False)
    again = pipeline.read_run(out).collect()
    assert again.drop("solve_us").equals(frame.drop("solve_us"))


RADCLIFFE = SHARED / "radcliffe_3m_sample.csv"


@pytest.mark.skipif(not RADCLIFFE.exists(), reason="../shared/datasets is not here")
def test_radcliffe_difficulty_0_is_exactly_the_first_two_rungs():
    """SPEC 5.2's check against the public record: Radcliffe's difficulty (an average search
    depth over random runs) is 0 exactly when singles solve the puzzle."""
    with open(RADCLIFFE, newline="") as file:
        rows = list(csv.DictReader(file))
    batch = solver.solve_strings([row["puzzle"] for row in rows])
    easy = [grade in ("prune", "singles") for grade in batch.grades()]
    assert easy == [float(row["difficulty"]) == 0 for row in rows]


def test_the_readme_split_recipe_keeps_classes_on_one_side(measured_run):
    """The isomorph-disjoint train/test split of docs/measures.md, as written there."""
    recipe = (ROOT / "docs" / "measures.md").read_text()
    for line in ('rows = pipeline.read_run("out").filter(pl.col("canonical").is_not_null())',
                 'bucket = pl.col("canonical").hash(seed=2026) % 10',
                 "train = rows.filter(bucket < 8).collect()",
                 "test = rows.filter(bucket >= 8).collect()"):
        assert line in recipe, line
    out, _, _ = measured_run
    rows = pipeline.read_run(out).filter(pl.col("canonical").is_not_null())
    bucket = pl.col("canonical").hash(seed=2026) % 10
    train = rows.filter(bucket < 8).collect()
    test = rows.filter(bucket >= 8).collect()
    assert train.height and test.height
    assert train.join(test, on="canonical").height == 0


def test_exact_duplicates_are_counted_at_every_box_size(tmp_path):
    """Issue 33.2: a 16 x 16 run said "0 distinct of 0 rows": only 81-character grids were
    hashed. Grids of every length count, and grids of different sizes never match."""
    hexadoku = (DATA / "boxsize" / "hexadoku.csv").read_text().splitlines()[1:]
    puzzles = [line.split(",")[1] for line in hexadoku]
    nine = (DATA / "norvig_hardest_8.txt").read_text().splitlines()[:2]
    path = tmp_path / "mixed.txt"
    path.write_text("\n".join(puzzles + puzzles[:2] + nine + nine[:1]) + "\n")
    summary = solve_dataset([path], tmp_path / "out",
                            load_settings(workers=1, boxsize="auto", alphabet="0123456789ABCDEF",
                                          rules="singles", measures="canonical"), progress=False)
    exact = summary.duplicates["exact"]
    distinct = len(puzzles) + len(nine)
    assert (exact.rows, exact.distinct, exact.repeated) == (distinct + 3, distinct, 3)
