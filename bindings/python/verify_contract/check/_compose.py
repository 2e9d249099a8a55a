"""The composition shortcut: the reference's findings on a strict-JSON line, composed member by member
instead of validating the whole document.

It holds because of what the resolved contract model says of the profile (checked by ``plan``, which
declines a profile where it does not hold): the document itself has no keyword beyond ``properties`` and
``required`` (no keyword relates two members) and every undeclared member is free. So the schema findings
of a document are the root's ``required`` findings followed, in member-name order, by each declared
member's own findings (validation sorts them by path), and a member's findings depend on that member alone.

Most members are composed without the reference at all, from the model and the version's wording table
(``generated/wording/<version>.json``, written by ``python -m generators`` from the reference's own
findings on probe documents, see ``generators/wording.py``):

- a value of a type the field allows, where no constraint keyword of the field looks at that type, has no
  finding of its own (an object's declared members are then composed the same way);
- a value of a type the field refuses, where no constraint keyword looks at that type, gets the table's
  findings for that type with the value's ``repr`` where the probe's was (jsonschema quotes the instance by
  its repr); a string at a field whose one constraint is a pattern, and that does not match it, likewise;
- the missing required members' findings come from the table, per set of members present.

Anything else (a constraint keyword that looks at the value: ``minimum``, ``maxLength``, ``items``, ...)
sends that member to the reference, memoised by its *shape* (the value with the parts the schema judges by
type alone canonicalised). The semantic rules are the reference's own function, run on the document.
tests/check/test_differential.py compares the result with ``validate`` on every line of its corpora, including
one generated from each version's model and the benchmark's distinct-defect corpora; the change drill
(tests/package/test_change_drill.py) does it for a new version with constrained fields of every type.
"""

from __future__ import annotations

import json
import os
from functools import cache, lru_cache

from verify_contract.check._outcome import Outcome, outcome_of
from verify_contract.contract import Field, Profile, ResolvedModel, json_pointer
from verify_contract.findings import RULES, Finding, Severity, finding
from verify_contract.records import FrozenRecord
from verify_contract.reference import ecma_search, json_text, semantic_findings

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from verify_contract.contract import Contract

_CANONICAL: dict[type, Any] = {type(None): None, bool: False, str: "", int: 0, float: 0, list: []}
"""A value of each JSON type that stands for any other of its type (used where only the type matters)."""

_PYTHON_TYPES: dict[str, tuple[type, ...]] = {
    "null": (type(None),),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
    "number": (int, float),
    "integer": (int,),
    "string": (str,),
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
const, not, anyOf, ...) may look at every value."""

JSON_TYPES: tuple[type, ...] = (type(None), bool, int, float, str, list, dict)
"""The Python types of parsed JSON values."""


def looks_at(field: Field, kind: type) -> bool:
    """Whether any constraint keyword of ``field`` looks at a value of this Python type."""
    return any(kind in _KEYWORD_TYPES.get(keyword, JSON_TYPES) for keyword in field.constraints)


def allowed(field: Field, kind: type) -> bool:
    """Whether the field's types admit every value of this Python type (a float at an integer field depends
    on the value: not admitted)."""
    return any(kind in _PYTHON_TYPES[name] for name in field.types)


def refused(field: Field, kind: type) -> bool:
    """Whether the field's types refuse every value of this Python type."""
    return not allowed(field, kind) and not (kind is float and "integer" in field.types)


def pattern_of(field: Field) -> str | None:
    """The pattern of a string field whose one constraint is a pattern (the failure-kind grammar)."""
    if "string" in field.types and len(field.constraints) == 1:
        pattern = field.constraints.get("pattern")
        return pattern if isinstance(pattern, str) else None
    return None


