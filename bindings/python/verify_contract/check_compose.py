"""The composition shortcut: the reference's findings on a strict-JSON line, composed from memoised
findings of each member instead of validating the whole document.

It holds because of what the resolved contract model says of the profile (checked by ``plan``, which
declines a profile where it does not hold): the document itself has no keyword beyond ``properties`` and
``required`` (no keyword relates two members) and every undeclared member is free. So the schema findings
of a document are the root's ``required`` findings followed, in member-name order, by each declared
member's own findings (validation sorts them by path); and a member's findings depend only on its
*shape*: a value of an allowed type without constraints is judged by its type alone (its declared members
each by their own shape), anything else by its whole value. The semantic rules read only the fields
playing the SPEC roles. tests/test_differential.py compares the result with ``validate`` on every line of
its corpora, including one generated from each version's model.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

import orjson

from verify_contract import validation
from verify_contract.check_reference import Outcome, document_outcome, facts, reference_outcome
from verify_contract.contract import ContractModel, Field, contract_model
from verify_contract.findings import Finding
from verify_contract.validation import SEMANTIC_ROLES, value_at
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
    role_paths: tuple[tuple[str, ...], ...]
    """Where the fields the semantic rules read live."""
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
    roles = tuple(model.roles[role] for role in SEMANTIC_ROLES if role in model.roles)
    role_paths = tuple(f.path for f in fields if f.pointer in roles)
    judged = {
        f.pointer: frozenset(t for name in f.types for t in _PYTHON_TYPES[name]) for f in fields if not f.constraints
    }
    return Plan(members, children, base, frozenset(base), role_paths, judged)


@cache
def plan(version: str, profile: Profile) -> Plan | None:
    """How to compose the findings of one profile at one version, or None where composing is not sound."""
    return _build_plan(contract_model(version), profile)


def _shape(field: Field, value: Any, layout: Plan) -> Any:
    """The part of a member's value its schema findings can depend on."""
    kind = type(value)
    if kind not in layout.judged_by_type.get(field.pointer, ()):
        return value  # constrained, or a type the schema refuses (the message quotes the value)
    if kind is dict:
        return {
            child.name: _shape(child, value[child.name], layout)
            for child in layout.children.get(field.pointer, ())
            if child.name in value
        }
    return _CANONICAL[kind]


@lru_cache(maxsize=1 << 16)
def _member_findings(version: str, profile: Profile, member: str, shape_json: bytes) -> tuple[Finding, ...]:
    layout = plan(version, profile)
    assert layout is not None
    probe = dict(layout.base)
    probe[member] = orjson.loads(shape_json)
    return tuple(validation.schema_findings(probe, version, profile))


# A string where a member's schema wants another type, with no other constraint, is judged by the `type`
# keyword alone, and jsonschema words that as f"{instance!r} is not of type ...": the finding holds the
# value only as its repr. Producers that write rewards as strings write a new string on almost every line,
# so the finding is filled in from a template taken from the reference on two probe strings, used only if
# both probes bear it out.
_PROBES = ("\x00probe", "'probe\"\\\u00e9\U0001f600")


@cache
def string_type_template(version: str, profile: Profile, member: str) -> tuple[Finding, str, str] | None:
    probes = [_member_findings(version, profile, member, orjson.dumps(probe)) for probe in _PROBES]
    if any(len(found) != 1 for found in probes):
        return None
    first, second = probes[0][0], probes[1][0]
    if first.message.count(repr(_PROBES[0])) != 1:
        return None
    head, _, tail = first.message.partition(repr(_PROBES[0]))
    if second != Finding(first.rule, first.severity, head + repr(_PROBES[1]) + tail, first.pointer):
        return None
    return first, head, tail


def _findings_of(version: str, profile: Profile, layout: Plan, field: Field, value: Any) -> tuple[Finding, ...]:
    if type(value) is str and not field.constraints and "string" not in field.types:
        template = string_type_template(version, profile, field.name)
        if template is not None:
            first, head, tail = template
            return (Finding(first.rule, first.severity, head + repr(value) + tail, first.pointer),)
    shape = _shape(field, value, layout)
    return _member_findings(version, profile, field.name, orjson.dumps(shape))


@lru_cache(maxsize=1 << 16)
def _semantic_findings(version: str, skeleton_json: bytes) -> tuple[Finding, ...]:
    return tuple(validation.semantic_findings(orjson.loads(skeleton_json), version))


def _semantic_skeleton(document: dict[str, Any], layout: Plan) -> dict[str, Any]:
    """The role fields' values at their places; a finite number stands for any (no semantic rule reads
    more of a number than its finiteness)."""
    skeleton: dict[str, Any] = {}
    for path in layout.role_paths:
        value = value_at(document, path)
        if value is validation.ABSENT:
            continue
        if type(value) in (int, float) and math.isfinite(value):
            value = 0
        container = skeleton
        for part in path[:-1]:
            container = container.setdefault(part, {})
        container[path[-1]] = value
    return skeleton


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
    found.extend(_semantic_findings(version, orjson.dumps(_semantic_skeleton(document, layout))))
    return facts(document, tuple(found), version)


def clear_caches() -> None:
    _member_findings.cache_clear()
    string_type_template.cache_clear()
    _root_findings.cache_clear()
    _semantic_findings.cache_clear()
