"""What a conformance run found: one ``Issue`` per vector a producer or consumer got wrong."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Issue:
    kind: str
    """accepts-invalid, rejects-valid, drops-keys, changes-values, emits-invalid (producers);
    wrong-mask, wrong-reward, accepts-invalid, refuses-valid, crashed (consumers)."""
    vector: str
    description: str
    detail: str

    def as_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "vector": self.vector, "description": self.description, "detail": self.detail}


@dataclass
class ConformanceReport:
    subject: str
    role: str
    """"producer" or "consumer"."""
    checked: int = 0
    skipped: int = 0
    issues: list[Issue] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.issues

    def kinds(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for issue in self.issues:
            counts[issue.kind] = counts.get(issue.kind, 0) + 1
        return dict(sorted(counts.items()))

    def as_dict(self) -> dict[str, Any]:
        return {
            "subject": self.subject,
            "role": self.role,
            "conforms": self.ok,
            "checked": self.checked,
            "skipped": self.skipped,
            "issues_by_kind": self.kinds(),
            "issues": [issue.as_dict() for issue in self.issues],
        }

    def format_text(self) -> str:
        lines = [f"{issue.kind}: {issue.vector}: {issue.detail}\n    ({issue.description})" for issue in self.issues]
        verdict = "conforms" if self.ok else f"does NOT conform ({len(self.issues)} issues: {self.kinds()})"
        lines.append(
            f"{self.role} {self.subject}: {verdict}; {self.checked} vectors checked, {self.skipped} not applicable"
        )
        return "\n".join(lines)

    def to_json(self) -> str:
        return json.dumps(self.as_dict(), indent=2, ensure_ascii=False)


def short(value: Any, limit: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