class Plan(FrozenRecord):
    """How the findings of one profile are composed."""

    __slots__ = ("members", "children", "base", "required", "free", "required_of")  # noqa: RUF023
    members: tuple[Field, ...]
    """The profile's top-level members, in name order (the order of their findings)."""
    children: dict[str, tuple[Field, ...]]
    """Declared members of each object field, by its pointer, in name order."""
    base: dict[str, Any]
    """A valid document holding only the required members."""
    required: frozenset[str]
    free: dict[str, frozenset[type]]
    """Per field: the Python types it allows and no constraint keyword looks at (no finding of their own)."""
    required_of: dict[str, frozenset[str]]
    """Per object field with required members in this profile: their names."""

    def __init__(
        self,
        members: tuple[Field, ...],
        children: dict[str, tuple[Field, ...]],
        base: dict[str, Any],
        required: frozenset[str],
        free: dict[str, frozenset[type]],
        required_of: dict[str, frozenset[str]],
    ) -> None:
        self._freeze(members, children, base, required, free, required_of)


def minimal(field: Field, children: dict[str, tuple[Field, ...]], profile: str) -> Any:
    """A value valid for ``field`` (raises LookupError when constraints make that unknowable)."""
    if field.constraints:
        raise LookupError(field.pointer)
    kind = field.types[0]
    if kind == "object":
        return {
            child.name: minimal(child, children, profile)
            for child in children.get(field.pointer, ())
            if profile in child.required_in
        }
    return {"null": None, "boolean": False, "array": [], "number": 0, "integer": 0, "string": ""}[kind]


def build_plan(model: ResolvedModel, profile: Profile) -> Plan | None:
    """The plan of one profile of a model, or None where composing is not sound."""
    definition = model.definitions[model.profiles[profile].definition]
    if definition["constraints"] or definition["additional_properties"] not in (None, True):
        return None
    fields = model.fields_of(profile)
    grouped: dict[str, list[Field]] = {}
    for field in fields:
        grouped.setdefault(field.parent, []).append(field)
    children = {parent: tuple(sorted(group, key=lambda f: f.name)) for parent, group in grouped.items()}
    members = children.get("", ())
    try:
        base = {f.name: minimal(f, children, profile) for f in members if profile in f.required_in}
    except LookupError:
        return None  # a required member with constraints: no known valid value to compose around
    free = {f.pointer: frozenset(t for t in JSON_TYPES if allowed(f, t) and not looks_at(f, t)) for f in fields}
    required_of = {
        parent: names
        for parent, group in children.items()
        if parent and (names := frozenset(c.name for c in group if profile in c.required_in))
    }
    return Plan(members, children, base, frozenset(base), free, required_of)


@cache
def plan(contract: Contract) -> Plan | None:
    """How to compose the findings of the contract's profile, or None where composing is not sound."""
    return build_plan(contract.model, contract.profile)


# The wording table (generators/wording.py): per profile, the root findings per set of required members
# present, and per field the findings of a refused type (or of a string the field's pattern refuses), each
# message split where the probe's repr was.
Template = tuple[tuple[str, Severity, tuple[str, ...], str], ...]
"""(rule, its severity, message parts around the value's repr, pointer) of each finding."""


class Wording(FrozenRecord):
    __slots__ = ("required", "fields")  # noqa: RUF023 (the constructor's order)
    required: dict[str, dict[frozenset[str], tuple[Finding, ...]]]
    """Per object pointer ("" the document), the findings of its missing members per set of required present."""
    fields: dict[str, dict[str, Template]]
    """Per field pointer, per refused Python type name (or ``pattern``), the findings' template."""

    def __init__(
        self, required: dict[str, dict[frozenset[str], tuple[Finding, ...]]], fields: dict[str, dict[str, Template]]
    ) -> None:
        self._freeze(required, fields)


WORDING_DIRECTORY = os.path.join(os.path.dirname(os.path.dirname(__file__)), "generated", "wording")


