"""``validate``: the reference validator (jsonschema + referencing, offline) plus the contract's semantic rules.

jsonschema, referencing and regress are imported when a document is first validated, not with this module:
``check`` imports it for ``value_at`` and the semantic roles, and a clean run never validates a line.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any, cast

from verify_contract.contract import ContractModel, Field, RuleChoice, contract_model
from verify_contract.failure_kind_info import Deprecation
from verify_contract.findings import FALLBACK_RULE, Finding, Severity, finding, json_pointer
from verify_contract.schemas import profile_schema, schema_registry
from verify_contract.versions import DEFAULT_PROFILE, LATEST_VERSION, Profile, check_profile, check_version

if TYPE_CHECKING:
    import regress
    from jsonschema import ValidationError
    from jsonschema.protocols import Validator


@cache
def _ecma_regex(pattern: str) -> regress.Regex:
    import regress

    return regress.Regex(pattern)


def ecma_search(pattern: str, text: str) -> bool:
    """Whether ``pattern`` matches somewhere in ``text``, per ECMA-262 (as the ``pattern`` keyword decides)."""
    return _ecma_regex(pattern).find(text) is not None


def _ecma_pattern(
    validator: Validator, pattern: str, instance: Any, schema: Mapping[str, Any]
) -> Iterator[ValidationError]:
    """``pattern`` per ECMA-262, as JSON Schema requires: Python's ``re`` lets ``$`` match before a final newline."""
    from jsonschema import ValidationError

    if validator.is_type(instance, "string") and not ecma_search(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


@cache
def contract_validator_class() -> type[Validator]:
    """Draft 2020-12 with ``pattern`` per ECMA-262 (also ``ContractValidator``, built on first use)."""
    from jsonschema import Draft202012Validator, validators

    return cast(
        "type[Validator]",
        validators.extend(Draft202012Validator, {"pattern": _ecma_pattern}),  # type: ignore[no-untyped-call]
    )


def __getattr__(name: str) -> Any:
    # PEP 562: ``ContractValidator`` is built (jsonschema imported) only when someone asks for it.
    if name == "ContractValidator":
        return contract_validator_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@cache
def schema_validator(version: str, profile: Profile) -> Validator:
    """The reference validator of one profile at one version. It never fetches anything."""
    check_version(version)
    return contract_validator_class()(profile_schema(version, profile), registry=schema_registry(version))


@dataclass(frozen=True)
class ValidationResult:
    findings: list[Finding] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return not any(f.severity is Severity.ERROR for f in self.findings)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity is Severity.ERROR]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.severity is Severity.WARNING]

    @property
    def rules(self) -> list[str]:
        return sorted(f.rule for f in self.findings)


_PYTHON_JSON_TYPES = {bool: "boolean", int: "integer", float: "number", str: "string", dict: "object", list: "array"}
_KIND_HINT = "'<domain>_<condition>' or '<server>:<kind>', lowercase"


def json_type(value: Any) -> str:
    """The JSON type of a parsed value (integers are ``integer``; ``null`` for None)."""
    return "null" if value is None else _PYTHON_JSON_TYPES.get(type(value), "object")


def type_allowed(value: Any, types: tuple[str, ...]) -> bool:
    """Whether a value has one of the JSON types a field allows, as JSON Schema decides it (1.0 is an integer)."""
    kind = json_type(value)
    if kind in types:
        return True
    if kind == "integer":
        return "number" in types
    return kind == "number" and "integer" in types and float(value).is_integer()


def _choose(choices: tuple[RuleChoice, ...], instance: Any) -> str:
    """The first rule whose instance types include the value's (integers are numbers too)."""
    kind = json_type(instance)
    kinds = {kind, "number"} if kind == "integer" else {kind}
    for choice in choices:
        if choice.instance is None or kinds & set(choice.instance):
            return choice.rule
    return FALLBACK_RULE


def _schema_rule(error: ValidationError, model: ContractModel) -> list[tuple[str, str, list[str | int]]]:
    """Map one jsonschema error to (rule id, message, instance path) triples, by the model's per-field rules."""
    path = list(error.absolute_path)
    message = error.message
    where = json_pointer(path)
    if error.validator == "required" and isinstance(error.instance, dict):
        required = cast("list[str]", error.validator_value)
        triples: list[tuple[str, str, list[str | int]]] = []
        for name in (name for name in required if name not in error.instance):
            member = model.field(json_pointer([*path, name]))
            rule = member.missing_rule if member is not None and member.missing_rule else FALLBACK_RULE
            if rule == FALLBACK_RULE:
                triples.append((rule, f"{where}: {message}", path))
            else:
                prefix = f"{'.'.join(map(str, path))}: " if path else ""
                triples.append((rule, f"{prefix}required field {name!r} is missing", path))
        return triples
    if not path:
        choices = model.document_type_rules if not isinstance(error.instance, dict) else model.document_invalid_rules
        return [(_choose(choices, error.instance), f"/: {message}", path)]
    field = model.field(where)
    if field is None:  # deeper than any declared member (an array item, an undeclared member's inside)
        return [(FALLBACK_RULE, f"{where}: {message}", path)]
    allowed = type_allowed(error.instance, field.types)
    rule = _choose(field.invalid_rules if allowed else field.type_rules, error.instance)
    if allowed and isinstance(error.instance, str) and where == model.roles.get("failure_kind"):
        message = f"{error.instance!r} is not a failure-kind name ({_KIND_HINT})"
    return [(rule, f"{where}: {message}", path)]


