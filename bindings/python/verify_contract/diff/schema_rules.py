"""Compare two versions' schema files by meaning, one rule per kind of change.

Both sides are first brought to their normalised, resolved form (``normalise.py``): references followed,
``allOf`` merged, equivalent spellings made one. The wire rules compare those forms; the bindings rules
(titles, ``$ref`` names, base classes, explicit ``additionalProperties``) compare the raw schema written at the
same location, because generated names come from the spelling. Anything else that changes is
UNCLASSIFIED_CHANGE, never silence.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

import regress

from verify_contract.contract import json_pointer
from verify_contract.diff.normalise import (
    ANY,
    DOC_KEYS,
    LOWER_BOUNDS,
    UPPER_BOUNDS,
    Location,
    Node,
    Resolver,
    covered,
    is_pure_type,
    json_key,
)
from verify_contract.diff.patterns import Inclusion, compare_patterns
from verify_contract.reference import json_equal

Emit = Callable[[str, str, str, str], None]
"""``emit(rule id, file, JSON pointer, message)``."""

ID_VERSION = re.compile(r"/\d+\.\d+\.\d+/")
ROOT_ONLY = ("$schema", "$id", "$defs")
# Keywords the comparison below handles itself; any other keyword is compared as UNCLASSIFIED_CHANGE.
HANDLED = {
    "type",
    "enum",
    "default",
    "pattern",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "anyOf",
    "allOf",
    "$ref",
    *LOWER_BOUNDS,
    *UPPER_BOUNDS,
}
PATTERN_RULES = {
    Inclusion.EQUIVALENT: "PATTERN_EQUIVALENT",
    Inclusion.NARROWER: "PATTERN_NARROWED",
    Inclusion.WIDER: "PATTERN_WIDENED",
    Inclusion.INCOMPARABLE: "PATTERN_CHANGED",
    Inclusion.UNKNOWN: "PATTERN_CHANGED",
}


@cache
def _regex(pattern: str) -> regress.Regex | None:
    try:
        return regress.Regex(pattern)
    except Exception:  # an invalid pattern simply covers nothing
        return None


def _show(value: Any) -> str:
    if isinstance(value, frozenset):
        value = sorted(value)
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=lambda v: "<schema>")


ABSENT = "(absent)"
"""How a report shows a keyword one side does not have: never as ``null``, which is a value a schema can hold."""


def _show_keyword(node: Node, key: str) -> str:
    return _show(_plain(node.kw[key])) if key in node.kw else ABSENT


def _explicitly_open(raw: Any) -> bool:
    return isinstance(raw, dict) and (raw.get("additionalProperties") is True or raw.get("additionalProperties") == {})


@dataclass
class Differ:
    old: Resolver
    new: Resolver
    emit: Emit
    anchor: tuple[Location, Location] | None = None
    """(use site, its pointer): under a renamed ``$ref`` or a changed base, a change found in a definition written
    elsewhere is reported where the reference is, since that definition itself did not change."""

    def report(self, rule: str, where: Location, message: str) -> None:
        if self.anchor is not None:
            (site_file, site_path), pointer = self.anchor
            if where[0] != site_file or where[1][: len(site_path)] != site_path:
                where = pointer
        self.emit(rule, where[0], json_pointer(list(where[1])), message)

    @staticmethod
    def place(old: Node, new: Node, key: str) -> Location:
        """Where a keyword's change is: where NEW writes it, else where OLD wrote it, else where it would go."""
        if key in new.at:
            return new.at[key]
        if key in old.at:
            return old.at[key]
        return (new.where[0], (*new.where[1], key))

    # -- entry points -----------------------------------------------------------------------------
    def compare_documents(self, name: str) -> None:
        old, new = self.old.documents.get(name), self.new.documents.get(name)
        if not isinstance(old, dict) or not isinstance(new, dict):
            return
        if old.get("$schema") != new.get("$schema"):
            self.report(
                "DIALECT_CHANGED", (name, ("$schema",)), f"$schema {old.get('$schema')} -> {new.get('$schema')}"
            )
        old_id, new_id = (ID_VERSION.sub("/<v>/", str(d.get("$id", ""))) for d in (old, new))
        if old_id != new_id:
            self.report("SCHEMA_ID_CHANGED", (name, ("$id",)), f"$id {old.get('$id')} -> {new.get('$id')}")
        old_defs, new_defs = old.get("$defs") or {}, new.get("$defs") or {}
        for def_name in old_defs:
            if def_name not in new_defs:
                self.report("DEFINITION_REMOVED", (name, ("$defs", def_name)), f"definition {def_name} removed")
        for def_name in new_defs:
            where: Location = (name, ("$defs", def_name))
            if def_name not in old_defs:
                self.report("DEFINITION_ADDED", where, f"definition {def_name} added")
            else:
                self.compare(self.old.node(old_defs[def_name], where), self.new.node(new_defs[def_name], where))
        root_old = {k: v for k, v in old.items() if k not in ROOT_ONLY}
        root_new = {k: v for k, v in new.items() if k not in ROOT_ONLY}
        self.compare(self.old.node(root_old, (name, ())), self.new.node(root_new, (name, ())))

    # -- one location ---------------------------------------------------------------------------
    def compare(self, old: Node, new: Node) -> None:
        same_place = old.where == new.where
        if same_place:
            self._bindings(old, new)
        if ("allOf" in old.kw) != ("allOf" in new.kw):
            old, new = old.unmerged or old, new.unmerged or new  # one side cannot be merged: compare members
        if old.meaning() == new.meaning() and json_equal(old.raw, new.raw):
            return
        saved = self.anchor
        if same_place and self.anchor is None and (old.ref != new.ref or old.bases != new.bases):
            key = "$ref" if old.ref != new.ref else "allOf"
            self.anchor = (new.where, (new.where[0], (*new.where[1], key)))
        try:
            self._compare_meaning(old, new, same_place)
        finally:
            self.anchor = saved

    def _compare_meaning(self, old: Node, new: Node, same_place: bool) -> None:
        if "$ref" in old.kw or "$ref" in new.kw:
            if same_place and old.ref != new.ref:
                return  # reported by _bindings as REF_RETARGETED
            self.report("REF_RETARGETED", self.place(old, new, "$ref"), f"$ref {old.ref} -> {new.ref}")
            return
        if ("$boolean" in old.kw) != ("$boolean" in new.kw) or "$boolean" in old.kw:
            self.report("UNCLASSIFIED_CHANGE", new.where, f"schema {_show(old.raw)} -> {_show(new.raw)}")
            return
        self._default(old, new)
        self._types(old, new)
        self._enum(old, new)
        self._bounds(old, new)
        self._pattern(old, new)
        self._object(old, new)
        self._any_of(old, new)
        self._all_of(old, new)
        a, b = old.kw.get("items"), new.kw.get("items")
        if isinstance(a, Node) and isinstance(b, Node):
            self.compare(a, b)
        elif (a is None) != (b is None):
            self.report("UNCLASSIFIED_CHANGE", self.place(old, new, "items"), "items added or removed")
        for key in sorted((set(old.kw) | set(new.kw)) - HANDLED):
            before, after = old.kw.get(key), new.kw.get(key)
            if json_key(_plain(before)) != json_key(_plain(after)):
                self.report(
                    "UNCLASSIFIED_CHANGE",
                    self.place(old, new, key),
                    f"{key}: {_show_keyword(old, key)} -> {_show_keyword(new, key)}",
                )

    # -- the bindings view: the raw schema written at this location ------------------------------
    def _bindings(self, old: Node, new: Node) -> None:
        a, b = old.raw, new.raw
        if not isinstance(a, dict) or not isinstance(b, dict):
            return
        where = new.where
        if a.get("title") != b.get("title"):
            if "title" not in b:
                self.report("TITLE_REMOVED", (where[0], (*where[1], "title")), f"title {a['title']!r} removed")
            elif "title" not in a:
                self.report("TITLE_ADDED", (where[0], (*where[1], "title")), f"title {b['title']!r} added")
            else:
                self.report(
                    "TITLE_CHANGED", (where[0], (*where[1], "title")), f"title {a['title']!r} -> {b['title']!r}"
                )
        changed_docs = [key for key in DOC_KEYS if not json_equal(a.get(key), b.get(key))]
        if changed_docs:
            self.report(
                "DESCRIPTION_CHANGED", (where[0], (*where[1], changed_docs[0])), f"{', '.join(changed_docs)} changed"
            )
        extensions = sorted(k for k in set(a) | set(b) if k.startswith("x-") and not json_equal(a.get(k), b.get(k)))
        if extensions:
            self.report("EXTENSION_CHANGED", (where[0], (*where[1], extensions[0])), f"{', '.join(extensions)} changed")
        if bool(a.get("deprecated")) != bool(b.get("deprecated")):
            rule = "DEPRECATED_ADDED" if b.get("deprecated") else "DEPRECATED_REMOVED"
            self.report(rule, (where[0], (*where[1], "deprecated")), f"deprecated: {bool(b.get('deprecated'))}")
        if "additionalProperties" not in old.kw and "additionalProperties" not in new.kw and old.ref == new.ref is None:
            if _explicitly_open(a) and "additionalProperties" not in b:
                self.report(
                    "OPEN_CONTENT_MADE_IMPLICIT",
                    (where[0], (*where[1], "additionalProperties")),
                    "explicit additionalProperties: true removed (still open)",
                )
            elif _explicitly_open(b) and "additionalProperties" not in a:
                self.report(
                    "OPEN_CONTENT_MADE_EXPLICIT",
                    (where[0], (*where[1], "additionalProperties")),
                    "explicit additionalProperties: true added (was already open)",
                )
        if old.ref != new.ref:
            unresolved = "$ref" in old.kw or "$ref" in new.kw
            self.report(
                "REF_RETARGETED" if unresolved else "REF_RENAMED",
                (where[0], (*where[1], "$ref")),
                f"$ref {old.ref or '(inline)'} -> {new.ref or '(inline)'}",
            )
        if "allOf" not in old.kw and "allOf" not in new.kw:
            for base in new.bases:
                if base not in old.bases:
                    self.report("ALLOF_REFERENCE_ADDED", (where[0], (*where[1], "allOf")), f"allOf gained {base}")
            for base in old.bases:
                if base not in new.bases:
                    self.report("ALLOF_REFERENCE_REMOVED", (where[0], (*where[1], "allOf")), f"allOf lost {base}")

    # -- the wire view: normalised meaning --------------------------------------------------------
    def _default(self, old: Node, new: Node) -> None:
        if "default" not in old.kw and "default" not in new.kw:
            return
        where = self.place(old, new, "default")
        if "default" not in old.kw:
            self.report("DEFAULT_ADDED", where, f"default {_show(new.kw['default'])} added")
        elif "default" not in new.kw:
            self.report("DEFAULT_REMOVED", where, f"default {_show(old.kw['default'])} removed")
        elif not json_equal(old.kw["default"], new.kw["default"]):
            self.report("DEFAULT_CHANGED", where, f"default {_show(old.kw['default'])} -> {_show(new.kw['default'])}")

    def _types(self, old: Node, new: Node) -> None:
        before, after = old.types(), new.types()
        if before == after:
            return
        key = next((k for k in ("type", "anyOf", "enum") if k in new.at or k in old.at), "type")
        where = self.place(old, new, key)
        if ANY in before or ANY in after:
            rule = "TYPE_NARROWED" if ANY in before else "TYPE_WIDENED"
            self.report(rule, where, f"types {sorted(before)} -> {sorted(after)}")
            return
        if "null" in after and "null" not in before:
            self.report("NULLABLE_ADDED", where, "null is now accepted")
        if "null" in before and "null" not in after:
            self.report("NULLABLE_REMOVED", where, "null is no longer accepted")
        gained = sorted(t for t in after - {"null"} if not covered(before, t))
        lost = sorted(t for t in before - {"null"} if not covered(after, t))
        if gained:
            self.report("TYPE_WIDENED", where, f"now also accepts {', '.join(gained)}")
        if lost:
            self.report("TYPE_NARROWED", where, f"no longer accepts {', '.join(lost)}")

    def _enum(self, old: Node, new: Node) -> None:
        before, after = old.kw.get("enum"), new.kw.get("enum")
        if before is None and after is None:
            return
        where = self.place(old, new, "enum")
        if before is None or after is None:
            if not ("anyOf" in old.kw or "anyOf" in new.kw):
                shown = [list((v or {}).values()) for v in (before, after)]
                self.report("UNCLASSIFIED_CHANGE", where, f"enum {_show(shown[0])} -> {_show(shown[1])}")
            return
        if set(before) == set(after):
            return
        patterns = self.new.open_enums.get(new.at["enum"], [])
        for key, value in after.items():
            if key not in before:
                rule = "OPEN_ENUM_VALUE_ADDED" if self._covered_by(value, patterns) else "ENUM_VALUE_ADDED"
                self.report(rule, where, f"value {_show(value)} added")
        for key, value in before.items():
            if key not in after:
                rule = "OPEN_ENUM_VALUE_REMOVED" if self._covered_by(value, patterns) else "ENUM_VALUE_REMOVED"
                self.report(rule, where, f"value {_show(value)} removed")

    @staticmethod
    def _covered_by(value: Any, siblings: list[tuple[str, ...] | None]) -> bool:
        if not isinstance(value, str):
            return False
        for patterns in siblings:
            if patterns is None:
                return True
            regexes = [_regex(p) for p in patterns]
            if all(r is not None and r.find(value) is not None for r in regexes):
                return True
        return False

    def _bounds(self, old: Node, new: Node) -> None:
        for keywords in (LOWER_BOUNDS, UPPER_BOUNDS):
            lower = keywords is LOWER_BOUNDS
            for key in keywords:
                a, b = old.kw.get(key), new.kw.get(key)
                if a == b:
                    continue
                tightened = a is None or (b is not None and (b > a if lower else b < a))
                rule = {
                    (True, True): "LOWER_BOUND_RAISED",
                    (True, False): "LOWER_BOUND_LOWERED",
                    (False, True): "UPPER_BOUND_LOWERED",
                    (False, False): "UPPER_BOUND_RAISED",
                }[(lower, tightened)]
                self.report(
                    rule, self.place(old, new, key), f"{key} {_show_keyword(old, key)} -> {_show_keyword(new, key)}"
                )

    def _pattern(self, old: Node, new: Node) -> None:
        a, b = old.kw.get("pattern", frozenset()), new.kw.get("pattern", frozenset())
        if a == b:
            return
        where = self.place(old, new, "pattern")
        shown = f"pattern {_show(a) if a else ABSENT} -> {_show(b) if b else ABSENT}"
        if not a or not b:
            self.report("PATTERN_ADDED" if b else "PATTERN_REMOVED", where, shown)
            return
        inclusion = compare_patterns(next(iter(a)), next(iter(b))) if len(a) == len(b) == 1 else Inclusion.UNKNOWN
        reason = {
            Inclusion.UNKNOWN: " (inclusion not decidable)",
            Inclusion.INCOMPARABLE: " (neither contains the other)",
        }
        self.report(PATTERN_RULES[inclusion], where, shown + reason.get(inclusion, ""))

    def _object(self, old: Node, new: Node) -> None:
        old_props: dict[str, Node] = old.kw.get("properties") or {}
        new_props: dict[str, Node] = new.kw.get("properties") or {}
        old_req: frozenset[str] = old.kw.get("required", frozenset())
        new_req: frozenset[str] = new.kw.get("required", frozenset())
        was_open, is_open = "additionalProperties" not in old.kw, "additionalProperties" not in new.kw
        for name, schema in new_props.items():
            where = schema.where
            if name in old_props:
                self.compare(old_props[name], schema)
            elif name in new_req:
                self.report("REQUIRED_PROPERTY_ADDED", where, f"required property {name!r} added")
            elif not was_open:
                self.report("PROPERTY_ADDED_TO_CLOSED_OBJECT", where, f"property {name!r} added to a closed object")
            elif "default" in schema.kw:
                self.report(
                    "PROPERTY_ADDED_WITH_DEFAULT",
                    where,
                    f"optional property {name!r} added, default {_show(schema.kw['default'])}",
                )
            else:
                self.report("PROPERTY_ADDED", where, f"optional property {name!r} added")
        for name, schema in old_props.items():
            if name in new_props:
                continue
            if name in old_req:
                self.report("REQUIRED_PROPERTY_REMOVED", schema.where, f"required property {name!r} removed")
            elif not is_open:
                self.report(
                    "PROPERTY_REMOVED_FROM_CLOSED_OBJECT",
                    schema.where,
                    f"property {name!r} removed from a closed object",
                )
            else:
                self.report("PROPERTY_REMOVED", schema.where, f"optional property {name!r} removed")
        for name in sorted(new_req - old_req):
            if name in old_props or name not in new_props:
                where = new.at.get(f"required:{name}", self.place(old, new, "required"))
                self.report("PROPERTY_MADE_REQUIRED", where, f"{name!r} is now required")
        for name in sorted(old_req - new_req):
            if name in new_props or name not in old_props:
                where = old.at.get(f"required:{name}", self.place(old, new, "required"))
                self.report("PROPERTY_MADE_OPTIONAL", where, f"{name!r} is no longer required")
        where = self.place(old, new, "additionalProperties")
        if was_open and not is_open:
            self.report("ADDITIONAL_PROPERTIES_CLOSED", where, "unknown keys are no longer accepted")
        elif is_open and not was_open:
            self.report("ADDITIONAL_PROPERTIES_OPENED", where, "unknown keys are now accepted")
        elif not is_open and _plain(old.kw["additionalProperties"]) != _plain(new.kw["additionalProperties"]):
            self.report("UNCLASSIFIED_CHANGE", where, "additionalProperties changed")

    def _any_of(self, old: Node, new: Node) -> None:
        a, b = old.kw.get("anyOf"), new.kw.get("anyOf")
        if a is None and b is None:
            return
        if a is None or b is None:
            # type <-> anyOf: the type rules compared the accepted types; anything more needs a human.
            branches = a if a is not None else b or []
            if not all(is_pure_type(branch) for branch in branches):
                self.report(
                    "COMPOSITION_CHANGED",
                    self.place(old, new, "anyOf"),
                    "anyOf added or removed around constrained branches",
                )
            return
        unmatched = list(range(len(a)))
        for branch in b:
            match = _match(branch, [a[i] for i in unmatched])
            if match is not None:
                self.compare(a[unmatched.pop(match)], branch)
            elif not is_pure_type(branch):
                self.report("ANYOF_BRANCH_ADDED", branch.where, f"branch {_show(branch.raw)} added")
        for i in unmatched:
            if not is_pure_type(a[i]):
                self.report("ANYOF_BRANCH_REMOVED", a[i].where, f"branch {_show(a[i].raw)} removed")

    def _all_of(self, old: Node, new: Node) -> None:
        """Only members that could not be merged exactly are left here: compared one by one."""
        a, b = old.kw.get("allOf") or [], new.kw.get("allOf") or []
        unmatched = list(range(len(a)))
        for member in b:
            match = _match(member, [a[i] for i in unmatched])
            if match is not None:
                self.compare(a[unmatched.pop(match)], member)
            else:
                self.report("ALLOF_MEMBER_ADDED", member.where, f"allOf member {_show(member.raw)} added")
        for i in unmatched:
            self.report("ALLOF_MEMBER_REMOVED", a[i].where, f"allOf member {_show(a[i].raw)} removed")


