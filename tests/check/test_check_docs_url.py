"""``check --docs-url BASE``: each finding links to its rule on the documentation site (BASE/rules/#RULE), in the
text and the JSON report; off by default. That every such anchor exists on the built site is
tests/docsite/test_docs_site.py's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verify_contract.cli import main

BASE = "https://example.org/verify-contract/"
LINES = ['{"reward": "1"}', '{"reward": 1, "failure_kind": "browser_crashed"}', "{not json"]


@pytest.fixture
def results(tmp_path: Path) -> Path:
    path = tmp_path / "results.jsonl"
    path.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    return path


def test_text_findings_end_with_their_rule_url(results: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(results), "--docs-url", BASE]) == 1
    findings = [line for line in capsys.readouterr().out.splitlines() if line.startswith(str(results))]
    assert len(findings) == len(LINES)
    for line in findings:
        rule = line.split("[", 1)[1].split("]", 1)[0]
        assert line.endswith(f" (see https://example.org/verify-contract/rules/#{rule})"), line


def test_json_findings_carry_their_rule_url(results: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(results), "--format", "json", "--docs-url", BASE.rstrip("/")]) == 1
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert {f["rule"] for f in findings} == {"reward-type", "failure-kind-unregistered", "json-syntax"}
    for finding in findings:
        assert finding["docs_url"] == f"https://example.org/verify-contract/rules/#{finding['rule']}"


def test_off_by_default(results: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["check", str(results), "--format", "json"])
    assert all("docs_url" not in f for f in json.loads(capsys.readouterr().out)["findings"])
    main(["check", str(results)])
    assert "(see " not in capsys.readouterr().out


def test_a_blank_base_is_a_usage_error(results: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(results), "--docs-url", " "]) == 2
    assert "--docs-url needs the site's address" in capsys.readouterr().err
