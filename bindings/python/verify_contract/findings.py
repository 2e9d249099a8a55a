"""Findings: what validation, check, the registry lint, the differ and the conformance kit report, each
under a stable rule id.

One ``Finding`` type and one ``Severity`` for every tool of the package (OpenTelemetry Weaver's shape: an
id, a level, a message and a context). Each tool names its own rules: the contract's rule catalogue (ids,
severities, summaries) is read from the resolved contract model (``schema/contract.yaml``, SPEC.md's rules
table is generated from it); the differ's is ``verify_contract.diff.rules``, the conformance kit's
obligations ``verify_contract.conformance.obligations``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from verify_contract.contract import contract_model
from verify_contract.generated import LATEST_VERSION


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        """Info 0, warning 1, error 2: ``a.rank >= b.rank`` is "at least as severe"."""
        return _RANKS[self]


_RANKS = {Severity.INFO: 0, Severity.WARNING: 1, Severity.ERROR: 2}


@dataclass(frozen=True)
class Rule:
    id: str
    severity: Severity
    summary: str


def _catalogue() -> dict[str, Rule]:
    # Rules are never removed or renamed (SPEC.md, "Rules"): the latest version's catalogue holds them all.
    rules = contract_model(LATEST_VERSION).rules
    return {rule["id"]: Rule(rule["id"], Severity(rule["severity"]), rule["summary"]) for rule in rules}


# The rule catalogue. Ids are public API: never renamed or reused (SPEC.md, "Rules").
RULES: dict[str, Rule] = _catalogue()
FALLBACK_RULE: str = next(r["id"] for r in contract_model(LATEST_VERSION).rules if r.get("scope") == "fallback")
"""The rule of a schema violation that no more specific rule names."""


@dataclass(frozen=True)
class Finding:
    """One thing a tool found: a rule id, its severity, a message, where (a JSON Pointer into the document
    or file, and the file, vector or source it is in when there is more than one), and what else the tool
    that found it knows of it (``context``)."""

    rule: str
    severity: Severity
    message: str
    pointer: str = ""
    """JSON Pointer (RFC 6901) to the offending value; empty for the whole document."""
    file: str = ""
    """The file (or vector, or source) the pointer is in; empty when the finding is about one document."""
    context: Mapping[str, Any] = field(default_factory=dict, hash=False)
    """JSON data the tool adds, never changed after: the differ's ``direction``, ``breaks``, ``bump`` and
    ``forbidden`` (``verify_contract.diff.rules``), the conformance kit's obligation ``level`` and vector
    ``description`` (``verify_contract.conformance.report``); empty for validation, check and the lint."""

    @property
    def id(self) -> str:
        """The rule id, by Weaver's name."""
        return self.rule

    @property
    def level(self) -> str:
        """The severity's name, by Weaver's name."""
        return self.severity.value

    @property
    def where(self) -> str:
        """``file#pointer``, or the pointer alone when there is no file."""
        return f"{self.file}#{self.pointer}" if self.file else self.pointer

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "rule": self.rule,
            "severity": self.severity.value,
            "message": self.message,
            "pointer": self.pointer,
        }
        if self.file:
            data["file"] = self.file
        if self.context:
            data["context"] = dict(self.context)
        return data


def finding(rule_id: str, message: str, pointer: str = "") -> Finding:
    return Finding(rule_id, RULES[rule_id].severity, message, pointer)


def json_pointer(path: list[str | int]) -> str:
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in path)
