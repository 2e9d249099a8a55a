"""The resolved contract model agrees with the reference validator, and changes with its sources."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from generators import paths
from verify_contract.contract._model import contract_model
from verify_contract.contract._resolve import ResolveError, resolve_model
from verify_contract.contract._versions import CONTRACT_VERSIONS, PROFILES
from verify_contract.findings import RULES
from verify_contract.reference._validation import validate

SAMPLES: dict[str, Any] = {
    "null": None,
    "boolean": True,
    "object": {},
    "array": [],
    "number": 0.5,
    "integer": 3,
    "string": "judge_failed",
}


def _json_type(value: Any) -> str:
    return next(name for name, sample in SAMPLES.items() if type(sample) is type(value))


def _base(version: str, profile: str) -> dict[str, Any]:
    """A valid document of the profile, built from the model's required members only."""
    model = contract_model(version)
    document: dict[str, Any] = {}
    for field in model.fields_of(profile):
        if profile in field.required_in:
            parent = document
            for part in field.path[:-1]:
                parent = parent.setdefault(part, {})
            kind = next(t for t in ("number", "object", "array", "string", "boolean") if t in field.types)
            parent[field.name] = copy.deepcopy(SAMPLES[kind])
    assert validate(document, version, profile).valid, document
    return document


@pytest.mark.parametrize("version", CONTRACT_VERSIONS)
@pytest.mark.parametrize("profile", PROFILES)
def test_field_types_and_rules_agree_with_the_reference(version: str, profile: str) -> None:
    model = contract_model(version)
    checked = 0
    for field in model.fields_of(profile):
        if field.constraints:
            continue  # constrained values are exercised by the differential corpus
        for json_type, sample in SAMPLES.items():
            document = _base(version, profile)
            parent = document
            for part in field.path[:-1]:
                parent = parent.setdefault(part, {})
                if not isinstance(parent, dict):
                    break
            parent[field.name] = copy.deepcopy(sample)
            errors = validate(document, version, profile).errors
            allowed = json_type in field.types or (json_type == "integer" and "number" in field.types)
            if allowed:  # an allowed object may still miss required members of its own, each at its own pointer
                children = {(c.pointer, c.missing_rule) for c in model.fields_of(profile) if c.parent == field.pointer}
                assert all((e.pointer, e.rule) in children for e in errors), (field.pointer, errors)
            else:
                assert [e.rule for e in errors] == [field.type_rules[0].rule], (field.pointer, sample)
                assert errors[0].pointer == field.pointer
            checked += 1
    assert checked >= len(SAMPLES)


@pytest.mark.parametrize("version", CONTRACT_VERSIONS)
def test_missing_required_members_map_to_the_model_rule(version: str) -> None:
    for profile in PROFILES:
        for field in contract_model(version).fields_of(profile):
            if profile not in field.required_in:
                continue
            document = _base(version, profile)
            parent = document
            for part in field.path[:-1]:
                parent = parent[part]
            del parent[field.name]
            found = [(e.rule, e.pointer) for e in validate(document, version, profile).errors]
            assert found == [(field.missing_rule, field.pointer)]  # at the member's own pointer (SPEC 8.1)


def test_rule_catalogue_is_the_facts_file() -> None:
    model = contract_model(CONTRACT_VERSIONS[-1])
    assert [(r["id"], r["severity"]) for r in model.rules] == [(r.id, r.severity.value) for r in RULES.values()]


def test_failure_kinds_and_roles_follow_the_version() -> None:
    assert contract_model("1.0.0").failure_kinds is None
    assert set(contract_model("1.0.0").roles) == {"reward"}
    assert set(contract_model("1.1.0").roles) == {"reward", "failure_reason"}
    latest = contract_model("1.2.0")
    assert latest.role("legacy_mask") is not None and latest.role("legacy_mask").deprecated_since == "1.2.0"
    assert latest.failure_kinds is not None
    assert "judge_failed" in {k["id"] for k in latest.failure_kinds["registered"]}


def _sources() -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
    from generators.bundle import bundle, uses_registry
    from generators.model import _kind_data, contract_facts
    from generators.registry import failure_kinds_schema, load_registry

    versions = paths.contract_versions()
    kinds = load_registry(paths.REGISTRY_FILE, versions)
    bundles = {}
    for version in versions:
        source = json.loads((paths.VERSIONS_DIR / version / paths.VERIFY_RESPONSE_FILE).read_text(encoding="utf-8"))
        bundles[version] = bundle(source, failure_kinds_schema(kinds, version) if uses_registry(source) else None)
    return bundles, [_kind_data(k) for k in kinds], contract_facts()


def test_a_new_constrained_field_is_resolved_with_its_constraints_and_since() -> None:
    bundles, kinds, facts = _sources()
    latest = list(bundles)[-1]
    drill = copy.deepcopy(bundles[latest])
    drill["$defs"]["VerifyResponse"]["properties"]["attempts"] = {"type": "integer", "minimum": 1}
    bundles = {**bundles, "9.0.0": drill}
    model = resolve_model("9.0.0", bundles, kinds, facts, {"bundle": drill})
    field = next(f for f in model["fields"] if f["pointer"] == "/attempts")
    assert field["types"] == ["integer"] and field["constraints"] == {"minimum": 1}
    assert field["since"] == "9.0.0" and field["rules"]["invalid"] == [{"rule": "schema-violation"}]
    assert (
        model["source_hash"] != resolve_model(latest, bundles, kinds, facts, {"bundle": bundles[latest]})["source_hash"]
    )


