"""The fast path against the reference, line by line: same verdict, same findings, same counted facts.

The corpus holds every kind of line the checker must get right (``corpus_lines.kind_lines``) and seeded
random mutations of valid lines; it runs at every contract version and in both profiles.
"""

from __future__ import annotations

import itertools
from collections import Counter

import orjson
import pytest

from verify_contract import check, fastpath
from verify_contract.check import CheckOptions, Outcome, check_chunk, reference_outcome
from verify_contract.jsonio import parse_json
from verify_contract.versions import CONTRACT_VERSIONS, PROFILES, Profile

from corpus_lines import kind_lines, mutated_lines

LINES = kind_lines() + mutated_lines(4000)
CORPUS = b"\n".join(LINES) + b"\n"
COMBOS = list(itertools.product(CONTRACT_VERSIONS, PROFILES))


def test_the_compiled_pre_check_is_built() -> None:
    # Without it every line takes the slow reference path: still correct, but the point is speed.
    assert fastpath.available()


def test_corpus_covers_every_status() -> None:
    statuses, others = fastpath.scan(CORPUS, "1.2.0", "core")
    seen = Counter(statuses)
    assert seen[fastpath.STATUS_TEXT] > 500
    assert seen[fastpath.STATUS_CONTRACT] > 100
    assert seen[fastpath.STATUS_BLANK] >= 4
    assert sum(seen[s] for s in fastpath.CLEAN_STATUSES) > 500
    assert set(range(13)) <= set(seen)  # masked, legacy, registered and namespaced kinds
    keys = Counter(key[:1] for _, _, _, key in others if key is not None)
    assert keys[b"C"] > 300  # contract memo keys
    # The compiled scanner's text-event keys ('N', 'D') follow Python's json order, not SPEC 2.1's text
    # order: fastpath.scan drops them until it does, so those lines ask the reference.
    assert keys[b"N"] == 0 and keys[b"D"] == 0
    assert sum(key is None for _, _, _, key in others) > 300  # and lines without one
    shared = Counter(key for _, _, _, key in others if key is not None)
    assert sum(n for n in shared.values() if n > 1) > 500  # memo hits


@pytest.mark.parametrize(("version", "profile"), COMBOS)
def test_string_rewards_are_filled_in(version: str, profile: Profile) -> None:
    # The template holds at every version (the corpus lines above prove its findings are the reference's).
    assert check._string_reward_template(version, profile) is not None


@pytest.mark.parametrize(("version", "profile"), [("1.2.0", "core"), ("1.0.0", "gym")])
def test_memo_stays_bounded(monkeypatch: pytest.MonkeyPatch, version: str, profile: Profile) -> None:
    # A new failure kind (or wrong reward string) on every line: past the cap the reference judges each line.
    monkeypatch.setattr(check, "MEMO_ENTRIES", 5)
    check.clear_caches()
    lines = [b'{"reward": 1, "failure_kind": "Kind_%d"}' % i for i in range(200)]
    lines += [b'{"reward": "r%d", "mask_sample": "m"}' % i for i in range(200)]
    lines += [b'{"reward": 1, "failure_kind": "Kind_%d"}' % i for i in range(10)]  # early keys again: hits
    data = b"\n".join(lines) + b"\n"
    options = CheckOptions(version, profile, max_findings=10**6)
    fast = check_chunk(data, 1, "adversarial", options)
    assert sum(len(memo) for memo in check._OUTCOMES.values()) == 5
    slow = check_chunk(data, 1, "adversarial", CheckOptions(version, profile, max_findings=10**6, fast=False))
    assert fast == slow
    check.clear_caches()


@pytest.mark.parametrize(("version", "profile"), COMBOS)
def test_every_line_same_as_reference(version: str, profile: Profile) -> None:
    statuses, others = fastpath.scan(CORPUS, version, profile)
    assert len(statuses) == len(LINES)
    asked = {index: key for index, _, _, key in others}
    # A memo key must decide the reference's outcome: every line with the same key, same outcome.
    by_key: dict[bytes, tuple[Outcome, bytes]] = {}
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
            key = asked[index]
            if key is not None:
                first, first_line = by_key.setdefault(key, (expected, line))
                assert first == expected, (line[:300], first_line[:300])
                if key[:1] in (b"N", b"D"):  # text events: the one finding is the first JSON-rule defect
                    rule = "json-non-finite" if key[:1] == b"N" else "json-duplicate-key"
                    assert [f.rule for f in expected.findings] == [rule], line[:300]
                else:
                    assert key[:1] == b"C"
            if status == fastpath.STATUS_CONTRACT:
                # check.py has orjson build the document: exactly the strict parser's
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
