"""The pre-check's UTF-8 validators (``_fastscan.c``'s utf8_run: scalar, SSSE3, AVX2, picked at run time)
against Python's decoder, the reference's: on random and mutated byte strings, and with every kind of
ill-formed sequence at every offset across the SIMD blocks."""

from __future__ import annotations

import random

import pytest

from verify_contract.check import _fastpath as fastpath
from verify_contract.check._text_events import text_finding
from verify_contract.contract import resolve_contract
from verify_contract.contract._versions import DEFAULT_PROFILE, LATEST_VERSION
from verify_contract.reference import _jsonio as jsonio

pytestmark = pytest.mark.skipif(not fastpath.available(), reason="the compiled pre-check is not built")

GOOD = [b"a", b"\xc2\x80", b"\xc3\xa9", b"\xdf\xbf", b"\xe0\xa0\x80", b"\xe2\x82\xac", b"\xed\x9f\xbf", b"\xee\x80\x80"]
GOOD += [b"\xef\xbf\xbf", b"\xf0\x90\x80\x80", b"\xf0\x9f\x98\x80", b"\xf3\xbf\xbf\xbf", b"\xf4\x8f\xbf\xbf"]
BAD = [b"\x80", b"\xbf", b"\xc0\x80", b"\xc1\xbf", b"\xe0\x80\x80", b"\xe0\x9f\xbf", b"\xed\xa0\x80", b"\xed\xbf\xbf"]
BAD += [b"\xf0\x80\x80\x80", b"\xf0\x8f\xbf\xbf", b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80", b"\xff", b"\xfe"]
BAD += [b"\xc3", b"\xe2\x82", b"\xf0\x9f\x98", b"\xc3\xc3\xa9", b"\xe2a\x82", b"\xf0\x9f\x98\x80\x80"]
ASCII = [b"x", b" ", b'"', b"\\", b"\x01", b"\x1f", b"\x7f", b"\n"]


def _implementations() -> tuple[str, ...]:
    native = fastpath._native
    assert native is not None
    names: tuple[str, ...] = native.UTF8_IMPLEMENTATIONS
    return names


def _valid(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def test_the_scan_uses_the_fastest_implementation_the_cpu_runs() -> None:
    native = fastpath._native
    assert native is not None
    assert native.UTF8_IMPLEMENTATIONS[0] == "scalar"
    fastest = native.UTF8_IMPLEMENTATIONS[-1]
    assert fastest == native.UTF8_IMPLEMENTATION
    with pytest.raises(ValueError):
        native.utf8_valid(b"", "no-such-implementation")


@pytest.mark.parametrize("implementation", _implementations() if fastpath.available() else [])
def test_random_byte_strings_get_python_s_verdict(implementation: str) -> None:
    native = fastpath._native
    assert native is not None
    rng = random.Random(2026)
    atoms = GOOD + BAD + ASCII + [b"y" * 20, b"\xc3\xa9" * 9]
    verdicts = set()
    for _ in range(30000):
        data = b"".join(rng.choice(atoms) for _ in range(rng.randint(0, 40)))
        if rng.random() < 0.3:  # a random byte anywhere
            at = rng.randint(0, len(data))
            data = data[:at] + bytes([rng.randint(0x80, 0xFF)]) + data[at:]
        expected = _valid(data)
        verdicts.add(expected)
        assert native.utf8_valid(data, implementation) is expected, data
    assert verdicts == {True, False}


@pytest.mark.parametrize("implementation", _implementations() if fastpath.available() else [])
def test_every_ill_formed_sequence_at_every_offset(implementation: str) -> None:
    native = fastpath._native
    assert native is not None
    for filler in (b"q", b"\xc3\xa9", b"\xe2\x82\xac"):
        for offset in range(70):
            prefix = (filler * 70)[:offset]
            if not _valid(prefix):
                continue
            for sequence in BAD + GOOD:
                for suffix in (b"", b"tail", b"\xf0\x9f\x98\x80" * 10):
                    data = prefix + sequence + suffix
                    assert native.utf8_valid(data, implementation) is _valid(data), data


def test_a_string_with_ill_formed_utf8_at_any_offset_gets_the_decoder_s_key() -> None:
    # Through the scan itself: the string's run is validated by the SIMD path, the key locates the error.
    for offset in range(0, 80, 3):
        for sequence in BAD:
            line = b'{"reward": 1, "x": "' + b"\xc3\xa9a" * (offset // 3) + sequence + b'xyz"}'
            _, others = fastpath.scan(line + b"\n", resolve_contract(LATEST_VERSION, DEFAULT_PROFILE))
            assert len(others) == 1, line
            key = others[0][3]
            assert key is not None and key[:1] == b"U", (line, key)
            assert text_finding(key) == jsonio.parse_json(line).finding
