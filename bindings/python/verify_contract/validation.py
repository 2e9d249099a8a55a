"""``validate``: the reference validator (jsonschema + referencing, offline) plus the contract's semantic rules."""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any, cast

import regress
from jsonschema import Draft202012Validator, ValidationError, validators
from jsonschema.protocols import Validator

from verify_contract.failure_kind_info import Deprecation
from verify_contract.findings import Finding, Severity, finding, json_pointer
from verify_contract.generated.failure_kinds import KINDS
from verify_contract.schemas import declared_fields, profile_schema, registered_failure_kinds, schema_registry
from verify_contract.versions import DEFAULT_PROFILE, LATEST_VERSION, Profile, check_profile, check_version, version_key

NAMESPACE_SEPARATOR = ":"


@cache
def _ecma_regex(pattern: str) -> regress.Regex:
    return regress.Regex(pattern)


def _ecma_pattern(
    validator: Validator, pattern: str, instance: Any, schema: Mapping[str, Any]
) -> Iterator[ValidationError]:
    """``pattern`` per ECMA-262, as JSON Schema requires: Python's ``re`` lets ``$`` match before a final newline."""
    if validator.is_type(instance, "string") and _ecma_regex(pattern).find(instance) is None:
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


ContractValidator = cast(
    "type[Validator]",
    validators.extend(Draft202012Validator, {"pattern": _ecma_pattern}),  # type: ignore[no-untyped-call]
)


@cache
def schema_validator(version: str, profile: Profile) -> Validator:
    """The reference validator of one profile at one version. It never fetches anything."""
    check_version(version)
    return ContractValidator(profile_schema(version, profile), registry=schema_registry(version))


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


def _schema_rule(error: ValidationError) -> list[tuple[str, str, list[str | int]]]:
    """Map one jsonschema error to (rule id, message, instance path) triples."""
    path = list(error.absolute_path)
    message = error.message
    if error.validator == "required" and isinstance(error.instance, dict):
        required = cast("list[str]", error.validator_value)
        missing = [name for name in required if name not in error.instance]
        triples: list[tuple[str, str, list[str | int]]] = []
        for name in missing:
            if not path:
                rule = "reward-required" if name == "reward" else "gym-field-required"
                triples.append((rule, f"required field {name!r} is missing", path))
            elif path == ["response"] and name == "output":
                triples.append(("response-output-required", "response: required field 'output' is missing", path))
            else:
                triples.append(("schema-violation", f"{json_pointer(path)}: {message}", path))
        return triples
    where = json_pointer(path)
    head = path[0] if path else None
    rule = "schema-violation"
    if not path:
        rule = "document-type" if error.validator == "type" else "schema-violation"
    elif head == "reward" and len(path) == 1:
        rule = "reward-type"
    elif head == "mask_sample" and len(path) == 1:
        rule = "mask-sample-type"
    elif head == "failure_kind" and len(path) == 1:
        rule = "failure-kind-format" if isinstance(error.instance, str) else "failure-kind-type"
        if rule == "failure-kind-format":
            grammar = "'<domain>_<condition>' or '<server>:<kind>', lowercase"
            message = f"{error.instance!r} is not a failure-kind name ({grammar})"
    elif head == "failure_reason" and len(path) == 1:
        rule = "failure-reason-type"
    elif head == "instance_config":
        rule = (
            "instance-config-type" if len(path) == 1 else ("legacy-mask-type" if path[1:] == ["mask_sample"] else rule)
        )
    elif head in ("responses_create_params", "response") and len(path) == 1:
        rule = "gym-field-type"
    elif path == ["response", "output"]:
        rule = "response-output-type"
    return [(rule, f"{where or '/'}: {message}", path)]


def schema_findings(document: Any, version: str, profile: Profile) -> list[Finding]:
    found: list[Finding] = []
    errors = sorted(
        schema_validator(version, profile).iter_errors(document), key=lambda e: list(map(str, e.absolute_path))
    )
    for error in errors:
        for rule, message, path in _schema_rule(error):
            item = finding(rule, message, json_pointer(path))
            if item not in found:  # jsonschema reports each missing property, we report all of them per error
                found.append(item)
    return found


@cache
def deprecated_kinds(version: str) -> dict[str, Deprecation]:
    """Registered kinds deprecated at or before ``version``, with their deprecation."""
    return {
        kind.id: kind.deprecated
        for kind in KINDS
        if kind.deprecated is not None and version_key(kind.deprecated.since) <= version_key(version)
    }


def semantic_findings(document: dict[str, Any], version: str) -> list[Finding]:
    """The rules JSON Schema cannot say: finiteness, registry membership, the legacy mask."""
    found: list[Finding] = []
    fields = declared_fields(version)
    reward = document.get("reward")
    if isinstance(reward, float) and not math.isfinite(reward):
        found.append(finding("reward-non-finite", f"/reward: {reward!r} is not a finite number", "/reward"))
    kind = document.get("failure_kind")
    if "failure_kind" in fields and isinstance(kind, str) and NAMESPACE_SEPARATOR not in kind:
        registered = registered_failure_kinds(version)
        if kind not in registered and _ecma_regex("^[a-z][a-z0-9_]*$").find(kind) is not None:
            found.append(
                finding(
                    "failure-kind-unregistered",
                    f"/failure_kind: {kind!r} is not registered at {version}; consumers treat it as a generic failure "
                    "(use '<server>:<kind>' for an environment's own kinds)",
                    "/failure_kind",
                )
            )
        info = deprecated_kinds(version).get(kind)
        if info is not None and kind in registered:
            hint = f"; use {info.renamed_to!r}" if info.renamed_to else ""
            found.append(
                finding(
                    "failure-kind-deprecated",
                    f"/failure_kind: {kind!r} is deprecated since {info.since}{hint}",
                    "/failure_kind",
                )
            )
    config = document.get("instance_config")
    if "instance_config" in fields and isinstance(config, dict) and isinstance(config.get("mask_sample"), bool):
        legacy = config["mask_sample"]
        top = document.get("mask_sample")
        if "mask_sample" not in document:
            found.append(
                finding(
                    "legacy-mask-only",
                    f"the mask ({str(legacy).lower()}) is only in the deprecated instance_config.mask_sample; "
                    "write the top-level mask_sample too",
                    "/instance_config/mask_sample",
                )
            )
        elif isinstance(top, bool) and top != legacy:
            found.append(
                finding(
                    "legacy-mask-divergent",
                    f"mask_sample is {str(top).lower()} but instance_config.mask_sample is {str(legacy).lower()}; "
                    "the effective mask is true",
                    "/mask_sample",
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
