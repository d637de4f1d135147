"""The report of a run: one HTML file that opens with no network.

Everything is inline: the style sheet, and the charts as SVG drawn by matplotlib (text kept as
text, so a chart is tens of kilobytes and needs no font file and no JavaScript). Every number of
the report comes from the computation of the summary: the ``Stats`` of each group of rows
(``pipeline.summary.group_stats_of``: statuses, ladders, histograms, nearest-rank percentiles)
and ``pipeline.duplicates``; polars only picks rows (the hardest puzzles), counts the reasons of
invalid rows and the givens against effort, which nothing else shows. Groups are the values of
one column (``--by``: ``source``, or an input column such as Radcliffe's ``level``), the largest
``MAX_GROUPS`` of them, inputs named by ``pipeline.groups.input_labels``.

>>> write_report("output", by="source")  # doctest: +SKIP
'output.html'
"""

from __future__ import annotations

import html
import io
import os
import re
from dataclasses import dataclass
from typing import Any

import matplotlib
import polars as pl
from matplotlib.cm import ScalarMappable
from matplotlib.colors import LogNorm, to_rgb
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, MaxNLocator, NullFormatter

from pipeline import storage
from pipeline.duplicates import Duplicates, duplicates
from pipeline.errors import PipelineError
from pipeline.stats import PERCENTILES, SE_BANDS, Numbers, Stats, percentile
from pipeline.summary import (
    LADDER_LABELS,
    Hard,
    Summary,
    band_text,
    finish_advice,
    group_stats_of,
    hardest_in,
    read_summary,
    run_parts,
    se_budget_advice,
    se_text,
    summarize,
)
from pipeline.text import decimal_text, escaped, number_text, rate_text, where_text
from pipeline.version import __version__
from solver.reference.bird import put, read_mat
from solver.vocabulary import GRADES, STATUSES

MAX_GROUPS = 24  # more values than this (a column of puzzles, say): the rest is one group
HARDEST = 20
MIN_ROWS_FOR_LINE = 10  # the median of fewer rows than this would zigzag across the heat map
MAX_REASONS = 30
GRADED = ("unique", "solved")  # the statuses with a grade (SPEC 5.1)
BOX_PERCENTILES = (10, 25, 50, 75, 90, 99)

# Easy to hard, green to red, so the ladder reads at a glance; rows without a grade in grey.
RUNG_COLOURS = {"prune": "#1a9850", "singles": "#66bd63", "intersections": "#a6d96a",
                "subsets": "#d9ef8b", "fish": "#fee08b", "wings": "#fdae61", "trial": "#f46d43",
                "trial2": "#b2182b", "search": "#67001f"}
GRADE_COLOURS = {rung: RUNG_COLOURS[rung] for rung in GRADES}
UNGRADED_COLOUR = "#c8c8c8"
# Sizes far apart in colour: the number of the share is printed on the bar too.
BACKDOOR_COLOURS = {"0": "#c7e9c0", "1": "#6baed6", "2": "#2171b5", "3": "#08306b",
                    "more than 3": "#d73027"}
# The SE scale's bands, easy to hard as the grade's rungs are (green to red), and the rows over
# the SE work budget in black: harder than any band, unrated.
SE_COLOURS = {band_text(band): matplotlib.colormaps["RdYlGn_r"](0.05 + 0.9 * i / (len(SE_BANDS) - 1))
              for i, band in enumerate(SE_BANDS)} | {"over budget": "#000000"}
STATUS_COLOURS = {"invalid": "#7f7f7f", "contradictory": "#ff7f0e", "budget_exceeded": "#8c1d18",
                  "unsolvable": "#9467bd", "solved": "#17becf", "unique": "#2ca02c",
                  "multiple": "#1f77b4"}
BOX_COLOUR = "#4c72b0"


@dataclass
class Facts:
    """What the report shows: the run's summary, the ``Stats`` of each group, duplicates, and
    the few tables polars picks from the rows."""

    summary: Summary
    groups: dict[str, Stats]
    complete: bool
    duplicates: dict[str, Duplicates]
    hardest: list[tuple[Hard, str]]  # each hardest puzzle, and its group
    reasons: pl.DataFrame
    givens_effort: pl.DataFrame
    givens_median: pl.DataFrame

    @property
    def numbers(self) -> dict[str, Numbers]:
        return {name: Numbers.of(stats) for name, stats in self.groups.items()}

    @property
    def total(self) -> Numbers:
        return Numbers.of(sum(self.groups.values(), Stats()))


