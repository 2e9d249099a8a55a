"""The schema-rule tables of every version as JSON for the Go and Rust bindings (their rows:
verify_contract.codegen.rule_table, the same table every ``versions[]`` entry of ``verify-contract generate``'s
template context holds as ``schema_rules``; the TypeScript module is rendered from typescript/root)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from generators import paths
from generators.registry import FailureKindInfo
from verify_contract.codegen.rule_table import schema_rules


def _dump(value: Any) -> str:
    return json.dumps(value, indent=2) + "\n"


GO_FILE = paths.ROOT / "bindings" / "go" / "schema_rules_gen.json"
RUST_FILE = paths.ROOT / "bindings" / "rust" / "src" / "generated" / "schema_rules.json"


def artifacts(
    bundles: dict[str, dict[str, Any]], registry: list[FailureKindInfo], models: dict[str, dict[str, Any]]
) -> dict[Path, str]:
    """The tables of every version, as JSON (Go, Rust)."""
    del registry
    tables = {version: schema_rules(models[version]) for version in sorted(bundles, key=paths.version_key)}
    return {GO_FILE: _dump(tables), RUST_FILE: _dump(tables)}
