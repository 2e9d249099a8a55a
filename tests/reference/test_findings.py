"""One ``Finding`` type and one ``Severity`` serve validation, check, the registry lint, the release lock, the
differ and the conformance kit; each tool's own data lives in the finding's typed fields or its context."""

from __future__ import annotations

import ast
import pickle
from pathlib import Path

import pytest

import verify_contract
from verify_contract.conformance import OBLIGATIONS, ConformanceReport, Level, obligation_broken
from verify_contract.contract._registry import LINT_RULE, lint_findings, parse_registry
from verify_contract.contract._versions import LATEST_VERSION
from verify_contract.diff import RULES as DIFF_RULES
from verify_contract.diff import Report, change
from verify_contract.findings import Finding, Severity, finding
from verify_contract.reference._validation import validate

PACKAGE = Path(verify_contract.__file__).parent


def _classes() -> dict[str, list[str]]:
    """Class name -> the package's source files defining a class of that name (generated code excepted)."""
    found: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if "generated" in path.relative_to(PACKAGE).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                found.setdefault(node.name, []).append(str(path.relative_to(PACKAGE)))
    return found


def test_one_finding_class_and_one_severity_in_the_package() -> None:
    classes = _classes()
    assert classes["Finding"] == ["findings.py"] and classes["Severity"] == ["findings.py"]
    # The differ's ``Change`` and the conformance kit's ``Issue`` were second finding classes.
    assert "Change" not in classes and "Issue" not in classes


def test_severity_ranks_in_order() -> None:
    assert Severity.INFO.rank < Severity.WARNING.rank < Severity.ERROR.rank
    assert sorted(Severity, key=lambda s: s.rank) == [Severity.INFO, Severity.WARNING, Severity.ERROR]


@pytest.mark.parametrize("rule_id", sorted(DIFF_RULES))
def test_a_diff_change_carries_its_rules_verdict(rule_id: str) -> None:
    rule = DIFF_RULES[rule_id]
    found = change(rule_id, "verify_response.schema.json", "/properties/x", "x changed")
    assert isinstance(found, Finding) and found.severity is rule.severity
    assert found.where == "verify_response.schema.json#/properties/x"
    assert dict(found.context) == {
        "direction": rule.direction,
        "breaks": sorted(b.value for b in rule.breaks),
        "bump": rule.bump.value,
        "forbidden": rule.forbidden,
    }


def test_the_diff_report_reads_the_verdict_from_its_findings() -> None:
    forbidden = next(r for r in DIFF_RULES.values() if r.forbidden)
    compatible = DIFF_RULES["PROPERTY_ADDED"]
    changes = [change(r.id, "f.json", "", r.id) for r in (forbidden, compatible)]
    report = Report("a", "b", "1.1.0", "1.2.0", changes, registry_compared=True)
    assert report.forbidden == changes[:1] and report.bump_ok is False
    assert report.required_bump is max(forbidden.bump, compatible.bump, key=lambda b: b.rank)
    assert report.breaks == forbidden.breaks | compatible.breaks
    assert report.fails(Severity.ERROR)  # forbidden, whatever its severity
    assert not Report("a", "b", None, None, changes[1:], True).fails(Severity.WARNING)
    # The JSON report's change objects keep their key order (byte-for-byte compatible output).
    keys = list(report.as_dict()["changes"][0])
    assert keys == ["rule", "severity", "direction", "breaks", "bump", "forbidden", "file", "pointer", "message"]


def test_a_broken_obligation_is_a_finding_of_its_levels_severity() -> None:
    must = next(o for o in OBLIGATIONS.values() if o.level is Level.MUST)
    should = next(o for o in OBLIGATIONS.values() if o.level is Level.SHOULD)
    report = ConformanceReport("subject", must.role, "core", LATEST_VERSION)
    report.issues.append(obligation_broken(should.id, "vector-a", "a vector", "detail a"))
    assert report.issues[0].severity is Severity.WARNING and report.ok
    report.issues.append(obligation_broken(must.id, "vector-b", "b vector", "detail b", "/reward"))
    assert report.issues[1].severity is Severity.ERROR and not report.ok
    assert report.issues[1].where == "vector-b#/reward"
    assert report.as_dict()["issues"][1] == {
        "obligation": must.id,
        "level": "MUST",
        "vector": "vector-b",
        "pointer": "/reward",
        "description": "b vector",
        "detail": "detail b",
    }


