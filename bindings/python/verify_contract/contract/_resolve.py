"""Resolve one contract version into its **resolved contract model**: plain JSON data that every tool and
binding reads instead of restating the contract's shape (as OpenTelemetry Weaver resolves its registry
once and feeds every template from it).

Inputs: the version's bundled schema (``$defs`` holding the registry enum), every version's bundle (for
``since``), the failure-kind registry and ``schema/contract.yaml``. The resolver follows local ``$ref``
and ``allOf``, so a field declared in one definition and inherited by a profile appears once, with the
profiles that declare and require it. docs/resolved-model.md documents the output, field by field.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

import regress

from verify_contract.contract._document import json_pointer, version_key

MODEL_FORMAT = "verify-contract-model/1"
JSON_TYPES = ("null", "boolean", "object", "array", "number", "string", "integer")
# Keywords that say nothing about validity (annotations); everything else a field's schema holds beyond its
# types is a constraint, kept verbatim, so a reader that does not know a keyword can refuse to judge.
ANNOTATIONS = frozenset(
    {"title", "description", "default", "deprecated", "examples", "$comment", "readOnly", "writeOnly"}
)
STRUCTURE = frozenset({"type", "$ref", "properties", "required", "additionalProperties", "allOf", "anyOf"})


def _constraints(flat: Mapping[str, Any]) -> dict[str, Any]:
    """What a schema asks of a value beyond its JSON types and its declared members (those are fields).

    Two structure keywords stay: an ``allOf`` of restated keywords that could not be merged, and an
    ``additionalProperties`` other than true (a closed object, or a schema for undeclared members)."""
    found = {k: v for k, v in flat.items() if k not in ANNOTATIONS | STRUCTURE}
    if "allOf" in flat:
        found["allOf"] = flat["allOf"]
    if flat.get("additionalProperties", True) is not True:
        found["additionalProperties"] = flat["additionalProperties"]
    return found


class ResolveError(ValueError):
    """The schema uses a construct the resolver cannot express in the model."""


def _canonical(document: Any) -> bytes:
    return json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def content_hash(sources: Mapping[str, Any]) -> str:
    """sha256 over the canonical JSON of every source, in name order: equal sources, equal hash."""
    digest = hashlib.sha256()
    for name in sorted(sources):
        digest.update(name.encode() + b"\0" + _canonical(sources[name]) + b"\0")
    return "sha256:" + digest.hexdigest()


class _Resolver:
    def __init__(self, bundle: Mapping[str, Any]) -> None:
        self.definitions: Mapping[str, Any] = bundle.get("$defs", {})

    def definition_name(self, ref: str) -> str:
        prefix = "#/$defs/"
        name = ref[len(prefix) :] if ref.startswith(prefix) else None
        if name is None or name not in self.definitions:
            raise ResolveError(f"$ref {ref!r} is not a local $defs entry")
        return name

    def flatten(self, schema: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
        """A schema with ``$ref`` and ``allOf`` merged in, and the definitions it named (outermost first)."""
        named: list[str] = []
        merged: dict[str, Any] = {}
        parts: list[Mapping[str, Any]] = [schema]
        while parts:
            part = parts.pop(0)
            if "$ref" in part:
                name = self.definition_name(part["$ref"])
                named.append(name)
                parts.append(self.definitions[name])
            for sub in part.get("allOf", []):
                parts.append(sub)
            for key, value in part.items():
                if key in ("$ref", "allOf"):
                    continue
                if key == "properties":
                    merged.setdefault("properties", {})
                    for member, sub in value.items():
                        # An inherited member restated by a profile: both schemas apply (allOf).
                        if member in merged["properties"]:
                            merged["properties"][member] = {"allOf": [merged["properties"][member], sub]}
                        else:
                            merged["properties"][member] = sub
                elif key == "required":
                    merged["required"] = sorted(set(merged.get("required", [])) | set(value))
                elif key == "type":
                    types = {value} if isinstance(value, str) else set(value)
                    merged["type"] = sorted(types & set(merged["type"])) if "type" in merged else sorted(types)
                elif key in ANNOTATIONS and key in merged:
                    continue  # the outermost annotation names the thing
                elif key in merged and _canonical(merged[key]) != _canonical(value):
                    merged.setdefault("allOf", []).append({key: value})
                else:
                    merged[key] = value
        return merged, named

    def value_schema(self, schema: Mapping[str, Any]) -> dict[str, Any]:
        """Types, constraints and names of one member's schema (``anyOf`` of alternatives folded in)."""
        flat, named = self.flatten(schema)
        alternatives = flat.pop("anyOf", None)
        result: dict[str, Any] = {"named": named, "flat": flat}
        if alternatives is None:
            result["types"] = _types(flat.get("type"))
            result["constraints"] = _constraints(flat)
            result["enum_ref"] = None
            return result
        # anyOf of alternatives: the contract's open enum (registered names | the name grammar | null).
        branches = [self.flatten(branch) for branch in alternatives]
        types: set[str] = set(_types(flat.get("type"))) if "type" in flat else set()
        union: set[str] = set()
        patterns: list[str] = []
        enums: list[tuple[str | None, list[Any]]] = []
        for branch, branch_named in branches:
            if "const" in branch and branch["const"] is None and "type" not in branch:
                branch = {**{k: v for k, v in branch.items() if k != "const"}, "type": "null"}  # {const: null}
            extra = {k for k in branch if k not in ANNOTATIONS | {"type", "pattern", "enum"}}
            if extra:
                raise ResolveError(f"anyOf branch with {sorted(extra)} cannot be resolved")
            union |= set(_types(branch.get("type")))
            if "pattern" in branch:
                patterns.append(branch["pattern"])
            if "enum" in branch:
                enums.append((branch_named[0] if branch_named else None, branch["enum"]))
        if types:
            union &= types
        if len(patterns) > 1:
            raise ResolveError("anyOf with more than one pattern cannot be resolved")
        constraints: dict[str, Any] = _constraints(flat)  # what applies beside the alternatives
        if {"pattern", "enum"} & set(constraints):
            raise ResolveError("pattern or enum beside anyOf cannot be resolved")
        enum_ref = None
        if patterns:
            grammar = _ecma_regex(patterns[0])
            for name, values in enums:
                # A registered name must be well formed, so the enum branch adds no valid string.
                if any(not isinstance(v, str) or grammar.find(v) is None for v in values):
                    raise ResolveError(f"enum values of {name} outside the pattern {patterns[0]!r}")
                enum_ref = name
            constraints["pattern"] = patterns[0]
        elif enums:
            constraints["enum"] = sorted({v for _, values in enums for v in values}, key=str)
        result["types"] = sorted(union, key=JSON_TYPES.index)
        result["constraints"] = constraints
        result["enum_ref"] = enum_ref
        return result


