"""Hostile input: any bytes into the readers and the parser (Hypothesis), and crafted files
(huge lines, NUL bytes, non-UTF-8, wrong delimiters, mixed line endings, puzzles that lost
their leading zeros, Parquet columns of the wrong type, truncated files). Each gives per-row
statuses or a one-line error with exit code 2; nothing raises anything else."""

from __future__ import annotations

import decimal
import gzip
import re
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import solver
from pipeline.columns import RESULT_NAMES
from pipeline.errors import PipelineError
from pipeline.part import PartInfo, output_schema
from pipeline.read import inspect_input, read_batches
from pipeline.summary import read_summary
from pipeline.work import Unit, solve_part, to_ipc
from tests import runs

EASY = "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3.."
KAGGLE = "004300209005009001070060043006002087190007400050083000600000105003508690042910300"
BOM = b"\xef\xbb\xbf"

# --- fuzzing the readers and the parser ---------------------------------------------------

PIECES = [
    EASY.encode(),
    KAGGLE.encode(),
    b"puzzle",
    b"puzzle,solution\n",
    b"quizzes,id\r\n",
    b"\n",
    b"\r\n",
    b"\r",
    b",",
    b'"',
    b"#",
    b";",
    b"\t",
    b"\x00",
    b"\xff",
    b"\xe9",
    BOM,
    b"x",
    b"0",
    b".",
    "é".encode(),
]
HOSTILE = st.one_of(
    st.binary(max_size=300),
    st.lists(st.sampled_from(PIECES), max_size=40).map(b"".join),
    st.text(max_size=200).map(lambda text: text.encode("utf-8", "surrogatepass")),
)


def solve_file(path: Path, batch_size: int = 3) -> list[tuple[str | None, str]]:
    """Read and solve ``path`` as a run would (in this process): (puzzle, status) per row.

    Checks on the way that every batch comes back whole, with its rows unchanged, and that a
    row is invalid exactly when the parser says so."""
    source = inspect_input(path, reserved=RESULT_NAMES)
    schema = output_schema(source.schema)
    rows: list[tuple[str | None, str]] = []
    for index, batch in enumerate(read_batches(source, batch_size)):
        part = path.with_name(f"part-{index}.parquet")
        unit = Unit(
            part=PartInfo(str(path), 0, index, len(rows), batch.num_rows, last=False),
            batch=to_ipc(batch),
            puzzle_column=source.puzzle_column,
            solution_column=source.solution_column,
            schema=schema,
            options=solver.SolveOptions(max_nodes=50),
            record={"run": "hostile"},
            compression="zstd",
            path=str(part),
        )
        assert solve_part(unit).rows == batch.num_rows
        table = pq.read_table(part)
        assert table.column(source.puzzle_column).equals(batch.column(source.puzzle_column))
        for puzzle, status in zip(
            table.column(source.puzzle_column).to_pylist(),
            table.column("status").to_pylist(),
            strict=True,
        ):
            invalid = puzzle is None or solver.parse_error(puzzle) is not None
            assert (status == "invalid") == invalid, (puzzle, status)
            rows.append((puzzle, status))
    return rows


def txt_rows(data: bytes) -> list[str]:
    """The rows of a text file by the rules of docs/usage.md (Inputs), written plainly. A row
    that is not UTF-8 raises UnicodeDecodeError (a comment line is never decoded: it is not
    passed on)."""
    lines = re.split(rb"\r\n|\r|\n", data.removeprefix(BOM))
    if lines[-1] == b"":  # the final line ending does not start another row
        lines.pop()
    return [line.decode("utf-8") for line in lines if not line.startswith(b"#")]


