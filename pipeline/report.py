"""The report of a run: one HTML file that opens with no network (issue 14).

Everything is inline: the style sheet, and the charts as SVG drawn by matplotlib (text kept as
text, so a chart is tens of kilobytes and needs no font file and no JavaScript). The rows are read
lazily (``pipeline.read_run``) and reduced with polars to small tables (counts, percentiles,
the 20 hardest rows), so the report of a million rows is as small and nearly as quick as that
of a hundred. Groups are the values of one column (``--by``: ``source``, or an input column such
as Radcliffe's ``level``; ``pipeline.groups.group_key``), the largest ``MAX_GROUPS`` of them.

>>> write_report("output", by="source")  # doctest: +SKIP
'output.html'
"""

from __future__ import annotations

import html
import io
import os
import re
from typing import Any

import matplotlib
import polars as pl
from matplotlib.cm import ScalarMappable
from matplotlib.colors import LogNorm
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from pipeline import storage
from pipeline.duplicates import LARGEST_CLASSES
from pipeline.errors import PipelineError
from pipeline.groups import (
    FIRST_ROW,
    PERCENTILES,
    check_column,
    group_key,
    group_summaries,
    input_name,
    nearest_rank,
)
from pipeline.notebook import read_run
from pipeline.summary import decimal_text, number_text, read_summary, summarize
from pipeline.version import __version__
from solver.bird import put, read_mat
from solver.vocabulary import GRADES, STATUSES

MAX_GROUPS = 24  # more values than this (a column of puzzles, say): the rest is one group
HARDEST = 20
MIN_ROWS_FOR_LINE = 10  # the median of fewer rows than this would zigzag across the heat map
MAX_REASONS = 30
GRADED = ("unique", "solved")  # the statuses with a grade (SPEC 5.1)

# Easy to hard, green to red, so the ladder reads at a glance; rows without a grade in grey.
GRADE_COLOURS = dict(zip(GRADES, ("#1a9850", "#91cf60", "#d9ef8b", "#fdae61", "#d73027"),
                         strict=True))
UNGRADED_COLOUR = "#c8c8c8"
BACKDOOR_COLOURS = {"0": "#deebf7", "1": "#9ecae1", "2": "#2171b5", "3": "#08306b",
                    "more than 3": "#d73027"}
STATUS_COLOURS = {"invalid": "#7f7f7f", "contradictory": "#ff7f0e", "budget_exceeded": "#8c1d18",
                  "unsolvable": "#9467bd", "solved": "#17becf", "unique": "#2ca02c",
                  "multiple": "#1f77b4"}
BOX_COLOUR = "#4c72b0"


def write_report(directory: str | os.PathLike, output: str | os.PathLike | None = None, *,
                 by: str = "source") -> str:
    """Write the report of the run in ``directory`` to ``output`` (default: ``DIRECTORY.html``
    beside the directory, never inside it); its location."""
    directory = storage.location(directory).rstrip("/") or "/"
    where = report_location(directory, output)
    page = build_report(directory, by=by)
    storage.write_bytes(where, page.encode())
    return where


def report_location(directory: str, output: str | os.PathLike | None) -> str:
    """Where the report of ``directory`` goes: ``output``, or ``DIRECTORY.html``; refused inside
    the directory, which holds only Parquet (polars reads it as one dataset only then)."""
    where = storage.location(output) if output is not None else directory + ".html"
    run = storage.canonical(directory).rstrip("/")
    if (storage.canonical(where) + "/").startswith(run + "/"):  # the directory, or inside it
        raise PipelineError(
            f"--output {where} is inside the output directory {directory}, which must hold only "
            "Parquet files; write the report beside it (the default, DIRECTORY.html)")
    return where


def build_report(directory: str, *, by: str = "source") -> str:
    """The report of the run in ``directory`` as one HTML page."""
    rows = check_column(read_run(directory), by)
    rows = capped_groups(rows.with_row_index(FIRST_ROW), by)
    facts = gather(rows)
    facts["groups"] = group_summaries(rows.drop(FIRST_ROW), "group")
    facts["summary"] = _run_summary(directory)
    with matplotlib.rc_context(CHART_STYLE):
        return render(facts, directory=directory, by=by)