def _ecma_regex(pattern: str) -> regress.Regex:
    """``pattern`` as the schema means it: ECMA-262, matching anywhere unless anchored (JSON Schema
    2020-12, 6.3.3), as the reference validator evaluates it. Python's ``re`` differs (``\\w`` and ``\\d``
    match non-ASCII letters and digits, ``(?<name>`` is a syntax error), so it could pass a registered
    name the schema refuses."""
    try:
        return regress.Regex(pattern)
    except regress.RegressError as error:
        raise ResolveError(f"pattern {pattern!r} is not an ECMA-262 regular expression: {error}") from error


def _types(declared: Any) -> list[str]:
    if declared is None:
        return list(JSON_TYPES[:-1])  # any JSON value ("integer" is a subset of "number")
    types = [declared] if isinstance(declared, str) else list(declared)
    return sorted(set(types), key=JSON_TYPES.index)


def _rule_for(
    rules: list[dict[str, Any]], pointer: str, keyword: str, member: str | None = None
) -> list[dict[str, Any]]:
    """The rules a violation at ``pointer`` maps to: ``[{"instance": [...]?, "rule": id}]``, first match wins."""
    matches: list[dict[str, Any]] = []
    for rule in rules:
        for where in rule.get("where", []):
            if where.get("pointer") != pointer:
                continue
            wanted = where.get("keyword")
            if keyword == "required":
                if wanted != "required" or where.get("member", member) != member:
                    continue
            elif wanted not in (None, keyword):
                continue
            entry: dict[str, Any] = {"rule": rule["id"]}
            if "instance" in where:
                entry["instance"] = list(where["instance"])
            matches.append(entry)
            if "instance" not in where:
                return matches
    fallback = next(rule["id"] for rule in rules if rule.get("scope") == "fallback")
    return [*matches, {"rule": fallback}]


def _since(pointer: str, key: str | None, history: Mapping[str, Mapping[str, dict[str, Any]]]) -> str | None:
    """The first version whose field at ``pointer`` has ``key`` truthy (``key`` None: exists)."""
    for version, fields in history.items():
        field = fields.get(pointer)
        if field is not None and (key is None or field.get(key)):
            return version
    return None


