from __future__ import annotations

import pytest
from jsonschema import ValidationError

from verify_contract import LATEST_VERSION, validate
from verify_contract.contract._failure_kind_info import Deprecation
from verify_contract.contract._model import contract_model
from verify_contract.findings import RULES
from verify_contract.reference import _semantic as semantic
from verify_contract.reference import _validation as validation


def test_non_finite_reward_from_python() -> None:
    for value in (float("nan"), float("inf"), float("-inf")):
        result = validate({"reward": value}, profile="core")
        assert not result.valid
        assert result.rules == ["reward-non-finite"]


def test_deprecated_kind_warns(monkeypatch: pytest.MonkeyPatch) -> None:
    # The semantic rule and deprecated_kinds read the model's deprecation entries (semantic.deprecations); no
    # kind is deprecated yet, so one is.
    entry = {"in": LATEST_VERSION, "reason": "renamed", "renamed_to": "judge_unparseable"}
    monkeypatch.setattr(semantic, "deprecations", lambda version: {"judge_failed": entry})
    monkeypatch.setattr(validation, "deprecations", semantic.deprecations)
    result = validate({"reward": 0.0, "failure_kind": "judge_failed"}, profile="core")
    assert result.valid
    assert result.rules == ["failure-kind-deprecated"]
    assert "judge_unparseable" in result.findings[0].message
    validation.deprecated_kinds.cache_clear()
    try:
        assert validation.deprecated_kinds(LATEST_VERSION) == {
            "judge_failed": Deprecation(LATEST_VERSION, "renamed", "judge_unparseable")
        }
    finally:
        validation.deprecated_kinds.cache_clear()


def test_no_kind_is_deprecated_yet() -> None:
    assert validation.deprecated_kinds(LATEST_VERSION) == {}


def test_schema_violation_fallback() -> None:
    """A schema error at a path no specific rule names falls back to schema-violation (the current
    schemas give no such path, so the mapping is exercised directly)."""
    error = ValidationError("boom", validator="minimum", path=["somewhere"], instance=1, validator_value=2)
    assert validation._schema_rule(error, contract_model(LATEST_VERSION)) == [
        ("schema-violation", "/somewhere: 1 is less than the minimum of 2", ["somewhere"])
    ]


def test_findings_carry_pointer_and_message() -> None:
    result = validate({"reward": "1", "instance_config": {"mask_sample": "no"}}, profile="core")
    pointers = {f.rule: f.pointer for f in result.findings}
    assert pointers == {"reward-type": "/reward", "legacy-mask-type": "/instance_config/mask_sample"}
    assert all(f.message for f in result.findings)


def test_gym_error_names_missing_keys() -> None:
    messages = " ".join(f.message for f in validate({"reward": 0.0}, profile="gym").findings)
    assert "responses_create_params" in messages and "response" in messages


def test_unknown_version_and_profile_are_clear_errors() -> None:
    with pytest.raises(ValueError, match="unknown contract version"):
        validate({"reward": 1}, version="9.9.9")
    with pytest.raises(ValueError, match="unknown profile"):
        validate({"reward": 1}, profile="trl")  # type: ignore[arg-type]


def test_never_fetches_remote_references() -> None:
    from referencing.exceptions import Unresolvable

    registry = validation.schema_registry(LATEST_VERSION)
    with pytest.raises(Unresolvable):
        registry.resolver().lookup("https://example.invalid/elsewhere.json")


def test_rule_ids_are_kebab_case() -> None:
    assert all(rule.replace("-", "").isalnum() and rule == rule.lower() for rule in RULES)


def test_one_finding_type_for_the_registry_lint() -> None:
    from verify_contract.contract._registry import LINT_RULE, lint_findings, parse_registry
    from verify_contract.findings import Finding, Severity

    text = "file_format: failure-kind-registry/1\nkinds:\n  - id: ok_kind\n    domain: ok\n  - id: Bad\n"
    found = lint_findings(parse_registry(text, [LATEST_VERSION]))
    assert found and all(isinstance(f, Finding) and f.severity is Severity.ERROR for f in found)
    assert {f.rule for f in found} == {LINT_RULE} and {f.file for f in found} == {"failure_kinds.yaml"}
    assert any(f.pointer == "/kinds/0" and "brief" in f.message for f in found)
    assert found[0].as_dict()["file"] == "failure_kinds.yaml" and found[0].id == LINT_RULE
