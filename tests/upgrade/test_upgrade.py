from __future__ import annotations

import pytest

from verify_contract import LATEST_VERSION, UpgradeError, effective_mask, parse_json, upgrade, validate

from conftest import VECTORS


def test_legacy_only_mask_is_lifted_and_mirror_kept() -> None:
    document = {"reward": 1.0, "resolved": True, "instance_config": {"mask_sample": True, "agent": "oh"}}
    result = upgrade(document)
    assert result.document == {**document, "mask_sample": True}
    assert list(result.document)[:3] == ["reward", "resolved", "instance_config"]
    assert result.changes and "legacy" in result.changes[0]
    assert document == {"reward": 1.0, "resolved": True, "instance_config": {"mask_sample": True, "agent": "oh"}}
    assert validate(result.document, profile="core").rules == []


def test_divergent_masks_become_their_or() -> None:
    result = upgrade({"reward": 0.0, "mask_sample": False, "instance_config": {"mask_sample": True}})
    assert result.document["mask_sample"] is True
    assert result.document["instance_config"] == {"mask_sample": True}
    assert len(result.changes) == 1


def test_current_document_is_unchanged() -> None:
    document = {"reward": 1, "mask_sample": False, "x": [1, 2]}
    result = upgrade(document)
    assert result.document == document and not result.changed
    assert type(result.document["reward"]) is int


def test_refuses_what_it_cannot_upgrade() -> None:
    with pytest.raises(UpgradeError, match="failure_reason"):
        upgrade({"reward": 0.0, "failure_reason": 7})
    with pytest.raises(UpgradeError, match="boolean"):
        upgrade({"reward": 0.0, "instance_config": {"mask_sample": "true"}})
    with pytest.raises(UpgradeError):
        upgrade([{"reward": 0.0}])  # type: ignore[arg-type]


OLDER_VALID = [v for v in VECTORS if v.valid and v.contract_version != LATEST_VERSION and v.has_instance]


@pytest.mark.parametrize("vector", OLDER_VALID, ids=[v.id for v in OLDER_VALID])
def test_older_vectors_upgrade_or_refuse_loudly(vector: object) -> None:
    document = parse_json(vector.text).document  # type: ignore[attr-defined]
    if "later-field-type-conflict" in vector.tags:  # type: ignore[attr-defined]
        with pytest.raises(UpgradeError):
            upgrade(document)
        return
    result = upgrade(document)
    assert validate(result.document, LATEST_VERSION, vector.profile).valid  # type: ignore[attr-defined]
    assert effective_mask(result.document) is vector.effective_mask  # type: ignore[attr-defined]
    assert "legacy-mask-only" not in validate(result.document, LATEST_VERSION, "core").rules
