"""The report of ``check``: mergeable counts (``Tally``), located findings, and ``Report`` with the names
scripts read since the first release (total, valid, invalid, masked, warnings, errors, ...)."""

from __future__ import annotations

import json
from collections import Counter

from verify_contract.check import _fastpath as fastpath
from verify_contract.contract import Profile
from verify_contract.findings import Finding, Severity
from verify_contract.generated.contract_names import RULE_LEGACY_MASK_DIVERGENT, RULE_LEGACY_MASK_ONLY
from verify_contract.records import FrozenRecord, Record

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from typing import Any

    from verify_contract.check._budget import BudgetRun, ChunkFacts
    from verify_contract.check._outcome import Outcome

DEFAULT_MAX_FINDINGS = 1000
KIND_CLASSES = fastpath.KIND_CLASSES


class LocatedFinding(FrozenRecord):
    __slots__ = ("path", "line", "finding")  # noqa: RUF023 (the constructor's order: repr and pickling use it)
    path: str
    line: int | None
    finding: Finding

    def __init__(self, path: str, line: int | None, finding: Finding) -> None:
        self._freeze(path, line, finding)

    def as_dict(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, **self.finding.as_dict()}


class Tally(Record):
    """Mergeable counts of a run or of one chunk; the findings listing is capped, the counts are not."""

    __slots__ = (  # noqa: RUF023 (the order of the repr)
        "max_findings",
        "lines",
        "valid",
        "invalid",
        "blank",
        "masked",
        "legacy_used",
        "kinds",
        "rules",
        "severities",
        "findings",
        "facts",
    )
    __hash__ = None  # type: ignore[assignment]  # mutable

    def __init__(self, max_findings: int = DEFAULT_MAX_FINDINGS) -> None:
        self.max_findings = max_findings
        self.lines = 0
        self.valid = 0
        self.invalid = 0
        self.blank = 0
        self.masked = 0
        self.legacy_used = 0
        self.kinds: Counter[str] = Counter()
        self.rules: Counter[str] = Counter()
        self.severities: Counter[str] = Counter()
        self.findings: list[LocatedFinding] = []
        self.facts: list[ChunkFacts] = []  # a failure budget's view of the lines, in order (check_budget)

    def add(self, outcome: Outcome, path: str, line: int | None) -> None:
        self.count(outcome, 1)
        self.list(outcome, path, line)

    def count(self, outcome: Outcome, times: int) -> None:
        """Count ``times`` documents with this outcome (their findings are listed with ``list``)."""
        if outcome.valid:
            self.valid += times
            self.masked += outcome.masked * times
            self.legacy_used += outcome.legacy * times
            if outcome.kind:
                self.kinds[outcome.kind] += times
        else:
            self.invalid += times
        for item in outcome.findings:
            self.rules[item.rule] += times
            self.severities[item.severity] += times  # a str enum: the key is its value ("error")

    def list(self, outcome: Outcome, path: str, line: int | None) -> None:
        for item in outcome.findings:
            if len(self.findings) >= self.max_findings:
                return
            self.findings.append(LocatedFinding(path, line, item))

    def add_clean(self, statuses: bytes) -> None:
        counts = fastpath.status_counts(statuses)
        self.blank += counts[fastpath.STATUS_BLANK]
        for status in fastpath.CLEAN_STATUSES:
            count = counts[status]
            if not count:
                continue
            masked, legacy, kind = fastpath.clean_outcome(status)
            self.valid += count
            self.masked += count * masked
            self.legacy_used += count * legacy
            if kind:
                self.kinds[kind] += count

    def merge(self, other: Tally) -> None:
        self.lines += other.lines
        self.valid += other.valid
        self.invalid += other.invalid
        self.blank += other.blank
        self.masked += other.masked
        self.legacy_used += other.legacy_used
        self.kinds.update(other.kinds)
        self.rules.update(other.rules)
        self.severities.update(other.severities)
        room = self.max_findings - len(self.findings)
        if room > 0:
            self.findings.extend(other.findings[:room])
        self.facts.extend(other.facts)


