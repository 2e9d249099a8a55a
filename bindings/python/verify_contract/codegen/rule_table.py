"""The schema-rule table of a contract version: which SPEC rule id a schema violation at each location maps to.

Every binding maps its JSON Schema validator's errors to rule ids with one generic function fed by this
table, so no language re-types the mapping. Format (one JSON array per contract version, written into each
binding's generated files):

    {"pointer": "/failure_kind", "keyword": "type", "types": ["string", "null"], "rule": "failure-kind-type"}
    {"pointer": "/failure_kind", "keyword": "value", "rule": "failure-kind-format"}
    {"pointer": "/reward", "keyword": "required", "rule": "reward-required"}

``pointer`` is a JSON Pointer to the instance; ``keyword`` is ``required`` (the member at ``pointer`` is
missing), ``type`` (the value's JSON type is not one of ``types``; ``number`` admits integers) or
``value`` (the type is right, the value is not). A violation at a location without a row is
``schema-violation``; a ``type`` row is written even when its rule is ``schema-violation``, so a wrong
type never falls through to the location's ``value`` row. The rows are read from the resolved model
(docs/resolved-model.md): each field's ``rules.missing`` / ``rules.type`` / ``rules.invalid`` and the
document's ``document_rules``, the entries the reference validator maps its errors with, so the table
follows the reference by construction (until contract model 1 it probed the reference instead: the
tables of 1.0.0 to 1.2.0 are unchanged).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def _rule(choices: Sequence[Mapping[str, Any]], types: Sequence[str]) -> str | None:
    """The rule of the first choice that applies to a value of one of ``types`` (a choice without
    ``instance`` applies to every type)."""
    for choice in choices:
        if "instance" not in choice or set(choice["instance"]) & set(types):
            rule: str = choice["rule"]
            return rule
    return None


def _table_types(types: Sequence[str]) -> list[str]:
    """The table's spelling: ``integer`` is ``number`` (the binding checks integrality by ``value``),
    null last."""
    spelled = ["number" if t == "integer" else t for t in types if t != "null"]
    unique = list(dict.fromkeys(spelled))
    return unique + (["null"] if "null" in types else [])


def schema_rules(model: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The rule table of one version's resolved model: the union of its profiles' rows."""
    rows: list[dict[str, Any]] = []
    document_type = _rule(model["document_rules"]["type"], ["object"])
    if document_type is not None:
        rows.append({"pointer": "", "keyword": "type", "types": ["object"], "rule": document_type})
    for field in model["fields"]:
        pointer, rules = field["pointer"], field["rules"]
        if rules["missing"] is not None:
            rows.append({"pointer": pointer, "keyword": "required", "rule": rules["missing"]})
        types = _table_types(field["types"])
        wrong_type = _rule(rules["type"], [t for t in ("object", "array", "string", "number", "boolean", "null")
                                           if t not in types])  # fmt: skip
        if wrong_type is not None:
            rows.append({"pointer": pointer, "keyword": "type", "types": types, "rule": wrong_type})
        # A value of an admitted type can be wrong only where the field constrains values.
        constrained = bool(field["constraints"]) or field["enum_definition"] is not None
        bad_value = _rule(rules["invalid"], [t for t in types if t != "null"]) if constrained else None
        if bad_value is not None:
            rows.append({"pointer": pointer, "keyword": "value", "rule": bad_value})
    return sorted(rows, key=lambda row: (row["pointer"], row["keyword"]))
