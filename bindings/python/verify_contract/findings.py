"""Findings: what validation reports, each under a stable rule id."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True)
class Rule:
    id: str
    severity: Severity
    summary: str


def _rule(rule_id: str, severity: Severity, summary: str) -> Rule:
    return Rule(rule_id, severity, summary)


E, W = Severity.ERROR, Severity.WARNING

# The rule catalogue. Ids are public API: never renamed or reused (SPEC.md, "Rules").
RULES: dict[str, Rule] = {
    rule.id: rule
    for rule in (
        _rule("json-syntax", E, "The text is not one JSON value (bad syntax, truncation, invalid UTF-8, BOM)."),
        _rule(
            "json-non-finite",
            E,
            "A number is NaN, Infinity or overflows to infinity (e.g. 1e400): JSON has no such value.",
        ),
        _rule("json-duplicate-key", E, "An object repeats a member name (I-JSON, RFC 7493, forbids it)."),
        _rule("json-too-deep", E, "Arrays and objects nest deeper than 100 levels."),
        _rule("document-type", E, "The document is not a JSON object."),
        _rule("reward-required", E, "`reward` is missing."),
        _rule("reward-type", E, "`reward` is not a JSON number (booleans, strings and null are not numbers)."),
        _rule("reward-non-finite", E, "`reward` is NaN or infinite."),
        _rule("mask-sample-type", E, "`mask_sample` is not a boolean."),
        _rule("failure-kind-type", E, "`failure_kind` is neither a string nor null."),
        _rule("failure-kind-format", E, "`failure_kind` is a string outside the name grammar."),
        _rule("failure-kind-unregistered", W, "`failure_kind` is well formed but neither registered nor namespaced."),
        _rule("failure-kind-deprecated", W, "`failure_kind` names a deprecated kind."),
        _rule("failure-reason-type", E, "`failure_reason` is neither a string nor null."),
        _rule("instance-config-type", E, "`instance_config` is neither an object nor null."),
        _rule("legacy-mask-type", E, "`instance_config.mask_sample` is not a boolean."),
        _rule("legacy-mask-only", W, "The mask is only in the deprecated `instance_config.mask_sample`."),
        _rule("legacy-mask-divergent", W, "`mask_sample` and `instance_config.mask_sample` disagree."),
        _rule("gym-field-required", E, "A field the gym profile requires is missing."),
        _rule("gym-field-type", E, "`responses_create_params` or `response` is not an object."),
        _rule("response-output-required", E, "`response.output` is missing."),
        _rule("response-output-type", E, "`response.output` is not an array."),
        _rule("schema-violation", E, "The document breaks the schema in a way no more specific rule names."),
    )
}


@dataclass(frozen=True)
class Finding:
    rule: str
    severity: Severity
    message: str
    pointer: str = ""
    """JSON Pointer (RFC 6901) to the offending value; empty for the whole document."""

    def as_dict(self) -> dict[str, str]:
        return {"rule": self.rule, "severity": self.severity.value, "message": self.message, "pointer": self.pointer}


def finding(rule_id: str, message: str, pointer: str = "") -> Finding:
    return Finding(rule_id, RULES[rule_id].severity, message, pointer)


def json_pointer(path: list[str | int]) -> str:
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in path)