def _plain(value: Any) -> Any:
    if isinstance(value, Node):
        return value.meaning()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, frozenset):
        return sorted(value)
    return value


def _match(branch: Node, candidates: list[Node]) -> int | None:
    """The old branch a new one continues: same meaning, else same ``$ref``, else same location, else same types."""
    tests: list[Callable[[Node], bool]] = [
        lambda c: c.meaning() == branch.meaning(),
        lambda c: branch.ref is not None and c.ref == branch.ref,
        lambda c: c.where == branch.where and c.types() == branch.types(),
        lambda c: c.types() == branch.types() and not is_pure_type(c),
    ]
    for test in tests:
        for i, candidate in enumerate(candidates):
            if test(candidate):
                return i
    return None


def compare_schemas(old_documents: dict[str, Any], new_documents: dict[str, Any], main: str, emit: Emit) -> None:
    """Compare every schema file both sides have (the main file first)."""
    old, new = Resolver(old_documents, main), Resolver(new_documents, main)
    for side, documents in ((old, old_documents), (new, new_documents)):
        # Build the main file first, so every enum behind an anyOf knows its sibling branches.
        main_document = documents.get(main)
        if isinstance(main_document, dict):
            for def_name, definition in (main_document.get("$defs") or {}).items():
                side.node(definition, (main, ("$defs", def_name)))
    differ = Differ(old, new, emit)
    for name in [main, *sorted(set(old_documents) & set(new_documents) - {main})]:
        if name in old_documents and name in new_documents:
            differ.compare_documents(name)
