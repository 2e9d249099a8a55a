"""Per-version wording tables: the reference validator's own findings for the values ``check`` composes
without it (``verify_contract/check/_compose.py``), captured here once per release instead of on every run.

For each profile the composition plan declares sound, the reference judges probe documents (the plan's
minimal valid document with one value changed):

- ``required``: per object (the document's pointer is ""), the findings of its missing required members (each
  at the pointer the member would have), for every set of its required members present;
- ``fields``: per field, per Python type the field refuses and no constraint keyword looks at, the findings
  of a value of that type; and, for a string field whose one constraint is a pattern, of a string that does
  not match it (case ``pattern``). Each message is split where the probe's repr was: jsonschema quotes an
  instance by its repr, so the findings of any other value of the case are the parts joined by its repr.

A case goes into the table only if two different probes bear that out exactly (their findings differ by
their reprs alone, each quoted once, at the field's pointer); anything else is left out, and ``check``
asks the reference for it. tests/check/test_differential.py holds the composed findings to the reference's.
"""

from __future__ import annotations

import itertools
from typing import Any

from verify_contract.check._compose import Plan, build_plan, looks_at, minimal, pattern_of, refused
from verify_contract.contract import json_pointer
from verify_contract.contract._model import Field, ResolvedModel, model_from_data
from verify_contract.findings import Finding
from verify_contract.reference import _validation as validation
from verify_contract.reference._schema_messages import json_text
from verify_contract.reference._semantic import ecma_search

# Two values of each JSON type, unlike in every way a message could show (quotes, escapes, non-ASCII).
PROBES: dict[type, tuple[Any, Any]] = {
    type(None): (None, None),
    bool: (True, False),
    str: ("\x00probe", "'probe\"\\\u00e9\U0001f600"),
    int: (-7239165048213, 5104729361987),
    float: (-7239165.048213, 51047.29361987),
    list: (["\x00probe-array"], [-7239165048213, "'p\"\\"]),
    dict: ({"\x00probe-object": -7239165048213}, {"'p\"\\": [None]}),
}
MAX_REQUIRED_MEMBERS = 8
"""The findings of missing members are tabled for every subset of an object's required members: not beyond
2**8 subsets."""


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


def _minimal_of(layout: Plan, field: Field, profile: str) -> Any:
    """A valid value of an object field (None when its constraints make that unknowable)."""
    try:
        return minimal(field, layout.children, profile)
    except LookupError:
        return None


def _template(field: Field, probes: tuple[Any, Any], judged: list[list[Finding]]) -> list[Any] | None:
    """The findings of the first probe, split at its repr, if the second probe's are the same joined by its
    repr (else None: the case is not worded by the repr alone)."""
    first, second = judged
    old, new = json_text(probes[0]), json_text(probes[1])
    if not first or any(f.pointer != field.pointer for f in first):
        return None
    if old != new and any(f.message.count(old) != 1 for f in first):
        return None
    if [f.replace(message=f.message.replace(old, new)) for f in first] != second:
        return None
    return [[f.rule, f.message.split(old) if old != new else [f.message], f.pointer] for f in first]


def profile_wording(model: ResolvedModel, documents: list[dict[str, Any]], profile: str) -> dict[str, Any] | None:
    layout = build_plan(model, profile)
    if layout is None:
        return None
    validator = validation.validator_of(documents, profile)

    def judge(document: Any) -> list[Finding]:
        return validation.findings_of_errors(validator.iter_errors(document), model)

    required: dict[str, list[dict[str, Any]]] = {}
    objects: list[tuple[str, Any, Field | None]] = [("", layout.base, None)]
    for f in model.fields_of(profile):
        if f.pointer in layout.children:
            objects.append((f.pointer, _minimal_of(layout, f, profile), f))
    for pointer, valid, field in objects:
        names = sorted(c.name for c in layout.children.get(pointer, ()) if profile in c.required_in)
        if not names or len(names) > MAX_REQUIRED_MEMBERS or not isinstance(valid, dict):
            continue
        rows = required[pointer] = []
        for size in range(len(names) + 1):
            for present in itertools.combinations(names, size):
                value = {name: valid[name] for name in present}
                document = value if field is None else _probe_document(layout, field, value)
                missing = {pointer + json_pointer([name]) for name in names if name not in present}
                found = [f for f in judge(document) if f.pointer in missing]
                rows.append({"present": list(present), "findings": [[f.rule, f.message, f.pointer] for f in found]})
    fields: dict[str, dict[str, Any]] = {}
    for field in model.fields_of(profile):
        cases: dict[str, Any] = {}
        for kind, probes in PROBES.items():
            if refused(field, kind) and not looks_at(field, kind):
                judged = [judge(_probe_document(layout, field, probe)) for probe in probes]
                template = _template(field, probes, judged)
                if template is not None:
                    cases[kind.__name__] = template
        pattern = pattern_of(field)
        probes = PROBES[str]
        if pattern is not None and not any(ecma_search(pattern, p) for p in probes):
            template = _template(field, probes, [judge(_probe_document(layout, field, p)) for p in probes])
            if template is not None:
                cases["pattern"] = template
        if cases:
            fields[field.pointer] = cases
    return {"required": required, "fields": fields}


def wording_table(model_data: dict[str, Any], documents: list[dict[str, Any]]) -> dict[str, Any]:
    """The wording table of one version: its resolved model and its schema files (the contract file first)."""
    model = model_from_data(model_data)
    profiles = {name: profile_wording(model, documents, name) for name in model.profiles}
    return {
        "$comment": "GENERATED by `python -m generators` (generators/wording.py): do not edit.",
        "version": model.version,
        "profiles": {name: table for name, table in profiles.items() if table is not None},
    }