def schema_findings(document: Any, version: str, profile: Profile) -> list[Finding]:
    found: list[Finding] = []
    errors = sorted(
        schema_validator(version, profile).iter_errors(document), key=lambda e: list(map(str, e.absolute_path))
    )
    model = contract_model(version)
    for error in errors:
        for rule, message, path in _schema_rule(error, model):
            item = finding(rule, message, json_pointer(path))
            if item not in found:  # jsonschema reports each missing property, we report all of them per error
                found.append(item)
    return found


@cache
def deprecated_kinds(version: str) -> dict[str, Deprecation]:
    """Registered kinds deprecated at or before ``version``, with their deprecation."""
    kinds = contract_model(version).failure_kinds
    return {
        kind["id"]: Deprecation(
            kind["deprecated"]["in"], kind["deprecated"]["reason"], kind["deprecated"].get("renamed_to")
        )
        for kind in (kinds["registered"] if kinds else [])
        if kind["deprecated"]
    }


@cache
def _registered(version: str) -> frozenset[str]:
    kinds = contract_model(version).failure_kinds
    return frozenset(kind["id"] for kind in kinds["registered"]) if kinds else frozenset()


ABSENT = object()
"""What ``value_at`` returns where there is no value."""


def value_at(document: Any, path: tuple[str, ...]) -> Any:
    """The value at a member path, or ``_ABSENT`` (also when a container on the way is not an object)."""
    for part in path:
        if not isinstance(document, dict) or part not in document:
            return ABSENT
        document = document[part]
    return document


def _dotted(field: Field) -> str:
    return ".".join(field.path)


# The roles semantic_findings reads. A finite reward changes nothing (check relies on that).
SEMANTIC_ROLES = ("reward", "failure_kind", "mask", "legacy_mask")


def semantic_findings(document: dict[str, Any], version: str) -> list[Finding]:
    """The rules JSON Schema cannot say: finiteness, registry membership, the legacy mask. They read the
    fields playing the SPEC roles (the model's ``roles``), wherever a version declares them."""
    found: list[Finding] = []
    model = contract_model(version)
    reward_field = model.role("reward")
    if reward_field is not None:
        reward = value_at(document, reward_field.path)
        if isinstance(reward, float) and not math.isfinite(reward):
            where = reward_field.pointer
            found.append(finding("reward-non-finite", f"{where}: {reward!r} is not a finite number", where))
    kind_field = model.role("failure_kind")
    kinds = model.failure_kinds
    if kind_field is not None and kinds is not None:
        kind = value_at(document, kind_field.path)
        where = kind_field.pointer
        if isinstance(kind, str) and kinds["namespace_separator"] not in kind:
            registered = _registered(version)
            if kind not in registered and _ecma_regex(kinds["grammar"]).find(kind) is not None:
                found.append(
                    finding(
                        "failure-kind-unregistered",
                        f"{where}: {kind!r} is not registered at {version}; consumers treat it as a generic "
                        "failure (use '<server>:<kind>' for an environment's own kinds)",
                        where,
                    )
                )
            info = deprecated_kinds(version).get(kind)
            if info is not None and kind in registered:
                hint = f"; use {info.renamed_to!r}" if info.renamed_to else ""
                found.append(
                    finding(
                        "failure-kind-deprecated", f"{where}: {kind!r} is deprecated since {info.since}{hint}", where
                    )
                )
    mask_field, legacy_field = model.role("mask"), model.role("legacy_mask")
    if mask_field is not None and legacy_field is not None:
        legacy = value_at(document, legacy_field.path)
        if isinstance(legacy, bool):
            top = value_at(document, mask_field.path)
            if top is ABSENT:
                found.append(
                    finding(
                        "legacy-mask-only",
                        f"the mask ({str(legacy).lower()}) is only in the deprecated {_dotted(legacy_field)}; "
                        f"write the top-level {_dotted(mask_field)} too",
                        legacy_field.pointer,
                    )
                )
            elif isinstance(top, bool) and top != legacy:
                found.append(
                    finding(
                        "legacy-mask-divergent",
                        f"{_dotted(mask_field)} is {str(top).lower()} but {_dotted(legacy_field)} is "
                        f"{str(legacy).lower()}; the effective mask is true",
                        mask_field.pointer,
                    )
                )
    return found


def validate(document: Any, version: str = LATEST_VERSION, profile: Profile = DEFAULT_PROFILE) -> ValidationResult:
    """Validate one parsed JSON document against one profile of one contract version."""
    check_version(version)
    check_profile(profile)
    found = schema_findings(document, version, profile)
    if isinstance(document, dict):
        found.extend(semantic_findings(document, version))
    return ValidationResult(found)
