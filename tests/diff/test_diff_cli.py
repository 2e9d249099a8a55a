"""`verify-contract diff` on the command line: inputs (paths and git revisions), formats, exit codes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from verify_contract.cli import main
from verify_contract.diff import SideError, diff_sides, load_side

ROOT = Path(__file__).resolve().parents[2]
VERSIONS = ROOT / "schema" / "versions"
REWARD_TYPE = '"type": "number"'


def run(args: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The installed entry point in a subprocess, so cwd and stderr are real."""
    command = [sys.executable, "-m", "verify_contract", "diff", *args]
    return subprocess.run(command, cwd=cwd or ROOT, capture_output=True, text=True, check=False)


def test_json_report_shape(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", str(VERSIONS / "1.1.0"), str(VERSIONS / "1.2.0"), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["required_bump"] == "minor" and data["bump_ok"] is True and data["compatibility"] == "FULL"
    assert data["old"]["version"] == "1.1.0" and data["new"]["version"] == "1.2.0"
    for change in data["changes"]:
        assert {"rule", "severity", "direction", "message", "pointer", "file"} <= set(change)
        assert change["pointer"].startswith("/")
    assert data["corpus"]["changed"][0]["id"] == "v1-1-mask-string"


def test_markdown_report_is_a_review_comment(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", str(VERSIONS / "1.0.0"), str(VERSIONS / "1.1.0"), "--format", "markdown"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("### Contract diff: 1.0.0 -> 1.1.0\n")
    assert "**Required version bump: `minor`** (this change bumps `minor`: sufficient)" in text
    assert (
        "| `PROPERTY_ADDED` | none | `verify_response.schema.json#/$defs/VerifyResponse/properties/failure_reason` |"
        in text
    )
    assert "#### Conformance corpus" in text and "`v1-0-failure-reason-int`" in text


def test_text_report(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", str(VERSIONS / "1.0.0" / "verify_response.schema.json"), str(VERSIONS / "1.1.0")]) == 0
    out = capsys.readouterr().out
    assert "PROPERTY_ADDED" in out and "required bump: minor (actual: minor, ok)" in out


def test_identical_sides(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", str(VERSIONS / "1.2.0"), str(ROOT), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["changes"] == [] and data["required_bump"] == "none" and data["corpus"]["changed"] == []


def _breaking_copy(tmp_path: Path, title: bool = False) -> Path:
    """1.2.0 edited, as a version 1.3.0 directory (a minor step)."""
    target = tmp_path / "1.3.0"
    shutil.copytree(VERSIONS / "1.2.0", target)
    schema = target / "verify_response.schema.json"
    text = schema.read_text(encoding="utf-8")
    if title:
        text = text.replace('"type": "null"', '"type": "null", "title": "NoFailure"')
    else:
        text = text.replace(REWARD_TYPE, '"type": "integer"', 1)
    schema.write_text(text, encoding="utf-8")
    return target


def test_breaking_change_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", str(VERSIONS / "1.2.0"), str(_breaking_copy(tmp_path)), "--no-corpus"]) == 1
    assert "TYPE_NARROWED" in capsys.readouterr().out


def test_fail_on_threshold(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """TITLE_ADDED is a warning: passes by default, fails with --fail-on warning."""
    new = str(_breaking_copy(tmp_path, title=True))
    assert main(["diff", str(VERSIONS / "1.2.0"), new, "--no-corpus"]) == 0
    assert main(["diff", str(VERSIONS / "1.2.0"), new, "--no-corpus", "--fail-on", "warning"]) == 1
    assert "TITLE_ADDED" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["no/such/path", "schema/versions/1.2.0"], "neither a file, a directory nor a git revision"),
        (["schema/versions/1.2.0", "docs"], "no verify_response.schema.json here"),
        (["schema/versions/1.2.0", "schema/versions/1.2.0", "--vectors", "nowhere"], "--vectors nowhere"),
    ],
    ids=["missing-path", "not-a-contract", "bad-vectors"],
)
def test_usage_errors_exit_2_without_traceback(args: list[str], message: str) -> None:
    done = run(args)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr


def test_check_bump_needs_versions(tmp_path: Path) -> None:
    schema = json.loads((VERSIONS / "1.2.0" / "verify_response.schema.json").read_text(encoding="utf-8"))
    del schema["$id"]
    plain = tmp_path / "draft" / "contract.json"
    plain.parent.mkdir()
    plain.write_text(json.dumps(schema), encoding="utf-8")
    shutil.copy(VERSIONS / "1.2.0" / "failure_kinds.schema.json", plain.parent)  # the file its $ref names
    done = run([str(VERSIONS / "1.2.0"), str(plain), "--check-bump"])
    assert done.returncode == 2 and "needs a version on both sides" in done.stderr


# --- incomplete inputs: a $ref that cannot be resolved -----------------------------------------------------

LATEST_SCHEMA = VERSIONS / "1.2.0" / "verify_response.schema.json"
KINDS_REF_AT = "verify_response.schema.json#/$defs/VerifyResponse/properties/failure_kind/anyOf/0"


def _schema_copy(path: Path, edit: dict[str, Any] | None = None) -> Path:
    """The latest schema written alone to ``path`` (no sibling file), ``edit`` merged into VerifyResponse's
    properties."""
    schema = json.loads(LATEST_SCHEMA.read_text(encoding="utf-8"))
    schema["$defs"]["VerifyResponse"]["properties"].update(edit or {})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(schema), encoding="utf-8")
    return path


def test_a_standalone_schema_without_its_sibling_is_one_error(tmp_path: Path) -> None:
    """Two schema files, as --help allows, without failure_kinds.schema.json beside them: one line naming the
    $ref and where it is, exit 2; no change invented from the missing target."""
    old = _schema_copy(tmp_path / "old.json")
    new = _schema_copy(tmp_path / "new.json", {"failure_reason": {"type": ["string", "null"], "maxLength": 2048}})
    for sides in ([str(old), str(new)], [str(VERSIONS / "1.2.0"), str(new)], [str(new), str(VERSIONS / "1.2.0")]):
        done = run([*sides, "--no-corpus"])
        assert done.returncode == 2, done.stdout
        assert done.stdout == ""
        (line,) = done.stderr.splitlines()
        assert line.startswith("verify-contract diff: ") and "Traceback" not in done.stderr
        assert f"$ref 'failure_kinds.schema.json' at {KINDS_REF_AT} cannot be resolved" in line, line
        assert "TYPE_WIDENED" not in line and "REF_RETARGETED" not in line


def test_the_first_step_of_a_new_version_says_what_is_missing(tmp_path: Path) -> None:
    """schema/versions/README.md: copy the latest schema into <new version>/ (generators not run yet)."""
    new_dir = tmp_path / "schema" / "versions" / "1.3.0"
    _schema_copy(new_dir / "verify_response.schema.json")
    done = run([str(VERSIONS / "1.2.0"), str(new_dir)])
    assert done.returncode == 2 and done.stdout == ""
    assert "no failure_kinds.schema.json beside the schema" in done.stderr
    assert "python -m generators" in done.stderr
    shutil.copy(VERSIONS / "1.2.0" / "failure_kinds.schema.json", new_dir)  # what the generators write
    done = run([str(VERSIONS / "1.2.0"), str(new_dir), "--no-corpus"])
    assert done.returncode == 0, done.stderr
    assert "TYPE_WIDENED" not in done.stdout and "REF_RETARGETED" not in done.stdout


@pytest.mark.parametrize(
    ("ref", "why"),
    [
        ("#/$defs/Missing", "no /$defs/Missing in verify_response.schema.json"),
        ("failure_kinds.schema.json#/$defs/Gone", "no /$defs/Gone in failure_kinds.schema.json"),
        (
            "https://example.org/kinds.json",
            "an external reference (the differ reads only the files of the schema's directory)",
        ),
    ],
)
def test_an_unresolvable_ref_is_named(tmp_path: Path, ref: str, why: str) -> None:
    new = tmp_path / "1.2.0"
    shutil.copytree(VERSIONS / "1.2.0", new)
    _schema_copy(new / "verify_response.schema.json", {"x_extra": {"$ref": ref}, "x_other": {"$ref": ref}})
    done = run([str(VERSIONS / "1.2.0"), str(new), "--no-corpus"])
    assert done.returncode == 2 and done.stdout == ""
    pointer = "verify_response.schema.json#/$defs/VerifyResponse/properties/x_extra"
    assert f"$ref {ref!r} at {pointer} cannot be resolved: {why} (and 1 more)" in done.stderr, done.stderr
    with pytest.raises(SideError, match="cannot be resolved"):  # the library says the same
        diff_sides(load_side(str(VERSIONS / "1.2.0")), load_side(str(new)), corpus=False)


def test_a_ref_inside_data_is_not_a_reference(tmp_path: Path) -> None:
    """A "$ref" member of a const, enum or default value is data the schema compares against."""
    new = tmp_path / "1.2.0"
    shutil.copytree(VERSIONS / "1.2.0", new)
    _schema_copy(new / "verify_response.schema.json", {"x_data": {"const": {"$ref": "#/nowhere"}}})
    done = run([str(VERSIONS / "1.2.0"), str(new), "--no-corpus"])
    assert done.returncode in (0, 1) and "PROPERTY_ADDED" in done.stdout, done.stderr


def test_absent_constraints_print_as_absent(tmp_path: Path) -> None:
    new = tmp_path / "1.2.0"
    shutil.copytree(VERSIONS / "1.2.0", new)
    reason = {"type": ["string", "null"], "maxLength": 2048, "pattern": "^[a-z ]*$"}
    _schema_copy(new / "verify_response.schema.json", {"failure_reason": reason})
    done = run([str(new), str(VERSIONS / "1.2.0"), "--no-corpus"])
    out = run([str(VERSIONS / "1.2.0"), str(new), "--no-corpus"]).stdout + done.stdout
    assert "maxLength (absent) -> 2048" in out and "maxLength 2048 -> (absent)" in out, out
    assert 'pattern (absent) -> ["^[a-z ]*$"]' in out and 'pattern ["^[a-z ]*$"] -> (absent)' in out, out
    assert "null" not in out.replace("'null'", "").replace('"null"', ""), out


# --- git revisions -------------------------------------------------------------------------------------


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        check=True,
        capture_output=True,
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A throwaway repository holding this project's schema/, committed once on branch main."""
    shutil.copytree(ROOT / "schema", tmp_path / "schema")
    _git(tmp_path, "init", "-q", "-b", "main")
    _git(tmp_path, "add", "schema")
    _git(tmp_path, "commit", "-q", "-m", "contract")
    return tmp_path


def test_git_revision_against_working_tree(repo: Path) -> None:
    schema = repo / "schema/versions/1.2.0/verify_response.schema.json"
    schema.write_text(schema.read_text(encoding="utf-8").replace(REWARD_TYPE, '"type": "integer"', 1), encoding="utf-8")
    done = run(["main", ".", "--format", "json", "--no-corpus"], cwd=repo)
    assert done.returncode == 1, done.stderr
    data = json.loads(done.stdout)
    assert [c["rule"] for c in data["changes"]] == ["TYPE_NARROWED", "VERSION_BUMP_INSUFFICIENT"]
    assert data["old"]["source"] == "main" and data["registry_compared"] is True


def test_git_revision_with_path_and_repo_option(repo: Path) -> None:
    """REV:path picks an older version inside a revision; --repo works from anywhere."""
    done = run(
        ["main:schema/versions/1.1.0", "main:schema/versions/1.2.0", "--repo", str(repo), "--format", "json"],
        cwd=repo.parent,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["required_bump"] == "minor" and data["old"]["version"] == "1.1.0"


def test_registry_change_on_a_branch(repo: Path) -> None:
    registry = repo / "schema/registry/failure_kinds.yaml"
    text = registry.read_text(encoding="utf-8")
    registry.write_text(text.replace("  - id: kill_shaped\n", "  - id: kill_shape\n"), encoding="utf-8")
    _git(repo, "checkout", "-q", "-b", "rename")
    _git(repo, "commit", "-q", "-am", "rename a kind in place")
    done = run(["main", "rename", "--format", "json", "--no-corpus"], cwd=repo)
    assert done.returncode == 1
    rules = {c["rule"] for c in json.loads(done.stdout)["changes"]}
    assert "REGISTRY_KIND_RENAMED_IN_PLACE" in rules


def test_unknown_revision_exits_2(repo: Path) -> None:
    done = run(["no-such-branch", "."], cwd=repo)
    assert done.returncode == 2
    assert "neither a file, a directory nor a git revision" in done.stderr and "Traceback" not in done.stderr
