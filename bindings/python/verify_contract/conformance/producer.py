"""Producer conformance: a document or model conforms, and a producer's model agrees with the contract."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from verify_contract.conformance.consumer import with_echo
from verify_contract.conformance.obligations import OBLIGATIONS, Level
from verify_contract.conformance.report import ConformanceReport, short
from verify_contract.contract import (
    DEFAULT_PROFILE,
    LATEST_VERSION,
    Profile,
    contract_model,
    json_pointer,
    pointer_path,
)
from verify_contract.findings import Finding, Severity
from verify_contract.reference import json_equal, parse_json, validate
from verify_contract.vectors import Vector, load_vectors


class ConformanceError(AssertionError):
    """A document, producer or consumer breaks the contract; the message lists why."""

    def __init__(self, message: str, findings: Iterable[Finding] = ()) -> None:
        super().__init__(message)
        self.findings = list(findings)


def _document(value: Any) -> tuple[Any, list[Finding]]:
    """The JSON document a producer would send: models are serialized to JSON text and parsed strictly."""
    if isinstance(value, BaseModel):
        value = value.model_dump_json(by_alias=True)
    if isinstance(value, (str, bytes, bytearray)):
        parsed = parse_json(bytes(value) if isinstance(value, bytearray) else value)
        return parsed.document, [parsed.finding] if parsed.finding else []
    if isinstance(value, Mapping):
        return dict(value), []
    return value, []


def _shown_by(kind: str) -> str:
    return str(next(o["id"] for o in _OBLIGATIONS if o.get("shown_by") == kind))


# What shows each producer obligation (SPEC 4.1) broken, as the model states it (``obligations``, ``shown_by``):
# any error, an error on a null where the field allows none, or the warning rules each obligation lists.
_OBLIGATIONS = contract_model(LATEST_VERSION).obligations
ERROR_OBLIGATION = _shown_by("error")
NULL_ERROR_OBLIGATION = _shown_by("null-error")
WARNING_OBLIGATIONS: dict[str, str] = {
    rule: o["id"] for o in _OBLIGATIONS if isinstance(o.get("shown_by"), list) for rule in o["shown_by"]
}


def finding_obligation(finding: Finding, document: Any = None) -> str:
    """The producer obligation a finding shows broken (``producer-no-null`` for a null where none is allowed)."""
    if finding.severity is Severity.ERROR:
        return NULL_ERROR_OBLIGATION if _is_null_at(document, finding.pointer) else ERROR_OBLIGATION
    return WARNING_OBLIGATIONS[finding.rule]


def _is_null_at(document: Any, pointer: str | None) -> bool:
    if not pointer or not isinstance(document, dict):
        return False
    value: Any = document
    for key in pointer_path(pointer):
        if isinstance(value, dict) and key in value:
            value = value[key]
        elif isinstance(value, list) and key.isdigit() and int(key) < len(value):
            value = value[int(key)]
        else:
            return False
    return value is None


def assert_conforms(
    document_or_model: Any,
    profile: Profile = DEFAULT_PROFILE,
    version: str = LATEST_VERSION,
    *,
    warnings_as_errors: bool = False,
) -> None:
    """Raise ``ConformanceError`` unless the document keeps every MUST of SPEC 4.1 that a document shows.

    Accepts a dict, JSON text (str or bytes, parsed strictly: duplicate keys, NaN... are errors) or a
    pydantic model (serialized with ``model_dump_json`` as a producer would send it). Errors break
    ``producer-valid`` (or ``producer-no-null``); a mask only in the legacy location, or two locations
    that disagree, break ``producer-legacy-mirror`` (a MUST, so they fail although the document is
    valid); unregistered and deprecated kinds are SHOULD-level and fail only with ``warnings_as_errors``.
    """
    __tracebackhide__ = True  # pytest shows the caller's line and the report, not this function
    document, findings = _document(document_or_model)
    if not findings:
        findings = validate(document, version, profile).findings
    judged = [(finding_obligation(f, document), f) for f in findings]
    failing = [(o, f) for o, f in judged if OBLIGATIONS[o].level is Level.MUST or warnings_as_errors]
    if failing:
        listing = "\n".join(f"  {o} [{f.rule}] {f.message}" for o, f in failing)
        message = f"does not conform to contract {version} ({profile} profile):\n{listing}"
        raise ConformanceError(message, [f for _, f in failing])


def _paths(value: Any, prefix: str = "") -> dict[str, Any]:
    """JSON Pointer -> value of every member and item."""
    found: dict[str, Any] = {}
    if isinstance(value, dict):
        for key, item in value.items():
            pointer = prefix + json_pointer([key])
            found[pointer] = item
            found.update(_paths(item, pointer))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            pointer = f"{prefix}/{index}"
            found[pointer] = item
            found.update(_paths(item, pointer))
    return found


@dataclass(frozen=True)
class ProducerCase:
    id: str
    description: str
    document: Any
    valid: bool
    round_trip: bool

    @property
    def text(self) -> str:
        return json.dumps(self.document, ensure_ascii=False)


def producer_cases(profile: Profile, version: str, vectors: Iterable[Vector] | None = None) -> list[ProducerCase]:
    """The documents a producer model of ``profile`` at ``version`` is judged on.

    Every vector of that version with a document (raw JSON texts test parsers, not models). At the gym
    profile, core-profile documents get the minimal request echo they lack: a gym producer must honour
    every core rule. The verdict is the reference validator's at ``profile`` and ``version``.
    """
    cases: list[ProducerCase] = []
    for vector in load_vectors() if vectors is None else vectors:
        if not vector.has_instance or vector.contract_version != version:
            continue
        document = vector.instance
        document = with_echo(document, version, profile)
        valid = validate(document, version, profile).valid
        cases.append(ProducerCase(vector.id, vector.description, document, valid, valid))
    return cases


def check_producer(
    model: type[BaseModel],
    profile: Profile = DEFAULT_PROFILE,
    version: str = LATEST_VERSION,
    vectors: Iterable[Vector] | None = None,
) -> ConformanceReport:
    """Run the vectors through a producer's pydantic model class (e.g. a Gym ``BaseVerifyResponse``).

    By obligation (SPEC 4.1): the model accepts what the contract rejects, or emits a document that does
    not conform (``producer-valid``; a null where none is allowed: ``producer-no-null``); it rejects a
    valid document, or drops or changes keys on a round trip (``model_validate_json`` then
    ``model_dump_json``: ``producer-round-trip``).
    """
    report = ConformanceReport(f"{model.__module__}.{model.__qualname__}", "producer", profile, version)
    all_vectors = load_vectors() if vectors is None else list(vectors)
    cases = producer_cases(profile, version, all_vectors)
    report.skipped = len(all_vectors) - len(cases)
    for vector in cases:
        report.checked += 1
        try:
            instance = model.model_validate_json(vector.text)
        except Exception as error:  # a model may raise anything; pydantic raises ValidationError
            if vector.valid:
                first = " / ".join(str(error).splitlines()[:3])
                detail = f"rejects a valid document, so cannot re-emit it: {first}"
                report.record("producer-round-trip", vector, detail)
            continue
        if not vector.valid:
            rules = ", ".join(sorted({f.rule for f in validate(vector.document, version, profile).errors}))
            detail = f"accepts a document the contract rejects ({rules}): {short(vector.document, 100)}"
            report.record(ERROR_OBLIGATION, vector, detail)
            continue
        try:
            emitted = json.loads(instance.model_dump_json(by_alias=True))
        except Exception as error:  # e.g. a NaN the model let in and cannot serialize
            report.record(ERROR_OBLIGATION, vector, f"cannot serialize: {error}")
            continue
        for found in validate(emitted, version, profile).errors:
            obligation = finding_obligation(found, emitted)
            detail = f"emits [{found.rule}] {found.message}"
            report.record(obligation, vector, detail, found.pointer)
        before, after = _paths(vector.document), _paths(emitted)
        lost = [p for p in before if p not in after]
        dropped = [p for p in lost if not any(p.startswith(d + "/") for d in lost)]  # the outermost only
        if dropped:
            shown = ", ".join(dropped[:8]) + (f" and {len(dropped) - 8} more" if len(dropped) > 8 else "")
            report.record("producer-round-trip", vector, f"drops {shown}")
        changed = [
            p
            for p in before
            if p in after and not isinstance(before[p], (dict, list)) and not json_equal(before[p], after[p])
        ]
        if changed:
            shown = ", ".join(f"{p}: {short(before[p], 40)} -> {short(after[p], 40)}" for p in changed[:5])
            detail = f"changes {shown}"
            report.record("producer-round-trip", vector, detail)
    return report
