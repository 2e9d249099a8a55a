"""Bundle a version's schema files into one self-contained document.

Code generators handle cross-file ``$ref`` poorly (datamodel-code-generator names the referenced
module after its file), so each binding generator reads the bundle: the registry enum moves into
``$defs/RegisteredFailureKind`` and the reference is rewritten to point at it.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from generators.paths import FAILURE_KINDS_FILE, VERIFY_RESPONSE_FILE

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
    bundled: dict[str, Any] = _rewrite_refs(copy.deepcopy(verify_response))
    if failure_kinds is not None:
        registered = {key: value for key, value in failure_kinds.items() if key not in ("$schema", "$id")}
        bundled["$defs"][REGISTERED_DEF] = registered
    return bundled


def bundle_version_dir(version_dir: Path, failure_kinds: dict[str, Any] | None) -> dict[str, Any]:
    document = json.loads((version_dir / VERIFY_RESPONSE_FILE).read_text(encoding="utf-8"))
    return bundle(document, failure_kinds)


def local_definition(definitions: dict[str, Any], ref: str) -> tuple[str, dict[str, Any]] | None:
    """``(name, schema)`` of a ``#/$defs/<name>`` reference into a bundle, or None for any other reference."""
    prefix = "#/$defs/"
    name = ref[len(prefix) :] if ref.startswith(prefix) else None
    if name is None or name not in definitions:
        return None
    return name, definitions[name]


def uses_registry(verify_response: dict[str, Any]) -> bool:
    return FAILURE_KINDS_FILE in json.dumps(verify_response)


def dump_json(document: Any) -> str:
    """The one JSON layout of every generated JSON file: 2-space indent, trailing newline."""
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