def write_report(directory: str | os.PathLike, output: str | os.PathLike | None = None, *,
                 by: str = "source") -> tuple[str, Summary]:
    """Write the report of the run in ``directory`` to ``output`` (default: ``DIRECTORY.html``
    beside the directory, never inside it); its location, and the summary it reports (whose
    ``complete`` says whether the run is)."""
    directory = storage.location(directory).rstrip("/") or "/"
    where = report_location(directory, output)
    facts = gather(directory, by)
    with matplotlib.rc_context(CHART_STYLE):
        page = render(facts, directory=directory, by=by)
    storage.write_bytes(where, page.encode())
    return where, facts.summary


def report_location(directory: str, output: str | os.PathLike | None) -> str:
    """Where the report of ``directory`` goes: ``output``, or ``DIRECTORY.html``; refused inside
    the directory, which holds only Parquet (polars reads it as one dataset only then)."""
    where = storage.location(output) if output is not None else directory + ".html"
    run = storage.canonical(directory).rstrip("/")
    if (storage.canonical(where) + "/").startswith(run + "/"):  # the directory, or inside it
        raise PipelineError(
            f"--output {escaped(where)} is inside the output directory {escaped(directory)}, "
            "which must hold only Parquet files; write the report beside it (the default, "
            "DIRECTORY.html)")
    return where


# --- the numbers -------------------------------------------------------------------------------


def gather(directory: str, by: str) -> Facts:
    """Everything the report of the run in ``directory`` shows, grouped by ``by``."""
    groups, complete, _ = group_stats_of(directory, by, max_groups=MAX_GROUPS)
    summary = _run_summary(directory, complete)
    run, infos = run_parts(directory)
    parts = [(storage.join(directory, info.name), info.source) for info in infos]
    kinds = ("exact", "symmetry") if "canonical" in summary.settings.measures else ("exact",)
    rows = pl.scan_parquet([path for path, _ in parts]) if parts else None
    tables = _row_tables(rows)
    return Facts(summary, groups, complete, duplicates(parts, kinds),
                 _hardest(directory, by, summary, groups), **tables)


def _hardest(directory: str, by: str, summary: Summary, groups: dict[str, Stats]
             ) -> list[tuple[Hard, str]]:
    """The hardest puzzles (``summarize --hardest``), each with its group."""
    columns = () if by == "source" else (by,)
    hardest, values, _ = hardest_in(directory, HARDEST, columns)
    others = next((name for name in groups if name.endswith(" other values")), None)

    def group_of(hard: Hard, value: Any) -> str:
        name = summary.labels.get(hard.source, hard.source) if value is None else str(value)
        return name if name in groups or others is None else others

    return [(hard, group_of(hard, extra.get(by))) for hard, extra in zip(hardest, values,
                                                                         strict=True)]


def _run_summary(directory: str, complete: bool) -> Summary:
    """The summary the run stored (it has the times), or, for a run whose parts do not hold
    every row (whatever a stored summary says), one computed now."""
    try:
        stored = read_summary(directory)
    except PipelineError:
        return summarize(directory)
    return stored if complete and stored.complete else summarize(directory)


def _row_tables(rows: pl.LazyFrame | None) -> dict[str, pl.DataFrame]:
    """The tables polars counts from the rows, which nothing else shows: the reasons of invalid
    and contradictory rows, and rows per givens and quarter decade of search nodes (with the
    median and p90 per number of givens)."""
    if rows is None:
        return {"reasons": pl.DataFrame(), "givens_effort": pl.DataFrame(),
                "givens_median": pl.DataFrame()}
    quarter = (pl.col("search_nodes").log10() * 4).floor().cast(pl.Int32).alias("quarter")
    reasons, cells, medians = pl.collect_all([
        rows.drop_nulls("error").group_by("status", "error").agg(
            pl.len().alias("rows"), pl.col("source").first(), pl.col("row").first(),
        ).sort(["rows", "status", "error"], descending=[True, False, False]),
        rows.drop_nulls("search_nodes").group_by("givens", quarter).len().sort("givens", "quarter"),
        rows.drop_nulls("search_nodes").group_by("givens").agg(
            pl.len(), _nearest_rank("search_nodes", 50).alias("p50"),
            _nearest_rank("search_nodes", 90).alias("p90"),
        ).filter(pl.col("len") >= MIN_ROWS_FOR_LINE).sort("givens"),
    ])
    return {"reasons": reasons, "givens_effort": cells, "givens_median": medians}


def _nearest_rank(column: str, p: float) -> pl.Expr:
    """The nearest-rank ``p``-th percentile (``pipeline.stats.percentile``) of a column of a
    polars group: here only for the givens heat map's lines, which no other place shows."""
    values = pl.col(column)
    rank = (values.count() * p / 100).ceil().cast(pl.Int64)
    return values.drop_nulls().sort().get((rank - 1).clip(0), null_on_oob=True)


