"""Every binding runs every vector: same verdicts and rule ids as the Python reference, and what each binding
encodes is accepted by the reference validator with the same value for every contract field.

Each language ships a conformance runner (built by ``bindings/<lang>/ci.sh``, run by ``make test``)
that prints one JSON line per vector: ``{"id", "valid", "rules", "pointers", "effective_mask", "encoded"}``,
``rules`` being the SPEC rule ids of every error, sorted (warnings are the reference's alone), and ``pointers``
each error's ``{"rule", "pointer"}``, sorted by rule then pointer (SPEC 8.1: a missing member is at the
pointer it would have).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from languages import REQUIRE_ALL

from verify_contract import parse_json, validate
from verify_contract.findings import RULES, Severity
from verify_contract.reference._jsonio import json_equal
from verify_contract.vectors import Vector

from build_dirs import RUST_RUNNER
from conftest import VECTORS

ROOT = Path(__file__).resolve().parents[2]
RUNNERS: dict[str, list[str]] = {
    "typescript": ["node", "bindings/typescript/dist/conformance.js", "vectors"],
    "go": ["bindings/go/bin/conformance", "vectors"],
    "rust": [str(RUST_RUNNER.relative_to(ROOT)), "vectors"],
}
CONTRACT_FIELDS = ("reward", "mask_sample", "failure_kind", "failure_reason")


def _run(language: str) -> list[dict[str, Any]]:
    command = RUNNERS[language]
    program = command[1] if command[0] == "node" else command[0]
    if not (ROOT / program).exists():
        if REQUIRE_ALL:
            pytest.fail(f"{language}: runner {program} is not built (bindings/{language}/ci.sh builds it)")
        pytest.skip(f"{language}: runner not built; `make test` builds every language")
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{language} runner failed: {done.stderr[-2000:]}"
    # JSON Lines end at "\n" only: str.splitlines would also cut at a raw U+2028 inside a JSON string.
    return [json.loads(line) for line in done.stdout.split("\n") if line.strip()]


@pytest.fixture(scope="module", params=sorted(RUNNERS))
def results(request: pytest.FixtureRequest) -> tuple[str, list[dict[str, Any]]]:
    return request.param, _run(request.param)


def test_runner_covers_every_vector_in_order(results: tuple[str, list[dict[str, Any]]]) -> None:
    _, lines = results
    assert [line["id"] for line in lines] == [v.id for v in VECTORS]


def test_verdicts_equal_reference(results: tuple[str, list[dict[str, Any]]]) -> None:
    language, lines = results
    by_id = {line["id"]: line for line in lines}
    wrong = [v.id for v in VECTORS if by_id[v.id]["valid"] is not v.valid]
    assert wrong == [], f"{language} disagrees with the reference on {wrong}"


def test_rule_ids_equal_reference(results: tuple[str, list[dict[str, Any]]]) -> None:
    language, lines = results
    by_id = {line["id"]: line for line in lines}
    wrong = {}
    for vector in VECTORS:
        errors = sorted(rule for rule in vector.findings if RULES[rule].severity is Severity.ERROR)
        if by_id[vector.id]["rules"] != errors:
            wrong[vector.id] = (errors, by_id[vector.id]["rules"])
    assert wrong == {}, f"{language} reports other rule ids (reference, binding): {wrong}"


def _reference_pointers(vector: Vector) -> list[dict[str, str]]:
    parsed = parse_json(vector.text.encode("utf-8"))
    found = (
        [parsed.finding]
        if parsed.finding
        else validate(parsed.document, vector.contract_version, vector.profile).findings
    )
    errors = sorted((f.rule, f.pointer) for f in found if f.severity is Severity.ERROR)
    return [{"rule": rule, "pointer": pointer} for rule, pointer in errors]


def test_pointers_equal_reference(results: tuple[str, list[dict[str, Any]]]) -> None:
    """Every error at the reference's pointer; the vectors that pin pointers (missing members among them)
    are held to their own list too."""
    language, lines = results
    by_id = {line["id"]: line for line in lines}
    wrong = {}
    for vector in VECTORS:
        reference = _reference_pointers(vector)
        pinned = [{"rule": r, "pointer": p} for r, p in vector.pointers] if vector.pointers is not None else reference
        if not by_id[vector.id]["pointers"] == reference == pinned:
            wrong[vector.id] = (reference, by_id[vector.id]["pointers"])
    assert wrong == {}, f"{language} reports errors elsewhere (reference, binding): {wrong}"


def test_effective_mask_equal_reference(results: tuple[str, list[dict[str, Any]]]) -> None:
    language, lines = results
    by_id = {line["id"]: line for line in lines}
    wrong = [v.id for v in VECTORS if v.valid and by_id[v.id]["effective_mask"] is not v.effective_mask]
    assert wrong == [], f"{language} effective mask differs on {wrong}"


def _contract_values(document: dict[str, Any]) -> dict[str, Any]:
    values = {field: document.get(field) for field in CONTRACT_FIELDS}
    config = document.get("instance_config")
    values["instance_config.mask_sample"] = config.get("mask_sample") if isinstance(config, dict) else None
    return values


def test_encoded_documents_accepted_by_reference(results: tuple[str, list[dict[str, Any]]]) -> None:
    language, lines = results
    by_id = {line["id"]: line for line in lines}
    problems = []
    for vector in VECTORS:
        if not (vector.valid and vector.round_trip):
            continue
        encoded = by_id[vector.id]["encoded"]
        original = parse_json(vector.text).document
        if encoded is None:
            problems.append(f"{vector.id}: nothing encoded")
            continue
        if not validate(encoded, vector.contract_version, vector.profile).valid:
            problems.append(f"{vector.id}: the reference rejects the encoded document")
        if not json_equal(_contract_values(encoded), _contract_values(original)):
            problems.append(f"{vector.id}: a contract field changed value")
        if not json_equal(encoded, original):  # SPEC 3.1's one rule: values, not spellings; integers exact
            problems.append(f"{vector.id}: the round trip lost or changed a value")
    assert problems == [], f"{language}: " + "; ".join(problems)
