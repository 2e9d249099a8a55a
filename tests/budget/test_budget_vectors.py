"""The failure-budget stream vectors (vectors/streams/, SPEC 11) through the library and through the CLI:
both must find what each vector expects, and so each other."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from verify_contract import validate
from verify_contract.budget import BUDGET_RULES, FailureBudget, ordered_rollouts
from verify_contract.cli import main

STREAMS = Path(__file__).resolve().parents[2] / "vectors" / "streams"
SUITE = json.loads((STREAMS / "failure-budget.json").read_text(encoding="utf-8"))
VECTORS = SUITE["vectors"]
IDS = [f"{i}-{v['description'][:50]}" for i, v in enumerate(VECTORS)]


def _expected_setting(value: Any) -> Any:
    if isinstance(value, str):
        tasks, _, repeats = value.partition("x")
        return (int(tasks), int(repeats))
    return value


def _event(data: dict[str, Any] | None) -> dict[str, Any] | None:
    if data is None:
        return None
    return {"rollout": data["rollout"], "rule": data["rule"], "group": data["group"], "kinds": list(data["kinds"])}


def _found(summary: dict[str, Any], expected: dict[str, Any]) -> dict[str, Any]:
    """The parts of a budget summary a vector states, in the vector's shape."""
    found: dict[str, Any] = {
        "verdict": summary["verdict"],
        "rollouts": summary["rollouts"],
        "masked": summary["masked"],
        "failed": summary["failed"],
        "first_breach": _event(summary["first_breach"]),
        "first_warning": _event(summary["first_warning"]),
        "kinds": summary["kinds"],
    }
    if "groups" in expected:
        found["groups"] = {
            " ".join(f"{k}={v}" for k, v in g["group"].items()): {
                key: g[key] for key in ("rollouts", "masked", "failed")
            }
            for g in summary["groups"]
        }
    if "longest_masked_run" in expected:
        found["longest_masked_run"] = summary["longest_masked_run"]
    if "missing" in expected:
        found["missing"] = summary["expected"]["missing"]
    return found


def test_the_vectors_follow_their_schema() -> None:
    schema = json.loads((STREAMS / "streams.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(SUITE)
    assert len(VECTORS) >= 10


def test_every_rule_id_is_in_the_spec_and_used_by_a_vector_or_a_test() -> None:
    spec = (STREAMS.parents[1] / "SPEC.md").read_text(encoding="utf-8")
    section = spec[spec.index("## 11. Failure budgets") :]
    for rule in BUDGET_RULES:
        assert f"| `{rule}` |" in section, rule


@pytest.mark.parametrize("vector", VECTORS, ids=IDS)
def test_vector_validity_flags_agree_with_the_validator(vector: dict[str, Any]) -> None:
    for entry in vector["stream"]:
        if "document" in entry:
            assert validate(entry["document"]).valid is entry.get("valid", True), entry


@pytest.mark.parametrize("vector", VECTORS, ids=IDS)
def test_library(vector: dict[str, Any]) -> None:
    settings = dict(vector["budget"])
    if "expected" in settings:
        settings["expected"] = _expected_setting(settings["expected"])
    budget = FailureBudget(**settings)
    seen_documents = False
    for entry in vector["stream"]:
        if "document" in entry:
            seen_documents = True
            budget.observe(entry["document"], valid=entry.get("valid", True))
        else:
            budget.observe_failure(entry["failure"])
    assert seen_documents or not vector["stream"]
    assert _found(budget.summary(), vector["expected"]) == vector["expected"]


def _flags(budget: dict[str, Any]) -> list[str]:
    flags = []
    for name, value in budget.items():
        option = "--" + name.replace("_", "-")
        if name == "group_by":
            flags += [option, ",".join(value)]
        else:
            flags += [option, str(value)]
    return flags


@pytest.mark.parametrize("vector", VECTORS, ids=IDS)
def test_cli(vector: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stream = vector["stream"]
    documents = [entry["document"] for entry in stream if "document" in entry]
    failures = [entry["failure"] for entry in stream if "failure" in entry]
    # A vector lists its rollouts in SPEC 11.1's order: the CLI merges the two files it writes into that order.
    document_entries = iter([entry for entry in stream if "document" in entry])
    merged = ordered_rollouts(documents, failures)
    assert stream == [{"failure": row} if failed else next(document_entries) for row, failed in merged]
    main_file = tmp_path / "rollouts.jsonl"
    main_file.write_text("".join(json.dumps(d) + "\n" for d in documents), encoding="utf-8")
    if failures:
        (tmp_path / "rollouts_failures.jsonl").write_text("".join(json.dumps(f) + "\n" for f in failures))
    code = main(["check", str(main_file), "--format", "json", *_flags(vector["budget"])])
    report = json.loads(capsys.readouterr().out)
    summary = report["budget"]
    summary["first_breach"] = summary["first_breach"] and {**summary["first_breach"]}
    assert _found(summary, vector["expected"]) == vector["expected"]
    invalid = any(entry.get("valid") is False for entry in stream)
    assert code == (3 if vector["expected"]["verdict"] == "breach" else 1 if invalid else 0)


def test_the_library_imports_neither_pydantic_nor_jsonschema_nor_a_parser() -> None:
    """A trainer loop calls FailureBudget.observe on every rollout: the module stays pure Python and light."""
    import subprocess
    import sys

    code = (
        "import sys, verify_contract.budget as b\n"
        "b.FailureBudget(max_masked=0.2, group_by=['env']).observe({'reward': 0.0, 'mask_sample': True})\n"
        "heavy = [m for m in ('pydantic', 'jsonschema', 'referencing', 'regress', 'orjson') if m in sys.modules]\n"
        "assert heavy == [], heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
