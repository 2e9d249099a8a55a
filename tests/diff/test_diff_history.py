"""The project's own history classifies as compatible minor changes, and the corpus effect is explained."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from verify_contract.diff import Bump, diff_specs, render_markdown
from verify_contract.diff.lock import version_dirs
from verify_contract.findings import Severity

ROOT = Path(__file__).resolve().parents[2]
VERSIONS = ROOT / "schema" / "versions"
CONFLICT_TAG = "later-field-type-conflict"

EXPECTED = {
    ("1.0.0", "1.1.0"): {"PROPERTY_ADDED", "DESCRIPTION_CHANGED"},
    ("1.1.0", "1.2.0"): {
        "PROPERTY_ADDED",
        "PROPERTY_ADDED_WITH_DEFAULT",
        "DEFINITION_ADDED",
        "DESCRIPTION_CHANGED",
        "REGISTRY_KIND_ADDED",
    },
    ("1.0.0", "1.2.0"): {
        "PROPERTY_ADDED",
        "PROPERTY_ADDED_WITH_DEFAULT",
        "DEFINITION_ADDED",
        "DESCRIPTION_CHANGED",
        "REGISTRY_KIND_ADDED",
    },
}


@pytest.mark.parametrize(("old", "new"), list(EXPECTED), ids=[f"{a}->{b}" for a, b in EXPECTED])
def test_history_is_compatible_minor(old: str, new: str) -> None:
    report = diff_specs(str(VERSIONS / old), str(VERSIONS / new))
    assert {c.rule for c in report.changes} == EXPECTED[(old, new)]
    assert report.required_bump is Bump.MINOR
    assert report.bump_ok is True
    assert report.compatibility == "FULL"
    assert not report.breaks
    assert all(c.severity is Severity.INFO for c in report.changes)
    assert not report.fails(Severity.WARNING)


def test_history_pointers_name_the_added_fields() -> None:
    report = diff_specs(str(VERSIONS / "1.1.0"), str(VERSIONS / "1.2.0"), corpus=False)
    added = {c.pointer for c in report.changes if c.rule.startswith("PROPERTY_ADDED")}
    assert added == {
        f"/$defs/VerifyResponse/properties/{name}" for name in ("mask_sample", "failure_kind", "instance_config")
    }
    kinds = [c for c in report.changes if c.rule == "REGISTRY_KIND_ADDED"]
    assert len(kinds) == 24 and all(c.file == "failure_kinds.yaml" for c in kinds)


@pytest.mark.parametrize(("old", "new"), [("1.0.0", "1.1.0"), ("1.1.0", "1.2.0")])
def test_only_later_field_conflicts_change_verdict(old: str, new: str) -> None:
    """Open content: the vectors that lose validity used a later-declared name with another type (tagged)."""
    report = diff_specs(str(VERSIONS / old), str(VERSIONS / new))
    assert report.corpus is not None and report.corpus.compared > 0
    assert report.corpus.changed, "the exception exists in the corpus, so the corpus effect must show it"
    for change in report.corpus.changed:
        assert change.old_valid and not change.new_valid
        assert CONFLICT_TAG in change.tags, change


def _changelog_entries() -> dict[str, tuple[str, str]]:
    """version -> (bump label, entry text), in file order."""
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    parts = re.split(r"^## (\d+\.\d+\.\d+) \((\w+)\)\n", text, flags=re.MULTILINE)
    return {parts[i]: (parts[i + 1], parts[i + 2]) for i in range(1, len(parts), 3)}


def test_changelog_has_one_entry_per_version_newest_first() -> None:
    versions = version_dirs(ROOT)
    assert list(_changelog_entries()) == versions[::-1]
    assert _changelog_entries()[versions[0]][0] == "initial"


@pytest.mark.parametrize("version", version_dirs(ROOT)[1:])
def test_changelog_entry_matches_the_differ(version: str) -> None:
    versions = version_dirs(ROOT)
    previous = versions[versions.index(version) - 1]
    report = diff_specs(str(VERSIONS / previous), str(VERSIONS / version), corpus=False)
    bump, entry = _changelog_entries()[version]
    assert bump == report.required_bump.value
    missing = sorted({c.rule for c in report.changes if f"`{c.rule}`" not in entry})
    assert not missing, f"CHANGELOG.md {version} does not mention {missing}; seed it from:\n" + render_markdown(report)