class Report(Record):
    __slots__ = ("contract_version", "profile", "max_findings", "files", "tally", "input_errors", "budget")  # noqa: RUF023
    __hash__ = None  # type: ignore[assignment]  # mutable

    def __init__(
        self,
        contract_version: str,
        profile: Profile,
        max_findings: int = DEFAULT_MAX_FINDINGS,
        files: int = 0,
        input_errors: list[str] | None = None,
    ) -> None:
        self.contract_version = contract_version
        self.profile = profile
        self.max_findings = max_findings
        self.files = files
        self.tally = Tally(max_findings)
        self.input_errors: list[str] = [] if input_errors is None else input_errors
        self.budget: BudgetRun | None = None  # the failure budget (SPEC 11), when the run has one

    # The first version's names, kept for scripts that read them.
    @property
    def total(self) -> int:
        """Documents checked (blank lines excluded)."""
        return self.tally.valid + self.tally.invalid

    @property
    def valid(self) -> int:
        return self.tally.valid

    @property
    def invalid(self) -> int:
        return self.tally.invalid

    @property
    def masked(self) -> int:
        return self.tally.masked

    @property
    def blank(self) -> int:
        return self.tally.blank

    @property
    def lines(self) -> int:
        return self.tally.lines

    @property
    def warnings(self) -> int:
        return self.tally.severities[Severity.WARNING.value]

    @property
    def errors(self) -> int:
        return self.tally.severities[Severity.ERROR.value]

    @property
    def findings(self) -> list[LocatedFinding]:
        return self.tally.findings

    @property
    def findings_total(self) -> int:
        return sum(self.tally.rules.values())

    def failure_kinds(self) -> dict[str, int]:
        return {name: self.tally.kinds[name] for name in KIND_CLASSES}

    def legacy_mask(self) -> dict[str, int]:
        rules = self.tally.rules
        return {
            "used": self.tally.legacy_used,
            "only": rules[RULE_LEGACY_MASK_ONLY],
            "divergent": rules[RULE_LEGACY_MASK_DIVERGENT],
        }

    def as_dict(self) -> dict[str, Any]:
        return {
            "contract_version": self.contract_version,
            "profile": self.profile,
            "files": self.files,
            "lines": self.lines,
            "total": self.total,
            "valid": self.valid,
            "invalid": self.invalid,
            "blank": self.blank,
            "masked": self.masked,
            "warnings": self.warnings,
            "errors": self.errors,
            "failure_kinds": self.failure_kinds(),
            "legacy_mask": self.legacy_mask(),
            "rules": dict(sorted(self.tally.rules.items())),
            "findings_total": self.findings_total,
            "findings_shown": len(self.findings),
            "findings": [f.as_dict() for f in self.findings],
            "input_errors": list(self.input_errors),
            **({} if self.budget is None else {"budget": self.budget.summary()}),
        }


def dumps_report(report: Report) -> str:
    return dumps_report_data(report.as_dict())


_ONE_LINE = json.JSONEncoder(ensure_ascii=False)


def dumps_report_data(data: dict[str, Any]) -> str:
    """A report's data as JSON text: indented by two spaces, except that each finding takes one line of its
    own. A listing of a thousand findings is a thousand lines (not eight thousand) that grep and diff show
    whole, and json's C encoder writes them: its indenting encoder is pure Python (measured: 5.5 ms a
    thousand findings, against 3.3 ms)."""
    members = []
    for name, value in data.items():
        if name == "findings" and value:
            text = "[\n" + ",\n".join("    " + _ONE_LINE.encode(finding) for finding in value) + "\n  ]"
        else:  # json's own indenting, one level in (its text holds no raw newline but between tokens)
            text = json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n  ")
        members.append(f"  {_ONE_LINE.encode(name)}: {text}")
    return "{\n" + ",\n".join(members) + "\n}"
