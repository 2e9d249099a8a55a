"""``verify-contract check``: one line's way through the pipeline, one private module per step.

``_inputs`` (``_source``: files, globs, stdin, gzip, URLs through ``_remote``, in chunks of whole lines, cut
into ``_tasks``) -> ``_fastpath`` with the compiled ``_fastscan.c`` (the pre-check) -> ``_lines`` (once per
memo key: ``_text_events``, ``_compose`` or ``_reference``, each worded as the reference words it,
``_outcome``) -> ``_report``. ``_run`` runs the steps in one process, several (``_workers``) or on Ray
(``_ray``) for one resolved ``Contract`` (``CheckOptions.contract``); ``_budget`` feeds the failure budget,
``_budget_report``, ``_budget_metrics`` and ``_budget_plot`` show it. ``_follow`` (``Follow``) checks a file
while a run writes it (``_tail`` reads it as it grows), feeding a ``FailureBudget`` and yielding findings,
budget events and notices.

Scripts and the other packages (the command line, the probe, the trainers' adapters, ``verify_contract.ray``)
import check's names from here (``from verify_contract.check import CheckOptions, check_paths``); each is
loaded on first use, so importing a step's module does not import the runner, nor a plain check the budget's
output, the URL layer or the Ray engine (``_ray``).
"""

from __future__ import annotations

from verify_contract._lazy import lazy_exports

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from verify_contract.check._budget import BudgetRun, FactSpec, budget_run
    from verify_contract.check._budget_metrics import kind_label, write_metrics
    from verify_contract.check._budget_plot import write_plot
    from verify_contract.check._budget_report import budget_text, event_line, write_retry_list
    from verify_contract.check._failures_files import FAILURES_FILE_SUFFIX, is_failures_file
    from verify_contract.check._fastpath import CLEAN_STATUSES, KIND_CLASSES
    from verify_contract.check._fastpath import available as precheck_available
    from verify_contract.check._fastpath import scan as precheck_scan
    from verify_contract.check._follow import Follow, FollowNotice
    from verify_contract.check._inputs import chunks, is_url, read_all
    from verify_contract.check._inputs import resolve as resolve_inputs
    from verify_contract.check._lines import MEMO_ENTRIES, CheckOptions, check_chunk, clear_caches
    from verify_contract.check._outcome import Outcome
    from verify_contract.check._outputs import output_problem, written_whole
    from verify_contract.check._ray import (
        FINDINGS_COLUMN,
        MASK_COLUMN,
        VERDICT_COLUMN,
        EngineError,
        check_dataset,
        check_paths_ray,
        check_sources_ray,
    )
    from verify_contract.check._ray import connect as connect_ray
    from verify_contract.check._reference import document_outcome, reference_outcome
    from verify_contract.check._remote import EXTRAS as REMOTE_EXTRAS
    from verify_contract.check._report import (
        DEFAULT_MAX_FINDINGS,
        LocatedFinding,
        Report,
        Tally,
        dumps_report,
        dumps_report_data,
    )
    from verify_contract.check._run import (
        Progress,
        check_bytes,
        check_paths,
        check_sources,
    )
    from verify_contract.check._source import InputError, Source
    from verify_contract.check._tail import Tail, TailError
    from verify_contract.check._tasks import RAY_BLOCKS_PER_CPU, RAY_MAX_RETRIES
    from verify_contract.check._workers import WorkerDied

# Each public name and the step module that defines it: imported by the first use of one of its names.
_HOME = {
    **dict.fromkeys(("BudgetRun", "FactSpec", "budget_run"), "_budget"),
    **dict.fromkeys(("kind_label", "write_metrics"), "_budget_metrics"),
    "write_plot": "_budget_plot",
    **dict.fromkeys(("budget_text", "event_line", "write_retry_list"), "_budget_report"),
    **dict.fromkeys(("CLEAN_STATUSES", "KIND_CLASSES"), "_fastpath"),
    "precheck_available": "_fastpath:available",
    "precheck_scan": "_fastpath:scan",
    **dict.fromkeys(("Follow", "FollowNotice"), "_follow"),
    **dict.fromkeys(("chunks", "is_url", "read_all"), "_inputs"),
    "resolve_inputs": "_inputs:resolve",
    **dict.fromkeys(("MEMO_ENTRIES", "CheckOptions", "check_chunk", "clear_caches"), "_lines"),
    "Outcome": "_outcome",
    **dict.fromkeys(("output_problem", "written_whole"), "_outputs"),
    **dict.fromkeys(
        (
            "FINDINGS_COLUMN",
            "MASK_COLUMN",
            "VERDICT_COLUMN",
            "EngineError",
            "check_dataset",
            "check_paths_ray",
            "check_sources_ray",
        ),
        "_ray",
    ),
    **dict.fromkeys(("RAY_BLOCKS_PER_CPU", "RAY_MAX_RETRIES"), "_tasks"),
    "connect_ray": "_ray:connect",
    **dict.fromkeys(("document_outcome", "reference_outcome"), "_reference"),
    "REMOTE_EXTRAS": "_remote:EXTRAS",
    **dict.fromkeys(
        ("DEFAULT_MAX_FINDINGS", "LocatedFinding", "Report", "Tally", "dumps_report", "dumps_report_data"), "_report"
    ),
    **dict.fromkeys(
        ("Progress", "check_bytes", "check_paths", "check_sources"),
        "_run",
    ),
    **dict.fromkeys(("FAILURES_FILE_SUFFIX", "is_failures_file"), "_failures_files"),
    **dict.fromkeys(("InputError", "Source"), "_source"),
    **dict.fromkeys(("Tail", "TailError"), "_tail"),
    "WorkerDied": "_workers",
}
__getattr__ = lazy_exports(__name__, _HOME)

__all__ = [
    "CLEAN_STATUSES",
    "DEFAULT_MAX_FINDINGS",
    "FAILURES_FILE_SUFFIX",
    "FINDINGS_COLUMN",
    "KIND_CLASSES",
    "MASK_COLUMN",
    "MEMO_ENTRIES",
    "RAY_BLOCKS_PER_CPU",
    "RAY_MAX_RETRIES",
    "REMOTE_EXTRAS",
    "VERDICT_COLUMN",
    "BudgetRun",
    "CheckOptions",
    "EngineError",
    "FactSpec",
    "Follow",
    "FollowNotice",
    "InputError",
    "LocatedFinding",
    "Outcome",
    "Progress",
    "Report",
    "Source",
    "Tail",
    "TailError",
    "Tally",
    "WorkerDied",
    "budget_run",
    "budget_text",
    "check_bytes",
    "check_chunk",
    "check_dataset",
    "check_paths",
    "check_paths_ray",
    "check_sources",
    "check_sources_ray",
    "chunks",
    "clear_caches",
    "connect_ray",
    "document_outcome",
    "dumps_report",
    "dumps_report_data",
    "event_line",
    "is_failures_file",
    "is_url",
    "kind_label",
    "output_problem",
    "precheck_available",
    "precheck_scan",
    "read_all",
    "reference_outcome",
    "resolve_inputs",
    "write_metrics",
    "write_plot",
    "write_retry_list",
    "written_whole",
]  # the keys of _HOME (tests/package/test_public_surfaces.py)
