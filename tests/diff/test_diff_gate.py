"""The version gate: every contract version carries a bump at least as large as the differ requires."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from test_diff_catalogue import apply_patch, make_tree, registry_data, released

from verify_contract.cli import main
from verify_contract.diff import Report, diff_sides, load_side, render_markdown
from verify_contract.diff.lock import version_dirs

ROOT = Path(__file__).resolve().parents[2]
NARROW_REWARD = [{"op": "replace", "path": "/$defs/VerifyResponse/properties/reward/type", "value": "integer"}]


def gate(root: Path) -> list[Report]:
    """Reports of consecutive versions whose bump is too small (or carries a forbidden change)."""
    versions = version_dirs(root)
    failing = []
    for old, new in itertools.pairwise(versions):
        report = diff_sides(
            load_side(str(root / "schema/versions" / old)), load_side(str(root / "schema/versions" / new))
        )
        if not report.bump_ok:
            failing.append(report)
    return failing


def test_repository_versions_carry_sufficient_bumps() -> None:
    failing = gate(ROOT)
    assert not failing, "\n\n".join(render_markdown(report) for report in failing)


def _tree_with(tmp_path: Path, version: str, patch: list[dict[str, object]]) -> Path:
    schema = apply_patch(released("1.2.0", "verify_response.schema.json"), patch)
    make_tree(tmp_path, version, schema, registry_data(), extra_versions=("1.0.0", "1.1.0", "1.2.0"))
    return tmp_path


def test_gate_catches_breaking_change_without_major_bump(tmp_path: Path) -> None:
    root = _tree_with(tmp_path, "1.3.0", NARROW_REWARD)
    failing = gate(root)
    assert [(r.old_version, r.new_version) for r in failing] == [("1.2.0", "1.3.0")]
    report = failing[0]
    assert report.required_bump.value == "major"
    assert "VERSION_BUMP_INSUFFICIENT" in {c.rule for c in report.changes}
    assert "**insufficient**" in render_markdown(report)


def test_major_bump_satisfies_the_gate(tmp_path: Path) -> None:
    assert gate(_tree_with(tmp_path, "2.0.0", NARROW_REWARD)) == []


def test_patch_bump_is_too_small_for_an_addition(tmp_path: Path) -> None:
    add = [{"op": "add", "path": "/$defs/VerifyResponse/properties/episode_id", "value": {"type": "string"}}]
    failing = gate(_tree_with(tmp_path, "1.2.1", add))
    assert [r.required_bump.value for r in failing] == ["minor"]


def test_cli_check_bump_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    minor = _tree_with(tmp_path / "minor", "1.3.0", NARROW_REWARD) / "schema/versions"
    major = _tree_with(tmp_path / "major", "2.0.0", NARROW_REWARD) / "schema/versions"
    assert main(["diff", str(minor / "1.2.0"), str(minor / "1.3.0"), "--check-bump", "--no-corpus"]) == 1
    assert "VERSION_BUMP_INSUFFICIENT" in capsys.readouterr().out
    assert main(["diff", str(major / "1.2.0"), str(major / "2.0.0"), "--check-bump", "--no-corpus"]) == 0
    capsys.readouterr()
    # Without --check-bump the breaking change itself fails, whatever the bump.
    assert main(["diff", str(major / "1.2.0"), str(major / "2.0.0"), "--format", "json", "--no-corpus"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["required_bump"] == "major" and data["actual_bump"] == "major" and data["bump_ok"] is True