# --- the numbers, with polars ----------------------------------------------------------------


def capped_groups(rows: pl.LazyFrame, by: str) -> pl.LazyFrame:
    """``rows`` with a ``group`` column: ``group_key(by)``, or, beyond the ``MAX_GROUPS - 1``
    largest groups, one group for all the others."""
    keyed = rows.with_columns(group_key(by))
    sizes = keyed.group_by("group").len().sort("len", "group", descending=[True, False]).collect()
    if sizes.height <= MAX_GROUPS:
        return keyed
    kept = sizes["group"].head(MAX_GROUPS - 1)
    others = f"{sizes.height - len(kept):,} other values"
    return keyed.with_columns(
        pl.when(pl.col("group").is_in(kept.implode())).then(pl.col("group"))
        .otherwise(pl.lit(others)).alias("group"))


def gather(rows: pl.LazyFrame) -> dict[str, pl.DataFrame]:
    """Every table the report draws, collected together (polars shares the scans of the parts)."""
    queries = {
        "status": rows.group_by("status").len(),
        "effort": spread(rows, "search_nodes"),
        "rating": spread(rows, "rating"),
        "rating_histogram": _histogram(rows, (pl.col("rating") * 2).floor() / 2),
        "backdoor": _backdoor_counts(rows),
        "depth_histogram": _histogram(rows, pl.col("search_depth")),
        "givens_effort": _givens_effort(rows),
        "givens_median": rows.drop_nulls("search_nodes").group_by("givens").agg(
            pl.len(), nearest_rank("search_nodes", 50).alias("p50"),
            nearest_rank("search_nodes", 90).alias("p90"),
        ).filter(pl.col("len") >= MIN_ROWS_FOR_LINE).sort("givens"),
        "hardest": hardest(rows),
        "reasons": rows.drop_nulls("error").group_by("status", "error").agg(
            pl.len().alias("rows"), pl.col("source").first(), pl.col("row").first(),
        ).sort(["rows", "status", "error"], descending=[True, False, False]),
        **_duplicate_queries(rows, "grid", "exact"),
        **_duplicate_queries(rows, "canonical", "symmetry"),
    }
    frames = pl.collect_all(list(queries.values()))
    return dict(zip(queries, frames, strict=True))


def spread(rows: pl.LazyFrame, column: str) -> pl.LazyFrame:
    """Per group, in order of first appearance: how many values of ``column``, and its
    nearest-rank percentiles 10, 25, 50, 75, 90, 99 and maximum (what a box plot draws)."""
    return rows.group_by("group").agg(
        pl.col(FIRST_ROW).min(), pl.col(column).count().alias("count"),
        *(nearest_rank(column, p).alias(f"p{p}") for p in (10, 25, 50, 75, 90, 99)),
        pl.col(column).max().alias("max"),
    ).sort(FIRST_ROW)


def hardest(rows: pl.LazyFrame) -> pl.LazyFrame:
    """The ``HARDEST`` graded puzzles with the highest rating, then the most search nodes (by
    search nodes alone when the run has no rating)."""
    return (rows.filter(pl.col("status").is_in(GRADED))
            .sort(["rating", "search_nodes", FIRST_ROW], descending=[True, True, False],
                  nulls_last=True)
            .head(HARDEST)
            .select("grid", "group", "source", "row", "status", "givens", "grade", "rating",
                    "backdoor_size", "search_nodes", "search_depth"))


def _histogram(rows: pl.LazyFrame, value: pl.Expr) -> pl.LazyFrame:
    return (rows.select(value.alias("value")).drop_nulls().group_by("value").len()
            .sort("value"))


def _backdoor_counts(rows: pl.LazyFrame) -> pl.LazyFrame:
    """Unique puzzles per group and backdoor size; a null size there is "more than 3"."""
    size = pl.col("backdoor_size").cast(pl.String).fill_null("more than 3").alias("size")
    return (rows.filter(pl.col("status") == "unique").group_by("group", size).len()
            .sort("group", "size"))


def _givens_effort(rows: pl.LazyFrame) -> pl.LazyFrame:
    """Rows per number of givens and per quarter decade of search nodes."""
    quarter = (pl.col("search_nodes").log10() * 4).floor().cast(pl.Int32).alias("quarter")
    return rows.drop_nulls("search_nodes").group_by("givens", quarter).len().sort("givens", "quarter")


