"""Live check of a running resource server's ``/verify`` replies (``verify-contract probe``).

Public API::

    from verify_contract.probe import CHECKS, Settings, file_cases, replay_cases, probe, probe_app, format_report

``probe(url, cases, settings)`` posts each case to a running server and judges every reply by the selected
checks (``CHECKS``: stable ids such as ``probe-http-status`` and ``probe-contract``, SPEC section 4.4);
``probe_app(app, ...)`` does the same to an ASGI app in process. ``cases`` is a list of ``Case`` or a
``CaseFile`` (``file_cases``, ``replay_cases``: read as sent, never held). ``probe`` needs aiohttp (the ``probe``
extra) for https and proxies (a plain http URL goes by the probe's own client, ``_http1``); ``probe_app``
drives the app itself and needs no HTTP client.
"""

from __future__ import annotations

from verify_contract._lazy import lazy_exports

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from verify_contract.probe._checks import (
        CHECK_IDS,
        CHECKS,
        DEFAULT_CHECKS,
        MAX_REPLY_BYTES,
        Check,
        Reply,
        breaking,
        judge_reply,
        problem_details,
        runnable_checks,
        wire_profile,
    )
    from verify_contract.probe._redact import MIN_SECRET_LENGTH, REDACTED, SECRET_NAMES, Redactor
    from verify_contract.probe._report import FORMATS, format_report, report_data
    from verify_contract.probe._requests import (
        DEFAULT_CONCURRENCY,
        DEFAULT_LISTED,
        DEFAULT_MAX_REQUESTS,
        DEFAULT_SEED,
        DEFAULT_TIMEOUT,
        Case,
        CaseError,
        CaseFile,
        file_cases,
        replay_cases,
    )
    from verify_contract.probe._runner import ProbeReport, Settings, probe, probe_app, probe_app_async, probe_with

# Imported on first use (PEP 562): the checks and the redaction (which the ASGI middleware uses) stay light;
# only ``probe`` imports aiohttp, and only for a URL its own client does not take (``_http1.fits``).
_HOME = {
    **dict.fromkeys(
        (
            "CHECK_IDS",
            "CHECKS",
            "DEFAULT_CHECKS",
            "MAX_REPLY_BYTES",
            "Check",
            "Reply",
            "breaking",
            "judge_reply",
            "problem_details",
            "runnable_checks",
            "wire_profile",
        ),
        "_checks",
    ),
    **dict.fromkeys(("MIN_SECRET_LENGTH", "REDACTED", "SECRET_NAMES", "Redactor"), "_redact"),
    **dict.fromkeys(("FORMATS", "format_report", "report_data"), "_report"),
    **dict.fromkeys(
        (
            "DEFAULT_CONCURRENCY",
            "DEFAULT_LISTED",
            "DEFAULT_MAX_REQUESTS",
            "DEFAULT_SEED",
            "DEFAULT_TIMEOUT",
            "Case",
            "CaseError",
            "CaseFile",
            "file_cases",
            "replay_cases",
        ),
        "_requests",
    ),
    **dict.fromkeys(("ProbeReport", "Settings", "probe", "probe_app", "probe_app_async", "probe_with"), "_runner"),
}
__getattr__ = lazy_exports(__name__, _HOME)

__all__ = [
    "CHECKS",
    "CHECK_IDS",
    "DEFAULT_CHECKS",
    "DEFAULT_CONCURRENCY",
    "DEFAULT_LISTED",
    "DEFAULT_MAX_REQUESTS",
    "DEFAULT_SEED",
    "DEFAULT_TIMEOUT",
    "FORMATS",
    "MAX_REPLY_BYTES",
    "MIN_SECRET_LENGTH",
    "REDACTED",
    "SECRET_NAMES",
    "Case",
    "CaseError",
    "CaseFile",
    "Check",
    "ProbeReport",
    "Redactor",
    "Reply",
    "Settings",
    "breaking",
    "file_cases",
    "format_report",
    "judge_reply",
    "probe",
    "probe_app",
    "probe_app_async",
    "probe_with",
    "problem_details",
    "replay_cases",
    "report_data",
    "runnable_checks",
    "wire_profile",
]
