"""Agreement of the SE rating (the reference, ``solver.reference.se``, or the compiled one,
``solver.compiled.se``: ``--engine``) with serate's ratings.

Reads TSVs of serate ground truth (columns ``line puzzle er ep ed ...`` with a header, as
/work/serate/truth/*.tsv; rows whose ``status`` is not ``ok`` are left out), rates every puzzle
with the chosen engine under a per-puzzle time limit (a puzzle over it is skipped and listed), and
prints, per set and per ER band of serate's rating (1.x ... 11.x), the share of puzzles whose ER,
EP and ED are equal to serate's, within 0.2, within 0.5, and Spearman's rho; then the timings per
set (median and max seconds per puzzle) and every disagreement (puzzle, ours, serate's).

    python tools/se_agreement.py /work/serate/truth/kaggle_300.tsv ... [--limit 60]
        [--engine reference|compiled] [--max-er 9.9] [--sample 100] [--out results.tsv]
        [--reuse results.tsv ...] [--reused-only]

``--out`` writes one row per puzzle rated (set, puzzle, serate's and our ER/EP/ED, seconds,
status); ``--reuse`` takes the ratings of earlier ``--out`` files instead of rating again
(only rows rated ``ok`` or ``skip`` with the same limit or more are reused); with
``--reused-only`` nothing is rated: the tables cover the puzzles the ``--reuse`` files hold (a
long run stopped part way is reported as far as it got).
"""

from __future__ import annotations

import argparse
import csv
import importlib
import random
import signal
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

MEASURES = ("er", "ep", "ed")
WARM_UP = "7..9....1.8..2..6..4.8.5....9.6..5.....179...2.....37.8.2.51.97.6479.2.5..5..8.43"
ENGINES = {"reference": "solver.reference.se", "compiled": "solver.compiled.se"}


class TimeLimit(Exception):
    pass


def _alarm(signum, frame):
    raise TimeLimit


def rate(puzzle: str, limit: float, se_rating) -> tuple[tuple[float, float, float] | None, float]:
    """Our (ER, EP, ED) by ``se_rating`` and the seconds taken, or None when over ``limit``
    seconds."""
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, limit)
    start = time.perf_counter()
    try:
        r = se_rating(puzzle)
        return (r.er, r.ep, r.ed), time.perf_counter() - start
    except TimeLimit:
        return None, time.perf_counter() - start
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def read_truth(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        rows = [r for r in csv.DictReader(f, delimiter="\t") if r.get("status", "ok") == "ok"]
    for r in rows:
        r["serate"] = tuple(float(r[m]) for m in MEASURES)
    return rows


def band(er: float) -> str:
    return f"{int(er)}.x"


def ranks(xs: list[float]) -> list[float]:
    order = sorted(range(len(xs)), key=xs.__getitem__)
    out = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def spearman(a: list[float], b: list[float]) -> float | None:
    if len(a) < 2:
        return None
    ra, rb = ranks(a), ranks(b)
    ma, mb = statistics.fmean(ra), statistics.fmean(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb, strict=True))
    va = sum((x - ma) ** 2 for x in ra)
    vb = sum((y - mb) ** 2 for y in rb)
    if va == 0 or vb == 0:
        return 1.0 if ra == rb else None
    return cov / (va * vb) ** 0.5


