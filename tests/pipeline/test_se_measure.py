"""The measure ``se`` (SPEC 5.4) from the solver to the report: its columns and their nulls, the
``se_techniques`` struct as polars (and DuckDB, when installed) query it, the work budget, the
summary, ``--by``, ``--hardest`` and the report, ``solve --explain`` and ``generate --se``.

The ratings are held to serate's own, on the puzzles of ``tests/data/se/excerpt.tsv`` that the
reference rates in well under a second (``tests/solver/test_se_reference.py`` holds the reference to
every row of it).
"""

from __future__ import annotations

import polars as pl
import pytest
from matplotlib.colors import to_rgb

import solver
from pipeline.generate import generate_dataset
from pipeline.report import SE_COLOURS, write_report
from pipeline.run import solve_dataset
from pipeline.settings import load_generation, load_settings
from pipeline.stats import SE_BANDS
from pipeline.summary import (
    band_text,
    format_groups,
    format_hardest,
    format_summary,
    hardest_in,
    summarize_by,
)
from solver.reference import se_rules, se_uniqueness
from solver.reference.se import se_rating
from solver.reference.se_chains import BINARY, CELL, CYCLE, FORCING, REGION, ChainHint, Chaining, Node
from solver.vocabulary import SE_TECHNIQUES, se_technique
from tests.browser import needs_chromium, screenshot_colours
from tests.conftest import ROOT
from tests.solver.test_se_reference import ROWS

BY_SOURCE = {row["source"]: row for row in ROWS}
# Quick to rate, and between them most of the simple techniques: singles, direct hints, an
# intersection, subsets, an X-Wing, an XY-Wing, a unique rectangle, a BUG.
EASY = [BY_SOURCE[source] for source in ("kaggle:110", "norvig10k:1762", "radcliffe:2040",
                                         "norvig10k:1858", "norvig10k:1297", "norvig10k:4722")]
# An ER 8.3 path: static chains, then Nishio and region forcing chains, which propagate.
CHAIN = BY_SOURCE["radcliffe:2128"]
MULTIPLE = "." * 81
FULL = "864371259325849761971265843436192587198657432257483916689734125713528694542916378"


def _folded(path: dict[str, int]) -> dict[str, int]:
    """serate's technique counts by SE name, as ``se_techniques`` counts them."""
    counts: dict[str, int] = {}
    for name, count in path.items():
        counts[se_technique(name)] = counts.get(se_technique(name), 0) + count
    return {name: counts[name] for name in SE_TECHNIQUES if name in counts}


# The compiled SE rating compiles for minutes in a fresh clone: what uses it is a slow test (make
# test-slow); the fast suite holds the reference's ratings to serate's (test_se_reference.py).
COMPILED = pytest.mark.slow


@COMPILED
def test_the_columns_are_serates_numbers_and_null_unless_unique():
    implementation = "fast"
    puzzles = [row["puzzle"] for row in EASY] + [MULTIPLE, "x" * 81]
    batch = solver.solve_strings(puzzles, measures=("se",), implementation=implementation)
    for i, row in enumerate(EASY):
        result = batch.row(i)
        assert (result.se, result.se_ep, result.se_ed) == row["expected"], row["source"]
        assert result.se_techniques == _folded(row["path"]), row["source"]
    for i in (len(EASY), len(EASY) + 1):
        result = batch.row(i)
        assert (result.se, result.se_ep, result.se_ed, result.se_techniques) == (None,) * 4
    solved = solver.solve(EASY[0]["puzzle"], measures=("se",), max_solutions=1,
                          implementation=implementation)
    assert solved.status == "solved" and solved.se is None  # SPEC 5.4: unique rows only
    assert solver.solve(EASY[0]["puzzle"], implementation=implementation).se is None
    auto = solver.solve_strings(["....2..11.24....", EASY[0]["puzzle"]], boxsize="auto",
                                measures=("se",), implementation=implementation)
    assert auto.row(0).boxsize == 2 and auto.row(0).se is None  # 9 x 9 only
    assert auto.row(1).se == float(EASY[0]["er"])