@cache
def wording(contract: Contract) -> Wording | None:
    """The wording table of the contract's profile, or None (every member then asks the reference)."""
    try:
        with open(os.path.join(WORDING_DIRECTORY, f"{contract.version}.json"), encoding="utf-8") as file:
            table = json.load(file)["profiles"].get(contract.profile)
    except FileNotFoundError:
        return None
    if table is None:
        return None
    required = {
        pointer: {frozenset(row["present"]): tuple(finding(*item) for item in row["findings"]) for row in rows}
        for pointer, rows in table["required"].items()
    }
    fields = {
        pointer: {
            case: tuple((rule, RULES[rule].severity, tuple(parts), where) for rule, parts, where in items)
            for case, items in cases.items()
        }
        for pointer, cases in table["fields"].items()
    }
    return Wording(required, fields)


def fill(template: Template, value: Any, found: list[Finding]) -> None:
    """Append the findings of a template for this value (a message quotes the value as JSON: json_text)."""
    quoted = json_text(value)
    for rule, severity, parts, where in template:
        found.append(Finding(rule, severity, quoted.join(parts), where))


class _Unworded(Exception):
    """A value the table does not word: its member goes to the reference."""


Node = tuple[
    frozenset[type],  # the types with no finding of their own
    tuple[tuple[str, "Node"], ...],  # declared members (of an object), in name order
    frozenset[str],  # their required names
    dict[frozenset[str], tuple[Finding, ...]],  # findings of the missing ones, per set present
    dict[type, Template],  # per refused type, the findings' template
    "tuple[str, Template] | None",  # a pattern-only string field: its pattern and the template of a mismatch
]
"""What composing a field's findings reads, gathered once per contract (``_composer``)."""


def _node(layout: Plan, table: Wording, field: Field) -> Node:
    cases = table.fields.get(field.pointer, {})
    pattern = pattern_of(field)
    return (
        layout.free[field.pointer],
        tuple((child.name, _node(layout, table, child)) for child in layout.children.get(field.pointer, ())),
        layout.required_of.get(field.pointer, frozenset()),
        table.required.get(field.pointer, {}),
        {kind: cases[kind.__name__] for kind in JSON_TYPES if kind.__name__ in cases},
        (pattern, cases["pattern"]) if pattern is not None and "pattern" in cases else None,
    )


def _worded(node: Node, value: Any, found: list[Finding]) -> None:
    """Append the findings of ``value`` at a field (and below it), or raise ``_Unworded``."""
    free, children, required, missing, cases, pattern = node
    kind = type(value)
    if kind in free:
        if kind is dict:
            if required:
                worded = missing.get(required.intersection(value))
                if worded is None:
                    raise _Unworded
                found.extend(worded)
            for name, child in children:
                if name in value:
                    _worded(child, value[name], found)
        return
    if pattern is not None and kind is str:
        if not ecma_search(pattern[0], value):
            fill(pattern[1], value, found)
        return
    template = cases.get(kind)
    if template is None:
        raise _Unworded
    fill(template, value, found)


@cache
def _composer(
    contract: Contract,
) -> tuple[Plan, tuple[tuple[Field, Node], ...], dict[frozenset[str], tuple[Finding, ...]]] | None:
    """The plan, each top-level member's node and the root's missing-member findings of one profile (no
    table: every member goes to the reference)."""
    layout = plan(contract)
    if layout is None:
        return None
    table = wording(contract) or Wording({}, {})
    return layout, tuple((f, _node(layout, table, f)) for f in layout.members), table.required.get("", {})


# Members the table does not word are judged on the reference by shape, memoised; a shape is small and the
# memo is capped (in entries and in key size), so that memory stays flat however many distinct lines a file
# holds.
MEMBER_MEMO_ENTRIES = 4096
MEMBER_MEMO_KEY_BYTES = 4096


@lru_cache(maxsize=MEMBER_MEMO_ENTRIES)
def _member_findings(contract: Contract, member: str, shape_json: bytes) -> tuple[Finding, ...]:
    return _judge_member(contract, member, json.loads(shape_json))


def _judge_member(contract: Contract, member: str, shape: Any) -> tuple[Finding, ...]:
    from verify_contract.reference import schema_findings  # the validator: only members the table does not word

    layout = plan(contract)
    assert layout is not None
    probe = dict(layout.base)
    probe[member] = shape
    return tuple(schema_findings(probe, contract))


