"""The normalised, resolved form the differ compares: what a schema location *means*, not how it is spelled.

Every local ``$ref`` is resolved (cycles stay references), ``allOf`` members and single-branch
``anyOf``/``oneOf`` are merged into one set of effective constraints (bounds most restrictive, ``required``
and ``properties`` united, types and enums intersected), and equivalent spellings get one form:

- ``type`` is a set (``integer`` folds into ``number`` when both are present);
- ``const`` is a one-value ``enum``; enums are deduplicated with JSON equality (``false`` is not ``0``, ``1`` is
  ``1.0``) and filtered by ``type``, which they then replace; an enum of ``null`` or of both booleans is a type;
- an ``anyOf`` whose branches are plain types is a type set; a ``oneOf`` whose branches accept disjoint types
  is an ``anyOf``;
- no-op keywords disappear: ``minLength``/``minItems``/``minProperties`` 0, an empty ``required``,
  ``additionalProperties: true`` or ``{}``, a pattern every string matches;
- annotations (``title``, descriptions, ``deprecated``, ``x-`` extensions) are not part of the meaning; the
  differ compares them on the raw schema at each location, with the ``$ref`` names, for the bindings.

Each effective keyword remembers where it was written (file and JSON Pointer), so a change is reported at the
exact place to edit. A merge that cannot be proven exact (a closed object next to other properties, two
``anyOf``, conflicting keywords the differ does not model) is not done: the members stay an ``allOf`` and are
compared member by member, conservatively.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from verify_contract.contract import json_pointer, pointer_path
from verify_contract.diff.patterns import accepts_every_string

Path = tuple[str | int, ...]
Location = tuple[str, Path]
"""(file name, JSON Pointer tokens)."""

ANY = "*"  # the type set of a schema without a type constraint
LOWER_BOUNDS = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties")
UPPER_BOUNDS = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties")
NO_OP_ZERO = ("minLength", "minItems", "minProperties")
DOC_KEYS = ("description", "$comment", "examples")
ANNOTATIONS = {"title", "deprecated", *DOC_KEYS}
STRUCTURE = {"$schema", "$id", "$defs", "$ref"}
DATA_KEYWORDS = frozenset({"const", "enum", "default", "examples"})
"""Keywords whose values are JSON data, never schemas."""


def json_key(value: Any) -> str:
    """A canonical text per JSON value: ``1`` and ``1.0`` share one, ``true`` and ``1`` do not."""
    if value is None or isinstance(value, (bool, str)):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (int, float)):
        if isinstance(value, float) and value.is_integer():
            return str(int(value))
        return repr(value) if isinstance(value, float) else str(value)
    if isinstance(value, list):
        return "[" + ",".join(json_key(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(k)}:{json_key(v)}" for k, v in sorted(value.items())) + "}"
    return repr(value)


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def covered(types: frozenset[str], kind: str) -> bool:
    return ANY in types or kind in types or (kind == "integer" and "number" in types)


def _intersect_types(a: frozenset[str], b: frozenset[str]) -> frozenset[str]:
    both = set(a & b)
    if ("integer" in a and "number" in b) or ("integer" in b and "number" in a):
        both.add("integer")
    return frozenset(both)


@dataclass
class Node:
    """One location's meaning: canonical keywords (subschemas are Nodes) and where each was written."""

    kw: dict[str, Any]
    at: dict[str, Location]
    where: Location
    raw: Any
    """The raw schema at ``where`` (its annotations are compared for the bindings)."""
    ref: str | None = None
    """The ``$ref`` written at ``where``: names a generated class even when its target means the same."""
    bases: tuple[str, ...] = ()
    """The ``$ref``s of ``allOf`` members written at ``where``: base classes of the generated class."""
    unmerged: Node | None = None
    """For a merged location, its members kept apart: compared instead when the other side cannot be merged."""
    _meaning: str | None = field(default=None, repr=False)

    def meaning(self) -> str:
        if self._meaning is None:
            self._meaning = json_key({key: _meaning_of(value) for key, value in self.kw.items()})
        return self._meaning

    def types(self) -> frozenset[str]:
        """The JSON types this location accepts (ANY when unconstrained)."""
        if "type" in self.kw:
            found: frozenset[str] = self.kw["type"]
            return found
        if "enum" in self.kw:
            return frozenset(json_type(v) for v in self.kw["enum"].values())
        combinator = "anyOf" if "anyOf" in self.kw else "oneOf" if "oneOf" in self.kw else None
        if combinator is not None:  # a oneOf accepts some of what its branches accept, never more
            union: set[str] = set()
            for branch in self.kw[combinator]:
                union |= branch.types()
            if ANY in union:
                return frozenset({ANY})
            return frozenset(union - {"integer"} if "number" in union else union)
        return frozenset({ANY})


