from __future__ import annotations

import copy
from typing import Any

import pytest

from verify_contract import MaskTypeError, effective_mask
from verify_contract.codegen import renderer
from verify_contract.codegen._binding import contract_facts
from verify_contract.contract import (
    MASK_ROLES,
    contract_model,
    mask_locations,
    mask_paths,
    model_from_data,
    pointer_path,
)
from verify_contract.contract._versions import CONTRACT_VERSIONS


@pytest.mark.parametrize(
    ("document", "masked"),
    [
        ({}, False),
        ({"instance_config": None}, False),
        ({"instance_config": {"agent": "x"}}, False),
        ({"mask_sample": True}, True),
        ({"mask_sample": False, "instance_config": {"mask_sample": True}}, True),
        ({"mask_sample": True, "instance_config": {"mask_sample": False}}, True),
    ],
)
def test_effective_mask_is_top_level_or_legacy(document: dict[str, Any], masked: bool) -> None:
    assert effective_mask(document) is masked


@pytest.mark.parametrize(
    "document",
    [{"mask_sample": None}, {"mask_sample": "false"}, {"mask_sample": 0}, {"instance_config": {"mask_sample": None}}],
)
def test_non_boolean_masks_are_refused(document: dict[str, Any]) -> None:
    with pytest.raises(MaskTypeError):
        effective_mask(document)


# --- where the mask is read: one resolver for every reader ------------------------------------------------


def _shipped_models() -> dict[str, dict[str, Any]]:
    return {version: contract_model(version).raw for version in CONTRACT_VERSIONS}


def _next_without_legacy() -> dict[str, Any]:
    """A synthetic next version whose roles no longer name the legacy mask."""
    latest = copy.deepcopy(contract_model(CONTRACT_VERSIONS[-1]).raw)
    major, minor, _ = map(int, latest["version"].split("."))
    latest["version"] = f"{major}.{minor + 1}.0"
    latest["roles"] = {role: pointer for role, pointer in latest["roles"].items() if role != "legacy_mask"}
    return latest


def test_a_mask_role_is_read_where_the_newest_version_declaring_it_puts_it() -> None:
    assert mask_locations([{"mask": "/a"}, {"mask": "/b", "legacy_mask": "/c/d"}, {}]) == {
        "mask": "/b",
        "legacy_mask": "/c/d",
    }
    assert list(mask_locations([{"legacy_mask": "/c/d", "mask": "/b", "reward": "/r"}])) == list(MASK_ROLES)


def test_every_reader_of_the_mask_reads_the_same_places() -> None:
    """The Python runtime, the bindings' generated mask paths and ``verify-contract generate`` agree, also
    for a next version that stops declaring the legacy location (SPEC 4.2 keeps reading it in 1.x)."""
    shipped = _shipped_models()
    python_paths = [list(path) for path in mask_paths().values()]
    assert contract_facts(shipped)["mask_paths"] == python_paths and len(python_paths) == len(MASK_ROLES)
    following = _next_without_legacy()
    with_next = {**shipped, following["version"]: following}
    expected = mask_locations(model["roles"] for model in with_next.values())
    assert expected == mask_locations(model["roles"] for model in shipped.values())
    assert contract_facts(with_next)["mask_paths"] == [list(pointer_path(pointer)) for pointer in expected.values()]
    # ``verify-contract generate`` over a model the package does not ship reads the shipped versions too.
    request = renderer.Request("go", following["version"], following["default_profile"], model=following)
    generated = contract_facts(renderer._models(request, model_from_data(following)))
    assert generated["mask_paths"] == [list(pointer_path(pointer)) for pointer in expected.values()]
