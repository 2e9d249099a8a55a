"""Bundle a version's schema files into one self-contained document (verify_contract.codegen.bundle:
the same code the ``jsonschema`` target of ``verify-contract generate`` runs)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from generators.paths import VERIFY_RESPONSE_FILE
from verify_contract.codegen.bundle import REGISTERED_DEF, bundle, dump_json, uses_registry

__all__ = ["REGISTERED_DEF", "bundle", "bundle_version_dir", "dump_json", "local_definition", "uses_registry"]


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
