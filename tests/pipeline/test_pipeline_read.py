"""Reading inputs: formats, explicit types, line handling, batching, column discovery."""

from __future__ import annotations

import gzip
import hashlib
import random
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.columns import RESULT_NAMES
from pipeline.errors import PipelineError
from pipeline.read import (
    file_digest,
    find_inputs,
    inspect_input,
    read_batches,
    read_range,
    rebatch,
)
from pipeline.read.parquet_files import aligned_batch_rows, worker_ranges


def rows_of(path: Path, batch_size: int = 1000, **options) -> list:
    source = inspect_input(path, **options)
    table = pa.concat_tables(read_batches(source, batch_size))
    return table.column(source.puzzle_column).to_pylist()


def test_kaggle_puzzles_keep_their_leading_zeros(kaggle_csv):
    source = inspect_input(kaggle_csv)
    assert (source.puzzle_column, source.solution_column) == ("quizzes", "solutions")
    assert source.schema.types == [pa.string(), pa.string()]
    puzzles = rows_of(kaggle_csv)
    assert len(puzzles) == 20
    assert puzzles[0].startswith("00430020")
    assert all(len(p) == 81 for p in puzzles)


def test_txt_comments_are_not_rows_but_empty_lines_are(euler_txt):
    puzzles = rows_of(euler_txt)
    assert len(puzzles) == 9
    assert puzzles[3] == ""
    assert puzzles[1] == puzzles[7]  # the duplicate stays
    assert len(puzzles[8]) == 80
    assert not any(p.startswith("#") for p in puzzles)


@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r"])
@pytest.mark.parametrize("final", [True, False])
def test_txt_line_endings(tmp_path, ending, final):
    lines = ["1" * 81, "", "# note", "2" * 81, "  spaces kept  "]
    path = tmp_path / "p.txt"
    path.write_bytes((ending.join(lines) + (ending if final else "")).encode())
    assert rows_of(path) == ["1" * 81, "", "2" * 81, "  spaces kept  "]


def test_txt_byte_order_mark_is_skipped(tmp_path):
    path = tmp_path / "p.txt"
    path.write_bytes(b"\xef\xbb\xbf" + b"1" * 81 + b"\r\n" + b"2" * 81 + b"\r\n")
    assert rows_of(path) == ["1" * 81, "2" * 81]


def test_txt_blocks_split_anywhere(tmp_path, monkeypatch):
    """Lines and CRLF pairs cut by the block boundary are joined again."""
    import pipeline.read.text_files

    lines = [str(i % 10) * (i % 97) for i in range(500)]
    path = tmp_path / "p.txt"
    path.write_bytes("\r\n".join(lines).encode())
    monkeypatch.setattr(pipeline.read.text_files, "BLOCK_BYTES", 7)
    assert rows_of(path, batch_size=13) == [line for line in lines]


@settings(max_examples=60, deadline=None)
@given(
    lines=st.lists(st.text(st.characters(blacklist_characters="\r\n"), max_size=90), max_size=30),
    ending=st.sampled_from(["\n", "\r\n", "\r"]),
)
def test_txt_round_trip(tmp_path_factory, lines, ending):
    lines = [line for line in lines if not line.startswith("#")]
    if not lines:
        lines = [""]
    path = tmp_path_factory.mktemp("txt") / "p.txt"
    path.write_bytes((ending.join(lines) + ending).encode("utf-8", "surrogatepass"))
    try:
        assert rows_of(path, batch_size=7) == lines
    except PipelineError as err:  # lone surrogates are not UTF-8: a clean error
        assert "UTF-8" in str(err)