def test_a_profile_narrowing_an_inherited_member_keeps_both_schemas() -> None:
    bundles, kinds, facts = _sources()
    latest = list(bundles)[-1]
    drill = copy.deepcopy(bundles[latest])
    drill["$defs"]["GymVerifyResponse"]["properties"]["reward"] = {"type": "number", "maximum": 1}
    with pytest.raises(ResolveError, match="differs between profiles"):
        resolve_model(latest, {**bundles, latest: drill}, kinds, facts, {})


def test_unresolvable_constructs_are_refused() -> None:
    bundles, kinds, facts = _sources()
    latest = list(bundles)[-1]
    drill = copy.deepcopy(bundles[latest])
    drill["$defs"]["VerifyResponse"]["properties"]["x"] = {
        "anyOf": [{"type": "string", "minLength": 2}, {"type": "null"}]
    }
    with pytest.raises(ResolveError, match="anyOf branch"):
        resolve_model(latest, {**bundles, latest: drill}, kinds, facts, {})
    drill["$defs"]["VerifyResponse"]["properties"]["x"] = {"$ref": "other.json"}
    with pytest.raises(ResolveError, match="not a local"):
        resolve_model(latest, {**bundles, latest: drill}, kinds, facts, {})


def test_budget_rules_rollout_keys_and_obligations_are_the_facts_file() -> None:
    from generators.model import contract_facts
    from verify_contract.budget import BUDGET_RULES, FAILURE_CLASS_KEY, IDENTITY_KEYS
    from verify_contract.conformance.obligations import OBLIGATIONS
    from verify_contract.conformance.producer import finding_obligation
    from verify_contract.findings import Finding, Severity

    facts, model = contract_facts(), contract_model(CONTRACT_VERSIONS[-1])
    assert {r["id"]: r["summary"] for r in facts["budget_rules"]} == BUDGET_RULES and BUDGET_RULES
    assert (
        tuple(facts["rollout_keys"]["identity"]),
        facts["rollout_keys"]["failure_class"],
    ) == (IDENTITY_KEYS, FAILURE_CLASS_KEY)
    assert [(o.id, o.section, o.level.value) for o in OBLIGATIONS.values()] == [
        (o["id"], o["section"], o["level"]) for o in facts["obligations"]
    ]
    assert [o["id"] for o in model.obligations] == [o["id"] for o in facts["obligations"]]
    # The conformance kit judges a warning by the obligation whose shown_by lists its rule, an error by
    # the `error` one, an error on a null by the `null-error` one.
    for obligation in facts["obligations"]:
        shown_by = obligation.get("shown_by")
        if isinstance(shown_by, list):
            for rule in shown_by:
                assert finding_obligation(Finding(rule, Severity.WARNING, "m")) == obligation["id"]
        elif shown_by == "error":
            assert (
                finding_obligation(Finding("reward-type", Severity.ERROR, "m", "/reward"), {"reward": "1"})
                == (obligation["id"])
            )
        elif shown_by == "null-error":
            assert (
                finding_obligation(Finding("reward-type", Severity.ERROR, "m", "/reward"), {"reward": None})
                == (obligation["id"])
            )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("unshown-warning", "show no producer obligation"),
        ("error-rule-shown", "is no warning rule"),
        ("warning-shown-twice", "is no warning rule, or is shown twice"),
        ("two-error-obligations", "exactly one obligation"),
        ("budget-id-reused", "rule ids repeated"),
        ("consumer-shown", "only a producer obligation"),
    ],
)
def test_obligations_and_budget_rules_that_cannot_hold_are_refused(change: str, message: str) -> None:
    bundles, kinds, facts = _sources()
    facts = copy.deepcopy(facts)
    by_id = {o["id"]: o for o in facts["obligations"]}
    listing = next(o for o in facts["obligations"] if isinstance(o.get("shown_by"), list))
    other = next(o for o in facts["obligations"] if o["role"] == "producer" and "shown_by" not in o)
    if change == "unshown-warning":
        listing["shown_by"] = listing["shown_by"][1:]
    elif change == "error-rule-shown":
        listing["shown_by"].append(next(r["id"] for r in facts["rules"] if r["severity"] == "error"))
    elif change == "warning-shown-twice":
        other["shown_by"] = [listing["shown_by"][0]]
    elif change == "two-error-obligations":
        other["shown_by"] = "error"
    elif change == "budget-id-reused":
        facts["budget_rules"].append({"id": facts["rules"][0]["id"], "summary": "s"})
    else:
        next(o for o in by_id.values() if o["role"] == "consumer")["shown_by"] = "error"
    latest = list(bundles)[-1]
    with pytest.raises(ResolveError, match=message):
        resolve_model(latest, bundles, kinds, facts, {})
