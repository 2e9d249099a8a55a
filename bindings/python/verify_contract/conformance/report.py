"""What a conformance run found, by obligation (SPEC 4.1/4.2): one ``Issue`` per vector that breaks one."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from verify_contract.conformance.obligations import OBLIGATIONS, Level, Role, obligations_of


@dataclass(frozen=True)
class Issue:
    obligation: str
    """An obligation id of ``verify_contract.conformance.obligations`` (e.g. ``consumer-refuse-mask``)."""
    vector: str
    description: str
    detail: str

    @property
    def level(self) -> Level:
        return OBLIGATIONS[self.obligation].level

    def as_dict(self) -> dict[str, str]:
        return {
            "obligation": self.obligation,
            "level": self.level.value,
            "vector": self.vector,
            "description": self.description,
            "detail": self.detail,
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
    issues: list[Issue] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """No MUST-level obligation broken (SHOULD-level issues are listed but do not fail)."""
        return not any(issue.level is Level.MUST for issue in self.issues)

    def broken(self) -> dict[str, int]:
        """Obligation id -> number of vectors that break it."""
        counts: dict[str, int] = {}
        for issue in self.issues:
            counts[issue.obligation] = counts.get(issue.obligation, 0) + 1
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
            "issues": [issue.as_dict() for issue in self.issues],
        }

    def format_text(self, limit: int = 5) -> str:
        """Issues grouped by obligation (at most ``limit`` vectors shown for each), then the verdict."""
        lines: list[str] = []
        for row in self.obligations():
            if row["status"] != "broken":
                continue
            heading = f"{row['level']} {row['id']} (SPEC {row['section']}): {row['text']}"
            lines.append(f"{heading}; broken by {row['vectors']}")
            shown = [issue for issue in self.issues if issue.obligation == row["id"]]
            for issue in shown[:limit]:
                lines.append(f"  {issue.vector}: {issue.detail}")
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
