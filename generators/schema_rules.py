"""Per-version schema-rule tables: which SPEC rule id a schema violation at each location maps to.

Every binding maps its JSON Schema validator's errors to rule ids with one generic function fed by this
table, so no language re-types the mapping. Format (one JSON array per contract version, written into each
binding's generated files):

    {"pointer": "/failure_kind", "keyword": "type", "types": ["string", "null"], "rule": "failure-kind-type"}
    {"pointer": "/failure_kind", "keyword": "value", "rule": "failure-kind-format"}
    {"pointer": "/reward", "keyword": "required", "rule": "reward-required"}

``pointer`` is a JSON Pointer to the instance; ``keyword`` is ``required`` (the member at ``pointer`` is
missing), ``type`` (the value's JSON type is not one of ``types``; ``number`` admits integers) or
``value`` (the type is right, the value is not). A violation at a location without a row is
``schema-violation``. The rows are derived from the schema (locations, admitted types, required members)
and their rule ids from the reference validator (``verify_contract.validate``) by probing each location
with a minimal violating document, so the table follows the reference by construction.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from generators import paths
from generators.registry import FailureKind

PROFILE_DEFS = {"core": "VerifyResponse", "gym": "GymVerifyResponse"}
JSON_TYPES = ("object", "array", "string", "number", "boolean", "null")
# One probe value per JSON type; a "value" probe tries strings that no name grammar admits.
_TYPE_PROBES: dict[str, Any] = {"object": {}, "array": [], "string": "x", "number": 0.5, "boolean": True, "null": None}
_VALUE_PROBES: dict[str, list[Any]] = {"string": ["", "Not A Name!"], "number": [-1, 2]}


def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        ref = schema["$ref"]
        if not ref.startswith("#/"):
            raise ValueError(f"non-local $ref {ref!r} in a bundled schema")
        node: Any = root
        for part in ref[2:].split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
        schema = {**{k: v for k, v in schema.items() if k != "$ref"}, **node}
    return schema


def _merged(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    """The schema with its ``allOf`` members' properties and required lists folded in."""
    schema = _resolve(schema, root)
    properties = dict(schema.get("properties", {}))
    required = list(schema.get("required", []))
    for part in schema.get("allOf", []):
        inner = _merged(part, root)
        properties = {**inner.get("properties", {}), **properties}
        required = [*inner.get("required", []), *required]
    return {**schema, "properties": properties, "required": required}


def _types(schema: dict[str, Any], root: dict[str, Any]) -> list[str] | None:
    """The JSON types the schema admits, or None when it admits every type."""
    schema = _resolve(schema, root)
    if "anyOf" in schema:
        found: list[str] = []
        for branch in schema["anyOf"]:
            types = _types(branch, root)
            if types is None:
                return None
            found += [t for t in types if t not in found]
        return found
    declared = schema.get("type")
    if declared is None:
        return None
    types = [declared] if isinstance(declared, str) else list(declared)
    return ["number" if t == "integer" else t for t in types]


def _minimal(schema: dict[str, Any], root: dict[str, Any]) -> Any:
    """A small valid instance: required members only, each with a value of its first admitted type."""
    schema = _merged(schema, root)
    types = _types(schema, root) or ["null"]
    if types[0] != "object":
        return {"number": 0, "array": [], "string": "x", "boolean": False, "null": None}[types[0]]
    return {name: _minimal(schema["properties"].get(name, {}), root) for name in schema["required"]}


def _pointer(parts: list[str]) -> str:
    return "".join("/" + p.replace("~", "~0").replace("/", "~1") for p in parts)


def _set(document: Any, parts: list[str], value: Any, *, delete: bool = False) -> Any:
    if not parts:
        return value
    document = copy.deepcopy(document)
    node = document
    for part in parts[:-1]:
        node = node[part]
    if delete:
        del node[parts[-1]]
    else:
        node[parts[-1]] = value
    return document


def _probe(document: Any, version: str, profile: str) -> str | None:
    """The rule id of the single error the reference reports for ``document``, else None."""
    from verify_contract import validate

    errors = validate(document, version, profile).errors
    return errors[0].rule if len(errors) == 1 else None


def _walk(
    schema: dict[str, Any], root: dict[str, Any], parts: list[str], base: Any, version: str, profile: str
) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    schema = _merged(schema, root)
    types = _types(schema, root)
    if types is not None:
        wrong = next(value for kind, value in _TYPE_PROBES.items() if kind not in types)
        rule = _probe(_set(base, parts, wrong), version, profile)
        if rule is not None:
            rows.append({"pointer": _pointer(parts), "keyword": "type", "types": types, "rule": rule})
        for kind in types:
            for value in _VALUE_PROBES.get(kind, []):
                rule = _probe(_set(base, parts, value), version, profile)
                if rule is not None:
                    rows.append({"pointer": _pointer(parts), "keyword": "value", "rule": rule})
                    break
            else:
                continue
            break
    if types is not None and "object" not in types:
        return rows
    for name in schema.get("required", []):
        rule = _probe(_set(base, [*parts, name], None, delete=True), version, profile)
        if rule is not None:
            rows.append({"pointer": _pointer([*parts, name]), "keyword": "required", "rule": rule})
    for name, member in schema.get("properties", {}).items():
        # Probe the member inside a valid parent: the parent's own required members present.
        parent = _set(base, parts, _minimal(schema, root)) if parts else base
        nested = _set(parent, [*parts, name], _minimal(member, root))
        rows += _walk(member, root, [*parts, name], nested, version, profile)
    return rows


def schema_rules(version: str, bundled: dict[str, Any]) -> list[dict[str, Any]]:
    """The rule table of one version: the union of its profiles' rows (a location maps to one rule)."""
    table: dict[tuple[str, str], dict[str, Any]] = {}
    for profile, definition in PROFILE_DEFS.items():
        schema = bundled["$defs"][definition]
        for row in _walk(schema, bundled, [], _minimal(schema, bundled), version, profile):
            key = (row["pointer"], row["keyword"])
            if key in table and table[key] != row:
                raise RuntimeError(f"{version}: {key} maps to {table[key]} and {row} in different profiles")
            table[key] = row
    return sorted(table.values(), key=lambda row: (row["pointer"], row["keyword"]))


def _dump(value: Any) -> str:
    return json.dumps(value, indent=2) + "\n"


TS_FILE = paths.ROOT / "bindings" / "typescript" / "src" / "generated" / "schema_rules.ts"
GO_FILE = paths.ROOT / "bindings" / "go" / "schema_rules_gen.json"
RUST_FILE = paths.ROOT / "bindings" / "rust" / "src" / "generated" / "schema_rules.json"


def artifacts(
    bundles: dict[str, dict[str, Any]], registry: list[FailureKind], models: dict[str, dict[str, Any]]
) -> dict[Path, str]:
    """The tables of every version, as JSON (Go, Rust) and as a TypeScript module."""
    del registry, models
    tables = {version: schema_rules(version, bundles[version]) for version in sorted(bundles, key=paths.version_key)}
    typescript = (
        "// GENERATED by `python -m generators` (generators/schema_rules.py): do not edit.\n"
        "// Which rule id a schema violation at each location maps to, per contract version.\n\n"
        'import type { SchemaRule } from "../rules.js";\n\n'
        "export const SCHEMA_RULES: Readonly<Record<string, readonly SchemaRule[]>> = "
        f"{json.dumps(tables, indent=2)};\n"
    )
    return {GO_FILE: _dump(tables), RUST_FILE: _dump(tables), TS_FILE: typescript}
