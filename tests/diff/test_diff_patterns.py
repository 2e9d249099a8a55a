"""The pattern translation (ECMA-262, unanchored -> a whole-string interegular language), fuzzed against regress.

``patterns.py`` is a hand-written translator: for random patterns over a small grammar, every string of a
sample must be accepted by the automaton exactly when the ECMA-262 engine (regress, which the validator uses)
finds a match; and the inclusion verdicts must agree with what the samples show.
"""

from __future__ import annotations

import functools
import itertools
import random
from concurrent.futures import ThreadPoolExecutor

import pytest
import regress

from verify_contract.diff import patterns
from verify_contract.diff.patterns import Inclusion, accepts_every_string, automaton, compare_patterns

ATOMS = ["a", "b", "x", ".", "[ab]", "[^a]", "\\d", "[a-x]", "\\.", "1"]
QUANTIFIERS = ["", "", "*", "+", "?", "{0,2}", "{2}"]
GROUP_QUANTIFIERS = ["", "", "*", "+", "?"]
ALPHABET = ["a", "b", "x", "1", ".", " ", "\n", "\r", "\u2028", "é"]
SAMPLES = ["".join(chars) for n in range(4) for chars in itertools.product(ALPHABET, repeat=n)]  # 1111 strings


def random_pattern(rng: random.Random, depth: int = 0) -> str:
    parts = []
    for _ in range(rng.randint(1, 3)):
        if depth < 2 and rng.random() < 0.25:
            inner = "|".join(random_pattern(rng, depth + 1) for _ in range(rng.randint(1, 2)))
            group = f"({inner})" if rng.random() < 0.5 else f"(?:{inner})"
            # Counted repetition of groups is left out: regress itself exhausts memory expanding nested ones.
            parts.append(group + rng.choice(GROUP_QUANTIFIERS))
        else:
            parts.append(rng.choice(ATOMS) + rng.choice(QUANTIFIERS))
    body = "".join(parts)
    if depth == 0:
        body = ("^" if rng.random() < 0.5 else "") + body + ("$" if rng.random() < 0.5 else "")
    return body


@functools.cache
def ecma_language(pattern: str) -> frozenset[str]:
    """The samples the ECMA-262 engine matches."""
    regex = regress.Regex(pattern)
    return frozenset(s for s in SAMPLES if regex.find(s) is not None)


PATTERNS = [random_pattern(random.Random(seed)) for seed in range(100)]


@pytest.mark.parametrize("pattern", PATTERNS)
def test_translation_accepts_what_ecma_262_matches(pattern: str) -> None:
    built = automaton(pattern)
    if built is None:
        pytest.skip("automaton work over the state budget (the differ reports such a change as unknown)")
    wrong = [s for s in SAMPLES if built.accepts(s) != (s in ecma_language(pattern))]
    assert not wrong, wrong[:5]


@pytest.mark.parametrize(("old", "new"), list(zip(PATTERNS, PATTERNS[1:] + PATTERNS[:1], strict=True)))
def test_inclusion_verdicts_agree_with_samples(old: str, new: str) -> None:
    verdict = compare_patterns(old, new)
    old_only = bool(ecma_language(old) - ecma_language(new))
    new_only = bool(ecma_language(new) - ecma_language(old))
    # A sample can prove a difference, never an inclusion: only the contradictions are checked.
    assert not (old_only and verdict in (Inclusion.EQUIVALENT, Inclusion.WIDER)), (old, new, verdict)
    assert not (new_only and verdict in (Inclusion.EQUIVALENT, Inclusion.NARROWER)), (old, new, verdict)


@pytest.mark.parametrize(
    "pattern",
    ["^(?=a)b", "(?<=a)b", "^([a-z])\\1$", "\\bword", "\\s", "a^b", "a$b", "\\p{L}", "\\u00e9", "a{,3}", "[]", "[^]"],
)
def test_what_cannot_be_reproduced_is_unknown(pattern: str) -> None:
    assert compare_patterns("^a$", pattern) is Inclusion.UNKNOWN


def test_most_fuzzed_patterns_are_decided() -> None:
    assert sum(automaton(p) is not None for p in PATTERNS) >= 0.9 * len(PATTERNS)


NESTED = "(?:[^a]+|([a-x]{0,2})*(1?\\d{2}|.+x\\d{2}){2})?(?:.{2}[a-x]?|[ab]?)+1{2}$"


def test_automaton_blow_up_is_refused_not_waited_for() -> None:
    assert compare_patterns("a.{20}", "a.{21}") is Inclusion.UNKNOWN
    assert compare_patterns(NESTED, "^1$") is Inclusion.UNKNOWN
    assert compare_patterns("^a.{0,20}$", "^a.{20}$") is Inclusion.NARROWER


def test_the_budget_counts_states_not_seconds(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same verdicts in any thread, and the budget is what refuses the blow-up (a larger one decides it)."""
    pairs = [(NESTED, "^1$"), ("^a.{0,20}$", "^a.{20}$"), (PATTERNS[0], PATTERNS[1])]
    with ThreadPoolExecutor(1) as pool:
        assert list(pool.map(lambda pair: compare_patterns(*pair), pairs)) == [compare_patterns(*p) for p in pairs]
    costly = "^(([ab]{0,2}x|[a-x]*b[^a])\\d+[ab]+|[^a])1+(?:(?:[^a]{2}.*\\.+|[a-x]1*))+$"  # 8,841 states
    assert automaton(costly) is None
    monkeypatch.setattr(patterns, "STATE_BUDGET", 5 * patterns.STATE_BUDGET)
    assert automaton(costly) is not None


@pytest.mark.parametrize(
    ("pattern", "universal"), [("", True), (".*", True), ("a?", True), ("^.*$", False), ("a", False)]
)
def test_patterns_that_constrain_nothing(pattern: str, universal: bool) -> None:
    assert accepts_every_string(pattern) is universal
