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
from generators.render import render, render_binding
from verify_contract.contract._failure_kind_info import FailureKindInfo

PACKAGE = paths.ROOT / "bindings" / "typescript"
GENERATED = PACKAGE / "src" / "generated"


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


def artifacts(
    bundles: dict[str, dict[str, Any]], kinds: list[FailureKindInfo], models: dict[str, dict[str, Any]]
) -> dict[Path, str]:
    """The types of each version and the runtime's facts (``typescript/version``, ``typescript/root``:
    rendered as ``verify-contract generate bindings/typescript --templates ... --profile all`` renders
    them); the bundled schemas and the registry as data (``typescript/tables``, contexts of their own)."""
    versions = sorted(bundles, key=paths.version_key)
    files: dict[Path, str] = {}
    for version in versions:
        module = render_binding("typescript/version", version, models, bundles, name=paths.module_name(version))
        files.update((GENERATED / name, text) for name, text in module.items())
    root = render_binding("typescript/root", versions[-1], models, bundles)
    files.update((GENERATED / name, text) for name, text in root.items())
    schemas = {"versions": versions, "bundles": bundles}
    files[GENERATED / "schemas.ts"] = render("typescript/tables/schemas.ts.j2", schemas)
    registry = _failure_kinds_context(kinds)
    files[GENERATED / "failure_kinds.ts"] = render("typescript/tables/failure_kinds.ts.j2", registry)
    return files