def _shape(layout: Plan, field: Field, value: Any) -> Any:
    """The part of a member's value its schema findings can depend on: the types judged by type alone are
    canonicalised (an object's declared members each by their own shape)."""
    kind = type(value)
    if kind not in layout.free[field.pointer]:
        return value
    if kind is dict:
        return {
            child.name: _shape(layout, child, value[child.name])
            for child in layout.children.get(field.pointer, ())
            if child.name in value
        }
    return _CANONICAL[kind]


def _referenced(contract: Contract, layout: Plan, field: Field, value: Any) -> tuple[Finding, ...]:
    shape = _shape(layout, field, value)
    key = json.dumps(shape, ensure_ascii=False).encode()
    if len(key) > MEMBER_MEMO_KEY_BYTES:
        return _judge_member(contract, field.name, shape)
    return _member_findings(contract, field.name, key)


@lru_cache(maxsize=256)
def _root_findings(contract: Contract, present: frozenset[str]) -> tuple[Finding, ...]:
    """The root's missing-member findings on the reference (for a set the wording table lacks)."""
    from verify_contract.reference import schema_findings

    layout = plan(contract)
    assert layout is not None
    probe = {key: value for key, value in layout.base.items() if key in present}
    missing = {json_pointer([name]) for name in layout.required - present}  # each found where it would be
    return tuple(f for f in schema_findings(probe, contract) if f.pointer in missing)


# Parsing a contract line: json (already imported) for the first ORJSON_AFTER_BYTES of them, then orjson. Its
# import costs about 20 ms (it pulls in dataclasses, uuid, datetime), the time json takes over orjson for
# 1.5 MB of small lines or 9 MB of large ones; so a run with few distinct contract defects (a pre-commit hook,
# the usual dump) never pays it, and one with many pays at most about twice what knowing in advance would.
ORJSON_AFTER_BYTES = 2 << 20
_json_bytes = 0
_loads: Callable[[bytes | memoryview], Any] | None = None


def parse_strict(raw: bytes | memoryview) -> Any:
    """The document of a line the pre-check proved strict JSON (no duplicate name, finite numbers, integers
    short enough, no lone surrogate): json and orjson both build exactly what ``parse_json`` would. orjson
    reads a view of the input as it is; json wants bytes."""
    global _json_bytes, _loads
    if _loads is not None:
        return _loads(raw)
    _json_bytes += len(raw)
    if _json_bytes > ORJSON_AFTER_BYTES:
        import orjson

        _loads = orjson.loads
    return json.loads(bytes(raw) if isinstance(raw, memoryview) else raw)


def contract_outcome(raw: bytes | memoryview, contract: Contract) -> Outcome:
    """A line the pre-check found to be strict JSON (no duplicate, finite, shallow, small integers), with or
    without its line terminator."""
    composer = _composer(contract)
    if composer is None:
        from verify_contract.check._reference import reference_line

        return reference_line(raw, contract)
    layout, members, root = composer
    try:
        document = parse_strict(raw)
    except ValueError:  # json's and orjson's errors: the pre-check's proof failed, let the reference say why
        from verify_contract.check._reference import reference_line

        return reference_line(raw, contract)
    if not isinstance(document, dict):
        from verify_contract.check._reference import document_outcome

        return document_outcome(document, contract)
    present = layout.required.intersection(document)
    worded = root.get(present)
    found = list(worded if worded is not None else _root_findings(contract, present))
    for field, node in members:
        if field.name in document:
            mark = len(found)
            try:
                _worded(node, document[field.name], found)
            except _Unworded:
                del found[mark:]
                found.extend(_referenced(contract, layout, field, document[field.name]))
    # The semantic rules are plain Python over a few members: the reference's own function, on the document.
    found.extend(semantic_findings(document, contract.model))
    return outcome_of(document, tuple(found), contract.model)


def clear_caches() -> None:
    _member_findings.cache_clear()
    _root_findings.cache_clear()
    _composer.cache_clear()
