"""Line numbers stay right across chunk boundaries and files, in one process and in several."""

from __future__ import annotations

import functools
import io
import itertools
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from verify_contract.check import CheckOptions, check_paths
from verify_contract.check import _inputs as inputs
from verify_contract.check import _lines as check_lines
from verify_contract.check import _run as check
from verify_contract.check import _workers as check_workers
from verify_contract.check._source import Source
from verify_contract.check._tasks import RangeTask
from verify_contract.contract import Contract


@pytest.mark.parametrize(("jobs", "fork"), [(1, True), (2, True), (2, False)], ids=["one", "fork", "pool"])
def test_line_numbers_across_chunks_and_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: int, fork: bool
) -> None:
    # Small chunks (one process) and small byte ranges read by the workers (--jobs 2: taken by forked
    # processes, or, where they cannot fork, sent to a multiprocessing pool), each cut into chunks.
    if not fork:
        monkeypatch.setattr(check_workers, "can_fork", lambda: False)
    monkeypatch.setattr(check, "line_views", functools.partial(inputs.line_views, chunk_bytes=997))
    monkeypatch.setattr(check, "RANGE_BYTES", 3001)
    monkeypatch.setattr(check, "SHARE_MIN_BYTES", 1000)  # the files are shared, ending in short ranges
    monkeypatch.setattr(inputs, "CHUNK_BYTES", 499)
    expected = []
    paths = []
    for name in ("a.jsonl", "b.jsonl"):
        lines = []
        for number in range(1, 601):
            if number % 37 == 0:
                lines.append(b'{"reward": "bad %d"}' % number)
                expected.append((name, number))
            elif number % 53 == 0:
                lines.append(b"")
            elif number % 250 == 0:  # longer than a chunk, a read buffer and a worker's byte range
                lines.append(b'{"reward": %d, "pad": "%s"}' % (number, b"y" * 10_000))
            else:
                lines.append(b'{"reward": %d, "pad": "%s"}' % (number, b"x" * (number % 90)))
        path = tmp_path / name
        path.write_bytes(b"\n".join(lines))  # the last line has no newline
        paths.append(path)
    report = check_paths(paths, options=CheckOptions(profile="core", jobs=jobs))
    assert [(Path(f.path).name, f.line) for f in report.findings] == expected
    assert report.lines == 1200 and report.blank == 2 * (600 // 53)


@pytest.mark.parametrize("jobs", [2, 3, 4])
def test_ranges_cover_the_file_and_end_short(monkeypatch: pytest.MonkeyPatch, jobs: int) -> None:
    monkeypatch.setattr(check, "RANGE_BYTES", 1000)
    monkeypatch.setattr(check, "SHARE_MIN_BYTES", 100)
    for size in (jobs * 100, 999, 1000, 1001, 5 * 1000 + 1, 123_457):
        ranges = check._ranges(size, jobs)
        # contiguous, the whole file, none empty or longer than RANGE_BYTES
        assert ranges[0][0] == 0 and ranges[-1][1] == size
        assert all(a[1] == b[0] for a, b in itertools.pairwise(ranges))
        lengths = [stop - start for start, stop in ranges]
        assert min(lengths) > 0 and max(lengths) <= 1000
        # the last jobs * TAIL_RANGES ranges are short: together at most SHARE_MIN_BYTES a process
        tail = lengths[-jobs * check.TAIL_RANGES :]
        assert len(lengths) > len(tail) and sum(tail) <= jobs * 100 and max(tail) <= min(lengths[: -len(tail)])
    # below SHARE_MIN_BYTES a process a file stays one range (no fork for a small file); empty: none
    assert check._ranges(jobs * 100 - 1, jobs) == [(0, jobs * 100 - 1)]
    assert check._ranges(0, jobs) == []


@pytest.mark.parametrize("chunk_bytes", [1, 7, 64, 997])
def test_line_views_are_the_input_in_whole_lines(tmp_path: Path, chunk_bytes: int) -> None:
    data = b"".join(b"x" * (n * 37 % 150) + b"\n" for n in range(300)) + b"last line, no newline " * 40
    path = tmp_path / "a.jsonl"
    path.write_bytes(data)
    views = [bytes(view) for view in inputs.line_views(inputs.Source("a", path), chunk_bytes)]
    assert b"".join(views) == data
    assert all(view.endswith(b"\n") for view in views[:-1]) and not views[-1].endswith(b"\n")
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    assert list(inputs.line_views(inputs.Source("empty", empty), chunk_bytes)) == []


@pytest.mark.parametrize(
    ("judge", "line"),
    [
        ("check._compose.contract_outcome", b'{"reward": "0.5"}\n'),
        ("check._lines.reference_line", b'{"reward": 1e400}\n'),
    ],
    ids=["contract", "reference"],
)
def test_an_interrupt_while_judging_a_mapped_line_stays_an_interrupt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, judge: str, line: bytes
) -> None:
    # --jobs workers judge lines from views of a mapped file. ^C in the middle of judging one leaves the
    # view in the traceback's frames; unless check releases it, closing the map raises BufferError over the
    # KeyboardInterrupt (a traceback instead of "interrupted", exit 1 instead of 130).
    def interrupted(line: memoryview, contract: Contract) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(f"verify_contract.{judge}", interrupted)
    path = tmp_path / "a.jsonl"
    path.write_bytes(b'{"reward": 1.0}\n' * 10 + line)
    check_lines.clear_caches()  # the line's outcome is not remembered from another test: it is judged
    with pytest.raises(KeyboardInterrupt):
        task = RangeTask(Source("a.jsonl", path), 0, path.stat().st_size, 0)
        check.run_task(task, CheckOptions(profile="core"))


