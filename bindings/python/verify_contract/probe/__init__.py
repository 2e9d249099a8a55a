"""Live check of a running resource server's ``/verify`` replies (``verify-contract probe``).

Public API::

    from verify_contract.probe import CHECKS, Settings, file_cases, replay_cases, probe, probe_app, format_report

``probe(url, cases, settings)`` posts each case to a running server and judges every reply by the selected
checks (``CHECKS``: stable ids such as ``probe-http-status`` and ``probe-contract``, SPEC section 4.4);
``probe_app(app, ...)`` does the same to an ASGI app in process. ``cases`` is a list of ``Case`` or a
``CaseFile`` (``file_cases``, ``replay_cases``: read as sent, never held). ``probe`` needs aiohttp (the ``probe``
extra); ``probe_app`` drives the app itself and needs no HTTP client.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from verify_contract.probe._checks import CHECK_IDS, CHECKS, DEFAULT_CHECKS, Check, judge_reply
    from verify_contract.probe._report import FORMATS, format_report, report_data
    from verify_contract.probe._requests import Case, CaseError, CaseFile, file_cases, replay_cases
    from verify_contract.probe._runner import ProbeReport, Settings, probe, probe_app, probe_app_async, probe_with
__all__ = [
    "CHECKS",
    "CHECK_IDS",
    "DEFAULT_CHECKS",
    "FORMATS",
    "Case",
    "CaseError",
    "CaseFile",
    "Check",
    "ProbeReport",
    "Settings",
    "file_cases",
    "format_report",
    "judge_reply",
    "probe",
    "probe_app",
    "probe_app_async",
    "probe_with",
    "replay_cases",
    "report_data",
]

# Imported on first use (PEP 562): the checks (which the ASGI middleware uses) stay light; only ``probe`` (its
# network transport) imports aiohttp.
_SOURCES = {
    **dict.fromkeys(("CHECK_IDS", "CHECKS", "DEFAULT_CHECKS", "Check", "judge_reply"), "_checks"),
    **dict.fromkeys(("FORMATS", "format_report", "report_data"), "_report"),
    **dict.fromkeys(("Case", "CaseError", "CaseFile", "file_cases", "replay_cases"), "_requests"),
    **dict.fromkeys(("ProbeReport", "Settings", "probe", "probe_app", "probe_app_async", "probe_with"), "_runner"),
}


def __getattr__(name: str) -> Any:
    source = _SOURCES.get(name)
    if source is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{source}"), name)
    globals()[name] = value
    return value
