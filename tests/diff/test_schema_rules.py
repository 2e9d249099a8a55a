"""The generated schema-rule tables (generators/schema_rules.py) that every binding maps violations with."""

from __future__ import annotations

import json
from pathlib import Path

from verify_contract import validate
from verify_contract.contract._schemas import declared_fields
from verify_contract.findings import RULES

ROOT = Path(__file__).resolve().parents[2]
TABLES = json.loads((ROOT / "bindings/rust/src/generated/schema_rules.json").read_text(encoding="utf-8"))


def test_every_binding_gets_the_same_tables() -> None:
    assert json.loads((ROOT / "bindings/go/schema_rules_gen.json").read_text(encoding="utf-8")) == TABLES
    typescript = (ROOT / "bindings/typescript/src/generated/schema_rules.ts").read_text(encoding="utf-8")
    assert json.loads(typescript.split(" = ", 1)[1].rstrip().rstrip(";")) == TABLES


def test_rows_name_spec_rules_and_cover_every_declared_field() -> None:
    for version, rows in TABLES.items():
        assert {row["rule"] for row in rows} <= set(RULES)
        assert {row["keyword"] for row in rows} <= {"required", "type", "value"}
        typed = {row["pointer"] for row in rows if row["keyword"] == "type"}
        assert {f"/{name}" for name in declared_fields(version)} <= typed, version


def test_a_type_row_is_what_the_reference_says() -> None:
    # The reference, asked about a value of a type the row does not admit, names the row's rule.
    probes = {"object": {}, "array": [], "string": "x", "number": 0.5, "boolean": True, "null": None}
    for version, rows in TABLES.items():
        for row in rows:
            if row["keyword"] != "type" or row["pointer"].count("/") != 1:
                continue
            wrong = next(value for kind, value in probes.items() if kind not in row["types"])
            document = {"reward": 0, "responses_create_params": {}, "response": {"output": []}}
            document[row["pointer"][1:]] = wrong
            assert [f.rule for f in validate(document, version, "gym").errors] == [row["rule"]], (version, row)