def one_line_error(path: Path) -> str:
    """The message of the PipelineError that reading ``path`` raises (one line)."""
    with pytest.raises(PipelineError) as error:
        solve_file(path)
    message = str(error.value)
    assert message and "\n" not in message and "\r" not in message, message
    return message


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=HOSTILE)
@example(data=b"\xef")  # found by Hypothesis: was "only comment lines", is "not UTF-8"
@example(data=BOM)  # found by Hypothesis: was an empty run, is "only comment lines (or nothing)"
@example(data=b"\n#\x80")  # a comment is not passed on, so its bytes need not be UTF-8
def test_any_bytes_as_a_text_file(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("fuzz") / "input.txt"
    path.write_bytes(data)
    try:
        expected = txt_rows(data)
    except UnicodeDecodeError:
        assert "UTF-8" in one_line_error(path)
        return
    if not data or not expected:
        one_line_error(path)  # empty, or comments only
        return
    assert [puzzle for puzzle, _ in solve_file(path)] == expected


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=HOSTILE, header=st.sampled_from([b"", b"puzzle\n", b"id,puzzle,solution\r\n"]))
def test_any_bytes_as_a_csv_file(tmp_path_factory, data, header):
    path = tmp_path_factory.mktemp("fuzz") / "input.csv"
    path.write_bytes(header + data)
    try:
        solve_file(path)
    except PipelineError as error:
        assert str(error) and "\n" not in str(error)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=HOSTILE, cut=st.integers(min_value=0, max_value=400))
def test_any_bytes_as_a_gzip_csv_file(tmp_path_factory, data, cut):
    """Compressed, then perhaps cut short; or not compressed at all."""
    path = tmp_path_factory.mktemp("fuzz") / "input.csv.gz"
    compressed = gzip.compress(b"puzzle,id\n" + data)
    path.write_bytes(compressed[: max(cut, 1)] if cut < len(compressed) else compressed)
    try:
        solve_file(path)
    except PipelineError as error:
        assert str(error) and "\n" not in str(error)


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=120))
def test_the_parser_takes_any_text(text):
    """Any string is a puzzle, or invalid with a reason; never an exception."""
    batch = solver.solve_strings([text], max_nodes=50)
    error = solver.parse_error(text)
    assert (batch.statuses()[0] == "invalid") == (error is not None)
    if error is not None:
        assert batch.row(0).error == error


# --- crafted files, through the command ----------------------------------------------------


def statuses(cli, tmp_path, path: Path, *options: str) -> list[tuple[str, str | None]]:
    """Run the command on ``path``; (status, error) of every row, in order."""
    result, out = runs.run_cli(cli, tmp_path, path, *options)
    assert result.exit_code == 0, result.stderr
    table = pq.read_table(sorted(out.glob("part-*.parquet")))
    summary = read_summary(out)
    assert summary.rows_in == summary.rows_out == table.num_rows
    return list(zip(table.column("status").to_pylist(), table.column("error").to_pylist(), strict=True))


def test_a_huge_line_is_one_invalid_row(cli, tmp_path):
    path = tmp_path / "huge.txt"
    path.write_bytes(EASY.encode() + b"\n" + b"1" * (5 << 20) + b"\n" + EASY.encode() + b"\n")
    assert statuses(cli, tmp_path, path) == [
        ("unique", None),
        ("invalid", f"expected 81 cells, got {5 << 20}"),
        ("unique", None),
    ]


def test_a_huge_csv_record_is_a_clean_error(cli, tmp_path):
    path = tmp_path / "huge.csv"
    path.write_bytes(b"puzzle\n" + EASY.encode() + b"\n" + b"1" * (10 << 20) + b"\n" + EASY.encode())
    runs.assert_one_line_error(cli, tmp_path, path,
                               "record 3 (the header is record 1) is longer than 8 MiB")


def test_an_unclosed_quote_is_a_clean_error(cli, tmp_path):
    path = tmp_path / "quote.csv"
    path.write_text(f'puzzle,id\n"{EASY},1\n{EASY},2\n' + f"{EASY},3\n" * 1000)
    runs.assert_one_line_error(cli, tmp_path, path, "cannot read")


