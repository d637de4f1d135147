"""The report of a run (issue 14, point 1) and the summary per group (point 2): every section is
there, nothing is loaded from the network, the charts render in a browser, and the numbers per
group are those polars counts."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import polars as pl
import pytest

import pipeline
import solver
from pipeline.report import MAX_GROUPS, write_report
from pipeline.run import solve_dataset
from pipeline.settings import load_settings
from pipeline.stats import PERCENTILES, Stats, percentile
from pipeline.summary import summarize
from tests.browser import needs_chromium, screenshot_colours
from tests.conftest import DATA, EVERY_MEASURE_BUT_SE, SAMPLE

# The sections of a run of every measure but se (whose section then says it was not measured;
# tests/pipeline/test_se_measure.py, a slow test, reads its chart and its table).
SECTIONS = ("grades", "effort", "givens", "duplicates", "se", "rating", "backdoor",
            "statuses", "depth", "groups", "hardest", "reasons", "run")
# What would make a browser fetch something: a URL in src/href, a style sheet import, a CSS url.
FETCHES = (
    re.compile(r"""\b(?:src|href)\s*=\s*["']?\s*(?:https?:|ftp:)?//""", re.IGNORECASE),
    re.compile(r"@import", re.IGNORECASE),
    re.compile(r"""url\(\s*["']?\s*(?:https?:|ftp:)?//""", re.IGNORECASE),
    re.compile(r"<(?:script|link|img|iframe|object|embed)\b", re.IGNORECASE),
)


@pytest.fixture(scope="module")
def measured_run(tmp_path_factory) -> Path:
    """The sample (every status, a collection column) and kaggle_20 (no such column), with
    every measure but se, in several parts."""
    out = tmp_path_factory.mktemp("report") / "run"
    settings = load_settings(workers=1, batch_size=64, measures=EVERY_MEASURE_BUT_SE)
    solve_dataset([SAMPLE, DATA / "kaggle_20.csv"], out, settings, progress=False)
    return out


@pytest.fixture(scope="module")
def report(measured_run) -> str:
    written, summary = write_report(measured_run, by="collection")
    assert summary.complete
    return Path(written).read_text()


def test_the_report_has_every_section(report, measured_run):
    for anchor in SECTIONS:
        assert f'<section id="{anchor}">' in report, anchor
    assert report.count("<svg") == 7  # grades, effort, givens, rating (2), backdoor, depth
    assert report.count("Not measured in this run") == 1  # se
    assert report.count('<pre class="grid">') == 20
    assert "expected 81 cells, got 80" in report  # a reason of an invalid row
    assert "Up to symmetry" in report and report.count("Not measured") == 1  # se
    assert "kaggle_20.csv" in report  # the group of the rows without a collection
    summary = pipeline.read_summary(measured_run)
    for entry in summary.inputs:
        assert entry.sha256[:16] in report and entry.path in report
    assert "This run is incomplete" not in report


def test_nothing_is_loaded_from_the_network(report):
    for pattern in FETCHES:
        assert not pattern.search(report), pattern.search(report).group(0)
    assert "<!DOCTYPE svg" not in report and "<metadata>" not in report


def test_the_report_goes_beside_the_directory_never_inside(measured_run, tmp_path):
    written, _ = write_report(measured_run)
    assert written == f"{measured_run}.html" and Path(written).stat().st_size < 1_000_000
    with pytest.raises(pipeline.PipelineError, match="must hold only Parquet"):
        write_report(measured_run, measured_run / "report.html")
    assert {p.suffix for p in measured_run.iterdir()} == {".parquet"}
    pl.read_parquet(measured_run)  # still one dataset


@pytest.mark.slow
def test_many_groups_are_capped(measured_run, tmp_path):
    page = Path(write_report(measured_run, tmp_path / "by_grid.html", by="grid")[0]).read_text()
    groups = page.split('<section id="groups">', 1)[1].split("</section>", 1)[0]
    assert groups.count("<tr>") == MAX_GROUPS + 1  # the header, the largest groups, the others
    assert "other values" in groups


def test_a_run_without_measures_says_what_is_missing(kaggle_csv, tmp_path):
    out = tmp_path / "plain"
    solve_dataset([kaggle_csv], out, load_settings(workers=1), progress=False)
    page = Path(write_report(out)[0]).read_text()
    assert page.count("Not measured in this run") == 3  # se, rating, backdoor size
    assert "No canonical forms in this run" in page


