"""TypeScript bindings: types per contract version rendered from templates over the resolved model (as Go
and Rust: generators/templates/typescript/, both profiles merged by type name), schemas and kinds as data.

The types carry what TypeScript's types can say; every other constraint is checked by validation (ajv
over the bundled schema, which the runtime runs before decoding). Until contract model 1 the types came
from json-schema-to-typescript; the template keeps its public names: each profile's interface, each
definition's type, and an alias per field title (``Reward``, ``MaskSample``, ``FailureKind``, ...).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from generators import paths
from generators.binding_facts import merged_types, runtime_facts
from generators.registry import FailureKind
from generators.render import render
from generators.rust_bindings import string_definitions
from verify_contract.codegen.header import GeneratedHeader

PACKAGE = paths.ROOT / "bindings" / "typescript"
GENERATED = PACKAGE / "src" / "generated"


def _types_module(version: str, model: dict[str, Any]) -> str:
    structs, unions, _ = merged_types(model)
    patterns, enums = string_definitions(model)
    pattern_of = {definition["constraints"]["pattern"]: name for name, definition in patterns}
    for union in unions:
        ids = [kind["id"] for kind in union["registered"]]
        union["enum"] = next((name for name, _, kinds in enums if [k["id"] for k in kinds] == ids), None)
        union["pattern_type"] = pattern_of.get(union["pattern"] or "")
    declared = {obj["name"] for obj in structs} | {name for name, *_ in [*patterns, *enums]}
    for obj in structs:
        for member in obj["members"]:
            member["unchecked_by_type"] = [] if member["open_enum"] else sorted(member["constraints"])
    context = {
        "version": version,
        "header": GeneratedHeader("bindings/typescript", version, "all", model["source_hash"]).line(),
        "enums": enums,
        "patterns": patterns,
        "unions": unions,
        "declared": declared,
        "structs": structs,
    }
    return render("typescript/version.ts.j2", context)


def _contract_types_module(versions: list[str], models: dict[str, dict[str, Any]]) -> str:
    listed = [{"version": v, "module": paths.module_name(v), "roots": merged_types(models[v])[2]} for v in versions]
    return render("typescript/contract_types.ts.j2", {"versions": listed})


def _contract_module(models: dict[str, dict[str, Any]]) -> str:
    return render("typescript/contract.ts.j2", runtime_facts(models))


def artifacts(
    bundles: dict[str, dict[str, Any]], kinds: list[FailureKind], models: dict[str, dict[str, Any]]
) -> dict[Path, str]:
    versions = sorted(bundles, key=paths.version_key)
    files: dict[Path, str] = {}
    for version in versions:
        files[GENERATED / f"{paths.module_name(version)}.ts"] = _types_module(version, models[version])
    files[GENERATED / "schemas.ts"] = render("typescript/schemas.ts.j2", {"versions": versions, "bundles": bundles})
    files[GENERATED / "failure_kinds.ts"] = render("typescript/failure_kinds.ts.j2", {"kinds": kinds})
    files[GENERATED / "contract_types.ts"] = _contract_types_module(versions, models)
    files[GENERATED / "contract.ts"] = _contract_module(models)
    modules = [paths.module_name(v) for v in versions]
    files[GENERATED / "index.ts"] = render("typescript/index.ts.j2", {"modules": modules})
    return files
