"""The corpus itself: schema-valid files, every rule proven both ways, every payload present."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from verify_contract import RULES, Severity
from verify_contract.vectors import VectorFileError, load_vectors, vectors_dir

from conftest import VECTORS

# Rules no JSON text can reach, each proven by a unit test instead (named here).
NOT_REACHABLE_FROM_JSON = {
    "reward-non-finite": "test_validation.py::test_non_finite_reward_from_python",
    "failure-kind-deprecated": "test_validation.py::test_deprecated_kind_warns",
    "schema-violation": "test_validation.py::test_schema_violation_fallback",
}


def test_every_rule_has_a_vector() -> None:
    used = {rule for v in VECTORS for rule in v.findings}
    missing = set(RULES) - used - set(NOT_REACHABLE_FROM_JSON)
    assert missing == set()


def test_error_rules_in_invalid_vectors_warning_rules_in_valid_ones() -> None:
    for vector in VECTORS:
        for rule in vector.findings:
            if RULES[rule].severity is Severity.ERROR:
                assert not vector.valid, (vector.id, rule)
        if not any(RULES[r].severity is Severity.ERROR for r in vector.findings):
            assert vector.valid, vector.id


def test_every_spec_section_has_valid_and_invalid_vectors() -> None:
    by_file: dict[str, set[bool]] = defaultdict(set)
    for vector in VECTORS:
        by_file[vector.file].add(vector.valid)
    for name, verdicts in by_file.items():
        if name.startswith("payloads-") and name != "payloads-verl.json":
            continue  # real payloads: all valid by nature; their invalid twins are in profiles.json
        assert verdicts == {True, False}, name


def test_spec_anchors_exist() -> None:
    spec = (Path(__file__).parents[2] / "SPEC.md").read_text(encoding="utf-8")
    for path in vectors_dir().glob("*.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        if "spec" in data:
            anchor = data["spec"].split("#", 1)[1]
            assert f'<a id="{anchor}"></a>' in spec, f"{path.name}: SPEC.md has no anchor {anchor}"


@pytest.mark.parametrize("system", ["gym", "nemo-rl", "verl"])
def test_payload_vectors_present(system: str) -> None:
    assert sum(v.file == f"payloads-{system}.json" for v in VECTORS) >= 4


def test_corpus_schema_rejects_a_bad_file(tmp_path: Path) -> None:
    source = vectors_dir()
    (tmp_path / "vectors.schema.json").write_text((source / "vectors.schema.json").read_text())
    (tmp_path / "bad.json").write_text(
        json.dumps(
            {
                "description": "x",
                "spec": "SPEC.md#reward",
                "tests": [
                    {
                        "id": "a",
                        "description": "no verdict",
                        "contract_version": "1.2.0",
                        "profile": "core",
                        "instance": {},
                        "findings": [],
                        "effective_mask": None,
                    }
                ],
            }
        )
    )
    with pytest.raises(VectorFileError, match="valid"):
        load_vectors(tmp_path)