def test_report_command(cli, measured_run, report, tmp_path):
    target = tmp_path / "r.html"
    done = cli("report", measured_run, "--by", "collection", "-o", target)
    assert done.exit_code == 0, done.output
    assert str(target) in done.stdout
    assert target.read_text() == report  # the same run gives the same file
    done = cli("report", measured_run, "--by", "levels")
    assert done.exit_code == 2
    assert "no column 'levels'" in done.stderr and len(done.stderr.strip().splitlines()) == 1


# --- summarize --by, by_input ------------------------------------------------------------------


def _groups_by_polars(out: Path, column: str) -> dict[str, Counter]:
    rows = pl.read_parquet(out).with_columns(
        pl.coalesce(pl.col(column), pl.col("source").str.split("/").list.last()).alias("group"))
    counts = rows.group_by("group", "status").len()
    found: dict[str, Counter] = {}
    for group, status, count in counts.iter_rows():
        found.setdefault(group, Counter())[status] = count
    return found


def test_summarize_by_counts_as_polars(cli, measured_run):
    done = cli("summarize", measured_run, "--by", "collection", "--json")
    assert done.exit_code == 0, done.output
    grouped = json.loads(done.stdout)
    assert grouped["by"] == "collection" and grouped["complete"]
    expected = _groups_by_polars(measured_run, "collection")
    assert set(grouped["groups"]) == set(expected)
    for name, numbers in grouped["groups"].items():
        assert Counter({k: v for k, v in numbers["status"].items() if v}) == expected[name], name
        assert numbers["rows"] == sum(expected[name].values())
    first = list(grouped["groups"])[0]
    assert first == pl.read_csv(SAMPLE, infer_schema=False)["collection"][0]  # input order


def test_summarize_by_prints_a_table(cli, measured_run):
    done = cli("summarize", measured_run, "--by", "status")
    assert done.exit_code == 0, done.output
    lines = done.stdout.splitlines()
    assert lines[0].split()[:2] == ["status", "rows"]
    assert {"grade (share of graded)", "search_nodes", "rating"} <= {
        line.split("  ")[0] for line in lines}
    counts = dict(pl.read_parquet(measured_run)["status"].value_counts().iter_rows())
    for status, count in counts.items():
        assert any(line.split()[:2] == [status, f"{count:,}"] for line in lines), status


@pytest.mark.parametrize("column", ["grade", "status", "givens"])
def test_summarize_by_a_column_with_an_order_lists_its_groups_in_it(cli, measured_run, column):
    """Issue 33.3: --by grade listed the grades in order of first appearance; the ladder's
    order it is (SPEC's order for status, numbers by value), the rows without a value last."""
    grouped = json.loads(cli("summarize", measured_run, "--by", column, "--json").stdout)
    names = list(grouped["groups"])
    order = {"grade": list(solver.GRADES), "status": list(solver.STATUSES)}.get(column)
    values = [name for name in names if (name in order if order else name.isdigit())]
    assert values == sorted(values, key=order.index if order else int)
    assert names[:len(values)] == values and len(values) >= 3


def test_summarize_by_refuses_a_column_the_run_lacks(cli, measured_run):
    done = cli("summarize", measured_run, "--by", "level")
    assert done.exit_code == 2 and "no column 'level'" in done.stderr
    assert cli("summarize", measured_run, "--by", "status", "--write").exit_code == 2


def test_the_summary_has_the_numbers_of_each_input(measured_run):
    summary = summarize(measured_run)
    by_input = summary.by_input
    assert list(by_input) == [entry.path for entry in summary.inputs]
    rows = pl.read_parquet(measured_run)
    for source, numbers in by_input.items():
        stats = Stats.of_table(rows.filter(pl.col("source") == source).to_arrow())
        assert numbers.rows == stats.rows
        assert {k: v for k, v in numbers.status.items() if v} == dict(stats.status)
        assert {k: v for k, v in numbers.grade_ladder.items() if v} == dict(stats.grade)
        for name in ("search_nodes", "rating"):
            histogram = getattr(stats, name)
            found = getattr(numbers, name)
            assert [getattr(found, f"p{p}") for p in PERCENTILES] == [
                percentile(histogram, p) for p in PERCENTILES], (source, name)
            assert found.max == max(histogram, default=None)
    total = Counter()
    for numbers in by_input.values():
        total.update(numbers.status)
    assert {k: total[k] for k in summary.numbers.status} == summary.numbers.status