class _PiecesReader(io.RawIOBase):
    """A reader that hands its bytes out as given pieces (as the URL reader hands out fetched blocks), each the
    first bytes of a larger buffer of junk, after whatever a buffered reader's first ``readinto`` took."""

    def __init__(self, pieces: list[bytes]) -> None:
        super().__init__()
        self._left = [bytearray(piece + b"#" * 7) for piece in pieces]  # junk past each piece's length
        self._lengths = [len(piece) for piece in pieces]
        self._head = memoryview(b"")

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if not self._head and self._left:
            self._head = memoryview(bytes(self._left.pop(0)[: self._lengths.pop(0)]))
        take = min(len(buffer), len(self._head))
        buffer[:take] = self._head[:take]
        self._head = self._head[take:]
        return take

    def pieces(self) -> Iterator[tuple[Any, int]]:
        if self._head:
            rest, self._head = bytes(self._head), memoryview(b"")
            yield rest, len(rest)
        while self._left:
            yield self._left.pop(0), self._lengths.pop(0)


@pytest.mark.parametrize("seed", range(200))
def test_line_views_of_fetched_pieces_are_the_input_in_whole_lines(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """``line_views`` of a stream that hands out pieces (a URL's reader): random lines (empty ones, long ones,
    no final newline) in random pieces and chunk sizes give every byte once, in whole lines, cut near the
    chunk size."""
    rng = random.Random(seed)
    lines = [b"x" * rng.choice([0, 1, 5, 40, 300, 5000]) for _ in range(rng.randint(0, 60))]
    data = b"\n".join(lines) + (b"\n" if rng.random() < 0.5 else b"")
    cuts = sorted(rng.sample(range(1, len(data)), min(len(data) - 1, rng.randint(0, 12)))) if len(data) > 1 else []
    pieces = [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)] if data else []
    chunk_bytes = rng.choice([1, 7, 64, 1000, 1 << 20])
    buffer_size = rng.choice([1, 16, 4096])

    def open_stream(source: inputs.Source) -> io.BufferedReader:
        stream = io.BufferedReader(_PiecesReader(pieces), buffer_size=buffer_size)
        stream.peek(2)  # as inputs.open_stream looks for gzip's magic bytes
        return stream

    monkeypatch.setattr(inputs, "open_stream", open_stream)
    views = [bytes(view) for view in inputs.line_views(inputs.Source("a", "a"), chunk_bytes)]
    assert b"".join(views) == data
    assert all(view.endswith(b"\n") for view in views[:-1]) and all(views)
    assert all(len(view) <= chunk_bytes or view.count(b"\n") <= 1 for view in views)