def _duplicate_queries(rows: pl.LazyFrame, column: str, name: str) -> dict[str, pl.LazyFrame]:
    """How many distinct values of ``column`` and how many rows repeat one, and the largest
    classes of rows sharing a value (with the first row of each)."""
    where = pl.concat_str(input_name(), pl.lit(":"),
                          pl.col("row").cast(pl.String))
    classes = rows.drop_nulls(column).group_by(column).agg(
        pl.len().alias("rows"), pl.col(FIRST_ROW).min(), where.head(3).alias("where"))
    return {
        f"{name}_counts": classes.select(
            pl.len().alias("distinct"), pl.col("rows").sum().alias("rows"),
            (pl.col("rows") > 1).sum().alias("repeated_values")),
        f"{name}_classes": classes.filter(pl.col("rows") > 1)
        .sort(["rows", FIRST_ROW], descending=[True, False]).head(LARGEST_CLASSES),
    }


def _run_summary(directory: str) -> dict[str, Any]:
    """The summary the run stored, or one computed now (a run that has not finished)."""
    try:
        return read_summary(directory)
    except PipelineError:
        return summarize(directory)


# --- the charts, with matplotlib -------------------------------------------------------------

# Set while the charts are drawn (``build_report``), not for the whole process.
CHART_STYLE = {
    "svg.fonttype": "none",  # text as <text>: small, selectable, drawn in the browser's font
    "svg.hashsalt": "sudoku-pipeline",  # the same run gives the same file
    "font.family": "sans-serif",
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
}


def to_svg(figure: Figure) -> str:
    """``figure`` as an inline ``<svg>`` element (no XML prolog, no DOCTYPE, no metadata)."""
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight",
                   metadata={"Date": None, "Creator": None, "Format": None, "Type": None})
    text = buffer.getvalue()
    text = text[text.index("<svg"):]
    return re.sub(r"<metadata>.*?</metadata>", "", text, flags=re.DOTALL)


def _figure(rows_shown: int = 0, height: float = 3.0) -> tuple[Figure, Any]:
    """A figure of one chart: a fixed height, or one that grows with the rows of a bar chart."""
    figure = Figure(figsize=(6.4, max(height, 0.9 + 0.3 * rows_shown)))
    return figure, figure.subplots()


def grade_chart(groups: dict[str, dict[str, Any]]) -> str:
    """Per group, a bar of 100%: its rows by grade (easy to hard), and the rows with none."""
    names = list(groups)
    figure, axes = _figure(len(names))
    left = [0.0] * len(names)
    labels = [_label(name) for name in names]
    segments = [(rung, GRADE_COLOURS[rung]) for rung in GRADES] + [("no grade", UNGRADED_COLOUR)]
    for rung, colour in segments:
        shares = [_grade_share(groups[name], rung) for name in names]
        axes.barh(labels, shares, left=left, color=colour, label=rung, height=0.7)
        for y, (start, share) in enumerate(zip(left, shares, strict=True)):
            if share >= 7:
                axes.text(start + share / 2, y, f"{share:.0f}%", ha="center", va="center",
                          fontsize=7.5, color="white" if rung in ("search", "prune") else "black")
        left = [a + b for a, b in zip(left, shares, strict=True)]
    axes.invert_yaxis()
    axes.set_xlim(0, 100)
    axes.set_xlabel("share of the group's rows (%)")
    axes.legend(ncols=6, loc="lower left", bbox_to_anchor=(0, 1.0), frameon=False, fontsize=8,
                handlelength=1, columnspacing=1)
    return to_svg(figure)


def _label(name: str) -> str:
    """A group's name as matplotlib shows it literally (a pair of $ would start TeX)."""
    return name.replace("$", r"\$")


def _grade_share(numbers: dict[str, Any], rung: str) -> float:
    ladder = numbers["grade_ladder"]
    count = numbers["rows"] - sum(ladder.values()) if rung == "no grade" else ladder[rung]
    return 100 * count / numbers["rows"] if numbers["rows"] else 0.0