def test_a_report_of_an_incomplete_run_says_so_at_the_top_and_exits_3(cli, tmp_path):
    out = tmp_path / "out"
    solve_dataset([SAMPLE], out, load_settings(workers=1, batch_size=50), progress=False)
    (out / "part-00000-000001.parquet").unlink()
    done = cli("report", out, "-o", tmp_path / "r.html")
    assert done.exit_code == 3, done.output
    assert "incomplete" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    page = (tmp_path / "r.html").read_text()
    banner = page.split('<div class="cards">', 1)[0]
    assert "This run is incomplete" in banner and "50 rows are missing" in banner


# --- in a browser ------------------------------------------------------------------------------


@needs_chromium
def test_the_charts_render_in_a_browser_offline(report, tmp_path):
    page = tmp_path / "report.html"
    page.write_text(report)  # the report by collection of the measured run
    colours = screenshot_colours(page, tmp_path)
    assert len(colours) > 200  # charts, not a blank page
    # Solid areas of three charts, in their own colours: the trial rung of the grade ladder
    # (where the sample's hard puzzles land), the boxes of search effort, and a backdoor size.
    for name, rgb in {"grade: trial": (0xF4, 0x6D, 0x43), "effort boxes": (0xC6, 0xD4, 0xEA),
                      "backdoor 2": (0x21, 0x71, 0xB5)}.items():
        assert colours[rgb] > 300, name


# --- faults (issue 22) -------------------------------------------------------------------------


@pytest.fixture
def read_only_directory(tmp_path):
    """A read-only filesystem (a tmpfs mounted read-only; root only)."""
    where = tmp_path / "read-only"
    where.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", str(where)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a read-only filesystem here: {mounted.stderr.strip()}")
    yield where
    subprocess.run(["umount", str(where)], check=True)


def test_a_report_onto_a_read_only_filesystem_is_one_line(cli, measured_run, read_only_directory):
    done = cli("report", measured_run, "-o", read_only_directory / "r.html")
    assert done.exit_code == 2 and "Traceback" not in done.output
    target = read_only_directory / "r.html"
    assert done.stderr == f"error: cannot write {target}: Read-only file system\n"


def test_the_temporary_file_of_a_killed_report_is_removed_by_the_next(measured_run, tmp_path):
    """A report killed while writing leaves ``.r.html.HOST-PID.tmp``; the next report of that
    file removes it (its process has ended), and leaves other processes' alone."""
    import socket

    ended = subprocess.Popen(["true"])
    ended.wait()
    host = socket.gethostname()
    left = tmp_path / f".r.html.{host}-{ended.pid}.tmp"
    left.write_text("half a report")
    writer = subprocess.Popen(["sleep", "60"])  # another process, still running
    running = tmp_path / f".r.html.{host}-{writer.pid}.tmp"
    running.write_text("a report being written")
    try:
        write_report(measured_run, tmp_path / "r.html")
    finally:
        writer.kill()
        writer.wait()
    assert not left.exists() and running.exists()


def test_a_report_beside_a_directory_of_a_long_name_is_written(measured_run, tmp_path, cli):
    """Issue 29.8: a directory named with 240 characters has a report name of 245, which fits,
    but its temporary file's name (host and pid added) did not: "File name too long". The
    temporary name is shortened, and nothing is left beside the report."""

    long = tmp_path / ("d" * 240)
    shutil.copytree(measured_run, long)
    result = cli("report", str(long))
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / ("d" * 240 + ".html")).is_file()
    assert {path.name for path in tmp_path.iterdir()} == {long.name, long.name + ".html"}


# --- answers without code (issue 23) ------------------------------------------------------------


def test_summarize_duplicates_names_the_inputs_that_share_puzzles(cli, tmp_path):
    """Two inputs sharing puzzles, one of them up to symmetry only."""
    puzzles = (DATA / "norvig_hardest_8.txt").read_text().splitlines()
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_text("\n".join(puzzles[:4]) + "\n")
    transposed = "".join(puzzles[3][9 * c + r] for r in range(9) for c in range(9))
    second.write_text("\n".join([puzzles[0], transposed, puzzles[5]]) + "\n")
    out = tmp_path / "out"
    assert cli("solve-dataset", first, second, "-o", out, "-q", "--measures",
               "canonical").exit_code == 0
    done = cli("summarize", out, "--duplicates")
    assert done.exit_code == 0, done.stderr
    assert "exact duplicates (the same grid): 6 distinct of 7 rows" in done.stdout
    assert "up to symmetry (the same canonical form, SPEC 6): 5 distinct of 7 rows" in done.stdout
    assert "    a.txt & b.txt: 1" in done.stdout and "    a.txt & b.txt: 2" in done.stdout
    as_json = json.loads(cli("summarize", out, "--duplicates", "--json").stdout)
    assert as_json["symmetry"]["shared"] == [{"inputs": [str(first), str(second)], "classes": 2}]


