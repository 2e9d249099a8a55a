"""The composition shortcut: the reference's findings on a strict-JSON line, composed from memoised
findings of each member instead of validating the whole document.

It holds because of what the resolved contract model says of the profile (checked by ``plan``, which
declines a profile where it does not hold): the document itself has no keyword beyond ``properties`` and
``required`` (no keyword relates two members) and every undeclared member is free. So the schema findings
of a document are the root's ``required`` findings followed, in member-name order, by each declared
member's own findings (validation sorts them by path); and a member's findings depend only on its
*shape*: a value of an allowed type without constraints is judged by its type alone (its declared members
each by their own shape), a value the schema refuses by its type alone (or a string by whether it matches
the field's one pattern) through a stand-in (see "Stand-ins" below), anything else by its whole value. The
semantic rules are the reference's own function, run on the document. tests/test_differential.py compares
the result with ``validate`` on every line of its corpora, including one generated from each version's
model and the benchmark's distinct-defect corpora.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

import orjson

from verify_contract import validation
from verify_contract.check_reference import Outcome, document_outcome, facts, reference_outcome
from verify_contract.contract import ContractModel, Field, contract_model
from verify_contract.findings import Finding
from verify_contract.versions import Profile

_CANONICAL: dict[type, Any] = {type(None): None, bool: False, str: "", int: 0, float: 0, list: []}
"""A value of each JSON type that stands for any other of its type (used where only the type matters)."""


@dataclass(frozen=True)
class Plan:
    members: tuple[Field, ...]
    """The profile's top-level members, in name order (the order of their findings)."""
    children: dict[str, tuple[Field, ...]]
    """Declared members of each object field, by its pointer."""
    base: dict[str, Any]
    """A valid document holding only the required members."""
    required: frozenset[str]
    judged_by_type: dict[str, frozenset[type]]
    """Per field without constraints: the Python types of values its type alone judges (a float where only
    integers are allowed is not among them: such a value is kept whole, which is exact, just shared less)."""


_PYTHON_TYPES: dict[str, tuple[type, ...]] = {
    "null": (type(None),),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
    "number": (int, float),
    "integer": (int,),
    "string": (str,),
}


def _minimal(field: Field, children: dict[str, tuple[Field, ...]], profile: str) -> Any:
    """A value valid for ``field`` (raises LookupError when constraints make that unknowable)."""
    if field.constraints:
        raise LookupError(field.pointer)
    kind = field.types[0]
    if kind == "object":
        return {
            child.name: _minimal(child, children, profile)
            for child in children.get(field.pointer, ())
            if profile in child.required_in
        }
    return {"null": None, "boolean": False, "array": [], "number": 0, "integer": 0, "string": ""}[kind]


def _build_plan(model: ContractModel, profile: Profile) -> Plan | None:
    definition = model.definitions[model.profiles[profile].definition]
    if definition["constraints"] or definition["additional_properties"] not in (None, True):
        return None
    fields = model.fields_of(profile)
    children: dict[str, tuple[Field, ...]] = {}
    for field in fields:
        children[field.parent] = (*children.get(field.parent, ()), field)
    members = tuple(sorted(children.get("", ()), key=lambda f: f.name))
    try:
        base = {f.name: _minimal(f, children, profile) for f in members if profile in f.required_in}
    except LookupError:
        return None  # a required member with constraints: no known valid value to compose around
    judged = {
        f.pointer: frozenset(t for name in f.types for t in _PYTHON_TYPES[name]) for f in fields if not f.constraints
    }
    return Plan(members, children, base, frozenset(base), judged)


@cache
def plan(version: str, profile: Profile) -> Plan | None:
    """How to compose the findings of one profile at one version, or None where composing is not sound."""
    return _build_plan(contract_model(version), profile)


# Per member, the findings of a shape are memoised; a shape is small and the memo is capped (in entries
# and in key size), so that memory stays flat however many distinct lines a file holds.
MEMBER_MEMO_ENTRIES = 4096
MEMBER_MEMO_KEY_BYTES = 4096


@lru_cache(maxsize=MEMBER_MEMO_ENTRIES)
def _member_findings(version: str, profile: Profile, member: str, shape_json: bytes) -> tuple[Finding, ...]:
    return _judge_member(version, profile, member, orjson.loads(shape_json))


