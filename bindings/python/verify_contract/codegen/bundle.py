"""One self-contained schema document per version (and per profile): what the ``jsonschema`` target
writes and what the repository's bindings embed.

Code generators handle cross-file ``$ref`` poorly, so the registry enum (``failure_kinds.schema.json``)
moves into ``$defs/RegisteredFailureKind`` and the reference is rewritten to point at it.
"""

from __future__ import annotations

import copy
import json
from typing import Any

FAILURE_KINDS_FILE = "failure_kinds.schema.json"
REGISTERED_DEF = "RegisteredFailureKind"


def _rewrite_refs(node: Any) -> Any:
    if isinstance(node, dict):
        return {
            key: (
                f"#/$defs/{REGISTERED_DEF}" if key == "$ref" and value == FAILURE_KINDS_FILE else _rewrite_refs(value)
            )
            for key, value in node.items()
        }
    if isinstance(node, list):
        return [_rewrite_refs(item) for item in node]
    return node


def bundle(verify_response: dict[str, Any], failure_kinds: dict[str, Any] | None) -> dict[str, Any]:
    """The version's schema with the registry enum inlined (its root still only holds ``$defs``)."""
    bundled: dict[str, Any] = _rewrite_refs(copy.deepcopy(verify_response))
    if failure_kinds is not None:
        registered = {key: value for key, value in failure_kinds.items() if key not in ("$schema", "$id")}
        bundled["$defs"][REGISTERED_DEF] = registered
    return bundled


def profile_bundle(bundled: dict[str, Any], definition: str) -> dict[str, Any]:
    """A bundle whose root validates one profile (``$ref`` to its definition), without the ``$id`` of
    the released file: a copy in someone else's tree must not claim the project's URL."""
    document = {key: value for key, value in bundled.items() if key not in ("$id", "$defs")}
    document["$ref"] = f"#/$defs/{definition}"
    document["$defs"] = bundled["$defs"]
    return document


def uses_registry(verify_response: dict[str, Any]) -> bool:
    return FAILURE_KINDS_FILE in json.dumps(verify_response)


def dump_json(document: Any) -> str:
    """The one JSON layout of every generated JSON file: 2-space indent, trailing newline."""
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
