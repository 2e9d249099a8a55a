"""The effective mask: whether a consumer must treat the reward as not measuring the policy."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class MaskTypeError(TypeError):
    """A mask field holds a non-boolean: the document is invalid and its mask must not be guessed."""


def _flag(container: Mapping[str, Any], where: str) -> bool:
    """The boolean at ``container["mask_sample"]``; absent is false, anything but a boolean is refused."""
    if "mask_sample" not in container:
        return False
    value = container["mask_sample"]
    if not isinstance(value, bool):
        raise MaskTypeError(f"{where} is {value!r}, not a boolean; refuse the document rather than guess")
    return value


def effective_mask(document: Mapping[str, Any]) -> bool:
    """``mask_sample`` OR the legacy ``instance_config.mask_sample`` (read until contract 2.0).

    Absent means false, and so does an absent or null ``instance_config``. A present non-boolean (null
    included) raises ``MaskTypeError``: ``bool("false")`` is true, which is exactly the coercion the
    contract forbids.
    """
    masked = _flag(document, "mask_sample")
    config = document.get("instance_config")
    if isinstance(config, Mapping):
        masked = _flag(config, "instance_config.mask_sample") or masked
    return masked