def _judge_member(version: str, profile: Profile, member: str, shape: Any) -> tuple[Finding, ...]:
    layout = plan(version, profile)
    assert layout is not None
    probe = dict(layout.base)
    probe[member] = shape
    return tuple(validation.schema_findings(probe, version, profile))


def _shape_findings(version: str, profile: Profile, member: str, shape: Any) -> tuple[Finding, ...]:
    key = orjson.dumps(shape)
    if len(key) > MEMBER_MEMO_KEY_BYTES:
        return _judge_member(version, profile, member, shape)
    return _member_findings(version, profile, member, key)


# Stand-ins. Where a value's findings depend on it only through its repr (jsonschema words a `type` error
# as f"{instance!r} is not of type ...", and the failure-kind grammar's as f"{instance!r} is not a
# failure-kind name ..."), the member's shape holds a probe of the value's Python type instead, and the
# probe's repr in the findings at that pointer is replaced by the value's. Producers that get a field wrong
# write a new wrong value on almost every line (a string reward, a mask of "yes 17"): without stand-ins each
# would be a new shape for the reference to judge. A stand-in is used only where the schema cannot look at
# the value beyond its type (no constraint keyword applies to that type; ``_KEYWORD_TYPES``), and only
# once two probes of the type have borne the substitution out on the reference (``stand_in_holds``).
# Booleans and null are not stood in for: they have too few values to need it.
_PROBES: dict[type, tuple[Any, Any]] = {
    str: ("\x00probe", "'probe\"\\\u00e9\U0001f600"),
    int: (-7239165048213, 5104729361987),
    float: (-7239165.048213, 51047.29361987),
    list: (["\x00probe-array"], [-7239165048213, "'p\"\\"]),
    dict: ({"\x00probe-object": -7239165048213}, {"'p\"\\": [None]}),
}

_NUMBER = (int, float)
_KEYWORD_TYPES: dict[str, tuple[type, ...]] = {
    **dict.fromkeys(("pattern", "maxLength", "minLength", "format", "contentEncoding", "contentMediaType"), (str,)),
    **dict.fromkeys(("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"), _NUMBER),
    **dict.fromkeys(
        ("items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains", "minContains", "maxContains"),
        (list,),
    ),
    **dict.fromkeys(
        (
            "properties",
            "required",
            "additionalProperties",
            "patternProperties",
            "minProperties",
            "maxProperties",
            "propertyNames",
            "dependentRequired",
            "dependentSchemas",
        ),
        (dict,),
    ),
}
"""The instance types each constraint keyword looks at (JSON Schema 2020-12); any other keyword (enum,
const, not, anyOf, ...) may look at every value, and a field that has one gets no stand-in."""


def _type_only(field: Field, kind: type) -> bool:
    """Whether the schema judges a value of this Python type at ``field`` by its type alone, and refuses it."""
    if kind not in _PROBES or type_allowed_python(kind, field.types):
        return False
    return all(kind not in _KEYWORD_TYPES.get(keyword, (kind,)) for keyword in field.constraints)


def type_allowed_python(kind: type, types: tuple[str, ...]) -> bool:
    # A float is an integer when it is integral: that depends on the value, so floats count as allowed there.
    return any(kind in _PYTHON_TYPES[name] for name in types) or (kind is float and "integer" in types)


def _pattern_of(field: Field) -> str | None:
    """The pattern of a string field whose one constraint is a pattern (the failure-kind grammar)."""
    if "string" in field.types and len(field.constraints) == 1:
        pattern = field.constraints.get("pattern")
        return pattern if isinstance(pattern, str) else None
    return None


def _probe_document(layout: Plan, field: Field, value: Any) -> dict[str, Any]:
    """The plan's minimal valid document with ``value`` at the field's place."""
    document = dict(layout.base)
    container = document
    for part in field.path[:-1]:
        inner = container.get(part)
        container[part] = inner = dict(inner) if isinstance(inner, dict) else {}
        container = inner
    container[field.path[-1]] = value
    return document


