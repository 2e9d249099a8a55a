"""`verify-contract diff OLD NEW` judges a change with each side's own vectors, says which it used, gives a
headline that agrees with its listing, and keeps its markdown review comment bounded and spelled in JSON."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from verify_contract.diff.lock import version_dirs
from verify_contract.diff.report import MARKDOWN_CELL, MARKDOWN_LISTED

ROOT = Path(__file__).resolve().parents[2]
LATEST = version_dirs(ROOT)[-1]
NEW_MEMBER = "episode_note"


def _diff(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    # No VERIFY_CONTRACT_VECTORS: the sides' own vectors are what is under test.
    env = {k: v for k, v in os.environ.items() if not k.startswith("VERIFY_CONTRACT_")}
    command = [sys.executable, "-m", "verify_contract", "diff", *args]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=120)


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        check=True,
        capture_output=True,
    )


def _vector_file(tests: list[dict[str, Any]]) -> str:
    return json.dumps({"description": "a branch's vectors", "spec": "SPEC.md#rules", "tests": tests}, indent=2)


def _vector(case_id: str, instance: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": case_id,
        "description": case_id,
        "contract_version": LATEST,
        "profile": "core",
        "instance": instance,
        "valid": True,
        "findings": [],
        "effective_mask": False,
    }


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """main: this project's schema/ and vectors/. Branch ``tighten``: the latest version declares a new string
    member, and a new vector (written for the latest version) uses that name with a number."""
    shutil.copytree(ROOT / "schema", tmp_path / "schema")
    shutil.copytree(ROOT / "vectors", tmp_path / "vectors")
    _git(tmp_path, "init", "-q", "-b", "main")
    _git(tmp_path, "add", "schema", "vectors")
    _git(tmp_path, "commit", "-q", "-m", "contract")
    _git(tmp_path, "checkout", "-q", "-b", "tighten")
    schema_file = tmp_path / "schema" / "versions" / LATEST / "verify_response.schema.json"
    schema = json.loads(schema_file.read_text(encoding="utf-8"))
    schema["$defs"]["VerifyResponse"]["properties"][NEW_MEMBER] = {"type": "string"}
    schema_file.write_text(json.dumps(schema, indent=2) + "\n", encoding="utf-8")
    branch_vector = _vector("branch-note-number", {"reward": 0.5, NEW_MEMBER: 7})
    (tmp_path / "vectors" / "branch.json").write_text(_vector_file([branch_vector]), encoding="utf-8")
    _git(tmp_path, "add", "schema", "vectors")
    _git(tmp_path, "commit", "-q", "-m", "declare the note")
    _git(tmp_path, "checkout", "-q", "main")
    return tmp_path


def test_each_side_brings_its_own_vectors(repo: Path) -> None:
    assert not (repo / "vectors" / "branch.json").exists()  # a reviewer on main
    done = _diff("main", "tighten", "--format", "json", cwd=repo)
    assert done.returncode in (0, 1), done.stderr
    corpus = json.loads(done.stdout)["corpus"]
    assert corpus["sources"] == ["OLD main:vectors", "NEW tighten:vectors"]
    assert [c["id"] for c in corpus["changed"]] == ["branch-note-number"]
    assert corpus["changed"][0]["reason"] == f'/{NEW_MEMBER}: 7 is not of type "string"'


def test_headline_agrees_with_the_listing(repo: Path) -> None:
    done = _diff("main", "tighten", "--format", "json", cwd=repo)
    data = json.loads(done.stdout)
    assert data["corpus"]["changed"][0]["old_valid"] is True
    assert data["compatibility"] != "FULL" and data["breaks"].split("+")[0] in ("backward", "full")
    text = _diff("main", "tighten", cwd=repo).stdout
    headline = next(line for line in text.splitlines() if line.startswith("required bump"))
    assert "wire compatibility: FULL" not in headline and "breaks: none" not in headline
    assert "branch-note-number (core): valid -> invalid" in text
    assert "vectors of OLD main:vectors, NEW tighten:vectors" in text


def test_a_side_without_vectors_falls_back_to_the_bundled_ones(tmp_path: Path) -> None:
    schema = ROOT / "schema" / "versions" / LATEST / "verify_response.schema.json"
    alone = tmp_path / "draft.json"
    alone.write_text(schema.read_text(encoding="utf-8"), encoding="utf-8")
    shutil.copy(schema.parent / "failure_kinds.schema.json", tmp_path)  # the file its $ref names
    done = _diff(str(alone), str(alone), "--format", "json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    (source,) = json.loads(done.stdout)["corpus"]["sources"]
    assert source.startswith("bundled ")


def test_markdown_report_is_capped_and_spelled_in_json(tmp_path: Path) -> None:
    """Hundreds of vectors changing verdict, each a large document: the comment stays short."""
    vectors = tmp_path / "vectors"
    vectors.mkdir()
    shutil.copy(ROOT / "vectors" / "vectors.schema.json", vectors)
    big = {"reward": True, "response": {"output": ["x" * 5000]}, "flag": None}
    tests = [_vector(f"big-{n:03}", {**big, "n": n}) for n in range(3 * MARKDOWN_LISTED)]
    (vectors / "big.json").write_text(_vector_file(tests), encoding="utf-8")
    old = tmp_path / "old.json"
    schema = json.loads((ROOT / "schema" / "versions" / LATEST / "verify_response.schema.json").read_text("utf-8"))
    schema["$defs"]["VerifyResponse"]["properties"]["reward"]["type"] = ["number", "boolean"]
    old.write_text(json.dumps(schema), encoding="utf-8")
    new = ROOT / "schema" / "versions" / LATEST
    shutil.copy(new / "failure_kinds.schema.json", tmp_path)  # the file the schema's $ref names
    done = _diff(str(old), str(new), "--format", "markdown", "--vectors", str(vectors), cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    lines = done.stdout.splitlines()
    rows = [line for line in lines if line.startswith("| `big-")]
    assert len(rows) == MARKDOWN_LISTED
    assert f"... and {2 * MARKDOWN_LISTED} more vectors" in done.stdout
    assert max(map(len, lines)) < 4 * MARKDOWN_CELL
    assert len(done.stdout) < 40_000
    assert "true is not of type" in rows[0] and "True" not in done.stdout and "None" not in done.stdout