def _hint_names() -> set[str]:
    """Every name the reference can give a hint: the rules' fixed names, the loops' and BUGs'
    (built as ``se_uniqueness`` builds them), and each chaining rule's names for every kind of
    chain hint (a Forcing Y-Chain cannot be made: Y-only chains build cycles only)."""
    names = {"Hidden Single", "Direct Pointing", "Direct Claiming", "Naked Single", "Pointing",
             "Claiming", "Generalized Intersection", "XY-Wing", "XYZ-Wing",
             "Aligned Pair Exclusion", "Aligned Triplet Exclusion"}
    names |= {f"Direct Hidden {se_rules.SET_NAMES[d]}" for d in (2, 3)}
    names |= {f"{kind} {name}" for kind in ("Naked", "Hidden")
              for name in se_rules.SET_NAMES.values()}
    names |= set(se_rules.FISH_NAMES.values())
    extras = [""] + [f" (w/{kind} {name})" for kind in ("Naked", "Hidden")
                     for name in se_uniqueness.SET_NAME.values()]
    names |= {se_uniqueness._Loop(kind, list(range(size)), 1, 2, {}, 0.0, extra).name
              for kind in (1, 2, 3, 4) for size in (4, 6, 8, 10, 12, 14) for extra in extras}
    names |= {f"BUG type {kind}" for kind in (1, 2, 3, 4)}
    # What each chaining rule makes (Chaining.cell_hints): Nishio only contradictions, the
    # static multiple rule only cell and region chains, the dynamic ones all four kinds.
    kinds = {Chaining(False, True, True, 0): [(BINARY, True)],
             Chaining(True, False, False, 0): [(CELL, False), (REGION, False)],
             **{Chaining(True, True, False, level): [(BINARY, True), (BINARY, False),
                                                     (CELL, False), (REGION, False)]
                for level in range(6)}}
    for rule, made in kinds.items():
        names |= {ChainHint(kind, rule, {}, [], None, absurd=absurd).name()
                  for kind, absurd in made}
    static = Chaining(False, False, False, 0)
    for cells in (4, 6):  # a cycle through 4 cells is a Generalized X-Wing
        line = _line(cells + 1)  # its cells: those of the candidates before the last
        names |= {ChainHint(CYCLE, static, {}, [line, line], None, x=x, y=y).name()
                  for x, y in ((True, False), (False, True), (True, True))}
    for length in (4, 6):  # a forcing X-chain of 6 candidates is a Turbot Fish
        line = _line(length)
        names |= {ChainHint(FORCING, static, {}, [line], line, x=True, y=y).name()
                  for y in (False, True)}
    return names


def _line(length: int) -> Node:
    """A chain of ``length`` candidates in distinct cells, each the parent of the next."""
    node = Node(0, 1, True)
    for cell in range(1, length):
        node = Node(cell, 1, cell % 2 == 0, [node])
    return node


def test_every_hint_name_has_its_field():
    names = _hint_names() | {name for row in ROWS for name in row["path"]}
    assert {"Turbot Fish", "Generalized X-Wing", "Unique Loop 8 type 3 (w/Hidden Quad)",
            "Dynamic Cell Forcing Chains (+ Dynamic Forcing Chains (+ Forcing Chains))"} <= names
    fields = {name: se_technique(name) for name in names}
    assert set(fields.values()) == set(SE_TECHNIQUES)  # and no field that nothing fills
    assert fields["Dynamic Region Forcing Chains (+)"] == "dynamic_forcing_chains_plus"
    assert fields["Dynamic Region Forcing Chains (+ Forcing Chains)"] == "nested_forcing_chains"
    with pytest.raises(KeyError):
        se_technique("Sashimi Swordfish")  # not a technique of SE


