"""Reading a document: the one implementation every path of the package reads a verify response with.

The reference validator, ``check`` (its pure-Python path and the pre-check's table), the failure budget, the
probe and the ASGI middleware, ``upgrade``, the conformance kit and the trainer adapters all import these:

- member paths (``("instance_config", "mask_sample")``) and ``value_at``, with the one ``ABSENT`` value for
  "no value there";
- JSON Pointer (RFC 6901): ``json_pointer`` writes one from a path, ``pointer_path`` reads one back;
- the effective mask (SPEC 3.5, 7.1): read at every place the shipped versions give the model's mask roles
  (``MASK_ROLES``, resolved by ``mask_locations``), a non-boolean refused (``MaskTypeError``);
- contract versions in release order (``version_key``);
- the cap on a message's length (``MESSAGE_CAP``, ``cap``).

Light on purpose: ``check`` imports it at start-up, the generators before any model is written (the mask's
places are resolved on first use, not at import).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

from verify_contract.contract._model import contract_model

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import Any


# -- member paths ---------------------------------------------------------------------------------------------
class _Absent:
    """The type of ``ABSENT``: one value, false, shown as ``ABSENT`` (it stands in reprs and messages)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "ABSENT"

    def __bool__(self) -> bool:
        return False


ABSENT: Any = _Absent()
"""What ``value_at`` gives where a document has no value: a member missing, or a container on the way that is
not an object. Never ``None``, which is JSON's ``null``, a value."""

_OBJECT = (dict, Mapping)
"""What a JSON object is read as: a dict (what every JSON parser here gives, so it is tested first: one type
test), or any other ``Mapping`` (MappingProxyType, a caller's own class)."""


def value_at(document: Any, path: Sequence[str]) -> Any:
    """The value at a member path (``()``: the document itself), or ``ABSENT``."""
    for part in path:
        if not isinstance(document, _OBJECT) or part not in document:
            return ABSENT
        document = document[part]
    return document


# -- JSON Pointer ---------------------------------------------------------------------------------------------
def json_pointer(path: Iterable[str | int]) -> str:
    """The JSON Pointer (RFC 6901) of a path of member names and array indices: ``~`` and ``/`` escaped."""
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in path)


def pointer_path(pointer: str) -> tuple[str, ...]:
    """The reference tokens of a JSON Pointer, unescaped (``""``: the whole document, ``()``)."""
    if not pointer:
        return ()
    if not pointer.startswith("/"):
        raise ValueError(f"{pointer!r} is not a JSON Pointer (one is empty or starts with '/')")
    return tuple(token.replace("~1", "/").replace("~0", "~") for token in pointer[1:].split("/"))


# -- the effective mask ---------------------------------------------------------------------------------------
MASK_ROLES = ("mask", "legacy_mask")
"""The SPEC roles the effective mask is read at (SPEC 3.5), in the order they are read."""


def mask_locations(roles_by_version: Iterable[Mapping[str, str]]) -> dict[str, str]:
    """Where the effective mask is read (mask role -> JSON Pointer), from each version's roles, oldest first.

    The one resolver every reader of the mask uses (``effective_mask``, the pre-check's table, each binding's
    generated mask paths, ``verify-contract generate``, the site): a mask role is read where the newest version
    that declares it puts it, so every 1.x document is read at every location some version gave the mask
    (SPEC 4.2), whichever version the document follows."""
    found: dict[str, str] = {}
    for roles in roles_by_version:
        found.update({role: pointer for role, pointer in roles.items() if role in MASK_ROLES})
    return {role: found[role] for role in MASK_ROLES if role in found}


@cache
def mask_paths() -> dict[str, tuple[str, ...]]:
    """Where the effective mask is read (mask role -> member path) over the shipped versions: the top-level
    mask first, then the legacy one. Resolved on first use (the generators import this module before the
    models they write exist)."""
    from verify_contract.generated import CONTRACT_VERSIONS

    locations = mask_locations(contract_model(version).roles for version in CONTRACT_VERSIONS)
    return {role: pointer_path(pointer) for role, pointer in locations.items()}


class MaskTypeError(TypeError):
    """A mask field holds a non-boolean, or the document is not an object: it is invalid and its mask must not
    be guessed."""


def effective_mask(document: Mapping[str, Any]) -> bool:
    """``mask_sample`` OR the legacy ``instance_config.mask_sample`` (read until contract 2.0): SPEC 3.5.

    Absent means false, and so does an absent or null ``instance_config``. A present non-boolean (null
    included) raises ``MaskTypeError``: ``bool("false")`` is true, which is exactly the coercion the
    contract forbids; so does a document that is not an object (SPEC 2.1). The places are the model's mask
    roles (``mask_paths``), every one read.
    """
    if not isinstance(document, _OBJECT):
        raise MaskTypeError(f"a verify response is a JSON object, not {type(document).__name__}; refuse it")
    masked = False
    for path in mask_paths().values():
        value = value_at(document, path)
        if value is ABSENT:
            continue
        if value is not True and value is not False:
            shown = cap(repr(value), 60)
            raise MaskTypeError(f"{'.'.join(path)} is {shown}, not a boolean; refuse the document rather than guess")
        masked = masked or value
    return masked


# -- versions -------------------------------------------------------------------------------------------------
def version_key(version: str) -> tuple[int, ...]:
    """``1.10.0`` -> ``(1, 10, 0)``: contract versions in release order."""
    return tuple(int(part) for part in version.split("."))


# -- messages -------------------------------------------------------------------------------------------------
MESSAGE_CAP = 300
"""Characters of a message shown (a finding's, an input error's): a message may quote the offending value,
which may be megabytes, or a server's whole error page."""


def cap(text: str, limit: int = MESSAGE_CAP) -> str:
    """``text`` cut to ``limit`` characters, saying how many were left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text) - limit:,} more characters)"
