"""A diff's verdict and its three renderings: terminal text, JSON, and markdown for a pull-request review."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from verify_contract.contract import version_key
from verify_contract.diff.corpus import CorpusEffect
from verify_contract.diff.rules import RULES, Break, Bump, direction_label, verdict
from verify_contract.findings import Finding, Severity

ARROW = "->"
MARKDOWN_LISTED = 50
"""Rows of each markdown listing (changes of one severity, vectors changing verdict); the rest are counted."""
MARKDOWN_CELL = 240
"""Characters of one markdown table cell."""


# A change is a ``Finding`` made by ``verify_contract.diff.rules.change``. Its bump, what it breaks and whether
# it is forbidden are its rule's (``RULES``), read from the rule: the finding's ``context`` is a copy for
# readers of the finding, never what the verdict is decided by.
def _bump(change: Finding) -> Bump:
    return RULES[change.rule].bump


def _breaks(change: Finding) -> frozenset[Break]:
    return RULES[change.rule].breaks


def _forbidden(change: Finding) -> bool:
    return RULES[change.rule].forbidden


def _direction(change: Finding) -> str:
    return RULES[change.rule].direction


def change_dict(change: Finding) -> dict[str, Any]:
    """One change of the JSON report: rule, severity, the rule's verdict, file, pointer, message."""
    return {
        "rule": change.rule,
        "severity": change.severity.value,
        **verdict(RULES[change.rule]),
        "file": change.file,
        "pointer": change.pointer,
        "message": change.message,
    }


def actual_bump(old: str | None, new: str | None) -> Bump | None:
    """The step from ``old`` to ``new`` (None when a version is unknown or goes backwards)."""
    if old is None or new is None:
        return None
    a, b = version_key(old), version_key(new)
    if b < a:
        return None
    if b[0] > a[0]:
        return Bump.MAJOR
    if b[1] > a[1]:
        return Bump.MINOR
    return Bump.PATCH if b > a else Bump.NONE


@dataclass
class Report:
    old_label: str
    new_label: str
    old_version: str | None
    new_version: str | None
    changes: list[Finding]
    registry_compared: bool
    corpus: CorpusEffect | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def required_bump(self) -> Bump:
        return max((_bump(c) for c in self.changes), key=lambda b: b.rank, default=Bump.NONE)

    @property
    def actual_bump(self) -> Bump | None:
        return actual_bump(self.old_version, self.new_version)

    @property
    def bump_ok(self) -> bool | None:
        actual = self.actual_bump
        if self.old_version is None or self.new_version is None:
            return None
        return actual is not None and actual.rank >= self.required_bump.rank and not self.forbidden

    @property
    def forbidden(self) -> list[Finding]:
        return [c for c in self.changes if _forbidden(c)]

    @property
    def corpus_breaks(self) -> frozenset[Break]:
        """What the corpus shows breaking: a vector valid before and not after breaks backward (new consumers
        refuse an old producer's document), the reverse breaks forward. Explained changes are not counted."""
        if self.corpus is None:
            return frozenset()
        return frozenset(Break.BACKWARD if v.old_valid else Break.FORWARD for v in self.corpus.unexplained)

    @property
    def breaks(self) -> frozenset[Break]:
        """Who the change breaks, by the schema rules and by the corpus: the headline never says a direction
        is intact above a listed vector that breaks it."""
        return frozenset(b for c in self.changes for b in _breaks(c)) | self.corpus_breaks

    @property
    def compatibility(self) -> str:
        """Confluent's name for what still holds on the wire: FULL, BACKWARD, FORWARD or NONE."""
        backward, forward = Break.BACKWARD not in self.breaks, Break.FORWARD not in self.breaks
        return {(True, True): "FULL", (True, False): "BACKWARD", (False, True): "FORWARD"}.get(
            (backward, forward), "NONE"
        )

    def fails(self, fail_on: Severity) -> bool:
        """At least one change at or above ``fail_on``, or a forbidden one."""
        return bool(self.forbidden) or any(c.severity.rank >= fail_on.rank for c in self.changes)

    def as_dict(self) -> dict[str, Any]:
        actual = self.actual_bump
        return {
            "old": {"source": self.old_label, "version": self.old_version},
            "new": {"source": self.new_label, "version": self.new_version},
            "required_bump": self.required_bump.value,
            "actual_bump": actual.value if actual else None,
            "bump_ok": self.bump_ok,
            "compatibility": self.compatibility,
            "breaks": direction_label(self.breaks),
            "registry_compared": self.registry_compared,
            "changes": [change_dict(c) for c in self.changes],
            "corpus": self.corpus.as_dict() if self.corpus else None,
            "notes": _notes(self),
        }


def _versions(report: Report) -> str:
    return f"{report.old_version or report.old_label} {ARROW} {report.new_version or report.new_label}"


