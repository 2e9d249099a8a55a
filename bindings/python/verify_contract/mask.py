"""The effective mask: whether a consumer must treat the reward as not measuring the policy."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class MaskTypeError(TypeError):
    """A mask field holds a non-boolean: the document is invalid and its mask must not be guessed."""


def _flag(value: Any, where: str) -> bool:
    if value is None:
        return False
    if not isinstance(value, bool):
        raise MaskTypeError(f"{where} is {value!r}, not a boolean; refuse the document rather than guess")
    return value


def effective_mask(document: Mapping[str, Any]) -> bool:
    """``mask_sample`` OR the legacy ``instance_config.mask_sample`` (read until contract 2.0).

    Absent means false. A present non-boolean raises ``MaskTypeError``: ``bool("false")`` is true,
    which is exactly the coercion the contract forbids.
    """
    top = document.get("mask_sample") if "mask_sample" in document else None
    if "mask_sample" in document and top is None:
        raise MaskTypeError("mask_sample is null, not a boolean; refuse the document rather than guess")
    masked = _flag(top, "mask_sample")
    config = document.get("instance_config")
    if isinstance(config, Mapping) and "mask_sample" in config:
        masked = _flag(config["mask_sample"], "instance_config.mask_sample") or masked
        if config["mask_sample"] is None:
            raise MaskTypeError("instance_config.mask_sample is null, not a boolean")
    return masked
