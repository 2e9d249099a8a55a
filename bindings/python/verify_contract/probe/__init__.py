"""Live check of a running resource server's ``/verify`` replies (``verify-contract probe``).

Public API::

    from verify_contract.probe import CHECKS, Settings, load_cases, probe, probe_app, format_report

``probe(url, cases, settings)`` posts each case to a running server and judges every reply by the selected
checks (``CHECKS``: stable ids such as ``probe-http-status`` and ``probe-contract``, SPEC section 4.4);
``probe_app(app, ...)`` does the same to an ASGI app in process. Needs httpx (the ``probe`` extra).
"""

from __future__ import annotations

from verify_contract.probe._checks import CHECK_IDS, CHECKS, DEFAULT_CHECKS, Check, judge_reply
from verify_contract.probe._report import FORMATS, format_report, report_data
from verify_contract.probe._requests import Case, CaseError, file_cases, replay_cases
from verify_contract.probe._runner import ProbeReport, Settings, probe, probe_app, probe_app_async, probe_with

__all__ = [
    "CHECKS",
    "CHECK_IDS",
    "DEFAULT_CHECKS",
    "FORMATS",
    "Case",
    "CaseError",
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
