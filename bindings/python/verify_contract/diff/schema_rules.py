"""Structural comparison of two versions' schema files, one rule per kind of change.

Scoped to the constructs the contract uses (objects, properties, ``type``, ``anyOf``, ``allOf``, ``enum``,
``$ref``, bounds, ``pattern``, annotations); anything else that changes is UNCLASSIFIED_CHANGE, never silence.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import regress

from verify_contract.findings import json_pointer

Emit = Callable[[str, str, str, str], None]
"""``emit(rule id, file, JSON pointer, message)``."""

ANY = "*"  # the type set of a schema without a type constraint
LOWER_BOUNDS = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties")
UPPER_BOUNDS = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties")
DOC_KEYS = ("description", "$comment", "examples")
HANDLED = {
    "$schema",
    "$id",
    "$defs",
    "title",
    "default",
    "deprecated",
    "$ref",
    "type",
    "anyOf",
    "allOf",
    "enum",
    "const",
    "pattern",
    "properties",
    "required",
    "additionalProperties",
    "items",
    *DOC_KEYS,
    *LOWER_BOUNDS,
    *UPPER_BOUNDS,
}
ID_VERSION = re.compile(r"/\d+\.\d+\.\d+/")


@cache
def _regex(pattern: str) -> regress.Regex | None:
    try:
        return regress.Regex(pattern)
    except Exception:  # an invalid pattern simply covers nothing
        return None


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


@dataclass
class SchemaFile:
    """One side's schema documents, with what the walk needs to resolve references."""

    documents: dict[str, Any]
    main: str
    open_enums: dict[str, list[str | None]] = field(default_factory=dict)
    """Target of an enum (``#/$defs/X`` or a file name) -> sibling string branches' patterns (None = any string)."""

    def resolve(self, ref: str) -> Any:
        """A ``$ref`` inside the main file or to a sibling file; None when it cannot be followed."""
        name, _, fragment = ref.partition("#")
        document = self.documents.get(name or self.main)
        for token in [t for t in fragment.split("/") if t]:
            if not isinstance(document, dict):
                return None
            document = document.get(token.replace("~1", "/").replace("~0", "~"))
        return document


def _branch_patterns(side: SchemaFile, branch: Any) -> list[str | None]:
    """What strings a sibling ``anyOf`` branch accepts: its pattern, None for any string, nothing if no strings."""
    target = side.resolve(branch["$ref"]) if isinstance(branch, dict) and "$ref" in branch else branch
    if not isinstance(target, dict) or "enum" in target or "const" in target:
        return []
    types = target.get("type")
    if types != "string" and not (isinstance(types, list) and "string" in types):
        return []
    pattern = target.get("pattern")
    return [pattern if isinstance(pattern, str) else None]


def _walk(node: Any) -> Iterator[Any]:
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, dict):
            yield current
            stack.extend(current.values())
        elif isinstance(current, list):
            stack.extend(current)


def find_open_enums(side: SchemaFile) -> None:
    """Record, for every enum reached through an ``anyOf`` branch, the string patterns of its siblings."""
    for node in _walk(side.documents.get(side.main)):
        branches = node.get("anyOf")
        if not isinstance(branches, list):
            continue
        for i, branch in enumerate(branches):
            if not isinstance(branch, dict):
                continue
            ref = branch.get("$ref")
            key = ref if isinstance(ref, str) else f"inline:{id(branch)}"
            siblings = [p for j, other in enumerate(branches) if j != i for p in _branch_patterns(side, other)]
            if siblings:
                side.open_enums.setdefault(key, []).extend(siblings)


