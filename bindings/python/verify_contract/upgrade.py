"""``upgrade``: rewrite a document from an older contract version to the latest, losslessly."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from verify_contract.contract import (
    ABSENT,
    DEFAULT_PROFILE,
    LATEST_VERSION,
    MaskTypeError,
    Profile,
    effective_mask,
    json_pointer,
    mask_paths,
    value_at,
)
from verify_contract.generated.contract_names import ROLE_LEGACY_MASK, ROLE_MASK
from verify_contract.reference import validate


class UpgradeError(ValueError):
    """The document cannot be upgraded without losing or inventing information."""


@dataclass(frozen=True)
class UpgradeResult:
    document: dict[str, Any]
    changes: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.changes)


def _mirror_mask(document: dict[str, Any], top: tuple[str, ...], legacy: tuple[str, ...], masked: bool) -> str | None:
    """Write the effective mask at ``top`` when the legacy place holds a mask; the change made, if any."""
    top_holder = value_at(document, top[:-1])
    if value_at(document, legacy) is ABSENT or not isinstance(top_holder, dict):
        return None
    where = json_pointer(top)
    if top[-1] not in top_holder:
        top_holder[top[-1]] = masked
        return f"{where}: added {str(masked).lower()} from the legacy {'.'.join(legacy)}"
    if top_holder[top[-1]] is not masked:
        top_holder[top[-1]] = masked
        return f"{where}: false -> true, the OR of the top-level and legacy masks"
    return None


def upgrade(document: dict[str, Any], profile: Profile = DEFAULT_PROFILE) -> UpgradeResult:
    """Bring a document to the latest contract version.

    The mask's places are the model's ``mask`` and ``legacy_mask`` roles (``contract.mask_paths``):
    - A mask only in the legacy ``instance_config.mask_sample`` is written to the top level too.
    - A top-level mask that disagrees with the legacy one becomes their OR (the effective mask).
    - The legacy mirror, unknown keys, key order and numbers are kept as they are.
    Refuses (``UpgradeError``) a document that is invalid at the latest version for any other reason,
    e.g. ``failure_reason: 7``, which 1.0.0 allowed as an unknown key.
    """
    if not isinstance(document, dict):
        raise UpgradeError("a verify response is a JSON object")
    upgraded = copy.deepcopy(document)
    try:
        masked = effective_mask(upgraded)
    except MaskTypeError as error:
        raise UpgradeError(str(error)) from error
    top, legacy = (mask_paths().get(role) for role in (ROLE_MASK, ROLE_LEGACY_MASK))
    change = _mirror_mask(upgraded, top, legacy, masked) if top and legacy else None
    changes = [change] if change else []
    errors = validate(upgraded, LATEST_VERSION, profile).errors
    if errors:
        detail = "; ".join(f"{e.rule}: {e.message}" for e in errors)
        raise UpgradeError(f"not valid at {LATEST_VERSION} after upgrade: {detail}")
    return UpgradeResult(upgraded, changes)
