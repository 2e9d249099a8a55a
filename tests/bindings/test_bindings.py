"""The generated pydantic models and TypedDicts: public names and the known codegen pitfalls."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from pydantic import ValidationError

from verify_contract import CONTRACT_VERSIONS, PROFILES, failure_kinds, model_class, typeddict_adapter, validate
from verify_contract import models as latest
from verify_contract.generated import v1_0_0, v1_1_0, v1_2_0

# Public class names per version: a rename breaks importers even when the JSON is unchanged.
PUBLIC_NAMES = {
    v1_0_0: {"VerifyResponse", "GymVerifyResponse", "ResponsesCreateParams", "Response"},
    v1_1_0: {"VerifyResponse", "GymVerifyResponse", "ResponsesCreateParams", "Response"},
    v1_2_0: {
        "VerifyResponse",
        "GymVerifyResponse",
        "ResponsesCreateParams",
        "Response",
        "InstanceConfig",
        "RegisteredFailureKind",
        "FailureKindName",
    },
}


@pytest.mark.parametrize("module", list(PUBLIC_NAMES), ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_public_names_are_stable(module: Any) -> None:
    for kind in ("models", "typeddicts"):
        defined = {name for name in vars(getattr(module, kind)) if name[:1].isupper()}
        assert PUBLIC_NAMES[module] <= defined, kind
    assert issubclass(module.models.GymVerifyResponse, module.models.VerifyResponse)


def test_latest_alias_module() -> None:
    assert latest.VerifyResponse is v1_2_0.models.VerifyResponse
    assert latest.GymVerifyResponse is model_class(CONTRACT_VERSIONS[-1], "gym")


def test_fields_per_version() -> None:
    assert set(v1_0_0.models.VerifyResponse.model_fields) == {"reward"}
    assert set(v1_1_0.models.VerifyResponse.model_fields) == {"reward", "failure_reason"}
    assert set(v1_2_0.models.VerifyResponse.model_fields) == {
        "reward",
        "mask_sample",
        "failure_kind",
        "failure_reason",
        "instance_config",
    }


def test_dump_never_writes_null_for_absent_non_nullable_fields() -> None:
    model = latest.VerifyResponse(reward=0.0)
    dumped = model.model_dump(mode="json")  # the plain dump, not only to_document()
    assert dumped == {"reward": 0.0, "mask_sample": False}
    assert validate(dumped, profile="core").valid
    config = latest.InstanceConfig()
    assert config.model_dump(mode="json") == {}


def test_constructed_model_is_a_valid_document() -> None:
    model = latest.GymVerifyResponse(
        reward=0.0,
        mask_sample=True,
        failure_kind=failure_kinds.JUDGE_FAILED,
        failure_reason="judge returned 503",
        responses_create_params=latest.ResponsesCreateParams(input="hi"),
        response=latest.Response(output=[]),
        resolved=False,
    )
    document = model.to_document()
    assert document["failure_kind"] == "judge_failed"
    assert document["resolved"] is False
    assert validate(document, profile="gym").valid


@pytest.mark.parametrize(
    "bad",
    [
        {"reward": True},
        {"reward": "0.5"},
        {"reward": None},
        {"reward": float("nan")},
        {"reward": float("inf")},
        {"reward": 0.0, "mask_sample": "yes"},
        {"reward": 0.0, "mask_sample": 1},
        {"reward": 0.0, "mask_sample": None},
        {"reward": 0.0, "failure_kind": "Not A Name"},
        {"reward": 0.0, "failure_reason": 7},
    ],
)
@pytest.mark.parametrize("binding", ["model", "typeddict"])
def test_lax_coercions_rejected(bad: dict[str, Any], binding: str) -> None:
    with pytest.raises(ValidationError):
        if binding == "model":
            latest.VerifyResponse.model_validate(bad)
        else:
            typeddict_adapter(CONTRACT_VERSIONS[-1], "core").validate_python(bad)


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity", "1e400"])
def test_model_validate_json_refuses_non_finite_reward(token: str) -> None:
    with pytest.raises(ValidationError):
        latest.VerifyResponse.model_validate_json(f'{{"reward": {token}}}')


def test_registered_kind_is_enum_member_unknown_stays_str() -> None:
    known = latest.VerifyResponse.model_validate({"reward": 0.0, "failure_kind": "session_lost"})
    assert known.failure_kind is latest.RegisteredFailureKind.session_lost
    unknown = latest.VerifyResponse.model_validate({"reward": 0.0, "failure_kind": "usersim:scorer_inconclusive"})
    assert type(unknown.failure_kind) is str
    assert unknown.to_document()["failure_kind"] == "usersim:scorer_inconclusive"


def test_registry_constants_match_enum() -> None:
    ids = {kind.id for kind in failure_kinds.KINDS}
    assert ids == {member.value for member in latest.RegisteredFailureKind}
    assert failure_kinds.SESSION_LOST == "session_lost"


def test_unknown_keys_kept_in_nested_objects() -> None:
    document = {
        "reward": 1,
        "responses_create_params": {"input": "x", "new_api_field": {"a": 1}},
        "response": {"output": [{"type": "message"}], "usage": {"total": 3}},
        "instance_config": {"mask_sample": True, "agent": "openhands"},
        "z_last": [1, {"b": None}],
    }
    out = latest.GymVerifyResponse.model_validate(document).to_document()
    assert out == {**document, "reward": 1.0}
    # pydantic writes declared fields first, in schema order, then unknown keys in their input order:
    # values are kept, member order is not part of a JSON object's value (RFC 8259 section 4).
    assert [key for key in out if key == "z_last"] == ["z_last"]
    assert list(out["response"]) == ["output", "usage"]


def test_legacy_mask_access_warns_deprecated() -> None:
    config = latest.InstanceConfig.model_validate({"mask_sample": True})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert config.mask_sample is True
    assert any(issubclass(w.category, DeprecationWarning) for w in caught)


@pytest.mark.parametrize("version", CONTRACT_VERSIONS)
@pytest.mark.parametrize("profile", PROFILES)
def test_every_version_and_profile_has_bindings(version: str, profile: str) -> None:
    assert model_class(version, profile).__name__ in {"VerifyResponse", "GymVerifyResponse"}  # type: ignore[arg-type]
    typeddict_adapter(version, profile)  # type: ignore[arg-type]