def box_chart(spread: pl.DataFrame, *, label: str, log: bool) -> str:
    """Per group, a box from p25 to p75 with the median, whiskers from p10 to p90, a dot at
    p99 and a cross at the maximum."""
    present = spread.filter(pl.col("count") > 0)
    names = present["group"].to_list()
    figure, axes = _figure(len(names))
    boxes = [{"label": _label(row["group"]), "whislo": row["p10"], "q1": row["p25"], "med": row["p50"],
              "q3": row["p75"], "whishi": row["p90"], "fliers": []}
             for row in present.iter_rows(named=True)]
    axes.bxp(boxes, orientation="horizontal", widths=0.6, patch_artist=True,
             boxprops={"facecolor": "#c6d4ea", "edgecolor": BOX_COLOUR},
             medianprops={"color": "#c0392b", "linewidth": 2})
    positions = range(1, len(names) + 1)
    axes.scatter(present["p99"], positions, marker="o", s=14, color=BOX_COLOUR, label="p99",
                 zorder=3)
    axes.scatter(present["max"], positions, marker="x", s=18, color="#333333", label="max",
                 zorder=3)
    axes.invert_yaxis()
    if log:
        axes.set_xscale("log")
    axes.set_xlabel(label)
    axes.grid(axis="x", color="#e4e4e4", linewidth=0.6)
    axes.set_axisbelow(True)
    axes.legend(loc="lower right", bbox_to_anchor=(1, 1.0), ncols=2, frameon=False, fontsize=8)
    return to_svg(figure)


def bar_chart(histogram: pl.DataFrame, *, xlabel: str, width: float = 0.8) -> str:
    """Rows per value (``value``, ``len``)."""
    figure, axes = _figure(height=2.6)
    axes.bar(histogram["value"], histogram["len"], width=width, color=BOX_COLOUR)
    axes.set_xlabel(xlabel)
    axes.set_ylabel("rows")
    axes.grid(axis="y", color="#e4e4e4", linewidth=0.6)
    axes.set_axisbelow(True)
    return to_svg(figure)


def stacked_chart(counts: pl.DataFrame, order: list[str], colours: dict[str, str], *,
                  xlabel: str) -> str:
    """Per group (in ``order``), a bar of 100% split by ``size`` (``group``, ``size``, ``len``)."""
    names = [name for name in order if name in set(counts["group"])]
    table = {(row["group"], row["size"]): row["len"] for row in counts.iter_rows(named=True)}
    totals = {name: sum(n for (g, _), n in table.items() if g == name) for name in names}
    figure, axes = _figure(len(names))
    left = [0.0] * len(names)
    for size, colour in colours.items():
        shares = [100 * table.get((name, size), 0) / totals[name] for name in names]
        axes.barh([_label(name) for name in names], shares, left=left, color=colour, label=size,
                  height=0.7)
        left = [a + b for a, b in zip(left, shares, strict=True)]
    axes.invert_yaxis()
    axes.set_xlim(0, 100)
    axes.set_xlabel(xlabel)
    axes.legend(ncols=len(colours), loc="lower left", bbox_to_anchor=(0, 1.0), frameon=False,
                fontsize=8, handlelength=1)
    return to_svg(figure)


def givens_chart(cells: pl.DataFrame, medians: pl.DataFrame) -> str:
    """Rows per (givens, search nodes) as a heat map on a log axis, with the median and p90
    of search nodes for each number of givens."""
    figure, axes = _figure(height=3.4)
    # One bar per cell that holds rows (a mesh would also write every empty cell to the SVG).
    norm = LogNorm(vmin=1, vmax=max(int(cells["len"].max()), 2))
    colours = matplotlib.colormaps["YlGnBu"](norm(cells["len"].to_numpy()))
    bottoms = [10 ** (q / 4) for q in cells["quarter"]]
    heights = [bottom * (10 ** 0.25 - 1) for bottom in bottoms]
    axes.bar(cells["givens"], heights, bottom=bottoms, width=1.0, color=colours,
             edgecolor=colours, linewidth=0.4)
    figure.colorbar(ScalarMappable(norm=norm, cmap="YlGnBu"), ax=axes, label="rows", pad=0.02)
    axes.plot(medians["givens"], medians["p50"], color="#c0392b", marker=".", label="median")
    axes.plot(medians["givens"], medians["p90"], color="#c0392b", linestyle="--", label="p90")
    axes.set_yscale("log")
    axes.set_ylim(min(bottoms), max(b + h for b, h in zip(bottoms, heights, strict=True)))
    axes.set_xlim(cells["givens"].min() - 0.5, cells["givens"].max() + 0.5)
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_xlabel("givens")
    axes.set_ylabel("search nodes")
    axes.legend(loc="upper right", frameon=False, fontsize=8)
    return to_svg(figure)


