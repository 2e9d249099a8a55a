"""Every conformance vector through the reference validator, the pydantic models and the TypedDicts."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from verify_contract import MaskTypeError, effective_mask, model_class, parse_json, typeddict_adapter, validate
from verify_contract.check import CheckOptions, check_chunk
from verify_contract.contract._model import contract_model
from verify_contract.contract._versions import LATEST_VERSION
from verify_contract.findings import Severity
from verify_contract.reference._jsonio import json_equal
from verify_contract.vectors import Vector

from conftest import VECTORS, vector_ids


def reference_verdict(vector: Vector) -> tuple[bool, list[str]]:
    parsed = parse_json(vector.text.encode("utf-8"))
    if parsed.finding is not None:
        return False, [parsed.finding.rule]
    result = validate(parsed.document, vector.contract_version, vector.profile)
    return result.valid, result.rules


@pytest.mark.parametrize("vector", VECTORS, ids=vector_ids(VECTORS))
def test_reference_validator(vector: Vector) -> None:
    valid, rules = reference_verdict(vector)
    assert (valid, rules) == (vector.valid, sorted(vector.findings)), vector.description


PINNED = [v for v in VECTORS if v.pointers is not None]


def test_missing_member_vectors_pin_their_pointers() -> None:
    """Every missing-member rule of the model has a vector pinning its pointer, and a nested one is pinned
    (SPEC 8.1)."""
    model = contract_model(LATEST_VERSION)
    missing_rules = {f.missing_rule for profile in model.profiles for f in model.fields_of(profile) if f.missing_rule}
    pinned = [(rule, pointer) for v in PINNED for rule, pointer in v.pointers or () if rule in missing_rules]
    assert {rule for rule, _ in pinned} == missing_rules
    assert any(pointer.count("/") > 1 for _, pointer in pinned), "no nested missing member is pinned"


@pytest.mark.parametrize("vector", PINNED, ids=vector_ids(PINNED))
@pytest.mark.parametrize("tool", ["validate", "check"])
def test_pointers(vector: Vector, tool: str) -> None:
    """``validate`` and ``check`` (composed from the wording table) find each error where the vector says."""
    if tool == "check":
        options = CheckOptions(vector.contract_version, vector.profile, max_findings=100)
        found = [item.finding for item in check_chunk(vector.text.encode() + b"\n", 1, vector.id, options).findings]
    else:
        parsed = parse_json(vector.text.encode("utf-8"))
        found = (
            [parsed.finding]
            if parsed.finding
            else validate(parsed.document, vector.contract_version, vector.profile).findings
        )
    errors = sorted((f.rule, f.pointer) for f in found if f.severity is Severity.ERROR)
    assert errors == list(vector.pointers or ()), vector.description


MASKED_OR_NOT = [v for v in VECTORS if v.valid and v.effective_mask is not None]
UNDEFINED_MASK = [v for v in VECTORS if v.valid and v.effective_mask is None]


@pytest.mark.parametrize("vector", MASKED_OR_NOT, ids=vector_ids(MASKED_OR_NOT))
def test_effective_mask(vector: Vector) -> None:
    assert effective_mask(parse_json(vector.text).document) is vector.effective_mask


@pytest.mark.parametrize("vector", UNDEFINED_MASK, ids=vector_ids(UNDEFINED_MASK))
def test_undefined_mask_is_refused(vector: Vector) -> None:
    """A document valid at an older version whose mask field is not a boolean has no mask to read."""
    with pytest.raises(MaskTypeError):
        effective_mask(parse_json(vector.text).document)


def test_json_equal() -> None:
    assert json_equal({"a": [1, {"b": None}]}, {"a": [1.0, {"b": None}]})
    assert not json_equal({"a": True}, {"a": 1})
    assert not json_equal([1, 2], [2, 1])
    assert not json_equal({"a": 1}, {"a": 1, "b": 2})


def _binding_verdicts(vector: Vector) -> dict[str, bool]:
    """Strict parse, then each binding. pydantic's own JSON parser keeps the last duplicate key, so
    bindings are fed the strictly parsed document; direct ``model_validate_json`` is checked below."""
    parsed = parse_json(vector.text)
    if not parsed.ok:
        return {"model": False, "typeddict": False}
    verdicts = {}
    try:
        model_class(vector.contract_version, vector.profile).model_validate(parsed.document)
        verdicts["model"] = True
    except ValidationError:
        verdicts["model"] = False
    try:
        typeddict_adapter(vector.contract_version, vector.profile).validate_python(parsed.document)
        verdicts["typeddict"] = True
    except ValidationError:
        verdicts["typeddict"] = False
    return verdicts


@pytest.mark.parametrize("vector", VECTORS, ids=vector_ids(VECTORS))
def test_bindings_agree_with_reference(vector: Vector) -> None:
    assert _binding_verdicts(vector) == {"model": vector.valid, "typeddict": vector.valid}


# pydantic's own JSON parser does not apply I-JSON (duplicates, surrogates, non-finite numbers outside
# float fields) nor the depth limit: the strict parser does, so only schema-level vectors go direct.
DIRECT = [v for v in VECTORS if not any(rule.startswith("json-") for rule in v.findings)]


@pytest.mark.parametrize("vector", DIRECT, ids=vector_ids(DIRECT))
def test_model_validate_json_agrees(vector: Vector) -> None:
    """pydantic's own JSON parser path: same verdicts, bar duplicate keys (which it cannot see)."""
    cls = model_class(vector.contract_version, vector.profile)
    try:
        cls.model_validate_json(vector.text)
        accepted = True
    except ValidationError:
        accepted = False
    assert accepted is vector.valid


ROUND_TRIP = [v for v in VECTORS if v.valid and v.round_trip]


@pytest.mark.parametrize("vector", ROUND_TRIP, ids=vector_ids(ROUND_TRIP))
def test_model_round_trip(vector: Vector) -> None:
    document = parse_json(vector.text).document
    model = model_class(vector.contract_version, vector.profile).model_validate(document)
    dumped = model.to_document()
    assert json_equal(dumped, document), vector.description
    assert json_equal(json.loads(model.model_dump_json(exclude_unset=True)), document)
    # the dump is itself a valid document
    assert validate(dumped, vector.contract_version, vector.profile).valid


@pytest.mark.parametrize("vector", ROUND_TRIP, ids=vector_ids(ROUND_TRIP))
def test_typeddict_round_trip(vector: Vector) -> None:
    document = parse_json(vector.text).document
    adapter = typeddict_adapter(vector.contract_version, vector.profile)
    dumped = adapter.dump_python(adapter.validate_python(document), mode="json")
    assert json_equal(dumped, document), vector.description