def test_csv_quoting_and_spaces_are_kept(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text('id,Puzzle,note\n1," ..3",hello\n2,"a,b","say ""hi"""\n3,,\n')
    source = inspect_input(path)
    assert source.puzzle_column == "Puzzle"  # found ignoring case
    table = pa.concat_tables(read_batches(source, 2))
    assert table.column("Puzzle").to_pylist() == [" ..3", "a,b", ""]
    assert table.column("note").to_pylist() == ["hello", 'say "hi"', ""]
    assert table.column("id").type == pa.string()  # CSV columns are text, as written


def test_csv_gz_and_bom(tmp_path, kaggle_csv):
    path = tmp_path / "k.csv.gz"
    path.write_bytes(gzip.compress(b"\xef\xbb\xbf" + kaggle_csv.read_bytes()))
    assert rows_of(path) == rows_of(kaggle_csv)


def test_parquet_keeps_types_and_large_strings(tmp_path):
    path = tmp_path / "p.parquet"
    table = pa.table(
        {"n": pa.array([1, 2], pa.int64()), "grid": pa.array(["1" * 81, None], pa.large_string())}
    )
    pq.write_table(table, path)
    source = inspect_input(path)
    assert source.rows == 2 and source.puzzle_column == "grid"
    assert source.schema.field("n").type == pa.int64()
    assert rows_of(path) == ["1" * 81, None]


def test_named_columns_and_clashing_names_are_renamed(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("status,mine,answer\nok,x,y\n")
    source = inspect_input(path, column="MINE", solution_column="answer", reserved=RESULT_NAMES)
    assert (source.puzzle_column, source.solution_column) == ("mine", "answer")
    assert source.schema.names == ["input_status", "mine", "answer"]
    table = pa.concat_tables(read_batches(source, 10))
    assert table.column_names == ["input_status", "mine", "answer"]


def test_rebatch_gives_exact_sizes():
    starts = [0, 3, 3, 13, 14]
    batches = [
        pa.record_batch([pa.array(range(start, start + n))], names=["x"])
        for start, n in zip(starts, (3, 0, 10, 1, 7), strict=True)
    ]
    sizes = [t.num_rows for t in rebatch(batches, 4)]
    assert sizes == [4, 4, 4, 4, 4, 1]
    assert pa.concat_tables(rebatch(batches, 4)).column("x").to_pylist() == list(range(21))


def test_directories_give_their_supported_files_sorted(tmp_path, kaggle_csv):
    for name in ("b.txt", "a.csv", ".hidden.csv", "notes.md"):
        (tmp_path / name).write_text("x\n")
    assert [Path(p).name for p in find_inputs([tmp_path])] == ["a.csv", "b.txt"]


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("missing.csv", None, "input not found"),
        ("data.json", b"{}", "unknown input format"),
        ("empty.csv", b"", "is empty"),
        ("empty.txt", b"", "is empty"),
        ("header.csv", b"puzzle,solution\n", "header but no rows"),
        ("comments.txt", b"# just\n# comments\n", "only comment lines"),
        ("crlf.txt", b"\xef\xbb\xbf# just\r\n# comments\r\n", "only comment lines"),
        ("cr.txt", b"# just\r# comments\r", "only comment lines"),
        ("nopuzzle.csv", b"a,b\n1,2\n", "no puzzle column"),
        ("twice.csv", b"puzzle,puzzle\n1,2\n", "appears twice"),
        ("broken.parquet", b"PAR1 this is not parquet", "not a readable Parquet file"),
        ("latin1.csv", "puzzlé\n1\n".encode("latin-1"), "not UTF-8"),
    ],
)
def test_bad_files_are_clean_errors(tmp_path, name, content, message):
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(PipelineError, match=message) as caught:
        for found in find_inputs([path]):
            inspect_input(found)
    assert "\n" not in str(caught.value)


def test_numeric_puzzle_column_is_refused(tmp_path):
    path = tmp_path / "p.parquet"
    pq.write_table(pa.table({"puzzle": pa.array([4300209005009001], pa.int64())}), path)
    with pytest.raises(PipelineError, match="not text"):
        inspect_input(path)


