from __future__ import annotations

from typing import Any

import pytest

from verify_contract import MaskTypeError, effective_mask


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
