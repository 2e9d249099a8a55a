"""``check``: validate JSON and JSONL inputs of verify responses, streaming, and count what was found.

Every line is judged as the reference would judge it (``reference._jsonio.parse_json`` then
``reference._validation``). A line's way, one module of this package per step:

1. inputs (``_inputs``): files, directories, globs, stdin and gzip, read in chunks of whole lines;
2. pre-check (``_fastpath``, compiled ``_fastscan.c`` reading the resolved contract model): settles the
   lines that are certainly valid and clean, gives the others a memo key;
3. what it cannot settle (``_lines``): once per memo key, the composition shortcut (``_compose``) or the
   reference itself (``_reference``), so verdicts, rule ids and messages are the reference's;
4. report (``_report``): counts and the capped findings listing.

This module runs those steps over the inputs, in one process or several, and keeps the names scripts
import from ``verify_contract.check``.
"""

from __future__ import annotations

import mmap
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator

from verify_contract.check import _inputs
from verify_contract.check._inputs import is_url, line_views, plain_file, read_all, resolve
from verify_contract.check._lines import CheckOptions, check_chunk
from verify_contract.check._report import (
    LocatedFinding,
    Report,
    Tally,
)
from verify_contract.check._source import InputError, Source
from verify_contract.check._tasks import DocumentTask, LinesTask, RangeTask, StreamTask, Task
from verify_contract.contract import DEFAULT_PROFILE, LATEST_VERSION, Profile
from verify_contract.generated.contract_names import RULE_BUDGET_GROUP_UNRESOLVED, RULE_BUDGET_MISSING

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from multiprocessing.pool import AsyncResult
    from typing import Any, BinaryIO

    from verify_contract.check._budget import BudgetRun, FailuresFileRead

    Engine = Callable[[list[Source], CheckOptions, "Progress | None", BudgetRun | None], Report]
    """What runs the opened inputs' tasks into a report: ``check_sources``, or Ray's (``_ray``)."""


Progress = Callable[[int, int], None]
"""Called with (bytes read so far, lines checked so far)."""


RANGE_BYTES = 16 << 20
"""With --jobs, a plain file is cut into byte ranges of at most this size that the workers read themselves."""
SHARE_MIN_BYTES = 4 << 20
"""With --jobs N, a file smaller than N times this is one range: a fork costs more than such a share saves."""
TAIL_RANGES = 4
"""Per process, the number of short ranges a shared file ends with (see ``_ranges``)."""


