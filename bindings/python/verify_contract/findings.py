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
from enum import Enum

from verify_contract.contract import contract_model
from verify_contract.generated import LATEST_VERSION
from verify_contract.records import FrozenRecord

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from typing import Any


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        """Info 0, warning 1, error 2: ``a.rank >= b.rank`` is "at least as severe"."""
        return _RANKS[self]


_RANKS = {Severity.INFO: 0, Severity.WARNING: 1, Severity.ERROR: 2}


class Rule(FrozenRecord):
    """A rule of the contract's catalogue: its id, severity and one-line summary."""

    __slots__ = ("id", "severity", "summary")
    id: str
    severity: Severity
    summary: str

    def __init__(self, id: str, severity: Severity, summary: str) -> None:
        self._freeze(id, severity, summary)


def _catalogue() -> dict[str, Rule]:
    # Rules are never removed or renamed (SPEC.md, "Rules"): the latest version's catalogue holds them all.
    rules = contract_model(LATEST_VERSION).rules
    return {rule["id"]: Rule(rule["id"], Severity(rule["severity"]), rule["summary"]) for rule in rules}


# The rule catalogue. Ids are public API: never renamed or reused (SPEC.md, "Rules").
RULES: dict[str, Rule] = _catalogue()
FALLBACK_RULE: str = next(r["id"] for r in contract_model(LATEST_VERSION).rules if r.get("scope") == "fallback")
"""The rule of a schema violation that no more specific rule names."""


class Finding(FrozenRecord):
    """One thing a tool found: a rule id, its severity, a message, where (a JSON Pointer into the document
    or file, and the file, vector or source it is in when there is more than one), and what else the tool
    that found it knows of it (``context``).

    Immutable; equal when every field is; hashed without ``context`` (tools deduplicate findings);
    pickled by value (``check --jobs`` workers send findings back).

    - ``pointer``: JSON Pointer (RFC 6901) to the offending value; empty for the whole document.
    - ``file``: the file (or vector, or source) the pointer is in; empty when the finding is about one document.
    - ``context``: JSON data the tool adds, never changed after: the differ's ``direction``, ``breaks``,
      ``bump`` and ``forbidden`` (``verify_contract.diff.rules``), the conformance kit's obligation ``level``
      and vector ``description`` (``verify_contract.conformance.report``); empty for validation, check and
      the lint.
    """

    __slots__ = ("rule", "severity", "message", "pointer", "file", "context")  # noqa: RUF023 (constructor order)
    rule: str
    severity: Severity
    message: str
    pointer: str
    file: str
    context: Mapping[str, Any]

    def __init__(
        self,
        rule: str,
        severity: Severity,
        message: str,
        pointer: str = "",
        file: str = "",
        context: Mapping[str, Any] | None = None,
    ) -> None:
        # The slots one by one, not through _freeze's loop: check builds a finding per distinct bad line, and
        # this takes 0.6 us against 1.4 (tests/reference/test_findings.py holds the order to __slots__).
        _set_rule(self, rule)
        _set_severity(self, severity)
        _set_message(self, message)
        _set_pointer(self, pointer)
        _set_file(self, file)
        _set_context(self, {} if context is None else context)

    def __hash__(self) -> int:
        return hash((self.rule, self.severity, self.message, self.pointer, self.file))

    def replace(self, **changes: Any) -> Finding:
        """A copy with some fields changed, as ``dataclasses.replace`` gave when ``Finding`` was a dataclass."""
        return Finding(**{**{name: getattr(self, name) for name in self.__slots__}, **changes})

    __replace__ = replace  # copy.replace (Python 3.13+)

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


_set_rule, _set_severity, _set_message, _set_pointer, _set_file, _set_context = Finding._slot_setters


def finding(rule_id: str, message: str, pointer: str = "") -> Finding:
    return Finding(rule_id, RULES[rule_id].severity, message, pointer)
