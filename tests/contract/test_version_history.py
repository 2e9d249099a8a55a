"""Every document valid at 1.N stays valid at 1.N+1, except a document that used a later-added field
name with another type (the object is open, so 1.0.0 allowed ``failure_reason: 7``)."""

from __future__ import annotations

import pytest

from verify_contract import CONTRACT_VERSIONS, PROFILES, parse_json, validate
from verify_contract.contract._schemas import declared_fields

from conftest import VECTORS

CONFLICT_TAG = "later-field-type-conflict"
DOCUMENTS = [v for v in VECTORS if parse_json(v.text).ok]


def _transitions() -> list[tuple[str, str, str, bool]]:
    """(vector id, profile, older -> newer, explained) for every loss of validity between neighbours.

    A loss is explained when every error at the newer version is about a top-level field the older
    version did not declare: the older version saw an unknown key there, the newer one a typed field.
    """
    losses = []
    for vector in DOCUMENTS:
        document = parse_json(vector.text).document
        for profile in PROFILES:
            results = [validate(document, version, profile) for version in CONTRACT_VERSIONS]
            pairs = zip(CONTRACT_VERSIONS, CONTRACT_VERSIONS[1:], results, results[1:], strict=False)
            for older, newer, was, now in pairs:
                if was.valid and not now.valid:
                    fields = {error.pointer.split("/")[1] for error in now.errors if error.pointer}
                    explained = (
                        bool(fields)
                        and all(len(e.pointer) > 0 for e in now.errors)
                        and not (fields & declared_fields(older))
                    )
                    losses.append((vector.id, profile, f"{older} -> {newer}", explained))
    return losses


def test_only_later_field_conflicts_lose_validity() -> None:
    losses = _transitions()
    unexplained = [loss for loss in losses if not loss[3]]
    assert unexplained == [], "a document lost validity between versions for another reason than a later field"
    # the exception exists and is exercised: without it this test could not fail
    assert {loss[0] for loss in losses} >= {"v1-0-failure-reason-int", "v1-1-mask-string"}


def test_a_tightened_rule_would_be_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """If 1.2.0 rejected something 1.1.0 declared and accepted, the history test must fail."""
    import verify_contract.reference._validation as validation

    real = validation.validate

    def stricter(document: object, version: str = "1.2.0", profile: str = "core") -> validation.ValidationResult:
        result = real(document, version, profile)  # type: ignore[arg-type]
        if version == "1.2.0" and isinstance(document, dict) and document.get("failure_reason") == "timeout":
            from verify_contract.findings import finding

            return validation.ValidationResult(
                [*result.findings, finding("failure-reason-type", "x", "/failure_reason")]
            )
        return result

    monkeypatch.setattr(__import__(__name__), "validate", stricter)
    assert any(loss[0] == "v1-1-failure-reason" and not loss[3] for loss in _transitions())


@pytest.mark.parametrize("version", CONTRACT_VERSIONS)
def test_corpus_covers_every_version(version: str) -> None:
    assert any(v.contract_version == version for v in VECTORS)


def test_tagged_vectors_really_conflict() -> None:
    """A tag that no longer marks a real loss of validity is stale."""
    lost = {loss[0] for loss in _transitions()}
    tagged_valid = {v.id for v in VECTORS if CONFLICT_TAG in v.tags and v.valid}
    assert tagged_valid <= lost