def _hardest_first(frame: pl.DataFrame) -> pl.DataFrame:
    """The unique or solved rows, hardest first as --hardest ranks a run that did not measure
    se: by rating, then search nodes (a run that did: tests/pipeline/test_se_measure.py)."""
    return (frame.filter(pl.col("status").is_in(["unique", "solved"]))
            .sort(["rating", "search_nodes"], descending=True, nulls_last=True,
                  maintain_order=True))


def test_summarize_hardest_lists_the_puzzles_to_copy(cli, measured_run):
    done = cli("summarize", measured_run, "--hardest", "5")
    assert done.exit_code == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split()[:4] == ["#", "rating", "nodes", "depth"] and len(lines) == 6
    top = _hardest_first(pl.read_parquet(measured_run)).head(5)
    assert "where (the column row: from 0, no header or comment)" in lines[0]  # issue 33.3
    for line, (grid, source, row) in zip(lines[1:], top.select("grid", "source", "row").rows(),
                                         strict=True):
        assert line.endswith(f"{source.split('/')[-1]} row {row}  {grid}")
    as_json = json.loads(cli("summarize", measured_run, "--hardest", "3", "--json").stdout)
    assert [hard["grid"] for hard in as_json] == top["grid"].head(3).to_list()
    assert cli("summarize", measured_run, "--hardest", "3", "--duplicates").exit_code == 2


def test_search_means_one_thing_in_the_summary_and_the_report(cli, measured_run, report):
    """Issue 33.4: "needs search 57%" stood beside "grade search 0%". The difficulty ladder's
    last rung is "beyond singles"; the grade's is "search (beyond trial2)"."""
    text = cli("summarize", measured_run).stdout
    assert "needs search" not in text and "need search" not in report
    assert "  beyond singles" in text and "  search (beyond trial2)" in text
    assert "beyond singles (Bird" in report


def test_the_charts_say_what_tells_their_groups_and_shares_apart(report):
    """Issue 33.7: a small multiple's title kept the end of a long name ('…u17_all_49158.txt');
    a bar of 99.7% said '100%', hiding the 0.3% beside it; the page ends with a line saying so,
    below its last table, so that a capture cut short is seen to be."""
    from pipeline.report import _shortened, share_label

    assert _shortened("sudoku17_all_49158.txt", 18) == "sudoku17…49158.txt"
    assert _shortened("top1465.txt", 18) == "top1465.txt"
    assert [share_label(x) for x in (99.7, 99.96, 100.0, 56.4, 7.2)] == [
        "99.7%", "99.9%", "100%", "56%", "7%"]
    assert report.rstrip().endswith('</p>\n</body></html>') and 'class="end"' in report


def test_summarize_by_and_hardest_give_the_hardest_of_each_group(cli, measured_run):
    """Issue 33.3: --by and --hardest could not be combined; together they list the N hardest
    of each group, the groups in --by's order, each ranked as --hardest ranks the run."""
    done = cli("summarize", measured_run, "--by", "grade", "--hardest", "2", "--json")
    assert done.exit_code == 0, done.stderr
    groups = json.loads(done.stdout)
    assert list(groups) == [g for g in solver.GRADES if g in groups]
    frame = _hardest_first(pl.read_parquet(measured_run))
    for grade, hards in groups.items():
        top = frame.filter(pl.col("grade") == grade).head(2)
        assert [hard["grid"] for hard in hards] == top["grid"].to_list(), grade
    text = cli("summarize", measured_run, "--by", "collection", "--hardest", "1").stdout
    assert text.startswith("collection ") and text.count("  #  rating") >= 3
    assert cli("summarize", measured_run, "--by", "grade", "--duplicates").exit_code == 2


def test_every_share_of_the_summary_says_what_it_is_a_share_of(cli, measured_run):
    table = cli("summarize", measured_run).stdout
    assert "(shares of the 219 rows)" in table
    assert "puzzles neither invalid nor contradictory)" in table
    assert "graded puzzles: unique or solved; rules bird; rungs tried up to grade_limit trial2)" \
        in table
    grouped = cli("summarize", measured_run, "--by", "source").stdout
    assert "ladder (share of puzzles)" in grouped and "beyond singles" in grouped
    assert "backdoor size (share of unique)" in grouped
    assert "kaggle_20.csv" in grouped and str(DATA) not in grouped  # inputs by file name