def type_set(side: SchemaFile, schema: Any, depth: int = 0) -> frozenset[str]:
    """The JSON types a schema can accept, following ``anyOf`` and ``$ref`` (ANY when unconstrained)."""
    if not isinstance(schema, dict) or depth > 20:
        return frozenset({ANY})
    if "type" in schema:
        types = schema["type"]
        return frozenset([types] if isinstance(types, str) else types)
    if isinstance(schema.get("$ref"), str):
        return type_set(side, side.resolve(schema["$ref"]), depth + 1)
    if isinstance(schema.get("anyOf"), list):
        found: set[str] = set()
        for branch in schema["anyOf"]:
            found |= type_set(side, branch, depth + 1)
        return frozenset({ANY}) if ANY in found else frozenset(found)
    values = (
        schema["enum"] if isinstance(schema.get("enum"), list) else [schema["const"]] if "const" in schema else None
    )
    if values is not None:
        return frozenset(_json_type(v) for v in values)
    return frozenset({ANY})


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _covered(types: frozenset[str], kind: str) -> bool:
    return ANY in types or kind in types or (kind == "integer" and "number" in types)


def _is_open(schema: dict[str, Any]) -> bool:
    extra = schema.get("additionalProperties", True)
    return extra is True or extra == {}


def _is_pure_type(branch: Any) -> bool:
    return isinstance(branch, dict) and set(branch) - {"title", *DOC_KEYS} == {"type"}


def _branch_key(branch: Any) -> str:
    if isinstance(branch, dict) and isinstance(branch.get("$ref"), str):
        return f"ref:{branch['$ref']}"
    if isinstance(branch, dict) and "type" in branch:
        types = branch["type"]
        return "type:" + ",".join(sorted([types] if isinstance(types, str) else types))
    return "schema:" + _show(branch)


