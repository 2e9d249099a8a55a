"""``check --engine ray``, and ``check_dataset`` for Ray Data pipelines (the ``[ray]`` extra: ``ray[data]``);
users import these names from ``verify_contract.ray``.

The engine cuts the inputs into check's own tasks (``_tasks``) as ``--jobs`` does: a plain file (local or
behind a URL) into byte ranges whose workers read the lines that start in their range themselves, a gzip file
(``StreamTask``) or a ``.json`` document into one task each. The tasks are the rows of a Ray Data dataset;
``map_batches`` runs each where Ray places it with ``_run.run_task``, the runner of the local engine, reading
raw lines (never ``ray.data.read_json``: Arrow infers one type per column and fails a whole block at the
first drift, so line-level findings would be lost) into a partial ``Tally``. The driver merges the tallies in
input order with ``_run._in_order`` and ``Tally.merge``, the very merge of ``--jobs``: the report is the
one-process report whatever the partitioning. ``check_paths_ray`` is ``check_paths`` with this engine: the
same opening (inputs, failures files, budget) and closing.

A task's result is keyed by its number and taken once, so a task that Ray retries (its worker died) is
counted once. A task that is lost for good (retries spent) or fails to read leaves its input counted up to
where that task starts; ``report.input_errors`` names the input and the byte range, and the run exits 2.
"""

from __future__ import annotations

import json
import os
import pickle
import time
import warnings
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from verify_contract.check._inputs import plain_file
from verify_contract.check._lines import CheckOptions, check_chunk
from verify_contract.check._report import LocatedFinding, Report, Tally
from verify_contract.check._run import Progress, _document_tally, _in_order, absorber, check_paths, run_task
from verify_contract.check._source import InputError, Source
from verify_contract.check._tasks import RAY_BLOCKS_PER_CPU, RAY_MAX_RETRIES, DocumentTask, RangeTask, StreamTask
from verify_contract.contract import cap
from verify_contract.records import FrozenRecord

if TYPE_CHECKING:
    import pyarrow

    from verify_contract.check._budget import BudgetRun

RANGE_BYTES = 64 << 20
"""At most this many bytes of a plain file per task when the number of blocks is not given."""

VERDICT_COLUMN = "verify_valid"
MASK_COLUMN = "verify_mask"
FINDINGS_COLUMN = "verify_findings"


class EngineError(RuntimeError):
    """Ray cannot run the check at all (not installed, no cluster at the address): exit 2, one line."""


class PlanningError(FrozenRecord):
    """An input that could not be planned, kept in its place so that errors stay in input order."""

    __slots__ = ("message", "ordinal")
    message: str
    ordinal: int

    def __init__(self, message: str, ordinal: int) -> None:
        self._freeze(message, ordinal)


RayTask = DocumentTask | StreamTask | RangeTask
"""The tasks Ray runs, one row each (never a ``LinesTask``: nothing is read before the tasks are placed)."""
Planned = RayTask | PlanningError
"""What ``plan`` cuts the inputs into."""


PLAN_REQUESTS = 16
"""Objects whose size and first bytes are asked for at once while planning (two small requests each)."""


def _planned_size(source: Source) -> tuple[int | None, bool] | str:
    """(size, whether the file can be read by byte ranges: plain files only, not gzip), or an input error."""
    from verify_contract.check._remote import RemoteSource

    try:
        if isinstance(source, RemoteSource):
            size, gzipped = source.stat()
            return size, not gzipped
        return _local_size(source)
    except InputError as error:
        return str(error)


def _local_size(source: Source) -> tuple[int | None, bool]:
    if source.file is None:
        return None, False
    if plain_file(source):
        return os.stat(source.file).st_size, True
    return None, False