# --- the page ----------------------------------------------------------------------------------

STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
       margin: 0 auto; max-width: 1320px; padding: 16px 24px; color: #222; background: #fff; }
h1 { font-size: 22px; margin: 4px 0; } h2 { font-size: 17px; margin: 0 0 6px; }
.sub { color: #666; margin: 0 0 12px; font-size: 13px; }
.cards { display: flex; flex-wrap: wrap; gap: 10px; margin: 10px 0 16px; }
.card { border: 1px solid #ddd; border-radius: 6px; padding: 8px 12px; flex: 1 1 0; }
.card b { display: block; font-size: 20px; } .card span { color: #666; font-size: 12px; }
.pair { display: grid; grid-template-columns: 1fr 1fr; gap: 18px; } .pair > div { min-width: 0; }
@media (max-width: 1000px) { .pair { grid-template-columns: 1fr; } }
section { border-top: 1px solid #e3e3e3; padding: 12px 0; min-width: 0; }
section p { font-size: 13px; } .note { color: #666; font-size: 12px; margin: 2px 0 6px; }
svg { width: 100%; height: auto; display: block; }
table { border-collapse: collapse; font-size: 12px; margin: 6px 0; }
th, td { padding: 2px 8px; border-bottom: 1px solid #eee; text-align: left; vertical-align: top; }
td code { font-size: 10.5px; word-break: break-all; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
.grids { display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: 12px; }
.grids figure { margin: 0; } .grids figcaption { font-size: 11px; color: #444; }
pre, code { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; }
pre.grid { font-size: 12px; line-height: 1.15; margin: 0 0 3px; background: #fafafa; }
.bar { display: inline-block; height: 10px; background: #4c72b0; vertical-align: middle; }
"""


def render(facts: dict[str, Any], *, directory: str, by: str) -> str:
    """The page: a title, the numbers at a glance, then one section per subject."""
    summary = facts["summary"]
    blocks = [
        f"<h1>Sudoku run report: {_e(directory)}</h1>",
        f'<p class="sub">grouped by <code>{_e(by)}</code> · {summary["rows"]["out"]:,} rows · '
        f"sudoku-pipeline {_e(__version__)}</p>",
        glance(facts),
        _pair(grades_section(facts), effort_section(facts)),
        _pair(givens_section(facts), duplicates_section(facts)),
        _pair(rating_section(facts), backdoor_section(facts)),
        _pair(rating_distribution_section(facts), depth_section(facts)),
        _pair(statuses_section(facts), reasons_section(facts)),
        groups_section(facts, by),
        hardest_section(facts),
        run_section(summary),
    ]
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>Report: {_e(directory)}</title><style>{STYLE}</style></head>\n<body>\n"
            + "\n".join(block for block in blocks if block) + "\n</body></html>\n")


def glance(facts: dict[str, Any]) -> str:
    """The few numbers that say what the run holds."""
    status = dict(facts["status"].iter_rows())
    rows = sum(status.values())
    graded = sum(sum(g["grade_ladder"].values()) for g in facts["groups"].values())
    search = sum(g["grade_ladder"]["search"] for g in facts["groups"].values())
    exact = facts["exact_counts"].row(0, named=True)
    symmetric = facts["symmetry_counts"].row(0, named=True)
    effort = facts["summary"]["search_nodes"]
    cards = [
        (f"{rows:,}", "rows"),
        (f"{status.get('unique', 0) + status.get('solved', 0):,}", "unique or solved"),
        (f"{_percent(search, graded)}", "of graded puzzles need search"),
        (f"{number_text(effort['p50'])} / {number_text(effort['p99'])}", "search nodes p50 / p99"),
        (f"{exact['rows'] - exact['distinct']:,}" + (f" / {symmetric['rows'] - symmetric['distinct']:,}"
         if symmetric["rows"] else ""), "rows repeat a puzzle" + (
             " (exactly / up to symmetry)" if symmetric["rows"] else "")),
        (f"{status.get('invalid', 0) + status.get('contradictory', 0):,}",
         "invalid or contradictory"),
    ]
    if (rating := facts["summary"]["rating"])["rows"]:
        cards.insert(4, (f"{rating['p50']:.2f} / {rating['max']:.2f}", "rating p50 / max"))
    return '<div class="cards">' + "".join(
        f"<div class=\"card\"><b>{_e(value)}</b><span>{_e(label)}</span></div>"
        for value, label in cards) + "</div>"


def grades_section(facts: dict[str, Any]) -> str:
    return _section("grades", "Grade ladder per group", grade_chart(facts["groups"]),
                    "The first rung whose rules solve the puzzle (SPEC 5.1): prune (naked singles), "
                    "singles (+ hidden), intersections, subsets; search when none does. Rows that "
                    "are not unique or solved have no grade.")


def effort_section(facts: dict[str, Any]) -> str:
    return _section("effort", "Search effort per group",
                    box_chart(facts["effort"], label="search nodes (log)", log=True),
                    "Box: p25 to p75, red line the median; whiskers p10 to p90; dot p99; cross max.")


def givens_section(facts: dict[str, Any]) -> str:
    cells = facts["givens_effort"]
    chart = givens_chart(cells, facts["givens_median"]) if cells.height else "<p>no rows</p>"
    return _section("givens", "Givens against effort", chart,
                    "Rows per number of givens and search nodes (quarter decades); the red lines "
                    "are the median and p90 of search nodes for each number of givens (with at "
                    f"least {MIN_ROWS_FOR_LINE} rows).")


def duplicates_section(facts: dict[str, Any]) -> str:
    """Rows that repeat a puzzle: exactly (the ``grid``), and up to symmetry (``canonical``)."""
    parts = [_duplicates_block(facts, "exact", "Exact (the same grid)", "grid")]
    if facts["symmetry_counts"]["rows"][0]:
        parts.append(_duplicates_block(facts, "symmetry", "Up to symmetry (the same canonical "
                                       "form, SPEC 6)", "canonical"))
    else:
        parts.append('<p class="note">No canonical forms in this run (--measures canonical): '
                     "duplicates up to symmetry are not counted.</p>")
    return _section("duplicates", "Duplicates", "".join(parts))


def _duplicates_block(facts: dict[str, Any], name: str, title: str, column: str) -> str:
    counts = facts[f"{name}_counts"].row(0, named=True)
    repeats = counts["rows"] - counts["distinct"]
    lines = [f"<h3 style=\"font-size:14px;margin:8px 0 2px\">{_e(title)}</h3>",
             f"<p>{counts['distinct']:,} distinct of {counts['rows']:,} rows: <b>{_rows(repeats)} "
             f"({_percent(repeats, counts['rows'])}) repeat an earlier one</b>, in "
             f"{_plural(counts['repeated_values'], 'class', 'classes')}.</p>"]
    classes = facts[f"{name}_classes"]
    if classes.height:
        lines.append(_table(
            ["rows", column, "where (input:row)"],
            [[f"{r['rows']:,}", f"<code>{_e(r[column])}</code>",
              _e(", ".join(r["where"]) + (", …" if r["rows"] > len(r["where"]) else ""))]
             for r in classes.iter_rows(named=True)], numeric={0}))
    return "".join(lines)


def rating_section(facts: dict[str, Any]) -> str:
    if not facts["rating_histogram"].height:
        return _not_measured("rating", "Rating", "rating")
    return _section(
        "rating", "Rating per group",
        box_chart(facts["rating"], label="rating (mean search depth over symmetric copies)",
                  log=False),
        "SPEC 5.2: the mean search depth of 32 symmetric copies, searched with singles; 0 for a "
        "singles-solvable puzzle. Unique puzzles only. Box and whiskers as for search effort.")


def rating_distribution_section(facts: dict[str, Any]) -> str:
    if not facts["rating_histogram"].height:
        return ""
    return _section("rating-distribution", "Rating distribution",
                    bar_chart(facts["rating_histogram"], xlabel="rating (bins of 0.5)", width=0.45))


def backdoor_section(facts: dict[str, Any]) -> str:
    counts = facts["backdoor"]
    if not counts.height or set(counts["size"]) == {"more than 3"}:
        return _not_measured("backdoor", "Backdoor size", "backdoor")
    return _section(
        "backdoor", "Backdoor size per group",
        stacked_chart(counts, list(facts["groups"]), BACKDOOR_COLOURS,
                      xlabel="share of the group's unique puzzles (%)"),
        "SPEC 5.3: the fewest cells of the solution that, given, let singles finish the puzzle.")


def _not_measured(anchor: str, title: str, measure: str) -> str:
    return _section(anchor, title, f'<p class="note">Not measured in this run (add --measures '
                    f"{measure}, or --config configs/analytics.toml).</p>")


def statuses_section(facts: dict[str, Any]) -> str:
    counts = dict(facts["status"].iter_rows())
    total = sum(counts.values())
    body = _table(["status", "rows", "share", ""], [
        [f'<span style="color:{STATUS_COLOURS[name]}">■</span> {name}', f"{counts.get(name, 0):,}",
         _percent(counts.get(name, 0), total),
         f'<span class="bar" style="width:{200 * counts.get(name, 0) / max(total, 1):.0f}px">'
         "</span>"]
        for name in STATUSES], numeric={1, 2})
    return _section("statuses", "Statuses", body, "SPEC 3: the first that applies, in this order.")


def depth_section(facts: dict[str, Any]) -> str:
    histogram = facts["depth_histogram"]
    chart = bar_chart(histogram, xlabel="search depth (deepest node)") if histogram.height else ""
    return _section("depth", "Search depth", chart, "0 when pruning alone solves the puzzle.")


def groups_section(facts: dict[str, Any], by: str) -> str:
    """The numbers of ``summarize --by``, one row per group."""
    keys = [f"p{p}" for p in PERCENTILES] + ["max"]
    rows = []
    for name, numbers in facts["groups"].items():
        graded = sum(numbers["grade_ladder"].values())
        rating, status = numbers["rating"], numbers["status"]
        rows.append([_e(name), f"{numbers['rows']:,}",
                     *(f"{status[s]:,}" for s in ("unique", "multiple")),
                     f"{numbers['rows'] - status['unique'] - status['multiple']:,}",
                     _percent(numbers["grade_ladder"]["search"], graded),
                     *(number_text(numbers["search_nodes"][k]) for k in keys),
                     *(decimal_text(rating[k]) for k in keys)])
    headers = [_e(by), "rows", "unique", "multiple", "other", "search", *(
        f"nodes {k}" for k in keys), *(f"rating {k}" for k in keys)]
    return _section("groups", f"Per {by}", _table(headers, rows, numeric=set(range(1, len(headers)))),
                    f"As sudoku-pipeline summarize --by {by}; search: the share of graded puzzles "
                    "that need search.")


def hardest_section(facts: dict[str, Any]) -> str:
    """The hardest puzzles as the seeds draw them (``put``), with their numbers."""
    figures = []
    for rank, row in enumerate(facts["hardest"].iter_rows(named=True), start=1):
        rating = "" if row["rating"] is None else f"rating {row['rating']:.2f} · "
        backdoor = "" if row["backdoor_size"] is None else f"backdoor {row['backdoor_size']} · "
        figures.append(
            f"<figure><pre class=\"grid\">{_e(put(read_mat(row['grid'])))}</pre><figcaption>"
            f"<b>#{rank}</b> {_group_label(row)}{_e(_short(row['source']))}:{row['row']} · "
            f"{row['givens']} givens<br>{rating}{backdoor}grade {_e(row['grade'] or '-')}<br>"
            f"{row['search_nodes']:,} nodes · depth {row['search_depth']}</figcaption></figure>")
    order = "rating, then search nodes" if facts["rating_histogram"].height else "search nodes"
    return _section("hardest", f"The {len(figures)} hardest puzzles",
                    f'<div class="grids">{"".join(figures)}</div>',
                    f"Unique or solved puzzles with the highest {order}.")


def _group_label(row: dict[str, Any]) -> str:
    """A hardest puzzle's group, unless it is just its input file's name."""
    group = row["group"]
    return "" if group in (row["source"], _short(row["source"])) else f"{_e(group)}<br>"


def reasons_section(facts: dict[str, Any]) -> str:
    reasons = facts["reasons"]
    if not reasons.height:
        return _section("reasons", "Invalid and contradictory rows", "<p>None.</p>")
    shown = reasons.head(MAX_REASONS)
    body = _table(["status", "reason", "rows", "first seen"], [
        [_e(r["status"]), _e(r["error"]), f"{r['rows']:,}", f"{_e(_short(r['source']))}:{r['row']}"]
        for r in shown.iter_rows(named=True)], numeric={2})
    if reasons.height > MAX_REASONS:
        rest = reasons["rows"].slice(MAX_REASONS).sum()
        body += f'<p class="note">and {reasons.height - MAX_REASONS:,} more reasons ({rest:,} rows).</p>'
    return _section("reasons", "Invalid and contradictory rows", body,
                    "The error column, counted; the most frequent first.")


def run_section(summary: dict[str, Any]) -> str:
    """The run's settings, versions and inputs (from its stored summary)."""
    wall = summary.get("wall_seconds")
    facts = [("complete", summary["complete"]), ("rows in / out",
             f"{number_text(summary['rows']['in'])} / {summary['rows']['out']:,}"),
             ("engine, workers", f"{summary['engine']}, {summary['workers']}"),
             ("wall time", "not recorded" if not wall else
              f"{wall:,.1f} s ({summary['puzzles_per_second']:,.0f} puzzles/s)"),
             ("parts", summary["output"]["parts"])]
    inputs = _table(["input", "format", "rows", "bytes", "sha256"], [
        [_e(i["path"]), _e(i.get("format", "")), number_text(i.get("rows")), number_text(i.get("bytes")),
         f"<code title=\"{_e(i.get('sha256', ''))}\">{_e(str(i.get('sha256', ''))[:16])}…</code>"]
        for i in summary["inputs"]], numeric={2, 3})
    return _section("run", "The run", _pair(
        _table(["", ""], [[_e(k), _e(v)] for k, v in facts])
        + "<h3 style=\"font-size:14px\">Inputs</h3>" + inputs
        + "<h3 style=\"font-size:14px\">Versions</h3>"
        + _table(["", ""], [[_e(k), _e(v)] for k, v in summary["versions"].items()]),
        "<h3 style=\"font-size:14px;margin-top:0\">Settings</h3>"
        + _table(["setting", "value"], [[_e(k), _e(_setting(v))]
                                         for k, v in summary["settings"].items()])))


def _section(anchor: str, title: str, body: str, note: str = "") -> str:
    note = f'<p class="note">{_e(note)}</p>' if note else ""
    return f'<section id="{anchor}"><h2>{_e(title)}</h2>{note}{body}</section>'


def _pair(left: str, right: str) -> str:
    """Two blocks side by side (one above the other on a narrow screen)."""
    return f'<div class="pair"><div>{left}</div><div>{right}</div></div>'


def _table(headers: list[str], rows: list[list[str]], numeric: set[int] = frozenset()) -> str:
    """An HTML table of cells already escaped; columns in ``numeric`` aligned right."""
    def cell(tag: str, index: int, text: str) -> str:
        return f'<{tag}{" class=n" if index in numeric else ""}>{text}</{tag}>'

    head = "".join(cell("th", i, h) for i, h in enumerate(headers))
    body = "".join("<tr>" + "".join(cell("td", i, c) for i, c in enumerate(row)) + "</tr>"
                   for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _e(value: Any) -> str:
    return html.escape(str(value))


def _short(source: str) -> str:
    """An input file's name without its directories (the run section lists the paths)."""
    return source.replace("\\", "/").rsplit("/", 1)[-1]


def _setting(value: Any) -> str:
    return ", ".join(map(str, value)) if isinstance(value, list | tuple) else str(value)


def _percent(count: int, total: int) -> str:
    if not total:
        return "-"
    share = 100 * count / total
    return "<0.1%" if 0 < share < 0.05 else f"{share:.1f}%"


def _plural(count: int, one: str, many: str) -> str:
    return f"{count:,} {one if count == 1 else many}"


def _rows(count: int) -> str:
    return _plural(count, "row", "rows")
