"""``validate``: the reference validator (jsonschema + referencing, offline) plus the contract's semantic rules.

jsonschema, referencing and regress are imported when a document is first validated, not with this module. The
semantic rules live in ``semantic``, which ``check`` uses without this module.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any, cast

from verify_contract.contract import (
    DEFAULT_PROFILE,
    LATEST_VERSION,
    Contract,
    Deprecation,
    Profile,
    ResolvedModel,
    RuleChoice,
    check_version,
    contract_model,
    json_pointer,
    profile_reference,
    profile_schema,
    registry_of,
    resolve_contract,
    schema_registry,
)
from verify_contract.findings import FALLBACK_RULE, Finding, Severity, finding
from verify_contract.generated.contract_names import ROLE_FAILURE_KIND
from verify_contract.reference._schema_messages import json_text, schema_error_message
from verify_contract.reference._semantic import deprecations, ecma_search, semantic_findings

if TYPE_CHECKING:
    from jsonschema import ValidationError
    from jsonschema.protocols import Validator


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
def schema_validator(contract: Contract) -> Validator:
    """The reference validator of the contract's profile at its version. It never fetches anything."""
    schema = profile_schema(contract.version, contract.profile)
    return contract_validator_class()(schema, registry=schema_registry(contract.version))


def validator_of(documents: list[dict[str, Any]], profile: Profile) -> Validator:
    """The reference validator of one profile over these schema files (the first is the contract file):
    the generators judge a version's probes with it before the version is in the package."""
    schema = profile_reference(documents[0]["$id"], profile)
    return contract_validator_class()(schema, registry=registry_of(documents))


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
_KIND_HINT = '"<domain>_<condition>" or "<server>:<kind>", lowercase'


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


def _schema_rule(error: ValidationError, model: ResolvedModel) -> list[tuple[str, str, list[str | int]]]:
    """Map one jsonschema error to (rule id, message, instance path) triples, by the model's per-field rules."""
    path = list(error.absolute_path)
    message = schema_error_message(error.validator, error.validator_value, error.instance)
    where = json_pointer(path)
    if error.validator == "required" and isinstance(error.instance, dict):
        required = cast("list[str]", error.validator_value)
        triples: list[tuple[str, str, list[str | int]]] = []
        # A missing member is found at the pointer it would have (SPEC 8): where a producer must add it.
        for name in (name for name in required if name not in error.instance):
            at: list[str | int] = [*path, name]
            member = model.field(json_pointer(at))
            rule = member.missing_rule if member is not None and member.missing_rule else FALLBACK_RULE
            if rule == FALLBACK_RULE:
                triples.append((rule, f"{where}: {message}", at))
            else:
                prefix = f"{'.'.join(map(str, path))}: " if path else ""
                triples.append((rule, f"{prefix}required field {json_text(name)} is missing", at))
        return triples
    if not path:
        choices = model.document_type_rules if not isinstance(error.instance, dict) else model.document_invalid_rules
        return [(_choose(choices, error.instance), f"/: {message}", path)]
    field = model.field(where)
    if field is None:  # deeper than any declared member (an array item, an undeclared member's inside)
        return [(FALLBACK_RULE, f"{where}: {message}", path)]
    allowed = type_allowed(error.instance, field.types)
    rule = _choose(field.invalid_rules if allowed else field.type_rules, error.instance)
    if allowed and isinstance(error.instance, str) and where == model.roles.get(ROLE_FAILURE_KIND):
        message = f"{json_text(error.instance)} is not a failure-kind name ({_KIND_HINT})"
    return [(rule, f"{where}: {message}", path)]


def schema_findings(document: Any, contract: Contract) -> list[Finding]:
    validator = schema_validator(contract)
    return findings_of_errors(validator.iter_errors(document), contract.model)


def findings_of_errors(errors: Iterable[ValidationError], model: ResolvedModel) -> list[Finding]:
    """The findings of jsonschema's errors on one document, in path order, by the model's rules."""
    found: list[Finding] = []
    for error in sorted(errors, key=lambda e: list(map(str, e.absolute_path))):
        for rule, message, path in _schema_rule(error, model):
            item = finding(rule, message, json_pointer(path))
            if item not in found:  # jsonschema reports each missing property, we report all of them per error
                found.append(item)
    return found


@cache
def deprecated_kinds(version: str) -> dict[str, Deprecation]:
    """Registered kinds deprecated at or before ``version``, with their deprecation (``ValueError`` for an
    unknown version)."""
    model = contract_model(check_version(version))  # a public entry point: the version resolved here, once
    return {
        kind: Deprecation(entry["in"], entry["reason"], entry.get("renamed_to"))
        for kind, entry in deprecations(model).items()
    }


def validate(document: Any, version: str = LATEST_VERSION, profile: Profile = DEFAULT_PROFILE) -> ValidationResult:
    """Validate one parsed JSON document against one profile of one contract version."""
    return judge(document, resolve_contract(version, profile))


def judge(document: Any, contract: Contract) -> ValidationResult:
    """``validate`` for a contract resolved once by the caller (``check`` judges many documents by one)."""
    found = schema_findings(document, contract)
    if isinstance(document, dict):
        found.extend(semantic_findings(document, contract.model))
    return ValidationResult(found)