def _cuts(size: int, parts: int) -> list[tuple[int, int]]:
    parts = max(1, min(parts, size))
    cuts = [size * i // parts for i in range(parts)]
    return list(zip(cuts, [*cuts[1:], size], strict=True))


def plan(sources: Iterable[Source], report: Report, blocks: int | None, cpus: int) -> list[Planned]:
    """The tasks of the inputs, in input order. ``blocks``: how many parts the plain bytes are cut into in
    all (a file is at least one); by default two per CPU of the cluster, with ranges of at most RANGE_BYTES."""
    from concurrent.futures import ThreadPoolExecutor

    sources = list(sources)
    report.files += len(sources)
    lines = [source for source in sources if not source.is_document]
    with ThreadPoolExecutor(PLAN_REQUESTS) as pool:  # an archive of many objects: their round trips overlap
        facts = dict(zip(lines, pool.map(_planned_size, lines), strict=True))
    entries: list[tuple[Source, int | None, bool, str | None]] = []  # source, size, cuttable, planning error
    for source in sources:
        fact = facts.get(source)
        if fact is None:
            entries.append((source, None, False, None))
        elif isinstance(fact, str):
            entries.append((source, None, False, fact))
        else:
            entries.append((source, fact[0], fact[1], None))
    plain_bytes = sum(size or 0 for _, size, cuttable, _ in entries if cuttable)
    if blocks is None:
        blocks = max(RAY_BLOCKS_PER_CPU * cpus, -(-plain_bytes // RANGE_BYTES))
    part = max(1, -(-plain_bytes // max(blocks, 1)))
    tasks: list[Planned] = []
    for ordinal, (source, size, cuttable, problem) in enumerate(entries):  # ordinal: inputs may repeat
        if problem is not None:
            tasks.append(PlanningError(problem, ordinal))
        elif source.is_document:
            tasks.append(DocumentTask(source, ordinal))
        elif cuttable and size is not None:
            cuts = _cuts(size, -(-size // part))
            tasks.extend(RangeTask(source, start, stop, ordinal) for start, stop in cuts)
        else:
            tasks.append(StreamTask(source, ordinal))
    return tasks


def run_on_node(task: RayTask, options: CheckOptions) -> tuple[Tally, str | None]:
    """One task, where Ray runs it (``_run.run_task``): its tally (line numbers from the task's first line) and
    its input error. After an error the tally of a whole input holds the lines read before it; a byte range's is
    empty (its input is counted up to where the range starts)."""
    tally = Tally(options.max_findings)
    ranged = isinstance(task, RangeTask)
    where = f" (bytes {task.start}-{task.stop})" if isinstance(task, RangeTask) else ""
    try:
        return run_task(task, options, tally), None
    except InputError as error:
        return (Tally(options.max_findings) if ranged else tally), f"{error}{where}"
    except OSError as error:
        if not ranged:
            raise
        from verify_contract.check._remote import describe

        return Tally(options.max_findings), f"{task.source.name}: {describe(error)}{where}"


def _run_batch(batch: pyarrow.Table, options: CheckOptions) -> pyarrow.Table:
    """Ray Data's map function: each row a pickled task, each result a pickled (tally, error)."""
    import pyarrow

    numbers = batch.column("number").to_pylist()
    results = []
    seconds = []
    for task in batch.column("task").to_pylist():
        began = time.perf_counter()
        results.append(pickle.dumps(run_on_node(pickle.loads(task), options)))
        seconds.append(time.perf_counter() - began)
    return pyarrow.table(
        {
            "number": pyarrow.array(numbers, pyarrow.int64()),
            "result": pyarrow.array(results, pyarrow.binary()),
            "seconds": pyarrow.array(seconds, pyarrow.float64()),  # the task's own time, for benchmarks/scale.py
        }
    )


def _one_line(error: BaseException) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    text = lines[-1] if lines else type(error).__name__
    return cap(text)


def _describe_task(task: RayTask) -> str:
    if isinstance(task, RangeTask):
        return f"{task.source.name}: bytes {task.start}-{task.stop}"
    return task.source.name


PROBE_SECONDS = 5.0


def _probe(address: str) -> None:
    """Fail fast when nothing answers at ``host:port`` (``ray://host:port`` too): Ray itself waits minutes for a
    cluster that is not there. ``auto`` and other forms are left to Ray."""
    import socket

    target = address.removeprefix("ray://")
    host, separator, port = target.rpartition(":")
    if not separator or not port.isdigit() or not host:
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=PROBE_SECONDS).close()
    except OSError as error:
        reason = error.strerror or str(error) or type(error).__name__
        raise EngineError(f"cannot reach the Ray cluster at {address}: {reason}") from error


def connect(address: str | None) -> bool:
    """Connect to the Ray cluster at ``address``, or start a local one; True when this call started Ray."""
    try:
        import ray
    except ImportError as error:
        raise EngineError("--engine ray needs Ray: pip install 'verify-contract[ray]'") from error
    if ray.is_initialized():
        return False
    if address is not None:
        _probe(address)
    import logging
    import signal
    import threading

    # ray.init makes SIGTERM a bare sys.exit(15); the command's own handler (a stop as ^C, exit 143) is put back.
    sigterm = signal.getsignal(signal.SIGTERM) if threading.current_thread() is threading.main_thread() else None
    try:
        ray.init(address=address, include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
    except Exception as error:
        where = f"the Ray cluster at {address}" if address else "a local Ray"
        raise EngineError(f"cannot start or reach {where}: {_one_line(error)}") from error
    finally:
        if sigterm is not None:
            signal.signal(signal.SIGTERM, sigterm)
    return True


def _results(
    tasks: list[RayTask], options: CheckOptions, blocks: int, max_retries: int
) -> Iterator[tuple[int, bytes, float]]:
    """(task number, pickled result, the task's seconds in its worker) as Ray Data's blocks finish, in any
    order."""
    import ray

    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False
    rows = [{"number": number, "task": pickle.dumps(task)} for number, task in enumerate(tasks)]
    dataset = ray.data.from_items(rows, override_num_blocks=max(1, min(blocks, len(rows))))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        checked = dataset.map_batches(
            _run_batch,  # type: ignore[arg-type]  # its options come as fn_kwargs
            batch_format="pyarrow",
            batch_size=1,
            fn_kwargs={"options": options},
            num_cpus=1,
            # Ray Data retries without end by default; a bound turns a task that kills its worker every time
            # into a lost block. The pinned Ray (2.60) takes it only as a remote argument, called deprecated.
            max_retries=max_retries,
        )
    table: Any
    for table in checked.iter_batches(batch_format="pyarrow", batch_size=None):
        columns = (table.column(name).to_pylist() for name in ("number", "result", "seconds"))
        yield from zip(*columns, strict=True)


def check_sources_ray(
    sources: Iterable[Source],
    options: CheckOptions,
    *,
    blocks: int | None = None,
    max_retries: int = RAY_MAX_RETRIES,
    progress: Progress | None = None,
    timings: dict[str, float] | None = None,
    budget: BudgetRun | None = None,
) -> Report:
    """``check_sources`` on the Ray cluster this process is connected to (see ``connect``). ``timings``, when
    given, receives where the time went (benchmarks/scale.py): planning, the tasks' own seconds (summed),
    the driver's unpickling and merging, the bytes of the results, and the whole run."""
    import ray

    began = time.perf_counter()
    report = Report(options.version, options.profile, options.max_findings)
    report.budget = budget
    cpus = int(ray.cluster_resources().get("CPU", 1))  # type: ignore[no-untyped-call]
    tasks = plan(sources, report, blocks, cpus)
    planned = time.perf_counter()
    spent = {"task_seconds": 0.0, "merge_seconds": 0.0, "result_bytes": 0.0}
    absorb = absorber(report, progress)

    place = _in_order(absorb)
    results: dict[int, tuple[Tally, str | None]] = {}
    merged = 0  # tasks merged so far, in order
    stopped: set[int] = set()  # inputs (ordinals) whose reading stopped at an error: later tasks not counted

    def merge_ready(lost: str | None = None) -> None:
        """Merge the finished tasks that are next in input order; with ``lost``, the unfinished ones too (as
        lost, for that reason)."""
        nonlocal merged
        while merged < len(tasks):
            task = tasks[merged]
            ranged = isinstance(task, RangeTask)
            if isinstance(task, PlanningError):
                report.input_errors.append(task.message)
            elif task.ordinal in stopped:
                pass
            elif merged in results:
                tally, error = results.pop(merged)
                size = task.stop - task.start if isinstance(task, RangeTask) else 0
                place(tally, size, task.first)
                if error is not None:  # a whole-file task's error reads as the local engine's
                    tail = "; the rest of this input is not counted" if ranged else ""
                    report.input_errors.append(error + tail)
                    stopped.add(task.ordinal)
            elif lost is not None:
                report.input_errors.append(
                    f"{_describe_task(task)}: lost ({lost}); this input is counted up to there, not after"
                )
                stopped.add(task.ordinal)
            else:
                return
            merged += 1

    runnable = [number for number, task in enumerate(tasks) if not isinstance(task, PlanningError)]
    work = [task for task in tasks if not isinstance(task, PlanningError)]
    try:
        for number, blob, seconds in (
            [] if not work else _results(work, options, blocks or max(RAY_BLOCKS_PER_CPU * cpus, 1), max_retries)
        ):
            merging = time.perf_counter()
            real = runnable[number]
            if real >= merged and real not in results:  # a retried task's second result is never counted
                results[real] = pickle.loads(blob)
            merge_ready()
            spent["merge_seconds"] += time.perf_counter() - merging
            spent["task_seconds"] += seconds
            spent["result_bytes"] += len(blob)
    except Exception as error:
        merge_ready(lost=_one_line(error))
    merge_ready(lost="no result from Ray")
    if timings is not None:
        ended = time.perf_counter()
        timings.update(spent, plan_seconds=planned - began, seconds=ended - began, tasks=float(len(work)))
    return report


def check_paths_ray(
    paths: Iterable[str],
    options: CheckOptions,
    *,
    storage_options: dict[str, Any] | None = None,
    address: str | None = None,
    blocks: int | None = None,
    max_retries: int = RAY_MAX_RETRIES,
    progress: Progress | None = None,
    budget: BudgetRun | None = None,
    failures_files: bool = True,
    glob: bool = True,
) -> Report:
    """``check.check_paths`` on Ray: connects (or starts a local Ray, stopped again at the end). A failure
    budget is fed in input order by this process, as the local engine feeds it; failures files are read
    here too (they are small, and their rows are not verify responses)."""

    def on_ray(
        sources: list[Source], options: CheckOptions, progress: Progress | None, budget: BudgetRun | None
    ) -> Report:
        if not sources:  # nothing to read: no cluster to start or join
            report = Report(options.version, options.profile, options.max_findings)
            report.budget = budget
            return report
        started = connect(address)
        try:
            return check_sources_ray(
                sources, options, blocks=blocks, max_retries=max_retries, progress=progress, budget=budget
            )
        finally:
            if started:
                import ray

                ray.shutdown()

    return check_paths(
        paths,
        options=options,
        progress=progress,
        budget=budget,
        failures_files=failures_files,
        storage_options=storage_options,
        glob=glob,
        engine=on_ray,
    )


# check_dataset: a trainer's own Ray Data pipeline.


def _row_text(value: Any) -> bytes:
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8", "surrogatepass")
    return json.dumps(value, ensure_ascii=False, allow_nan=True).encode("utf-8", "surrogatepass")


TALLY_COLUMN = "_verify_tally"
"""Where ``_check_rows`` leaves its batch's pickled tally (on the batch's first row): read, then dropped."""


def _check_rows(batch: pyarrow.Table, column: str | None, options: CheckOptions) -> pyarrow.Table:
    """The batch with the verdict, the effective mask (null where the row breaks the contract) and the row's
    findings (JSON) added; each row checked as one document. The batch's tally (row numbers from its first
    row) rides on its first row, for ``check_dataset`` to merge."""
    import pyarrow

    rows = batch.column(column).to_pylist() if column is not None else batch.to_pylist()
    name = column or "<dataset>"
    verdicts: list[bool] = []
    masks: list[bool | None] = []
    findings: list[str] = []
    batch_tally = Tally(options.max_findings)
    place = _in_order(lambda tally, size: batch_tally.merge(tally))
    for value in rows:
        text = _row_text(value)
        if b"\n" in text or b"\r" in text:  # a pretty-printed document: one document, not lines
            tally = _document_tally(name, text, options)
            tally.findings = [LocatedFinding(name, 1, item.finding) for item in tally.findings]
        else:
            tally = check_chunk(text, 1, name, options)
        valid = tally.valid == 1
        verdicts.append(valid)
        masks.append(tally.masked == 1 if valid else None)
        findings.append(json.dumps([item.finding.as_dict() for item in tally.findings], ensure_ascii=False))
        place(tally, 0, not batch_tally.lines)
    tallies: list[bytes | None] = [None] * len(rows)
    if rows:
        tallies[0] = pickle.dumps(batch_tally)
    return (
        batch.append_column(VERDICT_COLUMN, pyarrow.array(verdicts, pyarrow.bool_()))
        .append_column(MASK_COLUMN, pyarrow.array(masks, pyarrow.bool_()))
        .append_column(FINDINGS_COLUMN, pyarrow.array(findings, pyarrow.string()))
        .append_column(TALLY_COLUMN, pyarrow.array(tallies, pyarrow.binary()))
    )


def check_dataset(dataset: Any, column: str | None = None, options: CheckOptions | None = None) -> tuple[Report, Any]:
    """Check a Ray Data dataset of verify responses: each row is one response (its columns), or with ``column``
    the value of that column (a dict, or the JSON text). Returns the merged report (a finding's line is its
    row's number, counted from 1, in the dataset's order) and the dataset with ``verify_valid`` (the verdict),
    ``verify_mask`` (the effective mask; null where the row breaks the contract) and ``verify_findings`` (the
    row's findings as JSON) added, materialized once so that both come from one pass."""
    options = options or CheckOptions()
    checked = dataset.map_batches(_check_rows, batch_format="pyarrow", fn_kwargs={"column": column, "options": options})
    # The findings' row numbers are the dataset's order: this dataset's own context (a copy taken when it was
    # made) keeps it, whatever the caller's global setting.
    checked.context.execution_options.preserve_order = True
    checked = checked.materialize()
    report = Report(options.version, options.profile, options.max_findings, files=1)
    place = _in_order(lambda tally, size: report.tally.merge(tally))
    tallies = checked.select_columns([TALLY_COLUMN])
    tallies.context.execution_options.preserve_order = True
    for batch in tallies.iter_batches(batch_format="pyarrow", batch_size=None):
        for blob in batch.column(TALLY_COLUMN).to_pylist():
            if blob is not None:
                place(pickle.loads(blob), 0, not report.tally.lines)
    return report, checked.drop_columns([TALLY_COLUMN])


__all__ = [
    "FINDINGS_COLUMN",
    "MASK_COLUMN",
    "VERDICT_COLUMN",
    "EngineError",
    "check_dataset",
    "check_paths_ray",
    "check_sources_ray",
    "connect",
    "plan",
    "run_on_node",
]
