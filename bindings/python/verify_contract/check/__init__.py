"""``verify-contract check``: one line's way through the pipeline, one private module per step.

``_inputs`` (``_source``: files, globs, stdin, gzip, URLs through ``_remote``, in chunks of whole lines, cut
into ``_tasks``) -> ``_fastpath`` with the compiled ``_fastscan.c`` (the pre-check) -> ``_lines`` (once per
memo key: ``_text_events``, ``_compose`` or ``_reference``, each worded as the reference words it,
``_outcome``) -> ``_report``. ``_run`` runs the steps in one process or several (``_workers``) for one
resolved ``Contract`` (``CheckOptions.contract``); ``_budget`` feeds the failure budget, ``_budget_report``,
``_budget_metrics`` and ``_budget_plot`` show it.

Scripts import the runner's names from here (``from verify_contract.check import CheckOptions,
check_paths``); each is loaded on first use, so importing a step's module does not import the runner.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from typing import Any

    from verify_contract.check._run import (
        DEFAULT_MAX_FINDINGS,
        KIND_CLASSES,
        MEMO_ENTRIES,
        CheckOptions,
        InputError,
        LocatedFinding,
        Outcome,
        Progress,
        Report,
        Tally,
        check_bytes,
        check_chunk,
        check_paths,
        check_sources,
        clear_caches,
        document_outcome,
        dumps_report,
        reference_outcome,
    )

__all__ = [
    "DEFAULT_MAX_FINDINGS",
    "KIND_CLASSES",
    "MEMO_ENTRIES",
    "CheckOptions",
    "InputError",
    "LocatedFinding",
    "Outcome",
    "Progress",
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


def __getattr__(name: str) -> Any:
    # PEP 562: the runner is imported by the first name asked for, not by `import verify_contract.check._lines`.
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from verify_contract.check import _run

    return getattr(_run, name)