def summary_line(label: str, pairs: list[tuple[tuple, tuple]]) -> str:
    """One row of the table: n, then for ER, EP and ED: exact %, within 0.2 %, within 0.5 %,
    Spearman's rho."""
    cells = [f"{label:<24}{len(pairs):>5}"]
    for i in range(3):
        ours = [p[0][i] for p in pairs]
        theirs = [p[1][i] for p in pairs]
        diffs = [abs(x - y) for x, y in zip(ours, theirs, strict=True)]
        n = len(diffs)
        exact = sum(d < 0.05 for d in diffs) / n * 100
        w2 = sum(d < 0.25 for d in diffs) / n * 100
        w5 = sum(d < 0.55 for d in diffs) / n * 100
        rho = spearman(ours, theirs)
        rho_s = f"{rho:5.3f}" if rho is not None else "    -"
        cells.append(f"{exact:6.1f}{w2:6.1f}{w5:6.1f} {rho_s}")
    return " |".join(cells)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("truth", nargs="+", type=Path, help="serate truth TSVs")
    ap.add_argument("--limit", type=float, default=60.0, help="seconds per puzzle (default 60)")
    ap.add_argument("--engine", choices=sorted(ENGINES), default="reference",
                    help="the implementation rated (default reference)")
    ap.add_argument("--max-er", type=float, default=None,
                    help="leave out puzzles serate rates above this ER")
    ap.add_argument("--sample", type=int, default=None, help="at most this many puzzles a set")
    ap.add_argument("--seed", type=int, default=20250601)
    ap.add_argument("--out", type=Path, default=None, help="write per-puzzle results here")
    ap.add_argument("--reuse", type=Path, nargs="*", default=[], help="reuse earlier --out files")
    ap.add_argument("--reused-only", action="store_true",
                    help="rate nothing: report only the puzzles of the --reuse files")
    ap.add_argument("--quiet", action="store_true", help="no progress lines")
    args = ap.parse_args(argv)
    se_rating = importlib.import_module(ENGINES[args.engine]).se_rating
    se_rating(WARM_UP)  # compiles the compiled engine, outside any time limit

    reused: dict[tuple[str, str], dict] = {}
    for path in args.reuse:
        with open(path, newline="") as f:
            for r in csv.DictReader(f, delimiter="\t"):
                if r["status"] in ("ok", "diff") or (r["status"] == "skip"
                                                     and float(r["seconds"]) >= args.limit):
                    reused[(r["set"], r["puzzle"])] = r

    out = None
    if args.out:
        out = open(args.out, "w", newline="")  # noqa: SIM115
        out.write("set\tpuzzle\tserate_er\tserate_ep\tserate_ed\ter\tep\ted\tseconds\tstatus\n")

    results: dict[str, list[tuple[str, tuple, tuple, float]]] = defaultdict(list)
    skipped: dict[str, list[tuple[str, tuple, float]]] = defaultdict(list)
    for path in args.truth:
        name = path.stem
        rows = read_truth(path)
        if args.max_er is not None:
            rows = [r for r in rows if r["serate"][0] <= args.max_er]
        if args.sample is not None and len(rows) > args.sample:
            rows = random.Random(f"{args.seed}:{name}").sample(rows, args.sample)
        for k, r in enumerate(rows, 1):
            puzzle = r["puzzle"]
            old = reused.get((name, puzzle))
            if old is None and args.reused_only:
                continue
            if old is not None:
                ours = None if old["status"] == "skip" else tuple(float(old[m]) for m in MEASURES)
                seconds = float(old["seconds"])
            else:
                ours, seconds = rate(puzzle, args.limit, se_rating)
            if ours is None:
                skipped[name].append((puzzle, r["serate"], seconds))
                status = "skip"
            else:
                results[name].append((puzzle, ours, r["serate"], seconds))
                status = "ok" if ours == r["serate"] else "diff"
            if out:
                o = ours or ("", "", "")
                out.write(f"{name}\t{puzzle}\t" + "\t".join(map(str, r["serate"])) + "\t"
                          + "\t".join(map(str, o)) + f"\t{seconds:.2f}\t{status}\n")
                out.flush()
            if not args.quiet:
                print(f"{name} {k}/{len(rows)} {status} serate {r['serate']} ours {ours} "
                      f"{seconds:.1f}s", file=sys.stderr, flush=True)
    if out:
        out.close()

    head = (f"{'set / serate ER band':<24}{'n':>5} |" + " |".join(
        f"{m.upper() + ' =':>6}{'<=.2':>6}{'<=.5':>6} {'rho':>5}" for m in MEASURES))
    print("Agreement with serate (% of puzzles; rho = Spearman)")
    print(head)
    everything = []
    for name, rs in results.items():
        pairs = [(o, t) for _, o, t, _ in rs]
        everything.extend(pairs)
        print(summary_line(name, pairs))
        by_band = defaultdict(list)
        for o, t in pairs:
            by_band[band(t[0])].append((o, t))
        for b in sorted(by_band, key=lambda s: float(s[:-2])):
            print(summary_line(f"  ER {b}", by_band[b]))
    if len(results) > 1:
        print(summary_line("all sets", everything))
        by_band = defaultdict(list)
        for o, t in everything:
            by_band[band(t[0])].append((o, t))
        for b in sorted(by_band, key=lambda s: float(s[:-2])):
            print(summary_line(f"  ER {b}", by_band[b]))

    print(f"\nSeconds per puzzle (the {args.engine} engine, this machine)")
    print(f"{'set / serate ER band':<24}{'n':>5}{'median':>9}{'max':>9}{'skipped':>9}")

    def timing_line(label: str, secs: list[float], n_skipped: int) -> str:
        med = f"{statistics.median(secs):9.2f}" if secs else f"{'-':>9}"
        mx = f"{max(secs):9.2f}" if secs else f"{'-':>9}"
        return f"{label:<24}{len(secs):>5}{med}{mx}{n_skipped:>9}"

    for name in sorted(results.keys() | skipped.keys()):
        secs = [s for _, _, _, s in results.get(name, [])]
        print(timing_line(name, secs, len(skipped.get(name, []))))
    # Per band over all sets: the time grows with the rule that decides the rating.
    band_secs: dict[str, list[float]] = defaultdict(list)
    band_skipped: dict[str, int] = defaultdict(int)
    for rs in results.values():
        for _, _, t, s in rs:
            band_secs[band(t[0])].append(s)
    for rows in skipped.values():
        for _, t, _ in rows:
            band_skipped[band(t[0])] += 1
    for b in sorted(band_secs.keys() | band_skipped.keys(), key=lambda s: float(s[:-2])):
        print(timing_line(f"  ER {b}", band_secs.get(b, []), band_skipped.get(b, 0)))

    if any(skipped.values()):
        print(f"\nSkipped (over {args.limit:g} s): puzzle, serate ER/EP/ED")
        for name, rows in skipped.items():
            for puzzle, t, _ in rows:
                print(f"{name}\t{puzzle}\t{t[0]}/{t[1]}/{t[2]}")
    disagreements = [(name, p, o, t) for name, rs in results.items() for p, o, t, _ in rs
                     if o != t]
    print(f"\nDisagreements: {len(disagreements)}")
    for name, puzzle, o, t in disagreements:
        print(f"{name}\t{puzzle}\tours {o[0]}/{o[1]}/{o[2]}\tserate {t[0]}/{t[1]}/{t[2]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
