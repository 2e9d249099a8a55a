"""The template context of ``--profile all`` and of every version at once: what a binding that holds
every profile of a version in one package (as the repository's Go, Rust, TypeScript and Python
packages do) and a runtime that reads the contract's facts instead of naming its shape need.

- ``binding`` (profile ``all`` only): the version's object types merged across profiles, its open
  enums, pattern and enum definitions, and each profile's root type;
- ``contract`` (every request): the facts of the newest version the runtimes read (profiles, default
  profile, nesting limit, fallback rule, mask paths);
- ``versions`` (every request): each version, oldest first, with its roots, definitions, bundled schema
  and schema-rule table;
- ``registry`` (every request): the failure-kind registry as the newest version knows it, each kind with
  ``FailureKindInfo``'s fields, and those fields described as JSON (name, kind, allowed values, nullable).

All of it language-neutral: a language's spelling stays in its templates and macros.
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Mapping
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

from verify_contract.codegen.rule_table import schema_rules
from verify_contract.codegen.view import build_view
from verify_contract.contract import MASK_ROLES, FailureKindInfo, kind_info, mask_locations, version_key

Model = Mapping[str, Any]


def module_name(version: str) -> str:
    """``1.2.0`` -> ``v1_2_0``: a version as an identifier (a module or package name)."""
    return "v" + version.replace(".", "_")


def _unlisted_kind(kind: str) -> dict[str, Any]:
    """A registered value the registry has no entry for (only possible in a hand-made model)."""
    return {"id": kind, "brief": "", "stability": "stable", "added_in": "", "deprecated": None}


def _registered(model: Model) -> dict[str, dict[str, Any]]:
    return {kind["id"]: kind for kind in (model["failure_kinds"] or {}).get("registered", [])}


def merged_types(model: Model) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, str]]:
    """(structs, open enums, profile -> root type) of every profile of a version, each type once,
    in declaration order (profile by profile: the root, then each object where first met)."""
    structs: dict[str, dict[str, Any]] = {}
    unions: dict[str, dict[str, Any]] = {}
    roots: dict[str, str] = {}
    registered = _registered(model)
    for profile in model["profiles"]:
        view = build_view(dict(model), profile, named_objects=True)
        roots[profile] = view["root"]
        for obj in reversed(view["objects"]):
            structs.setdefault(obj["name"], {**obj, "profile": profile if obj["name"] == view["root"] else None})
            for member in obj["members"]:
                enum = member["open_enum"]
                if enum is not None and enum["name"] not in unions:
                    unions[enum["name"]] = {
                        "name": enum["name"],
                        "description": member["description"],
                        "registered": [registered.get(i, _unlisted_kind(i)) for i in enum["registered"]],
                        "pattern": member["checks"].get("pattern"),
                    }
    return list(structs.values()), list(unions.values()), roots


def string_definitions(model: Model) -> tuple[list[Any], list[Any]]:
    """(pattern definitions ``(name, definition)``, enum definitions ``(name, definition, kinds)``)
    among the model's ``$defs``."""
    registered = _registered(model)
    patterns, enums = [], []
    for name, definition in model["definitions"].items():
        if definition["types"] != ["string"]:
            continue
        constraints = definition["constraints"]
        if "enum" in constraints:
            enums.append((name, definition, [registered.get(v, _unlisted_kind(v)) for v in constraints["enum"]]))
        elif "pattern" in constraints:
            patterns.append((name, definition))
    return patterns, enums


def binding(model: Model) -> dict[str, Any]:
    """Every profile of one version, merged: the ``binding`` of a ``--profile all`` request."""
    structs, unions, roots = merged_types(model)
    patterns, enums = string_definitions(model)
    pattern_names = {definition["constraints"]["pattern"]: name for name, definition in patterns}
    for union in unions:
        ids = [kind["id"] for kind in union["registered"]]
        union["enum"] = next((name for name, _, kinds in enums if [kind["id"] for kind in kinds] == ids), None)
        union["pattern_name"] = pattern_names.get(union["pattern"] or "")
    for struct in structs:
        for member in struct["members"]:
            # What the member's type cannot say, for a language whose types carry no constraint.
            member["unchecked_by_type"] = [] if member["open_enum"] else sorted(member["constraints"])
    return {
        "structs": structs,
        "structs_bases_first": _bases_first(model, structs, roots),
        "unions": unions,
        "roots": roots,
        "definitions": {name: profile["definition"] for name, profile in model["profiles"].items()},
        "patterns": patterns,
        "enums": enums,
        # A checked pattern outside an open enum (whose decoder has its own), e.g. for a regexp import.
        "checks_patterns": any(
            "pattern" in member["checks"] or (member["item"] and "pattern" in member["item"]["checks"])
            for struct in structs
            for member in struct["members"]
            if not member["open_enum"]
        ),
    }