def _verdict(report: Report) -> str:
    actual = report.actual_bump
    verdict = f"required bump: {report.required_bump.value}"
    if report.bump_ok is not None:
        verdict += f" (actual: {actual.value if actual else 'downgrade'}, {'ok' if report.bump_ok else 'INSUFFICIENT'})"
    return f"{verdict}; wire compatibility: {report.compatibility}; breaks: {direction_label(report.breaks)}"


def render_text(report: Report) -> str:
    lines = [f"contract diff {_versions(report)}"]
    for c in report.changes:
        lines.append(f"  {c.severity.value:<7} {c.rule:<34} {_direction(c):<17} {c.where}: {c.message}")
    if not report.changes:
        lines.append("  no changes")
    lines.append(_verdict(report))
    if report.forbidden:
        lines.append(f"forbidden changes (no version bump allows them): {len(report.forbidden)}")
    if report.corpus is not None:
        effect = report.corpus
        counts = f"{len(effect.changed)} of {effect.compared} vectors change verdict"
        lines.append(f"conformance corpus ({_sources(effect)}): {counts}")
        for v in effect.changed:
            lines.append(
                f"  {v.id} ({v.profile}): {_validity(v.old_valid)} {ARROW} {_validity(v.new_valid)}: {v.reason}"
            )
    lines.extend(f"note: {note}" for note in _notes(report))
    return "\n".join(lines)


def _notes(report: Report) -> list[str]:
    note = _corpus_note(report)
    return [*report.notes, note] if note else list(report.notes)


def _sources(effect: CorpusEffect) -> str:
    return "vectors of " + ", ".join(effect.sources) if effect.sources else "vectors given"


def _corpus_note(report: Report) -> str | None:
    """Said when the corpus, not the rules, shows the break (the headline's directions include it)."""
    schema_breaks = frozenset(b for c in report.changes for b in _breaks(c))
    extra = report.corpus_breaks - schema_breaks
    if not extra or report.corpus is None:
        return None
    return (
        f"{len(report.corpus.unexplained)} vector(s) change verdict with no explaining tag: the wire breaks "
        f"{direction_label(frozenset(extra))} although no schema rule says so; review them"
    )


def _validity(valid: bool) -> str:
    return "valid" if valid else "invalid"


def _cell(text: str) -> str:
    text = text.replace("\n", " ")
    if len(text) > MARKDOWN_CELL:
        text = text[: MARKDOWN_CELL - 1] + "\u2026"
    return text.replace("|", "\\|")


def _more(total: int, listed: int, what: str) -> list[str]:
    if total <= listed:
        return []
    return ["", f"... and {total - listed} more {what} (`--format json` lists all)."]


SECTIONS = (
    ("Breaking changes", Severity.ERROR),
    ("Changes to review", Severity.WARNING),
    ("Compatible changes", Severity.INFO),
)


def render_markdown(report: Report) -> str:
    """A pull-request review comment; its change lists can seed a CHANGELOG entry."""
    lines = [f"### Contract diff: {_versions(report)}", ""]
    actual = report.actual_bump
    lines.append(f"**Required version bump: `{report.required_bump.value}`**")
    if report.bump_ok is not None:
        status = "sufficient" if report.bump_ok else "**insufficient**"
        lines[-1] += f" (this change bumps `{actual.value if actual else 'downgrade'}`: {status})"
    lines += [
        "",
        f"Wire compatibility: **{report.compatibility}**; breaks: `{direction_label(report.breaks)}` "
        "(backward = new consumers reading old producers' documents, forward = old consumers reading new "
        "producers' documents, bindings = code importing generated types).",
    ]
    if report.forbidden:
        lines += ["", f"> Forbidden by the contract's policy whatever the version: {len(report.forbidden)} change(s)."]
    for title, severity in SECTIONS:
        chosen = [c for c in report.changes if c.severity is severity]
        if not chosen:
            continue
        lines += ["", f"#### {title}", "", "| rule | breaks | where | change |", "|---|---|---|---|"]
        for c in chosen[:MARKDOWN_LISTED]:
            lines.append(f"| `{c.rule}` | {_direction(c)} | `{_cell(c.where)}` | {_cell(c.message)} |")
        lines += _more(len(chosen), MARKDOWN_LISTED, "changes")
    if not report.changes:
        lines += ["", "No changes."]
    if report.corpus is not None:
        effect = report.corpus
        lines += ["", "#### Conformance corpus", ""]
        lines.append(f"{len(effect.changed)} of {effect.compared} vectors change verdict ({_sources(effect)}).")
        if effect.changed:
            lines += ["", "| vector | profile | old | new | tags | reason |", "|---|---|---|---|---|---|"]
            for v in effect.changed[:MARKDOWN_LISTED]:
                lines.append(
                    f"| `{_cell(v.id)}` | {v.profile} | {_validity(v.old_valid)} | {_validity(v.new_valid)} | "
                    f"{_cell(', '.join(v.tags))} | {_cell(v.reason)} |"
                )
            lines += _more(len(effect.changed), MARKDOWN_LISTED, "vectors")
    for note in _notes(report):
        lines += ["", f"_Note: {note}_"]
    return "\n".join(lines) + "\n"
