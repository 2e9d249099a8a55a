"""What a conformance run found, by obligation (SPEC 4.1/4.2): one ``Finding`` per vector that breaks one."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol

from verify_contract.conformance.obligations import OBLIGATIONS, Role, obligations_of
from verify_contract.findings import Finding, Severity


def obligation_broken(obligation: str, vector: str, description: str, detail: str, pointer: str = "") -> Finding:
    """A vector that breaks an obligation, as a ``Finding``: the rule is the obligation id (an id of
    ``verify_contract.conformance.obligations``, e.g. ``consumer-refuse-mask``), the severity its level's
    (MUST: error, SHOULD: warning), the message the detail, the file the vector id (the pointer, when
    known, where in the vector's document); ``context`` holds the obligation ``level`` and the vector's
    ``description``."""
    level = OBLIGATIONS[obligation].level
    context = {"level": level.value, "description": description}
    return Finding(obligation, level.severity, detail, pointer, vector, context)


class Described(Protocol):
    """A vector, or a case made of one: what a broken obligation names."""

    @property
    def id(self) -> str: ...

    @property
    def description(self) -> str: ...


def issue_dict(issue: Finding) -> dict[str, str]:
    """One issue of the JSON report; ``pointer`` is where in the vector's document ("" when nowhere in it)."""
    return {
        "obligation": issue.rule,
        "level": issue.context["level"],
        "vector": issue.file,
        "pointer": issue.pointer,
        "description": issue.context["description"],
        "detail": issue.message,
    }


@dataclass
class ConformanceReport:
    subject: str
    role: Role
    profile: str
    version: str
    checked: int = 0
    """Vectors run through the subject."""
    skipped: int = 0
    """Vectors that do not apply (another version, another profile's verdict, raw JSON text for a model)."""
    issues: list[Finding] = field(default_factory=list)
    """Findings made by ``obligation_broken`` (``record`` adds one)."""

    def record(self, obligation: str, vector: Described, detail: str, pointer: str = "") -> None:
        """``vector`` breaks ``obligation``: ``detail`` says how (``pointer``: where in its document)."""
        self.issues.append(obligation_broken(obligation, vector.id, vector.description, detail, pointer))

    @property
    def ok(self) -> bool:
        """No MUST-level obligation broken (SHOULD-level issues are listed but do not fail)."""
        return not any(issue.severity is Severity.ERROR for issue in self.issues)

    def broken(self) -> dict[str, int]:
        """Obligation id -> number of vectors that break it."""
        counts: dict[str, int] = {}
        for issue in self.issues:
            counts[issue.rule] = counts.get(issue.rule, 0) + 1
        return dict(sorted(counts.items()))

    def obligations(self) -> list[dict[str, Any]]:
        """Every obligation of the role with its status: kept, broken (with a count) or not checked."""
        broken = self.broken()
        rows = []
        for obligation in obligations_of(self.role):
            if not obligation.checked:
                status = "not checked"
            else:
                status = "broken" if obligation.id in broken else "kept"
            rows.append(
                {
                    "id": obligation.id,
                    "section": obligation.section,
                    "level": obligation.level.value,
                    "status": status,
                    "vectors": broken.get(obligation.id, 0),
                    "text": obligation.text,
                }
            )
        return rows

    def as_dict(self) -> dict[str, Any]:
        return {
            "subject": self.subject,
            "role": self.role,
            "profile": self.profile,
            "contract_version": self.version,
            "conforms": self.ok,
            "checked": self.checked,
            "skipped": self.skipped,
            "broken": self.broken(),
            "obligations": self.obligations(),
            "issues": [issue_dict(issue) for issue in self.issues],
        }

    def format_text(self, limit: int = 5) -> str:
        """Issues grouped by obligation (at most ``limit`` vectors shown for each), then the verdict."""
        lines: list[str] = []
        for row in self.obligations():
            if row["status"] != "broken":
                continue
            heading = f"{row['level']} {row['id']} (SPEC {row['section']}): {row['text']}"
            lines.append(f"{heading}; broken by {row['vectors']}")
            shown = [issue for issue in self.issues if issue.rule == row["id"]]
            for issue in shown[:limit]:
                lines.append(f"  {issue.file}: {issue.message}")
            if len(shown) > limit:
                lines.append(f"  ... and {len(shown) - limit} more")
        if self.ok:
            verdict = "conforms" if not self.issues else "conforms (SHOULD-level issues above)"
        else:
            verdict = "does NOT conform (" + ", ".join(f"{k} {n}" for k, n in self.broken().items()) + ")"
        unchecked = [row["id"] for row in self.obligations() if row["status"] == "not checked"]
        lines.append(
            f"{self.role} {self.subject}: {verdict}; contract {self.version}, profile {self.profile}; "
            f"{self.checked} vectors checked, {self.skipped} not applicable"
            + (f"; not checkable here: {', '.join(unchecked)}" if unchecked else "")
        )
        return "\n".join(lines)

    def to_json(self) -> str:
        return json.dumps(self.as_dict(), indent=2, ensure_ascii=False)


def short(value: Any, limit: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