def test_the_work_budget_is_a_count_that_stops_the_rating():
    whole = se_rating(CHAIN["puzzle"])
    assert (whole.er, whole.ep, whole.ed) == CHAIN["expected"] and whole.work > 0
    assert se_rating(CHAIN["puzzle"], whole.work) == whole  # the same count, every time
    over = se_rating(CHAIN["puzzle"], 100)
    assert over.over_budget and (over.er, over.ep, over.ed) == (None, None, None)
    assert 100 < over.work < whole.work
    easy = se_rating(EASY[1]["puzzle"], 1)  # no chain: no work
    assert easy.work == 0 and easy.er == float(EASY[1]["er"])


@pytest.fixture(scope="module")
def se_run(tmp_path_factory):
    """A run of the easy puzzles, a chain puzzle over a small budget, a puzzle with many
    solutions, in two inputs."""
    folder = tmp_path_factory.mktemp("se")
    first, second = folder / "first.txt", folder / "second.txt"
    first.write_text("\n".join(row["puzzle"] for row in EASY[:4]) + "\n")
    second.write_text("\n".join([*(row["puzzle"] for row in EASY[4:]), CHAIN["puzzle"],
                                 MULTIPLE]) + "\n")
    out = folder / "run"
    settings = load_settings(workers=1, batch_size=3, measures="se", se_budget=100)
    summary = solve_dataset([first, second], out, settings, progress=False)
    return out, summary, pl.read_parquet(out / "part-*.parquet")


@COMPILED
def test_a_run_writes_the_columns_and_the_struct_queries(se_run):
    out, _, frame = se_run
    assert frame["se"].to_list() == [float(row["er"]) for row in EASY] + [None, None]
    assert frame["se_ed"].to_list() == [float(row["ed"]) for row in EASY] + [None, None]
    assert frame["se_techniques"].null_count() == 2
    x_wing = frame.filter(pl.col("se_techniques").struct.field("x_wing") > 0)
    assert x_wing["grid"].to_list() == [row["puzzle"] for row in EASY if "X-Wing" in row["path"]]
    unnested = frame.select(pl.col("se_techniques").struct.unnest()).row(1, named=True)
    assert {k: v for k, v in unnested.items() if v} == _folded(EASY[1]["path"])
    duckdb = pytest.importorskip("duckdb")  # not a dependency: checked where it is installed
    found = duckdb.sql(f"select count(*) from '{out}/part-*.parquet' "
                       "where se_techniques.x_wing > 0").fetchall()
    assert found == [(x_wing.height,)]


@COMPILED
def test_the_summary_counts_the_rows_over_the_budget(se_run):
    _, summary, frame = se_run
    numbers = summary.numbers
    assert numbers.se_unrated == 1 and numbers.se.rows == len(EASY)
    assert numbers.se.max == max(float(row["er"]) for row in EASY)
    assert sum(numbers.se_bands.values()) == len(EASY)
    text = format_summary(summary)
    assert "1 row over the SE work budget (100 chain steps)" in text
    assert "raise --se-budget" in text
    assert "se bands      1.x:2  2.x:1  3.x:1  4.x:1  5.x:1" in text


@COMPILED
def test_by_and_hardest_show_the_se(se_run):
    out, _, _ = se_run
    grouped = summarize_by(out, "source")
    first, second = grouped.groups.values()
    assert (first.se.rows, first.se_unrated, second.se.rows, second.se_unrated) == (4, 0, 2, 1)
    table = format_groups(grouped)
    assert "se (share of rated)" in table and "over budget" in table
    hardest, _, complete = hardest_in(out, 3)
    assert complete and hardest[0].over_se_budget and hardest[0].grid == CHAIN["puzzle"]
    assert [hard.se for hard in hardest[1:]] == [5.6, 4.2]  # the highest rated next
    lines = format_hardest(hardest, {}, se=True).splitlines()
    assert lines[0].split()[:3] == ["#", "se", "rating"]
    assert lines[1].split()[1] == "over" and lines[2].split()[1] == "5.6"