@pytest.mark.parametrize("kind", ["txt", "csv"])
def test_nul_bytes_make_a_row_invalid_and_pass_through(cli, tmp_path, kind):
    broken = EASY[:40] + "\x00" + EASY[41:]
    path = tmp_path / f"nul.{kind}"
    header = "puzzle,note\n" if kind == "csv" else ""
    note = ",a\x00b" if kind == "csv" else ""
    path.write_text(f"{header}{broken}{note}\n{EASY}{note}\n")
    assert statuses(cli, tmp_path, path) == [
        ("invalid", "unexpected character '\\x00' at cell 40 (row 5, column 5)"),
        ("unique", None),
    ]
    table = pq.read_table(sorted((tmp_path / "out").glob("part-*.parquet")))
    assert table.column("puzzle").to_pylist() == [broken, EASY]
    if kind == "csv":
        assert table.column("note").to_pylist() == ["a\x00b", "a\x00b"]


@pytest.mark.parametrize(
    ("name", "data", "words"),
    [
        ("latin1.txt", EASY.encode() + b"\n\xe9t\xe9\n", "line 2 is not UTF-8 text"),
        ("latin1.csv", b"puzzle,note\n" + EASY.encode() + b",\xe9t\xe9\n", "not UTF-8 text"),
        ("latin1_header.csv", b"puzzle,r\xe9sum\xe9\n" + EASY.encode() + b",x\n", "not UTF-8"),
        (
            "latin1_deep.csv",
            b"puzzle,note\n" + (EASY + ",ok\n").encode() * 50_000 + EASY.encode() + b",\xe9\n",
            "invalid UTF8",
        ),
        ("utf16.txt", EASY.encode("utf-16"), "not UTF-8 text"),
    ],
)
def test_text_that_is_not_utf8_is_a_clean_error(cli, tmp_path, name, data, words):
    path = tmp_path / name
    path.write_bytes(data)
    runs.assert_one_line_error(cli, tmp_path, path, words)


@pytest.mark.parametrize(
    ("delimiter", "name"), [(";", "semicolon"), ("\t", "tab"), ("|", "vertical bar")]
)
def test_a_csv_with_another_delimiter_is_a_clean_error(cli, tmp_path, delimiter, name):
    path = tmp_path / "other.csv"
    path.write_text(f"id{delimiter}puzzle\n1{delimiter}{EASY}\n")
    runs.assert_one_line_error(cli, tmp_path, path, f"the header has no comma but {name}s")


def test_mixed_line_endings(cli, tmp_path):
    txt = tmp_path / "mixed.txt"
    easy = EASY.encode()
    txt.write_bytes(easy + b"\r\n#c\r" + easy + b"\n" + easy + b"\r" + easy)
    assert statuses(cli, tmp_path, txt) == [("unique", None)] * 4
    csv = tmp_path / "mixed.csv"
    csv.write_bytes(BOM + b"puzzle,id\r\n" + f"{EASY},1\r{EASY},2\n{EASY},3".encode())
    assert statuses(cli, tmp_path / "csv", csv) == [("unique", None)] * 3
    table = pq.read_table(sorted((tmp_path / "csv" / "out").glob("part-*.parquet")))
    assert table.column("id").to_pylist() == ["1", "2", "3"]


def test_csv_puzzles_that_lost_their_leading_zeros_are_invalid_rows(cli, tmp_path):
    """A spreadsheet that read Kaggle's puzzles as numbers wrote 80 digits. They are not
    padded back: an 80-digit string may as well have lost any other cell."""
    path = tmp_path / "numbers.csv"
    path.write_text(f"quizzes\n{int(KAGGLE)}\n{KAGGLE}\n")
    assert statuses(cli, tmp_path, path) == [
        ("invalid", "expected 81 cells, got 79"),  # KAGGLE starts with two zeros
        ("unique", None),
    ]


@pytest.mark.parametrize(
    ("column", "type_name"),
    [
        (pa.array([4300209005009001070], pa.int64()), "int64"),
        (pa.array([4.3e78]), "double"),
        (pa.array([decimal.Decimal(KAGGLE[:38])], pa.decimal128(38)), "decimal128(38, 0)"),
        (pa.array([EASY.encode()], pa.binary()), "binary"),
        (pa.array([[1, 2, 3]]), "list<element: int64>"),
    ],
)
def test_a_parquet_puzzle_column_that_is_not_text_is_a_clean_error(cli, tmp_path, column, type_name):
    """No numeric Arrow type holds 81 digits (int64 holds 19, decimal 76): such a column has
    lost digits already, so it is refused rather than padded."""
    path = tmp_path / "numbers.parquet"
    pq.write_table(pa.table({"puzzle": column}), path)
    runs.assert_one_line_error(cli, tmp_path, path, f"column 'puzzle' holds {type_name}, not text")


