"""The reference's verdict on one line or document (``jsonio.parse_json`` then ``validation.validate``)."""

from __future__ import annotations

from typing import Any

from verify_contract.check._outcome import Outcome, outcome_of
from verify_contract.contract import Contract
from verify_contract.findings import Finding, finding
from verify_contract.reference import NON_FINITE_RULE, judge, parse_json

__all__ = ["Outcome", "document_outcome", "parse", "reference_line", "reference_outcome"]


def parse(raw: bytes) -> tuple[Any, Finding | None]:
    try:
        parsed = parse_json(raw)
    except ValueError as error:  # int() refuses integers of more than 4300 digits
        return None, finding(NON_FINITE_RULE, f"a number is too large for any JSON implementation ({error})")
    return parsed.document, parsed.finding


def document_outcome(document: Any, contract: Contract) -> Outcome:
    """The reference verdict on a parsed document, with what it counts."""
    result = judge(document, contract)
    return outcome_of(document, tuple(result.findings), contract.model)


def reference_outcome(raw: bytes, contract: Contract) -> Outcome:
    """The reference path for one line or document text."""
    document, problem = parse(raw)
    if problem is not None:
        return Outcome((problem,), False)
    return document_outcome(document, contract)


def reference_line(line: bytes | memoryview, contract: Contract) -> Outcome:
    """The reference's outcome for one line, its terminator stripped (it is not the line's)."""
    return reference_outcome(bytes(line).rstrip(b"\r\n"), contract)