def _fields(bundle: Mapping[str, Any], profiles: Mapping[str, Any]) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    """Every member any profile declares, at every depth, keyed by pointer; and each profile's requirements."""
    resolver = _Resolver(bundle)
    fields: dict[str, dict[str, Any]] = {}
    profile_out: dict[str, Any] = {}

    def walk(schema: Mapping[str, Any], path: list[str], profile: str, required_here: list[str]) -> None:
        value = resolver.value_schema(schema)
        flat = value["flat"]
        pointer = json_pointer(path)
        if path:
            field = fields.get(pointer)
            if field is None:
                field = fields[pointer] = {
                    "pointer": pointer,
                    "path": list(path),
                    "name": path[-1],
                    "parent": json_pointer(path[:-1]),
                    "types": value["types"],
                    "nullable": "null" in value["types"],
                    "constraints": value["constraints"],
                    "definition": value["named"][0] if value["named"] else None,
                    "enum_definition": value["enum_ref"],
                    "title": flat.get("title"),
                    "description": flat.get("description"),
                    "deprecated": bool(flat.get("deprecated", False)),
                    "profiles": [],
                    "required_in": [],
                }
                if "default" in flat:
                    field["default"] = flat["default"]
                if "object" in value["types"]:
                    # Stated or not (true): bindings keep unknown members only of an open object.
                    field["additional_properties"] = flat.get("additionalProperties")
            elif _canonical([field["types"], field["constraints"]]) != _canonical(
                [value["types"], value["constraints"]]
            ):
                raise ResolveError(f"{pointer} differs between profiles; the model holds one schema per field")
            field["profiles"].append(profile)
            if path[-1] in required_here:
                field["required_in"].append(profile)
        for member in flat.get("properties", {}):
            walk(flat["properties"][member], [*path, member], profile, flat.get("required", []))
        unknown_required = [m for m in flat.get("required", []) if m not in flat.get("properties", {})]
        if unknown_required:
            raise ResolveError(f"{pointer or '/'} requires undeclared members {unknown_required}")

    for profile, facts in profiles.items():
        root = {"$ref": f"#/$defs/{facts['definition']}"}
        flat, _ = resolver.flatten(root)
        requirements: dict[str, list[str]] = {}
        _collect_required(resolver, root, [], requirements)
        walk(root, [], profile, [])
        profile_out[profile] = {
            "definition": facts["definition"],
            "summary": facts.get("summary"),
            "required": requirements.get("", []),
            "nested_required": {k: v for k, v in requirements.items() if k},
            "additional_properties": flat.get("additionalProperties"),
        }
    return fields, profile_out


def _collect_required(
    resolver: _Resolver, schema: Mapping[str, Any], path: list[str], into: dict[str, list[str]]
) -> None:
    sub, _ = resolver.flatten(schema)
    if sub.get("required"):
        into[json_pointer(path)] = sorted(sub["required"])
    for member, member_schema in sub.get("properties", {}).items():
        _collect_required(resolver, member_schema, [*path, member], into)


def _definitions(bundle: Mapping[str, Any]) -> dict[str, Any]:
    """Each ``$defs`` entry by its unresolved name: what a binding names a class or a type after."""
    resolver = _Resolver(bundle)
    out: dict[str, Any] = {}
    for name, schema in bundle.get("$defs", {}).items():
        flat, named = resolver.flatten(schema)
        out[name] = {
            "title": schema.get("title", name),
            "description": schema.get("description"),
            "types": _types(flat.get("type")) if "anyOf" not in flat else None,
            "extends": [n for n in named if n != name],
            "properties": list(flat.get("properties", {})),
            "own_properties": list(schema.get("properties", {})),
            "required": sorted(flat.get("required", [])),
            "additional_properties": flat.get("additionalProperties"),
            "constraints": _constraints(flat),
        }
    return out