def test_a_parquet_solution_column_that_is_not_text_is_a_clean_error(cli, tmp_path):
    path = tmp_path / "solutions.parquet"
    pq.write_table(pa.table({"puzzle": [EASY], "solution": [1]}), path)
    runs.assert_one_line_error(cli, tmp_path, path, "column 'solution' holds int64, not text")


@pytest.mark.parametrize("keep", [0.5, 0.99, 8 / 9])
def test_a_truncated_parquet_file_is_a_clean_error(cli, tmp_path, keep):
    whole = tmp_path / "whole.parquet"
    pq.write_table(pa.table({"puzzle": [EASY] * 1000, "id": list(range(1000))}), whole)
    data = whole.read_bytes()
    path = tmp_path / "cut.parquet"
    path.write_bytes(data[: int(len(data) * keep)])
    runs.assert_one_line_error(cli, tmp_path, path, "not a readable Parquet file")


def test_a_truncated_gzip_file_is_a_clean_error(cli, tmp_path):
    data = gzip.compress(("puzzle\n" + (EASY + "\n") * 20_000).encode())
    path = tmp_path / "cut.csv.gz"
    path.write_bytes(data[: len(data) // 2])
    runs.assert_one_line_error(cli, tmp_path, path, "cannot read")


def _gzip_with_a_corrupt_header() -> bytes:
    data = bytearray(gzip.compress((EASY + "\n").encode(), mtime=0))
    data[3] = 0xFF  # every flag set: extra fields, a name and a comment that never end
    return bytes(data)


def _gzip_with_a_corrupt_body() -> bytes:
    data = bytearray(gzip.compress(((EASY + "\n") * 50).encode(), mtime=0))
    data[12] ^= 0xFF
    return bytes(data)


@pytest.mark.parametrize("suffix", [".txt.gz", ".csv.gz"])
@pytest.mark.parametrize("data, words", [
    (b"not gzip at all\n", "Not a gzipped file"),
    (_gzip_with_a_corrupt_header(), "cannot read"),
    (_gzip_with_a_corrupt_body(), "cannot read"),
], ids=["not gzip", "corrupt header", "corrupt body"])
def test_a_gz_input_that_is_not_gzip_is_one_line(cli, tmp_path, suffix, data, words):
    """Issue 29.3: a .txt.gz that is not gzip, or whose header or data is corrupt, was a
    traceback (BadGzipFile, zlib.error) where the .csv.gz equivalent was one line."""
    path = tmp_path / f"puzzles{suffix}"
    path.write_bytes(data)
    out = runs.assert_one_line_error(cli, tmp_path, path, words)
    assert not out.exists()


@pytest.mark.parametrize("delimiter", ["\u00e9", "\u00a7"])
def test_a_delimiter_beyond_ascii_is_refused_before_anything_is_written(cli, tmp_path, delimiter):
    """Issue 29.3: pyarrow's CSV reader takes one ASCII character; a non-ASCII delimiter was
    a traceback with ``_manifest.parquet`` left behind."""
    path = tmp_path / "puzzles.csv"
    path.write_text(f"puzzle\n{EASY}\n")
    out = runs.assert_one_line_error(cli, tmp_path, path, "must be one ASCII character",
                                     "--delimiter", delimiter)
    assert not out.exists()


def test_ragged_csv_rows_are_a_clean_error(cli, tmp_path):
    path = tmp_path / "ragged.csv"
    path.write_text(f"puzzle,id\n{EASY},1\n{EASY},2,extra\n")
    runs.assert_one_line_error(cli, tmp_path, path, "Expected 2 columns, got 3")
