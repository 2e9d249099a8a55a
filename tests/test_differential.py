"""The fast path against the reference, line by line: same verdict, same findings, same counted facts.

The corpus holds every kind of line the checker must get right (``corpus_lines.kind_lines``) and seeded
random mutations of valid lines; it runs at every contract version and in both profiles.
"""

from __future__ import annotations

import itertools
from collections import Counter

import orjson
import pytest
from corpus_lines import kind_lines, mutated_lines
from verify_contract import fastpath
from verify_contract.check import CheckOptions, check_chunk, reference_outcome
from verify_contract.jsonio import parse_json
from verify_contract.versions import CONTRACT_VERSIONS, PROFILES, Profile

LINES = kind_lines() + mutated_lines(4000)
CORPUS = b"\n".join(LINES) + b"\n"
COMBOS = list(itertools.product(CONTRACT_VERSIONS, PROFILES))


def test_the_compiled_pre_check_is_built() -> None:
    # Without it every line takes the slow reference path: still correct, but the point is speed.
    assert fastpath.available()


def test_corpus_covers_every_status() -> None:
    statuses, _ = fastpath.scan(CORPUS, "1.2.0", "core")
    seen = Counter(statuses)
    assert seen[fastpath.STATUS_TEXT] > 500
    assert seen[fastpath.STATUS_CONTRACT] > 100
    assert seen[fastpath.STATUS_BLANK] >= 4
    assert sum(seen[s] for s in fastpath.CLEAN_STATUSES) > 500
    assert set(range(13)) <= set(seen)  # masked, legacy, registered and namespaced kinds


@pytest.mark.parametrize(("version", "profile"), COMBOS)
def test_every_line_same_as_reference(version: str, profile: Profile) -> None:
    statuses, others = fastpath.scan(CORPUS, version, profile)
    assert len(statuses) == len(LINES)
    asked = {index for index, _, _ in others}
    for index, line in enumerate(LINES):
        status = statuses[index]
        expected = reference_outcome(line + b"\n", version, profile)
        if status == fastpath.STATUS_BLANK:
            assert not line.strip(), line[:200]
        elif status in fastpath.CLEAN_STATUSES:
            masked, legacy, kind = fastpath.clean_facts(status)
            assert expected.valid and not expected.findings, (line[:300], expected)
            assert (expected.masked, expected.legacy, expected.kind) == (masked, legacy, kind), line[:300]
        else:
            assert index in asked
            if status == fastpath.STATUS_CONTRACT:
                # orjson must build exactly the document the strict parser builds
                parsed = parse_json(line)
                assert parsed.ok, line[:300]
                try:
                    built = orjson.loads(line)
                except orjson.JSONDecodeError:
                    continue  # lone surrogates: check.py hands these to the reference parser
                assert _typed(built) == _typed(parsed.document), line[:300]


@pytest.mark.parametrize(("version", "profile"), COMBOS)
def test_report_same_as_reference_only(version: str, profile: Profile) -> None:
    fast = check_chunk(CORPUS, 1, "corpus", CheckOptions(version, profile, max_findings=10**6))
    slow = check_chunk(CORPUS, 1, "corpus", CheckOptions(version, profile, max_findings=10**6, fast=False))
    assert fast == slow
    assert fast.lines == fast.valid + fast.invalid + fast.blank == len(LINES)
    assert fast.invalid > 1000


def _typed(value: object) -> object:
    """A value with its JSON types made explicit, so that 1 and 1.0 and True differ."""
    if isinstance(value, dict):
        return ("object", [(k, _typed(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("array", [_typed(v) for v in value])
    return (type(value).__name__, value)