@COMPILED
def test_the_report_shows_the_se(se_run, tmp_path):
    out, _, _ = se_run
    written, _ = write_report(out, tmp_path / "report.html", by="source")
    page = (tmp_path / "report.html").read_text()
    assert '<section id="se">' in page and '<section id="se-table">' in page
    assert "1 row over the SE work budget" in page and "SE over the work budget" in page


@COMPILED
@needs_chromium
def test_the_se_chart_renders_in_a_browser(se_run, tmp_path):
    """The SE section's chart as chromium draws it: a solid area in the colour of each band
    the run's ratings fall in."""
    out, _, frame = se_run
    write_report(out, tmp_path / "report.html", by="source")
    colours = screenshot_colours(tmp_path / "report.html", tmp_path)
    bands = {min(int(er), SE_BANDS[-1]) for er in frame["se"].drop_nulls()}
    assert bands
    for band in bands:
        rgb = tuple(round(255 * c) for c in to_rgb(SE_COLOURS[band_text(band)]))
        assert colours[rgb] > 300, (band_text(band), rgb)


@COMPILED
def test_explain_prints_the_path_as_it_goes(cli):
    puzzle = "".join("." if i in (0, 13, 26, 30, 43, 80) else ch for i, ch in enumerate(FULL))
    result = cli("solve", "--measures", "se", "--explain", puzzle)
    assert result.exit_code == 0
    assert result.stdout.split("\n\n")[-1].splitlines() == [
        f"the Sudoku Explainer path (SPEC 5.4): {puzzle}",
        "Hidden Single: 8 in block 1 => r1c1=8 (1.0)",
        "Hidden Single: 4 in block 2 => r2c5=4 (1.0)",
        "Hidden Single: 3 in block 3 => r3c9=3 (1.0)",
        "Hidden Single: 1 in block 5 => r4c4=1 (1.0)",
        "Hidden Single: 3 in block 6 => r5c8=3 (1.0)",
        "Hidden Single: 8 in block 9 => r9c9=8 (1.0)",
        "ER/EP/ED: 1.0/1.0/1.0",
    ]
    assert "se (ER/EP/ED):    1.0/1.0/1.0" in result.stdout
    wing = BY_SOURCE["radcliffe:1572"]
    lines = cli("solve", "--measures", "se", "--explain", wing["puzzle"]).stdout.splitlines()
    assert "XY-Wing: r9c3,r8c2,r9c8 on 3 => r8c8<>3, r9c2<>3 (4.2)" in lines
    assert lines[-1] == "ER/EP/ED: 4.2/1.2/1.2"


@COMPILED
def test_generate_keeps_the_puzzles_of_an_se_band(tmp_path):
    settings, generation = load_generation(count=4, seed=3, se="1.0-2.0", workers=1,
                                           se_budget=1000)
    assert "se" in settings.measures and generation.se_band() == (1.0, 2.0)
    summary = generate_dataset(tmp_path / "gen", settings, generation, progress=False)
    frame = pl.read_parquet(tmp_path / "gen" / "part-*.parquet")
    assert frame.height == 4 and frame["se"].is_between(1.0, 2.0).all()
    assert summary.generated["se"] == "1.0-2.0" and "se 1.0-2.0" in format_summary(summary)
    with pytest.raises(Exception, match="LOW-HIGH"):
        load_generation(se="9-7")
    with pytest.raises(Exception, match="9 x 9 puzzles only"):
        load_generation(se="1-2", boxsize=2)


def test_measures_md_lists_every_technique_field():
    text = (ROOT / "docs" / "measures.md").read_text()
    section = text.split("## The Sudoku Explainer rating", 1)[1].split("\n## ", 1)[0]
    listed = [line.split("`")[1] for line in section.splitlines()
              if line.startswith("| `") and line.split("`")[1] in SE_TECHNIQUES]
    assert listed == list(SE_TECHNIQUES)
