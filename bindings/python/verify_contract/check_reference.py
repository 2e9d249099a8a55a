"""The reference's verdict on one line or document (``jsonio.parse_json`` then ``validation.validate``), and
the facts the report counts for a valid one (effective mask, legacy mask in use, failure-kind class)."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from functools import cache
from typing import Any

from verify_contract.contract import contract_model
from verify_contract.findings import Finding, Severity, finding
from verify_contract.jsonio import NON_FINITE_RULE, parse_json
from verify_contract.mask import MaskTypeError, effective_mask
from verify_contract.validation import validate, value_at
from verify_contract.versions import Profile


@dataclass(frozen=True)
class Outcome:
    """What the reference says about one document, and the facts the report counts for a valid one."""

    findings: tuple[Finding, ...]
    valid: bool
    masked: bool = False
    legacy: bool = False
    kind: str | None = None


def parse(raw: bytes) -> tuple[Any, Finding | None]:
    try:
        parsed = parse_json(raw)
    except ValueError as error:  # int() refuses integers of more than 4300 digits
        return None, finding(NON_FINITE_RULE, f"a number is too large for any JSON implementation ({error})")
    return parsed.document, parsed.finding


@cache
def _fact_fields(version: str) -> tuple[tuple[str, ...] | None, tuple[str, ...] | None, str, frozenset[str]]:
    """The legacy mask's and the failure kind's member paths at ``version`` (None: not declared), the
    namespace separator and the registered kinds."""
    model = contract_model(version)
    legacy, kind = model.role("legacy_mask"), model.role("failure_kind")
    kinds = model.failure_kinds
    return (
        legacy.path if legacy is not None else None,
        kind.path if kind is not None and kinds is not None else None,
        kinds["namespace_separator"] if kinds else "",
        frozenset(k["id"] for k in kinds["registered"]) if kinds else frozenset(),
    )


def facts(document: Any, findings: tuple[Finding, ...], version: str) -> Outcome:
    """The outcome of a document with these findings: invalid, or valid with its counted facts."""
    if any(f.severity is Severity.ERROR for f in findings):
        return Outcome(findings, False)
    masked = False
    with contextlib.suppress(MaskTypeError):  # valid at a version that does not type the mask: no mask to count
        masked = effective_mask(document)
    legacy_path, kind_path, separator, registered = _fact_fields(version)
    legacy = legacy_path is not None and isinstance(value_at(document, legacy_path), bool)
    kind_class = None
    kind = value_at(document, kind_path) if kind_path is not None else None
    if isinstance(kind, str):
        kind_class = "namespaced" if separator in kind else "registered" if kind in registered else "unregistered"
    return Outcome(findings, True, masked, legacy, kind_class)


def document_outcome(document: Any, version: str, profile: Profile) -> Outcome:
    """The reference verdict on a parsed document, with the counted facts."""
    result = validate(document, version, profile)
    return facts(document, tuple(result.findings), version)


def reference_outcome(raw: bytes, version: str, profile: Profile) -> Outcome:
    """The reference path for one line or document text."""
    document, problem = parse(raw)
    if problem is not None:
        return Outcome((problem,), False)
    return document_outcome(document, version, profile)
