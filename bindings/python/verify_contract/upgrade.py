"""``upgrade``: rewrite a document from an older contract version to the latest, losslessly."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from verify_contract.contract._versions import LATEST_VERSION, Profile
from verify_contract.reference._mask import MaskTypeError, effective_mask
from verify_contract.reference._validation import validate


class UpgradeError(ValueError):
    """The document cannot be upgraded without losing or inventing information."""


@dataclass(frozen=True)
class UpgradeResult:
    document: dict[str, Any]
    changes: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.changes)


def upgrade(document: dict[str, Any], profile: Profile = "core") -> UpgradeResult:
    """Bring a document to the latest contract version.

    - A mask only in the legacy ``instance_config.mask_sample`` is written to the top level too.
    - A top-level mask that disagrees with the legacy one becomes their OR (the effective mask).
    - The legacy mirror, unknown keys, key order and numbers are kept as they are.
    Refuses (``UpgradeError``) a document that is invalid at the latest version for any other reason,
    e.g. ``failure_reason: 7``, which 1.0.0 allowed as an unknown key.
    """
    if not isinstance(document, dict):
        raise UpgradeError("a verify response is a JSON object")
    upgraded = copy.deepcopy(document)
    changes: list[str] = []
    try:
        masked = effective_mask(upgraded)
    except MaskTypeError as error:
        raise UpgradeError(str(error)) from error
    config = upgraded.get("instance_config")
    if isinstance(config, dict) and "mask_sample" in config:
        if "mask_sample" not in upgraded:
            upgraded["mask_sample"] = masked
            changes.append(f"/mask_sample: added {str(masked).lower()} from the legacy instance_config.mask_sample")
        elif upgraded["mask_sample"] is not masked:
            upgraded["mask_sample"] = masked
            changes.append("/mask_sample: false -> true, the OR of the top-level and legacy masks")
    errors = validate(upgraded, LATEST_VERSION, profile).errors
    if errors:
        detail = "; ".join(f"{e.rule}: {e.message}" for e in errors)
        raise UpgradeError(f"not valid at {LATEST_VERSION} after upgrade: {detail}")
    return UpgradeResult(upgraded, changes)
