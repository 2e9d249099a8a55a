"""The resolver reads the failure-kind grammar in the schema's own regex dialect (ECMA-262, as the
reference validator does), not Python's ``re``: where the two disagree, the resolver sides with the schema."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest
from test_contract_model import _sources

from verify_contract.contract._resolve import ResolveError, resolve_model
from verify_contract.reference._validation import validate

# ``\w`` is ASCII-only in ECMA-262 and Unicode-aware in Python's ``re``.
WORD_GRAMMAR = r"^[a-z]\w*(:[a-z]\w*)?$"
NON_ASCII_KIND = "café_down"
# A named group is ECMA-262 syntax; Python's ``re`` spells it ``(?P<domain>...)`` and refuses this one.
NAMED_GROUP_GRAMMAR = r"^(?<domain>[a-z][a-z0-9_]*)(:[a-z][a-z0-9_]*)?$"


def _drill(grammar: str, extra_kind: str | None = None) -> tuple[str, dict[str, Any], Any, Any, Any]:
    bundles, kinds, facts = _sources()
    latest = list(bundles)[-1]
    drill = copy.deepcopy(bundles[latest])
    drill["$defs"]["FailureKindName"]["pattern"] = grammar
    if extra_kind is not None:
        drill["$defs"]["RegisteredFailureKind"]["enum"].append(extra_kind)
    return latest, {**bundles, latest: drill}, kinds, facts, drill


def test_the_dialects_really_differ_on_these_inputs() -> None:
    """The premise of the tests below: Python's ``re`` would have let both through."""
    assert re.fullmatch(WORD_GRAMMAR, NON_ASCII_KIND)
    with pytest.raises(re.error):
        re.compile(NAMED_GROUP_GRAMMAR)


def test_a_registered_kind_outside_the_ecma_grammar_is_refused() -> None:
    latest, bundles, kinds, facts, drill = _drill(WORD_GRAMMAR, NON_ASCII_KIND)
    with pytest.raises(ResolveError, match="outside the pattern"):
        resolve_model(latest, bundles, kinds, facts, {"bundle": drill})


def test_the_same_grammar_with_ascii_kinds_resolves() -> None:
    latest, bundles, kinds, facts, drill = _drill(WORD_GRAMMAR)
    model = resolve_model(latest, bundles, kinds, facts, {"bundle": drill})
    field = next(f for f in model["fields"] if f["pointer"] == "/failure_kind")
    assert field["constraints"]["pattern"] == WORD_GRAMMAR


def test_a_grammar_only_ecma_can_parse_resolves() -> None:
    latest, bundles, kinds, facts, drill = _drill(NAMED_GROUP_GRAMMAR)
    model = resolve_model(latest, bundles, kinds, facts, {"bundle": drill})
    field = next(f for f in model["fields"] if f["pointer"] == "/failure_kind")
    assert field["constraints"]["pattern"] == NAMED_GROUP_GRAMMAR


def test_a_grammar_that_is_not_ecma_is_a_resolve_error_not_a_crash() -> None:
    latest, bundles, kinds, facts, drill = _drill(r"^[a-z")
    with pytest.raises(ResolveError, match="not an ECMA-262 regular expression"):
        resolve_model(latest, bundles, kinds, facts, {"bundle": drill})


def test_the_reference_validator_agrees_with_the_resolver_on_the_shipped_grammar() -> None:
    """The shipped grammar refuses the non-ASCII name at validation, as the resolver's dialect does."""
    latest = list(_sources()[0])[-1]
    findings = validate({"reward": 0.0, "failure_kind": NON_ASCII_KIND}, latest).errors
    assert findings, "the reference validator accepted a non-ASCII failure kind"
