"""Line numbers stay right across chunk boundaries and files, in one process and in several."""

from __future__ import annotations

import functools
import itertools
from pathlib import Path

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
