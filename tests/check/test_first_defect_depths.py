"""first_defect's bracket map (``_container_depths``): the same finding with it as without it, on texts
nested past the depth limit, and a bounded amount of decoding for a text nested 1,000 deep.

Without the map, the scan decoded the rest of the text again at every level it stepped into: the deep texts
the differential fuzzer makes (hundreds, 1 kB each) took up to 50 ms each, most of the fuzzer's time."""

from __future__ import annotations

import json
import random

import pytest

from verify_contract.reference import _jsonio
from verify_contract.reference._jsonio import first_defect

# Pieces of deep texts: brackets inside strings and escaped quotes (which must not count), defects at depth.
_OPENERS = ["[", '{"k": ', '["]", ', '{"[": ', '["\\"[", ']
_FILLERS = ["1", '"}"', "[]", "{}", "NaN", '"\\ud800"', "1e400", '"a\\"]"', '{"a": 1, "a": 2}']


def _deep_texts(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    texts = []
    for _ in range(count):
        depth = rng.choice([95, 99, 100, 101, 150, 400])
        openers = [rng.choice(_OPENERS) for _ in range(depth)]
        middle = rng.choice(_FILLERS)
        closers = ["}" if opener.startswith("{") else "]" for opener in reversed(openers)]
        if rng.random() < 0.4:
            closers = closers[: rng.randrange(len(closers))]  # cut short: unclosed containers
        text = '{"reward": 0, "x": ' + "".join(openers) + middle + "".join(closers) + "}"
        texts.append(text)
    return texts


@pytest.mark.parametrize("seed", range(8))
def test_the_map_never_changes_the_finding(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    texts = _deep_texts(seed, 40)
    with_map = [first_defect(text) for text in texts]
    monkeypatch.setattr(_jsonio, "_container_depths", lambda text: {})
    without_map = [first_defect(text) for text in texts]
    assert with_map == without_map
    assert any(found is not None and found.rule == "json-too-deep" for found in with_map)


def test_a_thousand_deep_text_is_decoded_a_bounded_number_of_times(monkeypatch: pytest.MonkeyPatch) -> None:
    decodes = 0
    real = _jsonio._decoder

    class Counting:
        def __init__(self, decoder: json.JSONDecoder) -> None:
            self.decoder = decoder

        def scan_once(self, text: str, start: int) -> object:
            nonlocal decodes
            decodes += 1
            return self.decoder.scan_once(text, start)  # type: ignore[attr-defined]

    monkeypatch.setattr(_jsonio, "_decoder", lambda text: Counting(real(text)))
    for text in ('{"reward": 0, "x": ' + "[" * 1000, '{"reward": 0, "x": ' + "[" * 1000 + "]" * 1000 + "}"):
        decodes = 0
        found = first_defect(text)
        assert found is not None and found.rule == "json-too-deep"
        assert decodes <= 2, decodes  # was one decode of the rest of the text per level: 100
