"""Producer conformance: a document or model conforms, and a producer's model agrees with the contract."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from verify_contract.conformance.report import ConformanceReport, Issue, short
from verify_contract.findings import Finding, Severity
from verify_contract.jsonio import json_equal, parse_json
from verify_contract.validation import validate
from verify_contract.vectors import Vector, load_vectors
from verify_contract.versions import DEFAULT_PROFILE, LATEST_VERSION, Profile


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


def assert_conforms(
    document_or_model: Any,
    profile: Profile = DEFAULT_PROFILE,
    version: str = LATEST_VERSION,
    *,
    warnings_as_errors: bool = False,
) -> None:
    """Raise ``ConformanceError`` unless the document conforms.

    Accepts a dict, JSON text (str or bytes, parsed strictly: duplicate keys, NaN... are errors) or a
    pydantic model (serialized with ``model_dump_json`` as a producer would send it).
    """
    document, findings = _document(document_or_model)
    if not findings:
        findings = validate(document, version, profile).findings
    failing = [
        f for f in findings if f.severity is Severity.ERROR or (warnings_as_errors and f.severity is Severity.WARNING)
    ]
    if failing:
        listing = "\n".join(f"  [{f.rule}] {f.message}" for f in failing)
        raise ConformanceError(f"does not conform to contract {version} ({profile} profile):\n{listing}", failing)


def _paths(value: Any, prefix: str = "") -> dict[str, Any]:
    """JSON Pointer -> value of every member and item."""
    found: dict[str, Any] = {}
    if isinstance(value, dict):
        for key, item in value.items():
            pointer = f"{prefix}/{str(key).replace('~', '~0').replace('/', '~1')}"
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


_GYM_ECHO: dict[str, Any] = {"responses_create_params": {}, "response": {"output": []}}


def producer_cases(profile: Profile, version: str, vectors: Iterable[Vector] | None = None) -> list[ProducerCase]:
    """The documents a producer model of ``profile`` at ``version`` is judged on.

    Vectors of that version with a document (raw JSON texts test parsers, not models). For the gym
    profile, core-profile vectors count too, given the minimal request echo they lack: a gym producer
    must honour every core rule; their verdict is then the reference validator's at the gym profile.
    """
    cases: list[ProducerCase] = []
    for vector in load_vectors() if vectors is None else vectors:
        if not vector.has_instance or vector.contract_version != version:
            continue
        if vector.profile == profile:
            cases.append(ProducerCase(vector.id, vector.description, vector.instance, vector.valid, vector.round_trip))
        elif profile == "gym" and isinstance(vector.instance, dict) and not _GYM_ECHO.keys() & vector.instance.keys():
            document = {**_GYM_ECHO, **vector.instance}
            valid = validate(document, version, profile).valid
            cases.append(ProducerCase(vector.id, vector.description, document, valid, valid and vector.round_trip))
    return cases


def check_producer(
    model: type[BaseModel],
    profile: Profile = DEFAULT_PROFILE,
    version: str = LATEST_VERSION,
    vectors: Iterable[Vector] | None = None,
) -> ConformanceReport:
    """Run the vectors through a producer's pydantic model class (e.g. a Gym ``BaseVerifyResponse``).

    Reports where the model accepts what the contract rejects, rejects what it accepts, drops or changes
    keys on a round trip (``model_validate_json`` then ``model_dump_json``), or emits a document that
    does not conform.
    """
    report = ConformanceReport(f"{model.__module__}.{model.__qualname__}", "producer")
    all_vectors = load_vectors() if vectors is None else list(vectors)
    cases = producer_cases(profile, version, all_vectors)
    report.skipped = len(all_vectors) - len(cases)
    for vector in cases:
        report.checked += 1
        try:
            instance = model.model_validate_json(vector.text)
        except Exception as error:  # a model may raise anything; pydantic raises ValidationError
            if vector.valid:
                first = str(error).splitlines()[:3]
                report.issues.append(Issue("rejects-valid", vector.id, vector.description, " / ".join(first)))
            continue
        if not vector.valid:
            rules = ", ".join(sorted({f.rule for f in validate(vector.document, version, profile).errors}))
            report.issues.append(
                Issue("accepts-invalid", vector.id, vector.description, f"accepted; the contract says: {rules}")
            )
            continue
        try:
            emitted = json.loads(instance.model_dump_json(by_alias=True))
        except Exception as error:  # e.g. a NaN the model let in and cannot serialize
            report.issues.append(Issue("emits-invalid", vector.id, vector.description, f"cannot serialize: {error}"))
            continue
        errors = [f for f in validate(emitted, version, profile).findings if f.severity is Severity.ERROR]
        if errors:
            detail = "; ".join(f"[{f.rule}] {f.message}" for f in errors)
            report.issues.append(Issue("emits-invalid", vector.id, vector.description, detail))
        if not vector.round_trip:
            continue
        before, after = _paths(vector.document), _paths(emitted)
        lost = [p for p in before if p not in after]
        dropped = [p for p in lost if not any(p.startswith(d + "/") for d in lost)]  # the outermost only
        if dropped:
            shown = ", ".join(dropped[:8]) + (f" and {len(dropped) - 8} more" if len(dropped) > 8 else "")
            report.issues.append(Issue("drops-keys", vector.id, vector.description, f"lost on a round trip: {shown}"))
        changed = [
            p
            for p in before
            if p in after and not isinstance(before[p], (dict, list)) and not json_equal(before[p], after[p])
        ]
        if changed:
            detail = ", ".join(f"{p}: {short(before[p], 40)} -> {short(after[p], 40)}" for p in changed[:5])
            report.issues.append(Issue("changes-values", vector.id, vector.description, detail))
    return report