def test_errors_while_streaming_are_clean(tmp_path, kaggle_csv):
    rng = random.Random(3)
    lines = ["puzzle"] + ["".join(rng.choice("0123456789") for _ in range(81)) for _ in range(2000)]
    compressed = gzip.compress("\n".join(lines).encode())
    truncated = tmp_path / "k.csv.gz"
    truncated.write_bytes(compressed[: len(compressed) // 2])
    with pytest.raises(PipelineError, match="cannot read"):
        list(read_batches(inspect_input(truncated), 100))
    not_utf8 = tmp_path / "bad.txt"
    not_utf8.write_bytes(b"1" * 81 + b"\n" + b"\xff" * 81 + b"\n")
    with pytest.raises(PipelineError, match="line 2 is not UTF-8"):
        list(read_batches(inspect_input(not_utf8), 100))


def test_file_digest(tmp_path):
    path = tmp_path / "x.txt"
    path.write_bytes(b"a\nb\n")
    assert file_digest(path) == (hashlib.sha256(b"a\nb\n").hexdigest(), 2)


def test_a_parquet_file_is_read_a_row_group_at_a_time(tmp_path):
    """Memory does not grow with the file: Arrow's pre-buffering, on by default, kept every
    row group read so far (1.3 GB for 10 million Kaggle rows)."""
    rng = random.Random(7)
    puzzles = ["".join(rng.choices("123456789.", k=81)) for _ in range(4_000)]
    path = tmp_path / "many_groups.parquet"
    pq.write_table(pa.table({"puzzle": puzzles}), path, row_group_size=100)  # 40 groups
    before = pa.total_allocated_bytes()
    held = []
    for batch in read_batches(inspect_input(path), 100):
        held.append(pa.total_allocated_bytes() - before)
        del batch
    assert max(held) < path.stat().st_size / 4, (max(held), path.stat().st_size)


def test_batches_a_worker_reads_itself_decode_little_more_than_their_rows():
    groups = [100] * 40
    assert worker_ranges(groups, 100) == [(first, 100) for first in range(0, 4_000, 100)]
    assert worker_ranges(groups, 250)[-1] == (3_750, 250)  # 300 rows decoded for 250
    assert worker_ranges([100] * 5 + [37], 200) == [(0, 200), (200, 200), (400, 137)]
    assert worker_ranges(groups, 30) is None  # each batch decodes one or two groups of 100
    assert worker_ranges([1_000_000], 50_000) is None  # the whole file for every batch


def test_batch_rows_round_to_whole_row_groups_near_them():
    assert aligned_batch_rows([100_000] * 100, 50_000) == 100_000
    assert aligned_batch_rows([100_000] * 100, 160_000) == 200_000
    assert aligned_batch_rows([100] * 5 + [37], 230) == 200
    assert aligned_batch_rows([1_000_000] * 3, 50_000) == 50_000  # too large to round to
    assert aligned_batch_rows([100, 90, 100], 100) == 100  # groups of several sizes
    assert aligned_batch_rows([0, 20, 20, 0, 20], 16) == 16  # an empty group (writers leave them)


def test_empty_row_groups_are_read_past(tmp_path):
    path = tmp_path / "empty_groups.parquet"
    with pq.ParquetWriter(path, pa.schema([("puzzle", pa.string())])) as writer:
        for rows in ([], ["a"] * 20, [], ["b"] * 20, ["c"] * 10):
            writer.write_table(pa.table({"puzzle": pa.array(rows, pa.string())}))
    source = inspect_input(path)
    assert worker_ranges([0, 20, 0, 20, 10], 20) == [(0, 20), (20, 20), (40, 10)]
    assert read_range(source, 20, 20).column("puzzle").to_pylist() == ["b"] * 20
    assert read_range(source, 15, 30).column("puzzle").to_pylist() == ["a"] * 5 + ["b"] * 20 + [
        "c"] * 5


def test_a_range_reads_the_rows_a_batch_reads(tmp_path):
    rng = random.Random(5)
    puzzles = ["".join(rng.choices("123456789.", k=81)) for _ in range(1_000)]
    path = tmp_path / "groups.parquet"
    pq.write_table(pa.table({"n": range(1_000), "puzzle": puzzles}), path, row_group_size=64)
    source = inspect_input(path)
    for first, rows in ((0, 1_000), (0, 64), (63, 2), (100, 300), (999, 1)):
        table = read_range(source, first, rows)
        assert table.schema.equals(source.schema)
        assert table.column("puzzle").to_pylist() == puzzles[first:first + rows]
        assert table.column("n").to_pylist() == list(range(first, first + rows))