@dataclass
class Differ:
    old: SchemaFile
    new: SchemaFile
    emit: Emit
    file: str = ""

    def at(self, rule: str, path: list[str | int], message: str) -> None:
        self.emit(rule, self.file, json_pointer(path), message)

    # -- entry points -----------------------------------------------------------------------------
    def compare_documents(self, name: str) -> None:
        self.file = name
        old, new = self.old.documents.get(name), self.new.documents.get(name)
        if not isinstance(old, dict) or not isinstance(new, dict):
            return
        if old.get("$schema") != new.get("$schema"):
            self.at("DIALECT_CHANGED", ["$schema"], f"$schema {old.get('$schema')} -> {new.get('$schema')}")
        old_id, new_id = (ID_VERSION.sub("/<v>/", str(d.get("$id", ""))) for d in (old, new))
        if old_id != new_id:
            self.at("SCHEMA_ID_CHANGED", ["$id"], f"$id {old.get('$id')} -> {new.get('$id')}")
        old_defs, new_defs = old.get("$defs") or {}, new.get("$defs") or {}
        for def_name in old_defs:
            if def_name not in new_defs:
                self.at("DEFINITION_REMOVED", ["$defs", def_name], f"definition {def_name} removed")
        for def_name in new_defs:
            if def_name not in old_defs:
                self.at("DEFINITION_ADDED", ["$defs", def_name], f"definition {def_name} added")
            else:
                self.compare(
                    old_defs[def_name], new_defs[def_name], ["$defs", def_name], self._enum_key(name, def_name)
                )
        root_old = {k: v for k, v in old.items() if k not in ("$schema", "$id", "$defs")}
        root_new = {k: v for k, v in new.items() if k not in ("$schema", "$id", "$defs")}
        self.compare(root_old, root_new, [], name if name != self.new.main else None)

    def _enum_key(self, file_name: str, def_name: str) -> str:
        return f"#/$defs/{def_name}" if file_name == self.new.main else f"{file_name}#/$defs/{def_name}"

    # -- one location ---------------------------------------------------------------------------
    def compare(self, old: Any, new: Any, path: list[str | int], enum_key: str | None = None) -> None:
        if old == new:
            return
        if not isinstance(old, dict) or not isinstance(new, dict):
            self.at("UNCLASSIFIED_CHANGE", path, f"schema {_show(old)} -> {_show(new)}")
            return
        self._annotations(old, new, path)
        if "$ref" in old or "$ref" in new:
            if old.get("$ref") != new.get("$ref"):
                self.at("REF_RETARGETED", path, f"$ref {old.get('$ref', '(inline)')} -> {new.get('$ref', '(inline)')}")
            return
        self._types(old, new, path)
        self._enum(old, new, path, enum_key)
        self._bounds(old, new, path)
        self._pattern(old, new, path)
        self._object(old, new, path)
        self._any_of(old, new, path)
        self._all_of(old, new, path)
        if "items" in old and "items" in new:
            self.compare(old["items"], new["items"], [*path, "items"])
        elif old.get("items") != new.get("items"):
            self.at(
                "UNCLASSIFIED_CHANGE", [*path, "items"], f"items {_show(old.get('items'))} -> {_show(new.get('items'))}"
            )
        for key in sorted((set(old) | set(new)) - HANDLED):
            if old.get(key) != new.get(key):
                self.at("UNCLASSIFIED_CHANGE", [*path, key], f"{key}: {_show(old.get(key))} -> {_show(new.get(key))}")

    def _annotations(self, old: dict[str, Any], new: dict[str, Any], path: list[str | int]) -> None:
        if old.get("title") != new.get("title"):
            if "title" not in new:
                self.at("TITLE_REMOVED", [*path, "title"], f"title {old['title']!r} removed")
            elif "title" not in old:
                self.at("TITLE_ADDED", [*path, "title"], f"title {new['title']!r} added")
            else:
                self.at("TITLE_CHANGED", [*path, "title"], f"title {old['title']!r} -> {new['title']!r}")
        changed_docs = [key for key in DOC_KEYS if old.get(key) != new.get(key)]
        if changed_docs:
            self.at("DESCRIPTION_CHANGED", [*path, changed_docs[0]], f"{', '.join(changed_docs)} changed")
        if bool(old.get("deprecated")) != bool(new.get("deprecated")):
            rule = "DEPRECATED_ADDED" if new.get("deprecated") else "DEPRECATED_REMOVED"
            self.at(rule, [*path, "deprecated"], f"deprecated: {bool(new.get('deprecated'))}")
        if old.get("default") != new.get("default") or ("default" in old) != ("default" in new):
            if "default" not in old:
                self.at("DEFAULT_ADDED", [*path, "default"], f"default {_show(new['default'])} added")
            elif "default" not in new:
                self.at("DEFAULT_REMOVED", [*path, "default"], f"default {_show(old['default'])} removed")
            else:
                self.at(
                    "DEFAULT_CHANGED", [*path, "default"], f"default {_show(old['default'])} -> {_show(new['default'])}"
                )

    def _types(self, old: dict[str, Any], new: dict[str, Any], path: list[str | int]) -> None:
        before, after = type_set(self.old, old), type_set(self.new, new)
        if before == after:
            return
        where = [*path, "type"] if "type" in new or "type" in old else [*path, "anyOf"]
        if ANY in before or ANY in after:
            rule = "TYPE_NARROWED" if ANY in before else "TYPE_WIDENED"
            self.at(rule, where, f"types {sorted(before)} -> {sorted(after)}")
            return
        if "null" in after and "null" not in before:
            self.at("NULLABLE_ADDED", where, "null is now accepted")
        if "null" in before and "null" not in after:
            self.at("NULLABLE_REMOVED", where, "null is no longer accepted")
        gained = sorted(t for t in after - {"null"} if not _covered(before, t))
        lost = sorted(t for t in before - {"null"} if not _covered(after, t))
        if gained:
            self.at("TYPE_WIDENED", where, f"now also accepts {', '.join(gained)}")
        if lost:
            self.at("TYPE_NARROWED", where, f"no longer accepts {', '.join(lost)}")

    def _enum(self, old: dict[str, Any], new: dict[str, Any], path: list[str | int], enum_key: str | None) -> None:
        def values(schema: dict[str, Any]) -> list[Any] | None:
            if isinstance(schema.get("enum"), list):
                return list(schema["enum"])
            return [schema["const"]] if "const" in schema else None

        before, after = values(old), values(new)
        if before == after or (
            before is not None and after is not None and sorted(map(_show, before)) == sorted(map(_show, after))
        ):
            return
        where = [*path, "enum" if "enum" in new or "enum" in old else "const"]
        if before is None or after is None:
            self.at("UNCLASSIFIED_CHANGE", where, f"enum {_show(before)} -> {_show(after)}")
            return
        patterns = self.new.open_enums.get(enum_key or "", [])
        for value in after:
            if value not in before:
                rule = "OPEN_ENUM_VALUE_ADDED" if self._covered_by(value, patterns) else "ENUM_VALUE_ADDED"
                self.at(rule, where, f"value {_show(value)} added")
        for value in before:
            if value not in after:
                rule = "OPEN_ENUM_VALUE_REMOVED" if self._covered_by(value, patterns) else "ENUM_VALUE_REMOVED"
                self.at(rule, where, f"value {_show(value)} removed")

    @staticmethod
    def _covered_by(value: Any, patterns: list[str | None]) -> bool:
        if not isinstance(value, str):
            return False
        for pattern in patterns:
            regex = None if pattern is None else _regex(pattern)
            if pattern is None or (regex is not None and regex.find(value) is not None):
                return True
        return False

    def _bounds(self, old: dict[str, Any], new: dict[str, Any], path: list[str | int]) -> None:
        for keywords in (LOWER_BOUNDS, UPPER_BOUNDS):
            lower = keywords is LOWER_BOUNDS
            for key in keywords:
                a, b = old.get(key), new.get(key)
                if a == b:
                    continue
                tightened = a is None or (b is not None and (b > a if lower else b < a))
                rule = {
                    (True, True): "LOWER_BOUND_RAISED",
                    (True, False): "LOWER_BOUND_LOWERED",
                    (False, True): "UPPER_BOUND_LOWERED",
                    (False, False): "UPPER_BOUND_RAISED",
                }[(lower, tightened)]
                self.at(rule, [*path, key], f"{key} {_show(a)} -> {_show(b)}")

    def _pattern(self, old: dict[str, Any], new: dict[str, Any], path: list[str | int]) -> None:
        a, b = old.get("pattern"), new.get("pattern")
        if a == b:
            return
        rule = "PATTERN_ADDED" if a is None else "PATTERN_REMOVED" if b is None else "PATTERN_CHANGED"
        self.at(rule, [*path, "pattern"], f"pattern {_show(a)} -> {_show(b)}")

    def _object(self, old: dict[str, Any], new: dict[str, Any], path: list[str | int]) -> None:
        old_props, new_props = old.get("properties") or {}, new.get("properties") or {}
        old_req, new_req = set(old.get("required") or []), set(new.get("required") or [])
        was_open, is_open = _is_open(old), _is_open(new)
        for name, schema in new_props.items():
            where: list[str | int] = [*path, "properties", name]
            if name in old_props:
                self.compare(old_props[name], schema, where)
            elif name in new_req:
                self.at("REQUIRED_PROPERTY_ADDED", where, f"required property {name!r} added")
            elif not was_open:
                self.at("PROPERTY_ADDED_TO_CLOSED_OBJECT", where, f"property {name!r} added to a closed object")
            elif isinstance(schema, dict) and "default" in schema:
                self.at(
                    "PROPERTY_ADDED_WITH_DEFAULT",
                    where,
                    f"optional property {name!r} added, default {_show(schema['default'])}",
                )
            else:
                self.at("PROPERTY_ADDED", where, f"optional property {name!r} added")
        for name in old_props:
            if name in new_props:
                continue
            where = [*path, "properties", name]
            if name in old_req:
                self.at("REQUIRED_PROPERTY_REMOVED", where, f"required property {name!r} removed")
            elif not is_open:
                self.at("PROPERTY_REMOVED_FROM_CLOSED_OBJECT", where, f"property {name!r} removed from a closed object")
            else:
                self.at("PROPERTY_REMOVED", where, f"optional property {name!r} removed")
        for name in sorted(new_req - old_req):
            if name in old_props or name not in new_props:
                self.at("PROPERTY_MADE_REQUIRED", [*path, "required"], f"{name!r} is now required")
        for name in sorted(old_req - new_req):
            if name in new_props or name not in old_props:
                self.at("PROPERTY_MADE_OPTIONAL", [*path, "required"], f"{name!r} is no longer required")
        if was_open and not is_open:
            self.at(
                "ADDITIONAL_PROPERTIES_CLOSED", [*path, "additionalProperties"], "unknown keys are no longer accepted"
            )
        elif is_open and not was_open:
            self.at("ADDITIONAL_PROPERTIES_OPENED", [*path, "additionalProperties"], "unknown keys are now accepted")
        elif not is_open and old.get("additionalProperties") != new.get("additionalProperties"):
            self.at(
                "UNCLASSIFIED_CHANGE",
                [*path, "additionalProperties"],
                f"additionalProperties {_show(old.get('additionalProperties'))} -> "
                f"{_show(new.get('additionalProperties'))}",
            )

    def _any_of(self, old: dict[str, Any], new: dict[str, Any], path: list[str | int]) -> None:
        a, b = old.get("anyOf"), new.get("anyOf")
        if a == b:
            return
        if not isinstance(a, list) or not isinstance(b, list):
            # type <-> anyOf: the type rules compared the accepted types; anything more needs a human.
            branches = a if isinstance(a, list) else b if isinstance(b, list) else []
            if not all(_is_pure_type(branch) for branch in branches):
                self.at("COMPOSITION_CHANGED", [*path, "anyOf"], "anyOf added or removed around constrained branches")
            return
        old_keys = {_branch_key(branch): i for i, branch in enumerate(a)}
        new_keys = {_branch_key(branch): i for i, branch in enumerate(b)}
        for key, i in new_keys.items():
            where: list[str | int] = [*path, "anyOf", i]
            if key in old_keys:
                self.compare(a[old_keys[key]], b[i], where, f"inline:{id(b[i])}")
            elif not _is_pure_type(b[i]):
                self.at("ANYOF_BRANCH_ADDED", where, f"branch {_show(b[i])} added")
        for key, i in old_keys.items():
            if key not in new_keys and not _is_pure_type(a[i]):
                self.at("ANYOF_BRANCH_REMOVED", [*path, "anyOf", i], f"branch {_show(a[i])} removed")

    def _all_of(self, old: dict[str, Any], new: dict[str, Any], path: list[str | int]) -> None:
        a, b = old.get("allOf") or [], new.get("allOf") or []
        if a == b:
            return
        old_keys = [_branch_key(member) for member in a]
        new_keys = [_branch_key(member) for member in b]
        for i, key in enumerate(new_keys):
            if key in old_keys:
                self.compare(a[old_keys.index(key)], b[i], [*path, "allOf", i])
            else:
                self.at("ALLOF_MEMBER_ADDED", [*path, "allOf", i], f"allOf member {_show(b[i])} added")
        for i, key in enumerate(old_keys):
            if key not in new_keys:
                self.at("ALLOF_MEMBER_REMOVED", [*path, "allOf", i], f"allOf member {_show(a[i])} removed")


def compare_schemas(old_documents: dict[str, Any], new_documents: dict[str, Any], main: str, emit: Emit) -> None:
    """Compare every schema file both sides have (the main file first)."""
    old, new = SchemaFile(old_documents, main), SchemaFile(new_documents, main)
    find_open_enums(old)
    find_open_enums(new)
    differ = Differ(old, new, emit)
    for name in [main, *sorted(set(old_documents) & set(new_documents) - {main})]:
        if name in old_documents and name in new_documents:
            differ.compare_documents(name)
