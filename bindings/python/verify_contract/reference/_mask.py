"""The effective mask: whether a consumer must treat the reward as not measuring the policy."""

from __future__ import annotations

from collections.abc import Mapping

from verify_contract.contract import contract_model, mask_locations
from verify_contract.generated import CONTRACT_VERSIONS

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from typing import Any


def _mask_roles() -> dict[str, tuple[str, ...]]:
    """Where the mask lives (role -> member path): the top-level mask first, then the legacy one, as
    ``contract.mask_locations`` resolves them over the shipped versions (as every binding does). The
    effective mask reads every place whatever version a document follows."""
    locations = mask_locations(contract_model(version).roles for version in CONTRACT_VERSIONS)
    return {role: tuple(pointer.strip("/").split("/")) for role, pointer in locations.items()}


MASK_ROLES = _mask_roles()


class MaskTypeError(TypeError):
    """A mask field holds a non-boolean: the document is invalid and its mask must not be guessed."""


def _flag(document: Mapping[str, Any], path: tuple[str, ...]) -> bool:
    """The boolean at ``path``; absent (or under a container that is not an object) is false, anything but
    a boolean is refused."""
    container: Any = document
    for part in path[:-1]:
        container = container.get(part)
        if not isinstance(container, Mapping):
            return False
    if path[-1] not in container:
        return False
    value = container[path[-1]]
    if not isinstance(value, bool):
        raise MaskTypeError(f"{'.'.join(path)} is {value!r}, not a boolean; refuse the document rather than guess")
    return value


def effective_mask(document: Mapping[str, Any]) -> bool:
    """``mask_sample`` OR the legacy ``instance_config.mask_sample`` (read until contract 2.0).

    Absent means false, and so does an absent or null ``instance_config``. A present non-boolean (null
    included) raises ``MaskTypeError``: ``bool("false")`` is true, which is exactly the coercion the
    contract forbids. The two places are the model's ``mask`` and ``legacy_mask`` roles.
    """
    masked = False
    for path in MASK_ROLES.values():
        masked = _flag(document, path) or masked
    return masked
