"""The rule table, its generated reference, and the registry lint (shared by the generators and the differ)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from generators.diff_rules_reference import OUTPUT, render
from generators.registry import RegistryError, load_registry
from verify_contract.contract._registry import lint_findings, parse_registry
from verify_contract.diff.report import Report, change_dict, render_markdown, render_text
from verify_contract.diff.rules import RULES, Bump, change
from verify_contract.findings import Severity

ROOT = Path(__file__).resolve().parents[2]
REGISTRY = ROOT / "schema" / "registry" / "failure_kinds.yaml"
VERSIONS = ["1.0.0", "1.1.0", "1.2.0"]


def test_rules_are_well_formed() -> None:
    for rule in RULES.values():
        assert re.fullmatch(r"[A-Z][A-Z_]*[A-Z]", rule.id)
        assert rule.summary and rule.why and rule.example
        # An error that breaks someone needs a major version; a warning only asks a reviewer to look.
        if rule.breaks and rule.severity is Severity.ERROR:
            assert rule.bump is Bump.MAJOR, rule.id
        if rule.severity is not Severity.ERROR:
            assert rule.bump is not Bump.MAJOR, rule.id
        if rule.forbidden:
            assert rule.severity is Severity.ERROR, rule.id


def test_a_reports_verdict_comes_from_the_rule_not_the_context() -> None:
    """A change is judged by its rule: a context that says otherwise (a patch bump, nothing broken, forbidden)
    changes neither the required bump, nor who it breaks, nor the direction any rendering shows."""
    rule = next(r for r in RULES.values() if r.bump is Bump.MAJOR and r.breaks and not r.forbidden)
    honest = change(rule.id, "verify_response.schema.json", "/properties/x", "x changed")
    lying = honest.replace(context={"direction": "none", "breaks": [], "bump": "patch", "forbidden": True})
    report = Report("old", "new", "1.2.0", "1.3.0", [lying], registry_compared=True)
    assert report.required_bump is Bump.MAJOR
    assert (report.breaks, report.forbidden, report.bump_ok) == (rule.breaks, [], False)
    assert report.as_dict()["changes"] == [change_dict(honest)]
    assert report.as_dict()["changes"][0]["bump"] == "major"
    assert f"{rule.id:<34} {rule.direction:<17}" in render_text(report)
    assert f"| `{rule.id}` | {rule.direction} |" in render_markdown(report)


def test_reference_is_generated_from_the_table() -> None:
    assert OUTPUT.read_text(encoding="utf-8") == render(RULES)
    for rule_id in RULES:
        assert f"## {rule_id}\n" in OUTPUT.read_text(encoding="utf-8")


def _variants() -> list[tuple[str, str]]:
    def edit(kind_id: str, **changes: object) -> str:
        data = yaml.safe_load(REGISTRY.read_text(encoding="utf-8"))
        kind = next(k for k in data["kinds"] if k["id"] == kind_id)
        for key, value in changes.items():
            if value is None:
                kind.pop(key)
            else:
                kind[key] = value
        return yaml.safe_dump(data, sort_keys=False)

    def duplicate() -> str:
        data = yaml.safe_load(REGISTRY.read_text(encoding="utf-8"))
        data["kinds"].append(dict(data["kinds"][0]))
        return yaml.safe_dump(data, sort_keys=False)

    return [
        ("bad-id", edit("cancelled", id="Cancelled")),
        ("empty-brief", edit("cancelled", brief=" ")),
        ("bad-stability", edit("cancelled", stability="beta")),
        ("unknown-added-in", edit("cancelled", added_in="9.9.9")),
        ("unknown-key", edit("cancelled", owner="me")),
        ("bad-reason", edit("cancelled", deprecated={"in": "1.2.0", "reason": "gone"})),
        ("bad-deprecated-in", edit("cancelled", deprecated={"in": "0.1.0", "reason": "obsoleted"})),
        ("renamed-without-target", edit("cancelled", deprecated={"in": "1.2.0", "reason": "renamed"})),
        ("renamed-to-missing", edit("cancelled", deprecated={"in": "1.2.0", "reason": "renamed", "renamed_to": "x"})),
        (
            "renamed-to-with-obsoleted",
            edit("cancelled", deprecated={"in": "1.2.0", "reason": "obsoleted", "renamed_to": "shutdown"}),
        ),
        ("missing-domain", edit("cancelled", domain=None)),
        ("duplicate-id", duplicate()),
    ]


def test_repository_registry_is_clean_for_both_loaders() -> None:
    load_registry(REGISTRY, VERSIONS)
    assert lint_findings(parse_registry(REGISTRY.read_text(encoding="utf-8"), VERSIONS)) == []


@pytest.mark.parametrize(("name", "text"), _variants(), ids=[name for name, _ in _variants()])
def test_lint_rejects_what_the_generators_reject(name: str, text: str, tmp_path: Path) -> None:
    path = tmp_path / "failure_kinds.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RegistryError):
        load_registry(path, VERSIONS)
    assert lint_findings(parse_registry(text, VERSIONS)), name