def _ranges(size: int, jobs: int) -> list[tuple[int, int]]:
    """A plain file's byte ranges for ``jobs`` processes, in file order, each at most RANGE_BYTES.

    Processes take the next range when free (``check_workers``), so they finish at most one range apart;
    a shared file therefore ends in ``jobs * TAIL_RANGES`` short ranges (its last ``jobs * SHARE_MIN_BYTES``
    bytes at most), and what waits at the end is a fraction of a short range, not of a 16 MiB one.
    """
    if size < jobs * SHARE_MIN_BYTES:
        return [(0, size)] if size else []
    tail = min(size // 2, jobs * SHARE_MIN_BYTES)
    head = size - tail
    count = -(-head // RANGE_BYTES)
    cuts = [head * i // count for i in range(count)]
    short = jobs * TAIL_RANGES
    cuts += [head + tail * i // short for i in range(short)]
    return list(zip(cuts, [*cuts[1:], size], strict=True))


def _line_start(data: mmap.mmap, offset: int) -> int:
    """The first line start at or after ``offset`` (a line belongs to the range it starts in)."""
    if offset <= 0:
        return 0
    newline = data.find(b"\n", offset - 1)
    return len(data) if newline < 0 else newline + 1


def run_task(task: Task, options: CheckOptions, tally: Tally | None = None) -> Tally:
    """One task where it runs (this process, a worker process, a Ray node), its lines merged into ``tally`` (a
    new one by default): line numbers count from the task's first line. Raises ``InputError`` (or another
    ``OSError``) when its input cannot be read; a caller that gave ``tally`` keeps the lines read before."""
    tally = Tally(options.max_findings) if tally is None else tally
    if isinstance(task, LinesTask):
        _check_chunks((task.chunk,), task.name, options, tally)
    elif isinstance(task, DocumentTask):
        tally.merge(_document_tally(task.source.name, read_all(task.source), options))
    elif isinstance(task, StreamTask):
        _check_chunks(line_views(task.source), task.source.name, options, tally)
    elif task.source.file is not None and not is_url(task.source.file):
        _check_mapped_range(task.source.file, task.start, task.stop, task.source.name, options, tally)
    else:  # behind a URL: read from the range's first line
        with task.source.open_raw() as stream:
            _check_chunks(_range_chunks(stream, task.start, task.stop), task.source.name, options, tally)
    return tally


def _check_chunks(chunks: Iterable[bytes | memoryview], name: str, options: CheckOptions, tally: Tally) -> None:
    for chunk in chunks:
        room = options.max_findings - len(tally.findings)
        tally.merge(check_chunk(chunk, tally.lines + 1, name, options, room))


def _check_mapped_range(path: str, start: int, stop: int, name: str, options: CheckOptions, tally: Tally) -> None:
    """The lines starting in [start, stop) of a plain local file, read from the page cache by whoever runs the
    task (nothing but the task and the tally crosses a pipe)."""
    with open(path, "rb") as stream:
        try:
            data = mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_READ)
        except ValueError:  # emptied since the range was planned
            return
        with data, memoryview(data) as view:
            begin, end = _line_start(data, start), _line_start(data, stop)
            while begin < end:
                cut = data.rfind(b"\n", begin, min(begin + _inputs.CHUNK_BYTES, end)) + 1
                if cut <= begin:  # a line longer than a chunk: the whole line
                    cut = min(_line_start(data, begin + _inputs.CHUNK_BYTES), end)
                room = options.max_findings - len(tally.findings)
                chunk = view[begin:cut]
                try:
                    tally.merge(check_chunk(chunk, tally.lines + 1, name, options, room))
                finally:
                    # Released even when check_chunk raises (^C): a traceback's frames would keep the slice,
                    # and so the map, alive, and closing the map would raise BufferError over the error.
                    chunk.release()
                begin = cut


def _range_chunks(stream: BinaryIO, start: int, stop: int) -> Iterator[bytes]:
    """Chunks of whole lines: the lines that start in [start, stop) of a stream that cannot be mapped (an
    object behind a URL), as ``_check_mapped_range`` cuts a local file."""
    if start > 0:
        stream.seek(start - 1)
        position = start - 1 + len(stream.readline())  # past the line that holds byte start - 1
    else:
        position = 0
    carry = b""
    while position < stop:
        data = stream.read(_inputs.CHUNK_BYTES)  # read at the call: tests vary it
        if not data:
            if carry:
                yield carry
            return
        buffer = carry + data
        limit = stop - position  # lines starting before this index of ``buffer`` are the range's
        if limit - 1 < len(buffer):
            newline = buffer.find(b"\n", limit - 1)
            if newline >= 0:  # the last line of the range ends in this buffer
                yield buffer[: newline + 1]
                return
        cut = buffer.rfind(b"\n") + 1
        if cut:
            yield buffer[:cut]
        position += cut
        carry = buffer[cut:]


def _tasks(sources: Iterable[Source], options: CheckOptions, report: Report) -> Iterator[Task]:
    """Per source, in order: a ``DocumentTask`` for a .json file; for JSONL, ``LinesTask``s (chunks of whole
    lines, views into a reused buffer), or with --jobs, for a plain file, ``RangeTask``s."""
    for ordinal, source in enumerate(_opened_ahead(sources)):
        report.files += 1
        try:
            if source.is_document:
                yield DocumentTask(source, ordinal)
                continue
            if options.jobs > 1 and source.file is not None and plain_file(source):
                for start, stop in _ranges(os.stat(source.file).st_size, options.jobs):
                    yield RangeTask(source, start, stop, ordinal)
                continue
            first = True
            for chunk in line_views(source):
                yield LinesTask(chunk, first, source.name)
                first = False
        except InputError as error:
            report.input_errors.append(str(error))


def _opened_ahead(sources: Iterable[Source]) -> Iterable[Source]:
    """Objects in storage opened several at a time ahead of the check (``_remote.opened_ahead``); local files
    as they are, without importing the URL layer."""
    sources = list(sources)
    if not any(source.file is not None and is_url(source.file) for source in sources):
        return sources
    from verify_contract.check._remote import opened_ahead

    return opened_ahead(sources)


def _in_order(absorb: Callable[[Tally, int], None]) -> Callable[[Tally, int, bool], None]:
    """Merges task tallies, given in input order, into the report (``absorb``): a task's line numbers count
    from its own first line, and are placed in its source by the lines of the tasks before it there."""
    lines_before = 0  # lines of the current source merged so far

    def place(tally: Tally, size: int, first: bool) -> None:
        nonlocal lines_before
        if first:
            lines_before = 0
        elif lines_before:
            tally.findings = [
                LocatedFinding(f.path, None if f.line is None else f.line + lines_before, f.finding)
                for f in tally.findings
            ]
            for facts in tally.facts:
                facts.first_line += lines_before
        absorb(tally, size)
        lines_before += tally.lines

    return place


def _read_document(task: DocumentTask, options: CheckOptions, report: Report) -> tuple[Tally, int]:
    """A document task run by this process: (its tally, its size); one that cannot be read is an input error."""
    try:
        text = read_all(task.source)
    except InputError as error:
        report.input_errors.append(str(error))
        return Tally(options.max_findings), 0
    return _document_tally(task.source.name, text, options), len(text)


def _document_tally(name: str, text: bytes, options: CheckOptions) -> Tally:
    from verify_contract.check._reference import reference_outcome

    tally = Tally(options.max_findings)
    tally.lines = 1  # a .json file is one document, even when empty (SPEC 2.1: not a JSON text)
    tally.add(reference_outcome(text, options.contract), name, None)
    return tally


def _share_by_fork(sources: list[Source]) -> bool:
    """Whether ``--jobs`` can deal out byte ranges to forked processes: plain files (or documents) only."""
    from verify_contract.check._workers import can_fork

    return can_fork() and all(s.is_document or (s.file is not None and plain_file(s)) for s in sources)


def absorber(report: Report, progress: Progress | None) -> Callable[[Tally, int], None]:
    """Merges task tallies, given in input order, into the report: the counts, then the budget's facts (the
    budget is a stream, fed in order, and the facts leave the tally), then the progress line. Every engine
    (one process, ``--jobs``, Ray) merges through it."""
    done_bytes = 0

    def absorb(tally: Tally, size: int) -> None:
        nonlocal done_bytes
        facts, tally.facts = tally.facts, []
        report.tally.merge(tally)
        if report.budget is not None:
            for chunk_facts in facts:
                report.budget.feed(chunk_facts)
        done_bytes += size
        if progress is not None:
            progress(done_bytes, report.lines)

    return absorb


def check_sources(
    sources: Iterable[Source], options: CheckOptions, progress: Progress | None = None, budget: BudgetRun | None = None
) -> Report:
    report = Report(options.version, options.profile, options.max_findings)
    report.budget = budget
    absorb = absorber(report, progress)

    sources = list(sources)
    if options.jobs > 1 and _share_by_fork(sources):
        # Plain files (and .json documents): the byte ranges are known up front, so processes deal them out.
        from verify_contract.check import _workers as check_workers

        def run(task: Task) -> tuple[Tally, int]:
            if isinstance(task, DocumentTask):  # run by this process, when its turn comes
                return _read_document(task, options, report)
            assert isinstance(task, RangeTask)  # no LinesTask: every source is a document or a plain file
            return run_task(task, options), task.stop - task.start

        planned = list(_tasks(sources, options, report))
        place = _in_order(absorb)
        results = check_workers.results_in_order(planned, options.jobs, run, lambda task: isinstance(task, RangeTask))
        for task, (tally, size) in zip(planned, results, strict=True):
            place(tally, size, task.first)
        return report
    tasks = _tasks(sources, options, report)
    if options.jobs <= 1:
        line = 1  # of the next chunk in its source
        for task in tasks:
            if isinstance(task, DocumentTask):
                absorb(*_read_document(task, options, report))
            elif isinstance(task, LinesTask):
                line = 1 if task.first else line
                room = report.max_findings - len(report.findings)
                tally = check_chunk(task.chunk, line, task.name, options, room)
                line += tally.lines
                absorb(tally, len(task.chunk))
        return report
    # Several processes, results merged in input order: the report is the single-process one. Each task's
    # line numbers start at 1 and are placed in their source as the results are merged.
    import multiprocessing  # ~15 ms of start-up: only --jobs 2 and more need it

    context = multiprocessing.get_context()
    pending: deque[tuple[AsyncResult[Tally] | Tally, int, bool]] = deque()
    place = _in_order(absorb)

    def merge_next() -> None:
        result, size, first = pending.popleft()
        place(result if isinstance(result, Tally) else result.get(), size, first)

    with context.Pool(options.jobs) as pool:
        for task in tasks:
            if isinstance(task, DocumentTask):
                pending.append((*_read_document(task, options, report), True))
            elif isinstance(task, RangeTask):
                work = pool.apply_async(run_task, (task, options))
                pending.append((work, task.stop - task.start, task.first))
            elif isinstance(task, LinesTask):  # stdin or gzip: the parent reads, the chunk is sent
                chunk = bytes(task.chunk)
                work = pool.apply_async(run_task, (LinesTask(chunk, task.first, task.name), options))
                pending.append((work, len(chunk), task.first))
            while len(pending) > 2 * options.jobs:  # bounded: memory stays flat
                merge_next()
        while pending:
            merge_next()
    return report


def check_paths(
    paths: Iterable[str | Any],
    version: str = LATEST_VERSION,
    profile: Profile = DEFAULT_PROFILE,
    *,
    options: CheckOptions | None = None,
    progress: Progress | None = None,
    budget: BudgetRun | None = None,
    failures_files: bool = True,
    storage_options: dict[str, Any] | None = None,
    glob: bool = True,
    engine: Engine | None = None,
) -> Report:
    """Check files, directories, globs, fsspec URLs (opened with ``storage_options``) or ``-``; unreadable
    inputs are listed in ``report.input_errors``. ``glob`` False: every path and key taken literally.
    ``engine``: what runs the opened inputs' tasks (``check_sources`` by default; ``check_paths_ray`` passes
    Ray's), after the same opening here and before the same closing.

    ``budget``: a failure budget fed with every rollout in input order (SPEC 11). ``failures_files``: a NeMo Gym
    failures file (``<stem>_failures.jsonl``) given as an input, or beside a main input (in the main input's own
    store: a directory or a bucket), is read as failed rollouts merged into its main file's by rollout identity
    (SPEC 11.1), not checked as verify responses; a run that finds one and has no budget gets an unbounded one,
    so its report counts them.
    """
    options = options or CheckOptions(version, profile)
    sources, errors = resolve([str(p) for p in paths], urls=True, storage_options=storage_options, glob=glob)
    sources, options, budget, unread = with_failures_files(sources, options, budget, failures_files)
    report = (engine or check_sources)(sources, options, progress, budget)
    report.input_errors[:0] = errors
    report.input_errors += unread
    finish_budget(report)
    return report


def with_failures_files(
    sources: list[Source], options: CheckOptions, budget: BudgetRun | None, look_for: bool
) -> tuple[list[Source], CheckOptions, BudgetRun | None, list[str]]:
    """(the main inputs to check, the options, the budget, failures files that cannot be read): the failures
    files among and beside the inputs (when ``look_for``) attached to the budget, to be merged into their main
    files' rows as they are fed (SPEC 11.1); a run that finds one and has no budget gets an unbounded one."""
    sources, failures_files = split_failures_files(sources) if look_for else (sources, [])
    if failures_files and budget is None:
        from verify_contract.budget import FailureBudget
        from verify_contract.check._budget import BudgetRun, FactSpec

        budget = BudgetRun(FailureBudget(), FactSpec())
    unread = [] if budget is None else attach_failures_files(budget, sources, failures_files)
    return sources, with_budget(options, budget), budget, unread


def attach_failures_files(budget: BudgetRun, mains: list[Source], failures_files: list[Source]) -> list[str]:
    """Each failures file opened and attached to its main input (``<stem>.jsonl`` for ``<stem>_failures.jsonl``)
    when that is an input, else fed after every main input. A main file is read with its lines' identities
    only when its failures file's first row carries one: otherwise the merge puts the whole failures file
    after it (SPEC 11.1) and its lines go the fast way. Returns the files that cannot be read, one line each."""
    from verify_contract.check._budget import first_identity, open_failures, unreadable
    from verify_contract.check._failures_files import FAILURES_FILE_SUFFIX

    by_file = {source.file: source.name for source in mains if source.file is not None}
    attached, alone, ordered, unread = {}, [], set(), []
    for failures in failures_files:
        try:
            identified = first_identity(failures) is not None
        except OSError as error:
            unread.append(unreadable(failures, error))
            continue
        rows = open_failures(failures, budget.spec.group_paths, budget.failures_file_read(failures.name))
        main = by_file.get(failures.name[: -len(FAILURES_FILE_SUFFIX)] + ".jsonl")
        if main is None or main in attached:
            alone.append(rows)
            continue
        attached[main] = rows
        if identified:
            ordered.add(main)
    budget.merge_failures([source.name for source in mains], attached, alone)
    budget.spec = budget.spec.ordering(frozenset(ordered))
    return unread


def split_failures_files(sources: list[Source]) -> tuple[list[Source], list[Source]]:
    """(the inputs to check, the failures files to read as failed rollouts): a ``<stem>_failures.jsonl`` input
    is one, and so is the one beside a main input (SPEC 11.1), looked up in the main input's own store (a
    local directory, or the bucket of a URL) and read through the same layer."""
    from verify_contract.check import _failures_files  # not the budget: a plain check imports none of it

    mains: list[Source] = []
    failures_files: list[Source] = []
    for source in sources:
        if source.file is not None and _failures_files.is_failures_file(source.file):
            failures_files.append(source)
        else:
            mains.append(source)
    named = {source.name for source in failures_files}
    for source in mains:
        candidate = _failures_files.failures_file_of(source.file) if source.file is not None else None
        found = source.sibling(candidate) if candidate is not None and candidate not in named else None
        if found is not None:
            failures_files.append(found)
            named.add(found.name)
    return mains, failures_files


def with_budget(options: CheckOptions, budget: BudgetRun | None) -> CheckOptions:
    """The options, asking each chunk for the facts the budget needs."""
    if budget is None or options.facts == budget.spec:
        return options
    return CheckOptions(options.version, options.profile, options.max_findings, options.fast, options.jobs, budget.spec)


def finish_budget(report: Report) -> None:
    """After the main inputs: the rest of the failures files' rows, then the run's budget findings."""
    budget = report.budget
    if budget is None:
        return
    budget.finish_failures()
    for file, read in budget.failures_reads():
        add_failures_file_findings(report, file, read)
        if read.error is not None:
            report.input_errors.append(read.error)
    add_budget_findings(report)


def add_budget_findings(report: Report) -> None:
    """What the budget found about the run as a whole, as findings: rollouts missing against ``--expected``
    and group paths that resolved in no rollout (SPEC 11.5)."""
    budget = None if report.budget is None else report.budget.budget
    if budget is None:
        return
    from verify_contract.findings import Finding, Severity

    found = []
    missing = budget.missing_count()
    if missing:
        expected = budget.expected_total()
        found.append(
            Finding(RULE_BUDGET_MISSING, Severity.WARNING, f"{missing:,} of {expected:,} expected rollouts have no row")
        )
    for path in budget.unresolved_groups():
        message = f"group path {path!r} resolved in no rollout: every rollout is in its (absent) group"
        found.append(Finding(RULE_BUDGET_GROUP_UNRESOLVED, Severity.WARNING, message))
    for finding in found:
        report.tally.rules[finding.rule] += 1
        report.tally.severities[finding.severity.value] += 1
        if len(report.tally.findings) < report.max_findings:
            report.tally.findings.append(LocatedFinding("<run>", None, finding))


def add_failures_file_findings(report: Report, file: str, read: FailuresFileRead) -> None:
    """A failures file's findings so far (unreadable lines) in the report: counted (those past what the read
    keeps too), and listed while there is room; the read's are taken."""
    for line, finding in read.findings:
        report.tally.rules[finding.rule] += 1
        report.tally.severities[finding.severity.value] += 1
        if len(report.tally.findings) < report.max_findings:
            report.tally.findings.append(LocatedFinding(file, line, finding))
    if read.unlisted:
        from verify_contract.check._budget import SIDECAR_UNREADABLE
        from verify_contract.findings import Severity

        report.tally.rules[SIDECAR_UNREADABLE] += read.unlisted
        report.tally.severities[Severity.WARNING.value] += read.unlisted
    read.findings.clear()
    read.unlisted = 0


def check_bytes(data: bytes, options: CheckOptions | None = None, name: str = "<bytes>") -> Report:
    """Check JSONL held in memory (tests, the conformance kit)."""
    options = options or CheckOptions()
    report = Report(options.version, options.profile, options.max_findings)
    report.files = 1
    if data:
        report.tally.merge(check_chunk(data, 1, name, options))
    return report
