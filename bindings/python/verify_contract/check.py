"""``check``: validate JSON and JSONL inputs of verify responses, streaming, and count what was found.

Every line is judged as the reference would judge it (``jsonio.parse_json`` then ``validation.validate``).
A line's way, one module per step:

1. inputs (``inputs``): files, directories, globs, stdin and gzip, read in chunks of whole lines;
2. pre-check (``fastpath``, compiled ``_fastscan.c`` reading the resolved contract model): settles the
   lines that are certainly valid and clean, gives the others a memo key;
3. what it cannot settle (``check_lines``): once per memo key, the composition shortcut
   (``check_compose``) or the reference itself (``check_reference``), so verdicts, rule ids and messages
   are the reference's;
4. report (``check_report``): counts and the capped findings listing.

This module runs those steps over the inputs, in one process or several, and keeps the names scripts
import from ``verify_contract.check``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from verify_contract import fastpath
from verify_contract.check_lines import MEMO_ENTRIES, CheckOptions, check_chunk, clear_caches
from verify_contract.check_report import DEFAULT_MAX_FINDINGS, KIND_CLASSES, LocatedFinding, Report, Tally, dumps_report
from verify_contract.inputs import InputError, Source, chunks, read_all, resolve
from verify_contract.versions import DEFAULT_PROFILE, LATEST_VERSION, Profile

if TYPE_CHECKING:
    from multiprocessing.pool import AsyncResult

    from verify_contract.check_reference import Outcome, document_outcome, reference_outcome


def __getattr__(name: str) -> Any:
    # PEP 562: the reference's names, kept here for scripts, without importing the reference up front.
    if name in ("Outcome", "document_outcome", "reference_outcome"):
        from verify_contract import check_reference

        return getattr(check_reference, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DEFAULT_MAX_FINDINGS",
    "KIND_CLASSES",
    "MEMO_ENTRIES",
    "CheckOptions",
    "InputError",
    "LocatedFinding",
    "Outcome",
    "Report",
    "Tally",
    "check_bytes",
    "check_chunk",
    "check_paths",
    "check_sources",
    "clear_caches",
    "document_outcome",
    "dumps_report",
    "reference_outcome",
]

Progress = Callable[[int, int], None]
"""Called with (bytes read so far, lines checked so far)."""


def _check_chunk_task(task: tuple[bytes, int, str, CheckOptions]) -> Tally:
    return check_chunk(*task)


def _tasks(sources: Iterable[Source], options: CheckOptions, report: Report) -> Iterator[tuple[Any, ...]]:
    """("doc", name, text) for a .json file, ("lines", chunk, first chunk of its source?, name) for JSONL."""
    for source in sources:
        report.files += 1
        try:
            if source.is_document:
                yield ("doc", source.name, read_all(source))
                continue
            first = True
            for chunk in chunks(source):
                yield ("lines", chunk, first, source.name)
                first = False
        except InputError as error:
            report.input_errors.append(str(error))


def _document_tally(name: str, text: bytes, options: CheckOptions) -> Tally:
    from verify_contract.check_reference import reference_outcome

    tally = Tally(options.max_findings)
    tally.lines = 1  # a .json file is one document, even when empty (SPEC 2.1: not a JSON text)
    tally.add(reference_outcome(text, options.version, options.profile), name, None)
    return tally


def check_sources(sources: Iterable[Source], options: CheckOptions, progress: Progress | None = None) -> Report:
    report = Report(options.version, options.profile, options.max_findings)
    done_bytes = 0

    def absorb(tally: Tally, size: int) -> None:
        nonlocal done_bytes
        report.tally.merge(tally)
        done_bytes += size
        if progress is not None:
            progress(done_bytes, report.lines)

    tasks = _tasks(sources, options, report)
    line = 1  # of the next chunk in its source
    if options.jobs <= 1:
        for task in tasks:
            if task[0] == "doc":
                absorb(_document_tally(task[1], task[2], options), len(task[2]))
            else:
                line = 1 if task[2] else line
                tally = check_chunk(task[1], line, task[3], options, report.max_findings - len(report.findings))
                line += tally.lines
                absorb(tally, len(task[1]))
        return report
    # Several processes, results merged in input order: the report is the single-process one.
    import multiprocessing  # ~15 ms of start-up: only --jobs 2 and more need it

    context = multiprocessing.get_context()
    pending: deque[tuple[AsyncResult[Tally] | Tally, int]] = deque()
    with context.Pool(options.jobs) as pool:
        for task in tasks:
            if task[0] == "doc":
                pending.append((_document_tally(task[1], task[2], options), len(task[2])))
            else:
                line = 1 if task[2] else line
                work = (task[1], line, task[3], options)
                line += fastpath.count_lines(task[1])
                pending.append((pool.apply_async(_check_chunk_task, (work,)), len(task[1])))
            while len(pending) > 2 * options.jobs:  # bounded: memory stays flat
                result, size = pending.popleft()
                absorb(result if isinstance(result, Tally) else result.get(), size)
        while pending:
            result, size = pending.popleft()
            absorb(result if isinstance(result, Tally) else result.get(), size)
    return report


def check_paths(
    paths: Iterable[str | Any],
    version: str = LATEST_VERSION,
    profile: Profile = DEFAULT_PROFILE,
    *,
    options: CheckOptions | None = None,
    progress: Progress | None = None,
) -> Report:
    """Check files, directories, globs or ``-``; unreadable inputs are listed in ``report.input_errors``."""
    options = options or CheckOptions(version, profile)
    sources, errors = resolve([str(p) for p in paths])
    report = check_sources(sources, options, progress)
    report.input_errors[:0] = errors
    return report


def check_bytes(data: bytes, options: CheckOptions | None = None, name: str = "<bytes>") -> Report:
    """Check JSONL held in memory (tests, the conformance kit)."""
    options = options or CheckOptions()
    report = Report(options.version, options.profile, options.max_findings)
    report.files = 1
    if data:
        report.tally.merge(check_chunk(data, 1, name, options))
    return report