def spread(histogram: dict[Any, int]) -> dict[str, Any]:
    """What a box plot draws of a histogram: nearest-rank p10, p25, p50, p75, p90, p99, max."""
    return {**{f"p{p}": percentile(histogram, p) for p in BOX_PERCENTILES},
            "max": max(histogram, default=None)}


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


def _plain_log_ticks(axis) -> None:
    """A log axis labelled 1, 10, 100, 1k ... 1M at its powers of ten, unlabelled between:
    matplotlib's own labels are typeset as math (10 to the power), a fifth of a report's time."""
    axis.set_major_formatter(FuncFormatter(lambda value, _: _count_label(value)))
    axis.set_minor_formatter(NullFormatter())


def _count_label(value: float) -> str:
    """1, 10, 100, 1k, 10k, 100k, 1M, 10M ... (a power of ten, as the tick locator gives it)."""
    for size, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= size:
            return f"{value / size:g}{suffix}"
    return f"{value:g}"


def grade_chart(numbers: dict[str, Numbers]) -> str:
    """Per group, a bar of 100%: its rows by grade (easy to hard), and the rows with none."""
    names = list(numbers)
    figure, axes = _figure(len(names))
    left = [0.0] * len(names)
    labels = [_label(name) for name in names]
    segments = [(rung, GRADE_COLOURS[rung]) for rung in GRADES] + [("no grade", UNGRADED_COLOUR)]
    for rung, colour in segments:
        shares = [_grade_share(numbers[name], rung) for name in names]
        axes.barh(labels, shares, left=left, color=colour, label=rung, height=0.7)
        _share_labels(axes, left, shares, colour)
        left = [a + b for a, b in zip(left, shares, strict=True)]
    axes.invert_yaxis()
    axes.set_xlim(0, 100)
    axes.set_xlabel("share of the group's rows (%)")
    axes.legend(ncols=5, loc="lower left", bbox_to_anchor=(0, 1.0), frameon=False, fontsize=8,
                handlelength=1, columnspacing=1)
    return to_svg(figure)


def _share_labels(axes, left: list[float], shares: list[float], colour) -> None:
    """The share written on each segment wide enough to hold it, in white on a dark
    ``colour``, else in black."""
    ink = "white" if _dark(colour) else "black"
    for y, (start, share) in enumerate(zip(left, shares, strict=True)):
        if share >= 7:
            axes.text(start + share / 2, y, share_label(share), ha="center", va="center",
                      fontsize=7.5, color=ink)


def _dark(colour) -> bool:
    """Whether ``colour``'s relative luminance (sRGB, as WCAG computes it) is below 0.35: the
    grade's prune, trial and darker, the backdoor's 2 and up, the SE scale's ends."""
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
              for c in to_rgb(colour)]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2] < 0.35


def share_label(share: float) -> str:
    """'56%'; one decimal where rounding would say 100% of a share that is not all (a 0.3% beside
    it would be hidden by '100%')."""
    whole = f"{share:.0f}%"
    return f"{min(share, 99.9):.1f}%" if whole == "100%" and share < 100 else whole


def _label(name: str) -> str:
    """A group's name as matplotlib shows it literally (a pair of $ would start TeX)."""
    return name.replace("$", r"\$")


def _grade_share(numbers: Numbers, rung: str) -> float:
    ladder = numbers.grade_ladder
    count = numbers.rows - numbers.graded if rung == "no grade" else ladder[rung]
    return 100 * count / numbers.rows if numbers.rows else 0.0


def box_chart(spreads: dict[str, dict[str, Any]], *, label: str, log: bool) -> str:
    """Per group, a box from p25 to p75 with the median, whiskers from p10 to p90, a dot at
    p99 and a cross at the maximum (``spread`` of the group's histogram)."""
    present = {name: box for name, box in spreads.items() if box["max"] is not None}
    figure, axes = _figure(len(present))
    boxes = [{"label": _label(name), "whislo": box["p10"], "q1": box["p25"], "med": box["p50"],
              "q3": box["p75"], "whishi": box["p90"], "fliers": []}
             for name, box in present.items()]
    axes.bxp(boxes, orientation="horizontal", widths=0.6, patch_artist=True,
             boxprops={"facecolor": "#c6d4ea", "edgecolor": BOX_COLOUR},
             medianprops={"color": "#c0392b", "linewidth": 2})
    positions = range(1, len(present) + 1)
    axes.scatter([box["p99"] for box in present.values()], positions, marker="o", s=14,
                 color=BOX_COLOUR, label="p99", zorder=3)
    axes.scatter([box["max"] for box in present.values()], positions, marker="x", s=18,
                 color="#333333", label="max", zorder=3)
    axes.invert_yaxis()
    if log:
        axes.set_xscale("log")
        _plain_log_ticks(axes.xaxis)
    axes.set_xlabel(label)
    axes.grid(axis="x", color="#e4e4e4", linewidth=0.6)
    axes.set_axisbelow(True)
    axes.legend(loc="lower right", bbox_to_anchor=(1, 1.0), ncols=2, frameon=False, fontsize=8)
    return to_svg(figure)