def _meaning_of(value: Any) -> Any:
    if isinstance(value, Node):
        return value.meaning()
    if isinstance(value, frozenset):
        return sorted(value)
    if isinstance(value, dict):
        return {k: _meaning_of(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_meaning_of(v) for v in value]
    return value


def is_pure_type(node: Node) -> bool:
    return set(node.kw) == {"type"}


OpenEnums = dict[Location, list[tuple[str, ...] | None]]
"""Location of an ``enum`` -> what its sibling ``anyOf`` branches accept of strings (None = any string)."""


@dataclass
class Resolver:
    """One side's schema files, normalised on demand (each location once)."""

    documents: dict[str, Any]
    main: str
    open_enums: OpenEnums = field(default_factory=dict)
    _built: dict[Location, Node] = field(default_factory=dict)
    _building: set[Location] = field(default_factory=set)

    def locate(self, ref: str, current_file: str) -> tuple[Location, Any] | None:
        """A ``$ref`` to the same or a sibling file; None when it cannot be followed."""
        name, _, fragment = ref.partition("#")
        file = name or current_file
        document = self.documents.get(file)
        path: list[str | int] = []
        try:
            keys = pointer_path(fragment)
        except ValueError:  # a plain-name fragment (an anchor), not a JSON Pointer
            return None
        for key in keys:
            if not isinstance(document, dict):
                return None
            if key not in document:
                return None
            document = document[key]
            path.append(key)
        return ((file, tuple(path)), document) if isinstance(document, (dict, bool)) else None

    def unresolvable(self) -> list[tuple[str, str, str]]:
        """(file, JSON Pointer, ``$ref``) of every reference that cannot be followed (dangling, to a file this
        side does not have, or external), in file order. Values of ``const``, ``enum``, ``default`` and
        ``examples`` are data, not schemas: a ``$ref`` key inside them is not a reference."""
        found = []
        for file in [self.main, *sorted(set(self.documents) - {self.main})]:
            stack: list[tuple[Any, tuple[str, ...]]] = [(self.documents[file], ())]
            while stack:
                node, path = stack.pop()
                if isinstance(node, list):
                    stack.extend((item, (*path, str(index))) for index, item in reversed(list(enumerate(node))))
                    continue
                if not isinstance(node, dict):
                    continue
                ref = node.get("$ref")
                if isinstance(ref, str) and self.locate(ref, file) is None:
                    pointer = json_pointer(path)
                    found.append((file, pointer, ref))
                stack.extend((value, (*path, key)) for key, value in reversed(node.items()) if key not in DATA_KEYWORDS)
        return found

    def node(self, raw: Any, where: Location) -> Node:
        if where in self._built:
            return self._built[where]
        self._building.add(where)
        try:
            built = self._build(raw, where)
        finally:
            self._building.discard(where)
        self._built[where] = built
        return built

    # -- building one location -----------------------------------------------------------------
    def _build(self, raw: Any, where: Location) -> Node:
        file, path = where
        if not isinstance(raw, dict):
            return Node({"$boolean": raw}, {"$boolean": where}, where, raw)
        own = Node({}, {}, where, raw)
        members: list[Node] = []
        ref = raw.get("$ref")
        if isinstance(ref, str):
            own.ref = ref
            found = self.locate(ref, file)
            if found is None or found[0] in self._building:
                own.kw["$ref"] = ref  # dangling, external or circular: compared by its text
                own.at["$ref"] = (file, (*path, "$ref"))
            else:
                members.append(self.node(found[1], found[0]))
        for key, value in raw.items():
            here: Location = (file, (*path, key))
            if key in ANNOTATIONS or key in STRUCTURE or key.startswith("x-"):
                continue
            if key == "allOf" and isinstance(value, list):
                built = [self.node(m, (file, (*path, key, i))) for i, m in enumerate(value)]
                members.extend(built)
                own.bases = tuple(m["$ref"] for m in value if isinstance(m, dict) and isinstance(m.get("$ref"), str))
            elif key in ("anyOf", "oneOf") and isinstance(value, list):
                branches = [self.node(b, (file, (*path, key, i))) for i, b in enumerate(value)]
                if len(branches) == 1:
                    members.append(branches[0])
                elif key == "anyOf" or _disjoint(branches):
                    own.kw["anyOf"], own.at["anyOf"] = branches, here
                    self._record_open_enums(branches)
                else:
                    own.kw[key], own.at[key] = branches, here
            else:
                self._keyword(own, key, value, here)
        if not members:
            canonicalise(own)
            return own
        unmerged = Node({**own.kw, "allOf": members}, {**own.at, "allOf": (file, (*path, "allOf"))}, where, raw)
        unmerged.ref, unmerged.bases = own.ref, own.bases
        canonicalise(unmerged)
        result: Node | None = members[0]
        for member in [*members[1:], own]:
            result = merge(result, member) if result is not None else None
        if result is None:
            return unmerged
        merged = Node(result.kw, result.at, where, raw, own.ref, own.bases, unmerged)
        canonicalise(merged)
        return merged

    def _keyword(self, own: Node, key: str, value: Any, here: Location) -> None:
        file, path = here
        if key == "type" and (isinstance(value, str) or _strings(value)):
            own.kw[key] = frozenset([value] if isinstance(value, str) else value)
        elif key == "const":
            own.kw["enum"] = {json_key(value): value}
        elif key == "enum" and isinstance(value, list):
            values = {json_key(v): v for v in value}
            own.kw[key] = {k: v for k, v in values.items() if k in own.kw[key]} if key in own.kw else values
        elif key in NO_OP_ZERO and _number(value) and value == 0:
            return
        elif key in LOWER_BOUNDS + UPPER_BOUNDS and _number(value):
            own.kw[key] = value
        elif key == "pattern" and isinstance(value, str):
            if accepts_every_string(value):
                return
            own.kw[key] = frozenset([value])
        elif key == "properties" and isinstance(value, dict):
            own.kw[key] = {name: self.node(sub, (file, (*path, name))) for name, sub in value.items()}
        elif key == "required" and _strings(value):
            if not value:
                return
            own.kw[key] = frozenset(value)
            own.at.update({f"required:{name}": here for name in value})  # where each name is required
        elif key == "additionalProperties" and (value is True or value == {}):
            return  # open, as when absent (the bindings view still sees the explicit keyword)
        elif key == "additionalProperties" and value is False:
            own.kw[key] = False
        elif key in ("additionalProperties", "items") and isinstance(value, dict):
            own.kw[key] = self.node(value, here)
        else:
            own.kw[key] = value
        own.at["enum" if key == "const" else key] = here

    def _record_open_enums(self, branches: list[Node]) -> None:
        """An enum next to a branch that accepts its strings anyway is open (adding a value breaks no one)."""
        for i, branch in enumerate(branches):
            if "enum" not in branch.kw:
                continue
            siblings = self.open_enums.setdefault(branch.at["enum"], [])
            for j, other in enumerate(branches):
                if j != i and "enum" not in other.kw and covered(other.types(), "string"):
                    siblings.append(tuple(sorted(other.kw.get("pattern", frozenset()))) or None)


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _disjoint(branches: list[Node]) -> bool:
    """``oneOf`` means ``anyOf`` when no value can match two branches; proven here by their types alone."""
    seen: list[frozenset[str]] = []
    for branch in branches:
        types = branch.types()
        if ANY in types or any(_intersect_types(types, other) for other in seen):
            return False
        seen.append(types)
    return True


def canonicalise(node: Node) -> None:
    kw = node.kw
    if "type" in kw and "number" in kw["type"]:
        kw["type"] = kw["type"] - {"integer"}
    if "enum" in kw:
        if "type" in kw:
            kw["enum"] = {k: v for k, v in kw["enum"].items() if covered(kw["type"], json_type(v))}
            del kw["type"]
        values = kw["enum"]
        special = {json_key(None): "null"} if json_key(None) in values else {}
        if json_key(True) in values and json_key(False) in values:
            special.update({json_key(True): "boolean", json_key(False): "boolean"})
        if values and set(values) == set(special):
            kw["type"], node.at["type"] = frozenset(special.values()), node.at["enum"]
            del kw["enum"]
    if "anyOf" in kw and all(is_pure_type(b) for b in kw["anyOf"]):
        union = frozenset(t for b in kw.pop("anyOf") for t in b.kw["type"])
        node.at.setdefault("type", node.at["anyOf"])
        kw["type"] = _intersect_types(kw["type"], union) if "type" in kw else union
        if "number" in kw["type"]:
            kw["type"] = kw["type"] - {"integer"}


# -- merging allOf members ------------------------------------------------------------------------
def _pick(a: Node, b: Node, key: str, choose: Callable[[Any, Any], Any]) -> tuple[Any, Location]:
    value = choose(a.kw[key], b.kw[key])
    return value, (b.at[key] if value == b.kw[key] else a.at[key])


def merge(a: Node, b: Node) -> Node | None:
    """The effective constraints of ``allOf: [a, b]`` (ties keep b's location), or None if not exact."""
    if "$ref" in a.kw or "$ref" in b.kw or "$boolean" in a.kw or "$boolean" in b.kw:
        return None
    for closed, other in ((a, b), (b, a)):
        if "additionalProperties" in closed.kw and ("properties" in other.kw or "additionalProperties" in other.kw):
            return None  # additionalProperties only sees its own sibling properties
    if "anyOf" in a.kw and "anyOf" in b.kw:
        return None
    kw: dict[str, Any] = {}
    at: dict[str, Location] = {}
    for key in [*a.kw, *(k for k in b.kw if k not in a.kw)]:
        if key not in b.kw or key not in a.kw:
            source = a if key in a.kw else b
            kw[key], at[key] = source.kw[key], source.at[key]
            if key == "required":
                at.update({f"required:{n}": source.at[f"required:{n}"] for n in kw[key]})
        elif key == "type":
            kw[key], at[key] = _pick(a, b, key, _intersect_types)
        elif key == "enum":
            kw[key], at[key] = _pick(a, b, key, lambda x, y: {k: v for k, v in y.items() if k in x})
        elif key in LOWER_BOUNDS:
            kw[key], at[key] = _pick(a, b, key, max)
        elif key in UPPER_BOUNDS:
            kw[key], at[key] = _pick(a, b, key, min)
        elif key in ("pattern", "required"):
            kw[key], at[key] = a.kw[key] | b.kw[key], b.at[key]
            if key == "required":
                at.update({f"required:{n}": (b if n in b.kw[key] else a).at[f"required:{n}"] for n in kw[key]})
        elif key == "properties":
            properties = dict(a.kw[key])
            for name, schema in b.kw[key].items():
                combined = merge(properties[name], schema) if name in properties else schema
                if combined is None:
                    return None
                properties[name] = combined
            kw[key], at[key] = properties, b.at[key]
        elif key == "items":
            combined = merge(a.kw[key], b.kw[key])
            if combined is None:
                return None
            kw[key], at[key] = combined, b.at[key]
        elif key == "default" or _meaning_of(a.kw[key]) == _meaning_of(b.kw[key]):
            kw[key], at[key] = b.kw[key], b.at[key]
        else:
            return None
    node = Node(kw, at, b.where, b.raw, b.ref, b.bases)
    canonicalise(node)
    return node
