"""TypeScript bindings: types per contract version rendered from templates over the resolved model (as Go
and Rust: generators/templates/typescript/, both profiles merged by type name), schemas and kinds as data.

The types carry what TypeScript's types can say; every other constraint is checked by validation (ajv
over the bundled schema, which the runtime runs before decoding). Until contract model 1 the types came
from json-schema-to-typescript; the template keeps its public names: each profile's interface, each
definition's type, and an alias per field title (``Reward``, ``MaskSample``, ``FailureKind``, ...).
"""

from __future__ import annotations

import dataclasses
import json
import re
import types
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

from generators import paths
from generators.binding_facts import merged_types, runtime_facts
from generators.render import render
from generators.rust_bindings import string_definitions
from verify_contract.codegen.header import GeneratedHeader
from verify_contract.contract._failure_kind_info import FailureKindInfo

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


def _camel(name: str) -> str:
    return re.sub(r"_([a-z])", lambda match: match.group(1).upper(), name)


TsType = list[Any]
"""A TypeScript type as the template writes it: its alternatives (``|``), each a type's text or an object
type's members, ``[(name, TsType), ...]``."""


def _ts_type(hint: Any) -> TsType:
    """The TypeScript type of a registry entry's Python type hint (``FailureKindInfo``'s, resolved)."""
    if hint is str:
        return ["string"]
    if hint is type(None):
        return ["null"]
    if get_origin(hint) is Literal:
        return [json.dumps(value) for value in get_args(hint)]
    if get_origin(hint) in (Union, types.UnionType):
        return [alternative for part in get_args(hint) for alternative in _ts_type(part)]
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return [_ts_members(hint, {})]
    raise TypeError(f"no TypeScript type for {hint!r}")


def _ts_members(cls: type, typed: dict[str, str]) -> list[tuple[str, TsType]]:
    """The members of a dataclass as a TypeScript object type's, camelCased (``typed``: a member's own type)."""
    hints = get_type_hints(cls)
    return [
        (_camel(f.name), [typed[f.name]] if f.name in typed else _ts_type(hints[f.name]))
        for f in dataclasses.fields(cls)
    ]


def _ts_value(name: str, value: Any) -> Any:
    """A registry entry's value as TypeScript: the id as its constant, a deprecation as an object literal's
    members (``[(name, value), ...]``), anything else as JSON."""
    if name == "id":
        return str(value).upper()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [(_camel(f.name), json.dumps(getattr(value, f.name))) for f in dataclasses.fields(value)]
    return json.dumps(value, ensure_ascii=False)


def _failure_kinds_context(kinds: list[FailureKindInfo]) -> dict[str, Any]:
    """The registry as the template writes it: the interface is FailureKindInfo's fields, camelCased (a kind's
    id typed as a registered kind), and each entry lists those fields' values, so the entry is typed once."""
    return {
        "kinds": kinds,
        "interface": _ts_members(FailureKindInfo, {"id": "RegisteredFailureKind"}),
        "entries": [
            [(_camel(f.name), _ts_value(f.name, getattr(kind, f.name))) for f in dataclasses.fields(kind)]
            for kind in kinds
        ],
    }


def _contract_types_module(versions: list[str], models: dict[str, dict[str, Any]]) -> str:
    listed = [{"version": v, "module": paths.module_name(v), "roots": merged_types(models[v])[2]} for v in versions]
    return render("typescript/contract_types.ts.j2", {"versions": listed})


def _contract_module(models: dict[str, dict[str, Any]]) -> str:
    return render("typescript/contract.ts.j2", runtime_facts(models))


def artifacts(
    bundles: dict[str, dict[str, Any]], kinds: list[FailureKindInfo], models: dict[str, dict[str, Any]]
) -> dict[Path, str]:
    versions = sorted(bundles, key=paths.version_key)
    files: dict[Path, str] = {}
    for version in versions:
        files[GENERATED / f"{paths.module_name(version)}.ts"] = _types_module(version, models[version])
    files[GENERATED / "schemas.ts"] = render("typescript/schemas.ts.j2", {"versions": versions, "bundles": bundles})
    files[GENERATED / "failure_kinds.ts"] = render("typescript/failure_kinds.ts.j2", _failure_kinds_context(kinds))
    files[GENERATED / "contract_types.ts"] = _contract_types_module(versions, models)
    files[GENERATED / "contract.ts"] = _contract_module(models)
    modules = [paths.module_name(v) for v in versions]
    files[GENERATED / "index.ts"] = render("typescript/index.ts.j2", {"modules": modules})
    return files
