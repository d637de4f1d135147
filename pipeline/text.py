"""How numbers are written for people, the same in the terminal tables and the report."""

from __future__ import annotations


def number_text(value: int | None) -> str:
    """'12,345', or '-' for none."""
    return "-" if value is None else f"{value:,}"


def decimal_text(value: float | None) -> str:
    """'3.25', or '-' for none."""
    return "-" if value is None else f"{value:.2f}"


def rate_text(per_second: float | None) -> str:
    """'12,345' puzzles a second, '0.11' for a rate under ten (a slow measure's: whole numbers
    would say 0), or '-' for none."""
    if per_second is None:
        return "-"
    return f"{per_second:,.0f}" if per_second >= 10 else f"{per_second:.2g}"


def share_text(count: int, total: int) -> str:
    """'12.5%' of ``total``, or '-' when there is nothing to share."""
    return f"{100 * count / total:.1f}%" if total else "-"


def compact_histogram(histogram: dict[int, int], limit: int = 12) -> str:
    """``value:count`` pairs in value order; with more than ``limit`` values, ``low-high:count``
    for ``limit`` ranges of equal width, so that every row is shown."""
    if not histogram:
        return "-"
    pairs = sorted((int(value), count) for value, count in histogram.items())
    if len(pairs) <= limit:
        return "  ".join(f"{value}:{count:,}" for value, count in pairs)
    low, high = pairs[0][0], pairs[-1][0]
    width = -(-(high - low + 1) // limit)  # ceiling division
    buckets: dict[int, int] = {}
    for value, count in pairs:
        start = low + (value - low) // width * width
        buckets[start] = buckets.get(start, 0) + count
    return "  ".join(f"{start}-{min(start + width - 1, high)}:{count:,}"
                     for start, count in sorted(buckets.items()))


def where_text(source: str, row: int) -> str:
    """'top1465.txt row 356': a row of an input, numbered as the column ``row`` numbers it (from
    0, the header and comment lines not counted), said so that ``file:356`` is not read as a
    line number."""
    return f"{source} row {row}"


def escaped(text: str) -> str:
    """``text`` on one line: control characters (a newline in a file name, say) written as
    escapes, so that a one-line message stays one line."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode() for ch in text)