@cache
def stand_in_holds(version: str, profile: Profile, pointer: str, type_name: str) -> bool:
    """Whether a value of this type at ``pointer`` may be stood in for: on the reference, the findings of
    the two probes differ exactly by their reprs, at that pointer only (and the probes are refused there)."""
    layout = plan(version, profile)
    field = contract_model(version).field(pointer)
    kind = next((t for t in _PROBES if t.__name__ == type_name), None)
    if layout is None or field is None or kind is None:
        return False
    pattern = _pattern_of(field)
    if not _type_only(field, kind) and not (kind is str and pattern is not None):
        return False
    first, second = _PROBES[kind]
    if pattern is not None and kind is str and any(validation.ecma_search(pattern, p) for p in (first, second)):
        return False
    found = [validation.schema_findings(_probe_document(layout, field, p), version, profile) for p in (first, second)]
    old, new = repr(first), repr(second)
    quoting = [f for f in found[0] if old in f.message]
    if not quoting or any(f.pointer != pointer or f.message.count(old) != 1 for f in quoting):
        return False
    swapped = [f.replace(message=f.message.replace(old, new)) for f in found[0]]
    return swapped == found[1]


_MATCHING: dict[tuple[str, str], str] = {}
"""Per (version, pointer) of a pattern field, the first value seen that matches: it stands for any other
matching value (the pattern is the field's one constraint, so matching values have equal findings)."""

Swaps = dict[str, tuple[str, str]]
"""Pointer -> (repr of the probe in the shape, repr of the value it stands for)."""


def _shape(version: str, profile: Profile, field: Field, value: Any, layout: Plan, swaps: Swaps) -> Any:
    """The part of a member's value its schema findings can depend on (see "Stand-ins")."""
    kind = type(value)
    if kind in layout.judged_by_type.get(field.pointer, ()):
        if kind is dict:
            return {
                child.name: _shape(version, profile, child, value[child.name], layout, swaps)
                for child in layout.children.get(field.pointer, ())
                if child.name in value
            }
        return _CANONICAL[kind]
    if kind not in _PROBES or not stand_in_holds(version, profile, field.pointer, kind.__name__):
        return value  # a type or a constraint the stand-ins do not cover: judged as it is
    if kind is str and (pattern := _pattern_of(field)) is not None and validation.ecma_search(pattern, value):
        return _MATCHING.setdefault((version, field.pointer), value)
    probe = _PROBES[kind][0]
    swaps[field.pointer] = (repr(probe), repr(value))
    return probe


def _findings_of(version: str, profile: Profile, layout: Plan, field: Field, value: Any) -> tuple[Finding, ...]:
    swaps: Swaps = {}
    shape = _shape(version, profile, field, value, layout, swaps)
    found = _shape_findings(version, profile, field.name, shape)
    if not swaps:
        return found
    out = []
    for item in found:
        for pointer, (probe, actual) in swaps.items():
            if probe in item.message:
                if item.pointer != pointer:  # a finding elsewhere quotes the probe: judge the value itself
                    return _judge_member(version, profile, field.name, value)
                item = item.replace(message=item.message.replace(probe, actual))
        out.append(item)
    return tuple(out)


@lru_cache(maxsize=256)
def _root_findings(version: str, profile: Profile, present: frozenset[str]) -> tuple[Finding, ...]:
    layout = plan(version, profile)
    assert layout is not None
    probe = {key: value for key, value in layout.base.items() if key in present}
    return tuple(f for f in validation.schema_findings(probe, version, profile) if not f.pointer)


def contract_outcome(raw: bytes, version: str, profile: Profile) -> Outcome:
    """A line the pre-check found to be strict JSON (no duplicate, finite, shallow, small integers).

    orjson builds exactly the document ``parse_json`` would, faster (it refuses lone surrogates, which the
    reference accepts: those take the reference path).
    """
    layout = plan(version, profile)
    if layout is None:
        return reference_outcome(raw, version, profile)
    try:
        document = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return reference_outcome(raw, version, profile)
    if not isinstance(document, dict):
        return document_outcome(document, version, profile)
    found = list(_root_findings(version, profile, layout.required.intersection(document)))
    for field in layout.members:
        if field.name in document:
            found.extend(_findings_of(version, profile, layout, field, document[field.name]))
    # The semantic rules are plain Python over a few members: the reference's own function, on the document.
    found.extend(validation.semantic_findings(document, version))
    return facts(document, tuple(found), version)


def clear_caches() -> None:
    _member_findings.cache_clear()
    stand_in_holds.cache_clear()
    _root_findings.cache_clear()
    _MATCHING.clear()