def histograms_chart(histograms: dict[str, dict[float, int]], *, xlabel: str,
                     width: float = 0.8) -> str:
    """One small bar chart per group (rows per value), sharing the value axis, so that the
    groups' distributions can be told apart."""
    shown = {name: histogram for name, histogram in histograms.items() if histogram}
    columns = min(len(shown), 4)
    rows = -(-len(shown) // columns)
    figure = Figure(figsize=(6.4, 0.4 + 1.5 * rows))
    axes = figure.subplots(rows, columns, sharex=True, squeeze=False,
                           gridspec_kw={"hspace": 0.55})  # titles clear of the row above
    for ax, (name, histogram) in zip(axes.flat, shown.items(), strict=False):
        ax.bar(list(histogram), list(histogram.values()), width=width, color=BOX_COLOUR)
        ax.set_title(_label(_shortened(name, 18)), fontsize=8, loc="left")  # a quarter width
        ax.tick_params(labelsize=7)
        ax.yaxis.set_major_locator(MaxNLocator(3, integer=True))
    for ax in list(axes.flat)[len(shown):]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel(xlabel, fontsize=8)
    figure.supylabel("rows", fontsize=8)
    return to_svg(figure)


def _shortened(name: str, width: int = 28) -> str:
    """``name`` in ``width`` characters: its start and its end, which tell inputs apart
    ('sudoku17…49158.txt'), the middle left out."""
    if len(name) <= width:
        return name
    start = (width - 1) // 2
    return name[:start] + "…" + name[-(width - 1 - start):]


def stacked_chart(counts: dict[str, dict[str, int]], colours: dict[str, str], *,
                  xlabel: str) -> str:
    """Per group, a bar of 100% split by the keys of ``colours``, each share written on it."""
    names = [name for name, sizes in counts.items() if sum(sizes.values())]
    figure, axes = _figure(len(names))
    left = [0.0] * len(names)
    for size, colour in colours.items():
        shares = [100 * counts[name].get(size, 0) / sum(counts[name].values()) for name in names]
        axes.barh([_label(name) for name in names], shares, left=left, color=colour, label=size,
                  height=0.7)
        _share_labels(axes, left, shares, colour)
        left = [a + b for a, b in zip(left, shares, strict=True)]
    axes.invert_yaxis()
    axes.set_xlim(0, 100)
    axes.set_xlabel(xlabel)
    # at most 7 a row: the SE bands' 13 in one row made the figure wide, so the page shrank it
    axes.legend(ncols=min(len(colours), 7), loc="lower left", bbox_to_anchor=(0, 1.0), frameon=False,
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
    bar = figure.colorbar(ScalarMappable(norm=norm, cmap="YlGnBu"), ax=axes, label="rows", pad=0.02)
    _plain_log_ticks(bar.ax.yaxis)
    axes.plot(medians["givens"], medians["p50"], color="#c0392b", marker=".", label="median")
    axes.plot(medians["givens"], medians["p90"], color="#c0392b", linestyle="--", label="p90")
    axes.set_yscale("log")
    _plain_log_ticks(axes.yaxis)
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
       margin: 0 auto; max-width: 1320px; padding: 16px 24px 64px; color: #222; background: #fff; }
.end { color: #777; font-size: 12px; border-top: 1px solid #e3e3e3; padding-top: 8px; }
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
.grids { display: grid; grid-template-columns: repeat(auto-fill, minmax(190px, 1fr)); gap: 16px; }
.grids figure { margin: 0; min-width: 0; }
.grids figcaption { font-size: 11px; color: #444; overflow-wrap: anywhere; }
code.puzzle { display: block; font-size: 9.5px; user-select: all; word-break: break-all;
              background: #f3f3f3; padding: 2px 3px; margin-top: 3px; }
h3 { font-size: 14px; margin: 8px 0 2px; }
.banner { border: 2px solid #d73027; background: #fdecea; padding: 8px 12px; margin: 8px 0;
          font-size: 14px; border-radius: 6px; }
pre, code { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; }
pre.grid { font-size: 12px; line-height: 1.15; margin: 0 0 3px; background: #fafafa; }
.bar { display: inline-block; height: 10px; background: #4c72b0; vertical-align: middle; }
"""


def render(facts: Facts, *, directory: str, by: str) -> str:
    """The page: a title, a banner when rows are missing, the numbers at a glance, then one
    section per subject."""
    summary = facts.summary
    blocks = [
        f"<h1>Sudoku run report: {_e(directory)}</h1>",
        f'<p class="sub">grouped by <code>{_e(by)}</code> · {summary.rows_out:,} rows · '
        f"sudoku-pipeline {_e(__version__)}</p>",
        incomplete_banner(summary),
        glance(facts),
        _pair(grades_section(facts), effort_section(facts)),
        _pair(givens_section(facts), duplicates_section(facts)),
        _pair(rating_section(facts), backdoor_section(facts)),
        _pair(rating_distribution_section(facts), depth_section(facts)),
        _pair(se_section(facts), se_table_section(facts)),
        _pair(statuses_section(facts), reasons_section(facts)),
        groups_section(facts, by),
        hardest_section(facts),
        run_section(summary),
        f'<p class="end">End of the report of {_e(directory)}.</p>',
    ]
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>Report: {_e(directory)}</title><style>{STYLE}</style></head>\n<body>\n"
            + "\n".join(block for block in blocks if block) + "\n</body></html>\n")


def incomplete_banner(summary: Summary) -> str:
    """At the top of the report of a run that is not complete: how many rows are missing."""
    if summary.complete:
        return ""
    known = sum(m.rows for m in summary.missing_rows if m.rows is not None)
    unread = [m for m in summary.missing_rows if m.rows is None]
    missing = (f"{known:,} rows are missing" if known else "") + (
        ("; and " if known else "") + f"{len(unread)} input(s) are not read to their end"
        if unread else "")
    of = f" of {summary.rows_in:,}" if summary.rows_in is not None else ""
    return (f'<div class="banner"><b>This run is incomplete:</b> {summary.rows_out:,}{of} rows '
            f"are solved; {_e(missing)}. The numbers below count only the rows solved so far; "
            f"{finish_advice(summary.command)}.</div>")


def glance(facts: Facts) -> str:
    """The few numbers that say what the run holds."""
    total = facts.total
    status = total.status
    exact, symmetric = facts.duplicates["exact"], facts.duplicates.get("symmetry")
    effort = total.search_nodes
    repeats = f"{exact.rows - exact.distinct:,}" + (
        f" / {symmetric.rows - symmetric.distinct:,}" if symmetric else "")
    cards = [
        (f"{total.rows:,}", "rows"),
        (f"{status['unique'] + status['solved']:,}", "unique or solved"),
        (_percent(total.ladder["needs_search"], total.laddered),
         f"beyond singles (Bird's search needed) of {total.laddered:,} puzzles neither invalid "
         "nor contradictory"),
        (f"{number_text(effort.p50)} / {number_text(effort.p99)}", "search nodes p50 / p99"),
        (repeats, "rows repeat a puzzle" + (" (exactly / up to symmetry)" if symmetric else "")),
        (f"{status['invalid'] + status['contradictory']:,}", "invalid or contradictory"),
    ]
    if total.rating.rows:
        cards.insert(4, (f"{total.rating.p50:.2f} / {total.rating.max:.2f}", "rating p50 / max"))
    if total.se.rows:
        cards.insert(4, (f"{se_text(total.se.p50)} / {se_text(total.se.max)}",
                         "SE rating (ER) p50 / max"))
    return '<div class="cards">' + "".join(
        f"<div class=\"card\"><b>{_e(value)}</b><span>{_e(label)}</span></div>"
        for value, label in cards) + "</div>"


def grades_section(facts: Facts) -> str:
    limit = facts.summary.settings.grade_limit
    return _section("grades", "Grade ladder per group", grade_chart(facts.numbers),
                    "Shares of each group's rows. The grade is the first rung whose rules solve "
                    f"the puzzle (SPEC 5.1), the rungs tried up to {limit} (grade_limit); "
                    f"search when none does. Rows that are not unique or solved have no grade "
                    "(grey).")


def effort_section(facts: Facts) -> str:
    spreads = {name: spread(stats.search_nodes) for name, stats in facts.groups.items()}
    return _section("effort", "Search effort per group",
                    box_chart(spreads, label="search nodes (log)", log=True),
                    "Box: p25 to p75, red line the median; whiskers p10 to p90; dot p99; cross max.")


def givens_section(facts: Facts) -> str:
    cells = facts.givens_effort
    chart = givens_chart(cells, facts.givens_median) if cells.height else "<p>no rows</p>"
    return _section("givens", "Givens against effort", chart,
                    "Rows per number of givens and search nodes (quarter decades); the red lines "
                    "are the median and p90 of search nodes for each number of givens (with at "
                    f"least {MIN_ROWS_FOR_LINE} rows).")


def duplicates_section(facts: Facts) -> str:
    """Rows that repeat a puzzle: exactly (the ``grid``), and up to symmetry (``canonical``)."""
    parts = [_duplicates_block(facts.duplicates["exact"], "Exact (the same grid)")]
    if "symmetry" in facts.duplicates:
        parts.append(_duplicates_block(facts.duplicates["symmetry"],
                                       "Up to symmetry (the same canonical form, SPEC 6)"))
    else:
        parts.append('<p class="note">No canonical forms in this run (--measures canonical): '
                     "duplicates up to symmetry are not counted.</p>")
    return _section("duplicates", "Duplicates", "".join(parts))


def _duplicates_block(found: Duplicates, title: str) -> str:
    repeats = found.rows - found.distinct
    lines = [f"<h3>{_e(title)}</h3>",
             f"<p>{found.distinct:,} distinct of {found.rows:,} rows: <b>{_rows(repeats)} "
             f"({_percent(repeats, found.rows)}) repeat an earlier one</b>, in "
             f"{_plural(found.repeated, 'class', 'classes')}.</p>"]
    if found.shared:
        lines.append(_table(["inputs sharing puzzles", "classes"], [
            [_e(" & ".join(inputs)), f"{classes:,}"] for inputs, classes in found.shared.items()],
            numeric={1}))
    if found.largest:
        lines.append(_table(
            ["rows", found.column, "where (rows from 0)"],
            [[f"{c.rows:,}", f"<code>{_e(c.value)}</code>",
              _e(", ".join(where_text(_short(source), row) for source, row in c.where)
                 + (", …" if c.rows > len(c.where) else ""))]
             for c in found.largest], numeric={0}))
    return "".join(lines)


def _se_measured(facts: Facts) -> bool:
    return "se" in facts.summary.settings.measures


def se_section(facts: Facts) -> str:
    """Per group, its rated puzzles by band of the SE scale, and those over the work budget."""
    if not _se_measured(facts):
        return _not_measured("se", "SE rating", "se")
    counts = {name: {**{band_text(band): count for band, count in numbers.se_bands.items()},
                     "over budget": numbers.se_unrated}
              for name, numbers in facts.numbers.items()}
    chart = (stacked_chart(counts, SE_COLOURS, xlabel="share of the group's unique 9 x 9 puzzles "
                           "(%)") if any(sum(c.values()) for c in counts.values()) else "")
    return _section(
        "se", "SE rating per group", chart,
        "SPEC 5.4: the Sudoku Explainer rating (ER), the difficulty of the hardest step of "
        "serate's path, in bands of whole numbers (1.x: 1.0-1.9; 12+: 12 and more); black: "
        "over the SE work budget (no rating). Unique 9 x 9 puzzles only.")


def se_table_section(facts: Facts) -> str:
    """The SE numbers of each group: rated rows, median, p90, max, the rows over the budget,
    and the rows per band met."""
    if not _se_measured(facts):
        return ""
    numbers = facts.numbers
    bands = [band for band in SE_BANDS if any(n.se_bands.get(band) for n in numbers.values())]
    headers = ["group", "rated", "p50", "p90", "max", "over budget", *map(band_text, bands)]
    rows = [[_e(name), f"{n.se.rows:,}", se_text(n.se.p50), se_text(n.se.p90),
             se_text(n.se.max), f"{n.se_unrated:,}",
             *(f"{n.se_bands.get(band, 0):,}" for band in bands)]
            for name, n in numbers.items()]
    over = facts.total.se_unrated
    note = ("ER as serate prints it (one decimal); p50 and p90 nearest-rank. "
            + (_e(se_budget_advice(facts.summary.settings, over)) + "." if over else
               "No row is over the SE work budget."))
    return _section("se-table", "SE rating: the numbers",
                    _table(headers, rows, numeric=set(range(1, len(headers)))), note)


def _rating_samples(facts: Facts) -> int:
    return facts.summary.settings.rating_samples


def rating_section(facts: Facts) -> str:
    if not facts.total.rating.rows:
        return _not_measured("rating", "Rating", "rating")
    spreads = {name: spread(stats.rating) for name, stats in facts.groups.items()}
    return _section(
        "rating", "Rating per group",
        box_chart(spreads, label="rating (mean search depth over symmetric copies)", log=False),
        f"SPEC 5.2: the mean search depth of {_rating_samples(facts)} symmetric copies, searched "
        "with singles; 0 for a singles-solvable puzzle. Unique puzzles only. Box and whiskers "
        "as for search effort.")


def rating_distribution_section(facts: Facts) -> str:
    if not facts.total.rating.rows:
        return ""
    histograms = {name: _binned(stats.rating, 0.5) for name, stats in facts.groups.items()}
    return _section("rating-distribution", "Rating distribution per group",
                    histograms_chart(histograms, xlabel="rating (bins of 0.5)", width=0.45))


def _binned(histogram: dict[float, int], width: float) -> dict[float, int]:
    binned: dict[float, int] = {}
    for value, count in sorted(histogram.items()):
        start = (value // width) * width
        binned[start] = binned.get(start, 0) + count
    return binned


def backdoor_section(facts: Facts) -> str:
    counts = {}
    for name, stats in facts.groups.items():
        sizes = {str(size): count for size, count in sorted(stats.backdoor_size.items())}
        counts[name] = {**sizes, "more than 3": stats.status["unique"] - sum(sizes.values())}
    if not facts.total.backdoor_size_histogram:
        return _not_measured("backdoor", "Backdoor size", "backdoor")
    return _section(
        "backdoor", "Backdoor size per group",
        stacked_chart(counts, BACKDOOR_COLOURS, xlabel="share of the group's unique puzzles (%)"),
        "SPEC 5.3: the fewest cells of the solution that, given, let singles finish the puzzle.")


def _not_measured(anchor: str, title: str, measure: str) -> str:
    return _section(anchor, title, f'<p class="note">Not measured in this run (add --measures '
                    f"{measure}, or --config configs/analytics.toml).</p>")


def statuses_section(facts: Facts) -> str:
    counts = facts.total.status
    total = sum(counts.values())
    body = _table(["status", "rows", "share", ""], [
        [f'<span style="color:{STATUS_COLOURS[name]}">■</span> {name}', f"{counts[name]:,}",
         _percent(counts[name], total),
         f'<span class="bar" style="width:{200 * counts[name] / max(total, 1):.0f}px"></span>']
        for name in STATUSES], numeric={1, 2})
    return _section("statuses", "Statuses", body, "SPEC 3: the first that applies, in this order.")


def depth_section(facts: Facts) -> str:
    histograms = {name: dict(sorted(stats.search_depth.items()))
                  for name, stats in facts.groups.items()}
    chart = histograms_chart(histograms, xlabel="search depth") if facts.total.rows else ""
    return _section("depth", "Search depth per group", chart,
                    "The deepest node of each search; 0 when pruning alone solves the puzzle.")


def groups_section(facts: Facts, by: str) -> str:
    """The numbers of ``summarize --by``, one row per group."""
    keys = [f"p{p}" for p in PERCENTILES] + ["max"]
    rows = []
    for name, numbers in facts.numbers.items():
        status = numbers.status
        rows.append([_e(name), f"{numbers.rows:,}",
                     *(f"{status[s]:,}" for s in ("unique", "multiple")),
                     f"{numbers.rows - status['unique'] - status['multiple']:,}",
                     *(_percent(numbers.ladder[key], numbers.laddered) for key in LADDER_LABELS),
                     *(number_text(getattr(numbers.search_nodes, k)) for k in keys),
                     *(decimal_text(getattr(numbers.rating, k)) for k in keys)])
    headers = [_e(by), "rows", "unique", "multiple", "other",
               *(LADDER_LABELS[key] for key in LADDER_LABELS),
               *(f"nodes {k}" for k in keys), *(f"rating {k}" for k in keys)]
    return _section("groups", f"Per {by}", _table(headers, rows, numeric=set(range(1, len(headers)))),
                    f"As sudoku-pipeline summarize --by {by}. The three ladder shares are of the "
                    "group's puzzles that are neither invalid nor contradictory; beyond singles: "
                    "not singles-solvable.")


def hardest_section(facts: Facts) -> str:
    """The hardest puzzles as the seeds draw them (``put``), with their numbers and their
    81-character form to copy."""
    figures = []
    for rank, (hard, group) in enumerate(facts.hardest, start=1):
        rating = "" if hard.rating is None else f"rating {hard.rating:.2f} · "
        if _se_measured(facts) and (hard.se is not None or hard.over_se_budget):
            rating = ("SE over the work budget · " if hard.over_se_budget
                      else f"SE {se_text(hard.se)} · ") + rating
        backdoor = "" if hard.backdoor_size is None else f"backdoor {hard.backdoor_size} · "
        shown_group = "" if group == facts.summary.labels.get(hard.source) else f"{_e(group)}<br>"
        figures.append(
            f"<figure><pre class=\"grid\">{_e(put(read_mat(hard.grid), blanks='.'))}</pre><figcaption>"
            f"<b>#{rank}</b> {shown_group}"
            f"{_e(where_text(_short(hard.source), hard.row))} · {hard.givens} givens<br>"
            f"{rating}{backdoor}grade {_e(hard.grade or '-')}<br>"
            f"{hard.search_nodes:,} nodes · depth {hard.search_depth}<br>"
            f"<code class=\"puzzle\">{_e(hard.grid)}</code></figcaption></figure>")
    order = "rating, then search nodes" if facts.total.rating.rows else "search nodes"
    if _se_measured(facts):
        order = "SE rating (over the SE work budget first), then " + order
    return _section("hardest", f"The {len(figures)} hardest puzzles",
                    f'<div class="grids">{"".join(figures)}</div>',
                    f"Unique or solved puzzles with the highest {order}; under each, its input "
                    "and row (the column row: counted from 0, the header and comment lines not "
                    "counted), and the puzzle as one line to copy.")


def reasons_section(facts: Facts) -> str:
    reasons = facts.reasons
    if not reasons.height:
        return _section("reasons", "Invalid and contradictory rows", "<p>None.</p>")
    shown = reasons.head(MAX_REASONS)
    body = _table(["status", "reason", "rows", "first seen"], [
        [_e(r["status"]), _e(r["error"]), f"{r['rows']:,}",
         _e(where_text(_short(r["source"]), r["row"]))]
        for r in shown.iter_rows(named=True)], numeric={2})
    if reasons.height > MAX_REASONS:
        rest = reasons["rows"].slice(MAX_REASONS).sum()
        body += f'<p class="note">and {reasons.height - MAX_REASONS:,} more reasons ({rest:,} rows).</p>'
    return _section("reasons", "Invalid and contradictory rows", body,
                    "The error column, counted; the most frequent first.")


def run_section(summary: Summary) -> str:
    """The run's settings, versions and inputs (from its stored summary)."""
    wall = summary.wall_seconds
    facts = [("complete", summary.complete), ("rows in / out",
             f"{number_text(summary.rows_in)} / {summary.rows_out:,}"),
             ("engine, workers", f"{summary.engine}, {summary.workers}"),
             ("wall time", "not recorded" if not wall else
              f"{wall:,.1f} s ({rate_text(summary.puzzles_per_second)} puzzles/s)"),
             ("parts", summary.parts),
             ("rows per batch", number_text(summary.batch_rows) if summary.batch_rows
              else "chosen per input (see Inputs)")]
    inputs = _table(["input", "format", "rows", "rows a batch", "bytes", "sha256"], [
        [_e(i.path), _e(i.format), number_text(i.rows), number_text(i.batch_rows),
         number_text(i.bytes), f"<code title=\"{_e(i.sha256)}\">{_e(i.sha256[:16])}…</code>"]
        for i in summary.inputs], numeric={2, 3, 4})
    settings = [[_e(name), _e(_setting(name, value, summary))]
                for name, value in summary.settings.to_dict().items()]
    return _section("run", "The run", _pair(
        _table(["", ""], [[_e(k), _e(v)] for k, v in facts])
        + "<h3>Inputs</h3>" + inputs
        + "<h3>Versions</h3>"
        + _table(["", ""], [[_e(k), _e(v)] for k, v in summary.versions.items()]),
        "<h3 style=\"margin-top:0\">Settings</h3>" + _table(["setting", "value"], settings)))


def _setting(name: str, value: Any, summary: Summary) -> str:
    """A setting's value as given, and what it came to where 0 means 'chosen'."""
    if name == "batch_size" and value == 0:
        return (f"0 (chosen: {summary.batch_rows:,} rows a batch)" if summary.batch_rows
                else "0 (chosen for each input: see Inputs)")
    return ", ".join(map(str, value)) if isinstance(value, list | tuple) else str(value)


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


def _percent(count: int, total: int) -> str:
    if not total:
        return "-"
    share = 100 * count / total
    return "<0.1%" if 0 < share < 0.05 else f"{share:.1f}%"


def _plural(count: int, one: str, many: str) -> str:
    return f"{count:,} {one if count == 1 else many}"


def _rows(count: int) -> str:
    return _plural(count, "row", "rows")