def test_registry_lint_findings_point_at_the_entry() -> None:
    text = (
        "file_format: failure-kind-registry/1\nkinds:\n"
        "  - {id: ok_kind, domain: ok, brief: fine, stability: stable, added_in: 1.0.0}\n"
        "  - {id: half_kind, domain: ok}\n"
        "  - {id: old_kind, domain: ok, brief: old, stability: stable, added_in: 1.0.0,\n"
        "     deprecated: {in: 1.0.0, reason: renamed, renamed_to: nowhere}}\n"
    )
    found = lint_findings(parse_registry(text, ["1.0.0"]))
    assert {f.rule for f in found} == {LINT_RULE} and {f.severity for f in found} == {Severity.ERROR}
    assert {f.pointer for f in found if "half_kind" in f.message} == {"/kinds/1"}
    assert [f.pointer for f in found if "nowhere" in f.message] == ["/kinds/2"]
    assert not any(f.pointer == "/kinds/0" for f in found)


def test_context_is_reported_only_where_a_tool_adds_one() -> None:
    plain = validate({"reward": "high"}, LATEST_VERSION).findings
    assert plain and all("context" not in f.as_dict() for f in plain)
    rich = change("PROPERTY_ADDED", "f.json", "/x", "added")
    assert rich.as_dict()["context"] == dict(rich.context)


def test_findings_hash_and_pickle_with_their_context() -> None:
    """check's process pool pickles findings, and tools deduplicate them."""
    rich = change("PROPERTY_ADDED", "f.json", "/x", "added")
    assert pickle.loads(pickle.dumps(rich)) == rich
    assert len({rich, change("PROPERTY_ADDED", "f.json", "/x", "added"), finding("reward-type", "m")}) == 2


def test_a_finding_is_an_immutable_value_copied_with_replace() -> None:
    """``Finding`` is written out (not a dataclass: check's start-up): value equality over every field, the
    context included; no assignment; ``replace`` for a changed copy (check's composition shortcut uses it)."""
    base = Finding("PROPERTY_ADDED", Severity.INFO, "added", "/x", "f.json", {"bump": "minor"})
    assert base == Finding("PROPERTY_ADDED", Severity.INFO, "added", "/x", "f.json", {"bump": "minor"})
    assert base != Finding("PROPERTY_ADDED", Severity.INFO, "added", "/x", "f.json", {"bump": "major"})
    assert hash(base) == hash(Finding("PROPERTY_ADDED", Severity.INFO, "added", "/x", "f.json"))
    assert Finding("r", Severity.ERROR, "m").context == {} and Finding("r", Severity.ERROR, "m").where == ""
    with pytest.raises(AttributeError):
        base.message = "changed"
    reworded = base.replace(message="added again")
    assert (reworded.message, reworded.context, base.message) == ("added again", base.context, "added")
    assert repr(base).startswith("Finding(rule='PROPERTY_ADDED', severity=<Severity.INFO: 'info'>, message='added'")
    match base:
        case Finding(rule, severity, message, pointer):
            assert (rule, severity, message, pointer) == ("PROPERTY_ADDED", Severity.INFO, "added", "/x")
        case _:
            pytest.fail("a positional class pattern no longer matches a Finding")


def test_finding_and_outcome_set_every_slot_in_order() -> None:
    # Both set their slots one by one rather than through FrozenRecord._freeze (check builds them per bad
    # line): every value lands in its own slot, defaults included, and a slot added later is not left unset.
    from verify_contract.check._outcome import Outcome

    values = ("rule-x", Severity.WARNING, "a message", "/reward", "a.json", {"level": "must"})
    item = Finding(*values)
    assert item._values() == values and len(Finding.__slots__) == len(values)
    assert Finding("r", Severity.ERROR, "m")._values() == ("r", Severity.ERROR, "m", "", "", {})
    outcome = ((item,), True, True, False, "namespaced")
    assert Outcome(*outcome)._values() == outcome and len(Outcome.__slots__) == len(outcome)
    assert Outcome((), False)._values() == ((), False, False, False, None)