def resolve_model(
    version: str,
    bundles: Mapping[str, Mapping[str, Any]],
    kinds: Sequence[Mapping[str, Any]],
    facts: Mapping[str, Any],
    sources: Mapping[str, Any],
) -> dict[str, Any]:
    """The resolved model of ``version``.

    ``bundles``: every version's bundle, oldest first (``version`` among them); ``kinds``: the registry's
    kinds as plain data (id, domain, brief, stability, added_in, deprecated {in, reason, renamed_to?, note?});
    ``facts``: schema/contract.yaml; ``sources``: the files the model is resolved from, for its hash.
    """
    versions = list(bundles)
    profiles = facts["profiles"]
    history = {v: _fields(bundles[v], profiles)[0] for v in versions[: versions.index(version) + 1]}
    fields, profile_out = _fields(bundles[version], profiles)
    rules = facts["rules"]
    for pointer, field in fields.items():
        field["since"] = _since(pointer, None, history)
        field["deprecated_since"] = _since(pointer, "deprecated", history) if field["deprecated"] else None
        field["rules"] = {
            "missing": _rule_for(rules, field["parent"], "required", field["name"])[0]["rule"]
            if field["required_in"]
            else None,
            "type": _rule_for(rules, pointer, "type"),
            "invalid": _rule_for(rules, pointer, "invalid"),
        }
    roles = {role: pointer for role, pointer in facts["roles"].items() if pointer in fields}
    key = version_key(version)
    known = [k for k in kinds if version_key(k["added_in"]) <= key]
    definitions = _definitions(bundles[version])
    kind_facts = facts["failure_kind"]
    grammar_def = definitions.get(kind_facts["name_definition"])
    failure_kinds = None
    if "failure_kind" in roles and grammar_def is not None:
        failure_kinds = {
            "grammar": grammar_def["constraints"].get("pattern"),
            "namespace_separator": kind_facts["namespace_separator"],
            "registered_definition": kind_facts["registered_definition"],
            "registered": [
                {
                    "id": k["id"],
                    "domain": k["domain"],
                    "brief": k["brief"],
                    "stability": k["stability"],
                    "added_in": k["added_in"],
                    "deprecated": (
                        {
                            key_: k["deprecated"][key_]
                            for key_ in ("in", "reason", "renamed_to")
                            if key_ in k["deprecated"]
                        }
                        if k.get("deprecated") and version_key(k["deprecated"]["in"]) <= key
                        else None
                    ),
                }
                for k in known
            ],
        }
    return {
        "format": MODEL_FORMAT,
        "version": version,
        "source_hash": content_hash(sources),
        "default_profile": facts["default_profile"],
        "limits": dict(facts["limits"]),
        "profiles": profile_out,
        "document_rules": {"type": _rule_for(rules, "", "type"), "invalid": _rule_for(rules, "", "invalid")},
        "fields": list(fields.values()),
        "roles": roles,
        "failure_kinds": failure_kinds,
        "rules": [
            {k: rule[k] for k in ("id", "severity", "summary", "scope", "role", "where") if k in rule} for rule in rules
        ],
        "budget_rules": [{"id": rule["id"], "summary": rule["summary"]} for rule in facts["budget_rules"]],
        "rollout_keys": {
            "identity": list(facts["rollout_keys"]["identity"]),
            "failure_class": facts["rollout_keys"]["failure_class"],
        },
        "obligations": _obligations(facts),
        "definitions": definitions,
    }


OBLIGATION_KEYS = ("id", "role", "section", "level", "text", "checked", "shown_by")
SHOWN_BY_FINDINGS = ("error", "null-error")


def _obligations(facts: Mapping[str, Any]) -> list[dict[str, Any]]:
    """SPEC 4.1's and 4.2's obligations, checked against the rules: a producer obligation is shown broken by
    any error, by an error on a null, or by named warning rules, and every warning rule shows exactly one."""
    rules = {rule["id"]: rule for rule in facts["rules"]}
    ids = [*rules, *(rule["id"] for rule in facts["budget_rules"])]
    if len(set(ids)) != len(ids):
        raise ResolveError(f"rule ids repeated: {sorted({i for i in ids if ids.count(i) > 1})}")
    out: list[dict[str, Any]] = []
    shown: dict[str, str] = {}
    for entry in facts["obligations"]:
        obligation = {"checked": True, **{k: entry[k] for k in OBLIGATION_KEYS if k in entry}}
        shown_by = obligation.get("shown_by")
        if shown_by is not None and obligation["role"] != "producer":
            raise ResolveError(f"obligation {obligation['id']}: only a producer obligation is shown by findings")
        if isinstance(shown_by, list):
            for rule in shown_by:
                if rules.get(rule, {}).get("severity") != "warning" or rule in shown:
                    raise ResolveError(f"obligation {obligation['id']}: {rule!r} is no warning rule, or is shown twice")
                shown[rule] = obligation["id"]
        elif shown_by is not None and shown_by not in SHOWN_BY_FINDINGS:
            raise ResolveError(f"obligation {obligation['id']}: shown_by {shown_by!r} is not a list of rules")
        out.append(obligation)
    for kind in SHOWN_BY_FINDINGS:
        if sum(o.get("shown_by") == kind for o in out) != 1:
            raise ResolveError(f"exactly one obligation must be shown by {kind!r}")
    unshown = [rule for rule, facts_ in rules.items() if facts_["severity"] == "warning" and rule not in shown]
    if unshown:
        raise ResolveError(f"warning rules that show no producer obligation broken: {unshown}")
    return out
