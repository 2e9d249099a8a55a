"""The effective mask: whether a consumer must treat the reward as not measuring the policy."""

from __future__ import annotations

from collections.abc import Mapping

from verify_contract.contract._model import contract_model
from verify_contract.generated import LATEST_VERSION

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from typing import Any


def _mask_roles() -> dict[str, tuple[str, ...]]:
    """Where the mask lives (role -> member path), as the latest contract declares it: the top-level mask
    first, then the legacy one. The effective mask reads both places whatever version a document follows."""
    model = contract_model(LATEST_VERSION)
    found: dict[str, tuple[str, ...]] = {}
    for role in ("mask", "legacy_mask"):
        field = model.role(role)
        if field is not None:
            found[role] = field.path
    return found


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