def _bases_first(model: Model, structs: list[dict[str, Any]], roots: dict[str, str]) -> list[dict[str, Any]]:
    """The structs in an order a language with class inheritance can define them: nested objects, then
    each profile's root after the root it extends. Each struct gets its ``base`` (the root type its
    profile's definition extends, or None) and ``own_members`` (the members it does not inherit as they are)."""
    root_of = {model["profiles"][profile]["definition"]: name for profile, name in roots.items()}
    by_name = {struct["name"]: struct for struct in structs}
    ordered = [s for s in structs if s["name"] not in roots.values()]
    for struct in ordered:
        struct.update(base=None, own_members=struct["members"])
    for profile, name in roots.items():
        struct = by_name[name]
        extends = model["definitions"][model["profiles"][profile]["definition"]]["extends"]
        base = next((root_of[d] for d in extends if d in root_of and root_of[d] != name), None)
        inherited = by_name[base]["members"] if base else []
        struct.update(base=base, own_members=[m for m in struct["members"] if m not in inherited])
        ordered.append(struct)
    placed: list[dict[str, Any]] = []
    while ordered:  # a root after its base (profiles may list the extending one first)
        ready = next(s for s in ordered if s["base"] is None or s["base"] in {p["name"] for p in placed})
        placed.append(ready)
        ordered.remove(ready)
    return placed


def ordered_models(models: Mapping[str, Model]) -> list[Model]:
    return [models[v] for v in sorted(models, key=version_key)]


def contract_facts(models: Mapping[str, Model]) -> dict[str, Any]:
    """What every binding's hand-written runtime reads instead of naming the contract's shape: the newest
    version's profiles (name -> ``$defs`` root, with its description), the default profile, the I-JSON
    nesting limit, the rule of a violation no other rule names, and where the effective mask is read
    (``contract.mask_locations`` of every version, in role order)."""
    ordered = ordered_models(models)
    latest = ordered[-1]
    view = build_view(dict(latest), latest["default_profile"], mask_locations(m["roles"] for m in ordered))
    fallback = [rule["id"] for rule in latest["rules"] if rule.get("scope") == "fallback"]
    if len(fallback) != 1:
        raise ValueError(f"contract {latest['version']}: expected one rule with scope fallback, found {fallback}")
    profiles = [
        {
            "name": name,
            "definition": facts["definition"],
            "description": latest["definitions"][facts["definition"]].get("description") or "",
        }
        for name, facts in latest["profiles"].items()
    ]
    return {
        "profiles": profiles,
        "default_profile": latest["default_profile"],
        "max_depth": latest["limits"]["max_depth"],
        "fallback_rule": fallback[0],
        "mask_paths": [view[role]["path"] for role in MASK_ROLES if view[role] is not None],
    }


def version_list(models: Mapping[str, Model], schemas: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Each version, oldest first: its name as an identifier, each profile's root type and ``$defs`` root, its
    schema-rule table and (when ``schemas`` has it) its bundled schema."""
    entries = []
    for model in ordered_models(models):
        version = model["version"]
        entry = {
            "version": version,
            "module": module_name(version),
            "roots": merged_types(model)[2],
            "definitions": {name: profile["definition"] for name, profile in model["profiles"].items()},
            "schema_rules": schema_rules(model),
        }
        if version in schemas:  # absent, not null: a template that needs it fails, naming the key
            entry["schema"] = dict(schemas[version])
        entries.append(entry)
    return entries


def _json_member(name: str, hint: Any) -> dict[str, Any]:
    """One field of a dataclass as JSON describes it: ``kind`` (``string`` or ``object``), ``enum`` (the values a
    ``Literal`` allows, else null), ``nullable`` and, for an object, its ``fields``."""
    alternatives = list(get_args(hint)) if get_origin(hint) in (Union, types.UnionType) else [hint]
    nullable = type(None) in alternatives
    (value,) = [alternative for alternative in alternatives if alternative is not type(None)]
    member: dict[str, Any] = {"name": name, "kind": "string", "enum": None, "nullable": nullable, "fields": None}
    if get_origin(value) is Literal and all(isinstance(allowed, str) for allowed in get_args(value)):
        member["enum"] = list(get_args(value))
    elif isinstance(value, type) and dataclasses.is_dataclass(value):
        member.update(kind="object", fields=json_fields(value))
    elif value is not str:
        raise TypeError(f"{name}: no JSON description of {value!r}")
    return member


def json_fields(cls: type) -> list[dict[str, Any]]:
    """The fields of a dataclass (``FailureKindInfo``), in order, as ``_json_member`` describes them."""
    hints = get_type_hints(cls)
    return [_json_member(field.name, hints[field.name]) for field in dataclasses.fields(cls)]


def registry(models: Mapping[str, Model]) -> dict[str, Any]:
    """The failure-kind registry as the newest version knows it (every kind registered up to it, every
    deprecation made up to it): ``kinds[]`` with ``FailureKindInfo``'s fields (a deprecation's as
    ``Deprecation``'s: ``since``, ``reason``, ``renamed_to``, ``note``), in registry order, and ``fields[]``,
    those fields described (``json_fields``) for a template that declares the entry's type."""
    latest = ordered_models(models)[-1]
    entries = (latest["failure_kinds"] or {}).get("registered", [])
    return {
        "kinds": [dataclasses.asdict(kind_info(dict(entry))) for entry in entries],
        "fields": json_fields(FailureKindInfo),
    }
