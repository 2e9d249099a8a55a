"""``upgrade``: rewrite a document from an older contract version to the latest, losslessly.

Two levels, one decision:

- ``upgrade(document)`` takes a parsed document and returns the upgraded one and the changes made (today:
  the top-level ``mask_sample`` written from the legacy ``instance_config.mask_sample``, or set to their OR).
- ``upgrade_text(raw)`` takes one document's JSON text and returns the upgraded text: the change ``upgrade``
  decides is spliced into the original text, so every other byte stays as it was (unknown keys, key order,
  whitespace, string escapes and number texts: ``1e2`` stays ``1e2``, ``1.10`` stays ``1.10``, a 30-digit
  integer keeps its digits). The spliced text is parsed back and must equal ``upgrade``'s document, key
  order included, or the document is refused (``UpgradeError``). ``verify-contract upgrade`` runs it on
  every line of its inputs.
"""

from __future__ import annotations

import copy
import json
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
from verify_contract.reference import parse_json, validate

__all__ = ["UpgradeError", "UpgradeResult", "upgrade", "upgrade_text"]


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


# -- the text: the change spliced into the document's own bytes ----------------------------------------------
_WS = " \t\n\r"
_DECODER = json.JSONDecoder()
_scanstring: Any = getattr(json.decoder, "scanstring")  # noqa: B009  # public, but untyped


@dataclass(frozen=True)
class _Member:
    key: str
    key_start: int
    key_end: int
    value_start: int
    value_end: int


def _skip(text: str, index: int) -> int:
    while index < len(text) and text[index] in _WS:
        index += 1
    return index


def _members(text: str) -> tuple[int, list[_Member]]:
    """Where the top-level object opens and where each of its members lies (the text is known valid)."""
    opening = _skip(text, 0)
    index = _skip(text, opening + 1)
    members: list[_Member] = []
    if text[index] == "}":
        return opening, members
    while True:
        key, key_end = _scanstring(text, index + 1)
        value_start = _skip(text, _skip(text, key_end) + 1)
        _, value_end = _DECODER.raw_decode(text, value_start)
        members.append(_Member(key, index, key_end, value_start, value_end))
        index = _skip(text, value_end)
        if text[index] == "}":
            return opening, members
        index = _skip(text, index + 1)


def _splice(text: str, key: str, value: str) -> str:
    """Set a top-level member's value, or append the member in the document's own style."""
    opening, members = _members(text)
    for member in members:
        if member.key == key:
            return text[: member.value_start] + value + text[member.value_end :]
    if not members:
        return text[: opening + 1] + json.dumps(key) + ": " + value + text[opening + 1 :]
    last = members[-1]
    colon = text[last.key_end : last.value_start]
    if len(members) > 1:
        separator = text[members[-2].value_end : last.key_start]
    else:
        separator = "," + (text[opening + 1 : last.key_start] or (" " if " " in colon else ""))
    return text[: last.value_end] + separator + json.dumps(key) + colon + value + text[last.value_end :]


def _same_json(left: Any, right: Any) -> bool:
    if isinstance(left, dict) and isinstance(right, dict):
        return list(left) == list(right) and all(_same_json(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(_same_json(a, b) for a, b in zip(left, right, strict=True))
    return type(left) is type(right) and left == right


def upgrade_text(raw: bytes, profile: Profile = DEFAULT_PROFILE) -> tuple[bytes, list[str]]:
    """The upgraded text of one document (UTF-8 JSON, as read: no line ending) and the changes made, every
    byte but the change kept; the text itself when nothing changes. Raises ``UpgradeError`` to refuse: the
    text is not strict JSON (SPEC 2.1, the finding's rule and message), the document cannot be upgraded
    (``upgrade``), or the change cannot be written without rewriting the rest of the text."""
    parsed = parse_json(raw)
    if parsed.finding is not None:
        raise UpgradeError(f"[{parsed.finding.rule}] {parsed.finding.message}")
    result = upgrade(parsed.document, profile)
    if not result.changed:
        return raw, []
    text = raw.decode("utf-8")
    for key, value in result.document.items():
        if key not in parsed.document or not _same_json(parsed.document[key], value):
            text = _splice(text, key, json.dumps(value, ensure_ascii=False))
    check = parse_json(text.encode("utf-8"))
    if check.finding is not None or not _same_json(check.document, result.document):
        raise UpgradeError("the upgrade cannot be written without rewriting the rest of the document")
    return text.encode("utf-8"), result.changes
