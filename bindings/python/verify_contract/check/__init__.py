"""``verify-contract check``: one line's way through the pipeline, one private module per step.

``_inputs`` (``_source``: files, globs, stdin, gzip, URLs through ``_remote``, in chunks of whole lines, cut
into ``_tasks``) -> ``_fastpath`` with the compiled ``_fastscan.c`` (the pre-check) -> ``_lines`` (once per
memo key: ``_text_events``, ``_compose`` or ``_reference``, each worded as the reference words it,
``_outcome``) -> ``_report``. ``_run`` runs the steps in one process or several (``_workers``) for one
resolved ``Contract`` (``CheckOptions.contract``); ``_budget`` feeds the failure budget, ``_budget_report``,
``_budget_metrics`` and ``_budget_plot`` show it. ``_follow`` (``Follow``) checks a file while a run writes it
(``_tail`` reads it as it grows), feeding a ``FailureBudget`` and yielding findings, budget events and notices.

Scripts import the runner's names from here (``from verify_contract.check import CheckOptions,
check_paths``); each is loaded on first use, so importing a step's module does not import the runner.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from typing import Any

    from verify_contract.check._fastpath import KIND_CLASSES
    from verify_contract.check._follow import Follow, FollowNotice
    from verify_contract.check._lines import MEMO_ENTRIES, CheckOptions, check_chunk, clear_caches
    from verify_contract.check._outcome import Outcome
    from verify_contract.check._reference import document_outcome, reference_outcome
    from verify_contract.check._report import DEFAULT_MAX_FINDINGS, LocatedFinding, Report, Tally, dumps_report
    from verify_contract.check._run import Progress, check_bytes, check_paths, check_sources
    from verify_contract.check._source import InputError
    from verify_contract.check._tail import TailError

# Each public name and the step module that defines it: imported by the first use of one of its names.
_HOME = {
    "DEFAULT_MAX_FINDINGS": "_report",
    "KIND_CLASSES": "_fastpath",
    "MEMO_ENTRIES": "_lines",
    "CheckOptions": "_lines",
    "Follow": "_follow",
    "FollowNotice": "_follow",
    "InputError": "_source",
    "LocatedFinding": "_report",
    "Outcome": "_outcome",
    "Progress": "_run",
    "Report": "_report",
    "Tally": "_report",
    "TailError": "_tail",
    "check_bytes": "_run",
    "check_chunk": "_lines",
    "check_paths": "_run",
    "check_sources": "_run",
    "clear_caches": "_lines",
    "document_outcome": "_reference",
    "dumps_report": "_report",
    "reference_outcome": "_reference",
}

__all__ = [
    "DEFAULT_MAX_FINDINGS",
    "KIND_CLASSES",
    "MEMO_ENTRIES",
    "CheckOptions",
    "Follow",
    "FollowNotice",
    "InputError",
    "LocatedFinding",
    "Outcome",
    "Progress",
    "Report",
    "TailError",
    "Tally",
    "check_bytes",
    "check_chunk",
    "check_paths",
    "check_sources",
    "clear_caches",
    "document_outcome",
    "dumps_report",
    "reference_outcome",
]  # the keys of _HOME (tests/test_lazy_exports.py)


def __getattr__(name: str) -> Any:
    # PEP 562: a step's module is imported by the first name asked of it, so importing one step (say
    # ``_lines``) does not import the runner.
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(f"{__name__}.{home}"), name)
