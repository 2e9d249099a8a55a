"""The template generators (Go, Rust) refuse schema shapes they do not handle, loudly.

They render only the constructs the contract uses; a schema change outside that set must fail
generation instead of producing silently wrong code.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from generators import go_bindings, paths, rust_bindings
from generators.bundle import bundle
from generators.registry import failure_kinds_schema, load_registry

VERSIONS = paths.contract_versions()
KINDS = load_registry(paths.REGISTRY_FILE, VERSIONS)


def _bundles() -> dict[str, dict[str, Any]]:
    versions = VERSIONS
    kinds = KINDS
    result = {}
    for version in versions:
        source = json.loads((paths.VERSIONS_DIR / version / paths.VERIFY_RESPONSE_FILE).read_text(encoding="utf-8"))
        registered = failure_kinds_schema(kinds, version) if version == "1.2.0" else None
        result[version] = bundle(source, registered)
    return result


def _edit_latest(edit: Callable[[dict[str, Any]], None]) -> dict[str, dict[str, Any]]:
    bundles = copy.deepcopy(_bundles())
    edit(bundles["1.2.0"]["$defs"])
    return bundles


EDITS: dict[str, Callable[[dict[str, Any]], None]] = {
    "unknown keyword": lambda d: d["VerifyResponse"]["properties"]["reward"].update({"multipleOf": 0.5}),
    "remote ref": lambda d: d["VerifyResponse"]["properties"].update({"x": {"$ref": "https://example.invalid/s"}}),
    "oneOf": lambda d: d["VerifyResponse"]["properties"].update({"x": {"oneOf": [{"type": "string"}]}}),
}
GENERATORS = {"go": go_bindings.artifacts, "rust": rust_bindings.artifacts}


@pytest.mark.parametrize("language", sorted(GENERATORS))
def test_current_schemas_generate(language: str) -> None:
    assert GENERATORS[language](_bundles(), KINDS)


@pytest.mark.parametrize("edit", sorted(EDITS))
@pytest.mark.parametrize("language", sorted(GENERATORS))
def test_unsupported_shape_is_refused(language: str, edit: str) -> None:
    error = {"go": go_bindings.UnsupportedSchema, "rust": rust_bindings.UnsupportedSchema}[language]
    with pytest.raises(error):
        GENERATORS[language](_edit_latest(EDITS[edit]), KINDS)
