"""``verify-contract diff``: classify every schema and registry change between two contract versions.

Typical use::

    from verify_contract.diff import diff_specs
    report = diff_specs("schema/versions/1.1.0", "schema/versions/1.2.0")
    report.required_bump  # Bump.MINOR

Each of ``report.changes`` is a ``Finding`` (``verify_contract.findings``) made by ``change``: the rule's
id and severity, ``file#pointer``, the message, and the rule's verdict (direction, breaks, bump,
forbidden) in its context. docs/compatibility.md explains the model, docs/diff-rules.md lists the rules.
"""

from __future__ import annotations

from pathlib import Path

from verify_contract.diff.corpus import CorpusEffect, corpus_effect
from verify_contract.diff.normalise import Resolver
from verify_contract.diff.registry import compare_registries
from verify_contract.diff.report import Report, render_markdown, render_text
from verify_contract.diff.rules import RULES, Break, Bump, Rule, change
from verify_contract.diff.schema_rules import compare_schemas
from verify_contract.diff.sides import FAILURE_KINDS_FILE, VERIFY_RESPONSE_FILE, Side, SideError, load_side
from verify_contract.findings import Finding, Severity
from verify_contract.vectors import Vector

__all__ = [
    "RULES",
    "Break",
    "Bump",
    "CorpusEffect",
    "Finding",
    "Report",
    "Rule",
    "Severity",
    "Side",
    "SideError",
    "change",
    "diff_sides",
    "diff_specs",
    "load_side",
    "render_markdown",
    "render_text",
]


def _refuse_unresolvable(side: Side) -> None:
    """A ``$ref`` the side cannot follow leaves nothing to compare at its place: one error naming it, never
    changes invented from the missing target (a type set of 'anything', a reference 'retargeted')."""
    found = Resolver(side.documents, VERIFY_RESPONSE_FILE).unresolvable()
    if not found:
        return
    file, pointer, ref = found[0]
    name, _, fragment = ref.partition("#")
    if "://" in name or name.startswith("urn:"):
        why = "an external reference (the differ reads only the files of the schema's directory)"
    elif name and name not in side.documents:
        why = f"no {name} beside the schema"
        if name == FAILURE_KINDS_FILE:
            why += " (`python -m generators` writes it into the version directory: diff version directories)"
    else:
        why = f"no {fragment or '/'} in {name or file}"
    more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
    raise SideError(f"{side.label}: $ref {ref!r} at {file}#{pointer} cannot be resolved: {why}{more}")


def diff_sides(
    old: Side, new: Side, *, corpus: bool = True, vectors: list[Vector] | None = None, vectors_dir: Path | None = None
) -> Report:
    """Compare two loaded sides; ``SideError`` when a side's schema has a ``$ref`` that cannot be resolved."""
    _refuse_unresolvable(old)
    _refuse_unresolvable(new)
    changes: list[Finding] = []

    def emit(rule: str, file: str, pointer: str, message: str) -> None:
        found = change(rule, file, pointer, message)
        if found not in changes:
            changes.append(found)

    compare_schemas(old.documents, new.documents, VERIFY_RESPONSE_FILE, emit)
    notes: list[str] = []
    registry_compared = old.registry is not None and new.registry is not None
    if old.registry is not None and new.registry is not None:
        compare_registries(old.registry, new.registry, old.version, new.version, emit)
    else:
        notes.append("failure-kind registry not compared: a side has no failure_kinds.yaml")
    report = Report(old.label, new.label, old.version, new.version, changes, registry_compared, notes=notes)
    if report.bump_ok is False:
        actual = report.actual_bump
        changes.append(
            change(
                "VERSION_BUMP_INSUFFICIENT",
                VERIFY_RESPONSE_FILE,
                "/$id",
                f"{old.version} -> {new.version} is a {actual.value if actual else 'downgrade'} step; the changes "
                f"require {report.required_bump.value}" + (" and include forbidden ones" if report.forbidden else ""),
            )
        )
    if corpus:
        report.corpus = corpus_effect(old, new, vectors, vectors_dir)
    return report


def diff_specs(old: str, new: str, *, repo: Path | None = None, corpus: bool = True) -> Report:
    """Load both sides (file, directory or git revision) and compare them."""
    return diff_sides(load_side(old, repo), load_side(new, repo), corpus=corpus)
