"""Text keys: the compiled pre-check names a line's first JSON-text defect (SPEC.md 2.1) in its memo key,
and check_text_events builds the reference's finding from the key with jsonio's wording. The finding built
from a key must be exactly ``jsonio.parse_json(raw).finding`` (raw: the line without its trailing \\r\\n)."""

from __future__ import annotations

import random

import pytest

from verify_contract.check import _fastpath as fastpath
from verify_contract.check._text_events import text_event_outcome, text_finding
from verify_contract.contract import resolve_contract
from verify_contract.contract._versions import DEFAULT_PROFILE, LATEST_VERSION
from verify_contract.reference import _jsonio as jsonio
from verify_contract.reference import _text_findings as text_findings

pytestmark = pytest.mark.skipif(not fastpath.available(), reason="the compiled pre-check is not built")


def _keys(line: bytes) -> list[bytes | None]:
    _, others = fastpath.scan(line, resolve_contract(LATEST_VERSION, DEFAULT_PROFILE))
    return [key for _, _, _, key in others]


def _key(line: bytes) -> bytes | None:
    keys = _keys(line + b"\n")
    assert len(keys) == 1, keys
    return keys[0]


def test_the_c_tags_are_jsonio_s() -> None:
    native = fastpath._native
    assert native is not None
    # every tag the C module writes names a jsonio message; only a raw surrogate (impossible in UTF-8
    # bytes) is left to the reference
    assert set(native.SYNTAX_TAGS) <= set(text_findings.SYNTAX_MESSAGES)
    assert set(text_findings.SYNTAX_MESSAGES) - set(native.SYNTAX_TAGS) == {"surrogate"}
    assert set(native.CODED_TAGS) == text_findings.CODED_SYNTAX_TAGS & set(native.SYNTAX_TAGS)
    assert set(native.UTF8_TAGS) == set(text_findings.UTF8_REASONS)


@pytest.mark.parametrize(
    ("data", "start", "tag"),
    [
        (b"\x80", 0, "start"),  # a continuation byte
        (b"a\xc0\x80", 1, "start"),  # overlong 2-byte lead
        (b"\xf5\x80\x80\x80", 0, "start"),  # beyond U+10FFFF by its lead
        (b"ab\xe0\x80\x80", 2, "continuation"),  # overlong 3-byte
        (b"\xf0\x80\x80\x80", 0, "continuation"),  # overlong 4-byte
        (b"x\xed\xa0\x80", 1, "continuation"),  # a surrogate
        (b"\xf4\x90\x80\x80", 0, "continuation"),  # above U+10FFFF
        (b"\xe2\x82a", 0, "continuation"),  # cut, then an ASCII byte
        (b"\xe2\x82", 0, "end"),  # cut by the end
        (b"\xf0\x9f\x98", 0, "end"),
        (b"\xed\xa0", 0, "continuation"),  # a cut surrogate is still a bad continuation
        (b"\xc3", 0, "end"),
    ],
)
def test_python_s_decoder_reports_what_the_tags_say(data: bytes, start: int, tag: str) -> None:
    with pytest.raises(UnicodeDecodeError) as caught:
        data.decode("utf-8")
    assert (caught.value.start, caught.value.reason) == (start, text_findings.UTF8_REASONS[tag])
    line = b'{"a": "' + data
    key = _key(line)
    assert key == f"U{tag}:{start + 7}".encode()
    assert text_finding(key) == jsonio.parse_json(line).finding


CASES = [
    (b'\xef\xbb\xbf{"a": 1}', b"B"),
    (b'{"a": "\xff"}', b"Ustart:7"),
    (b'{"a": "\xe2\x82', b"Uend:7"),  # a line cut inside a character
    (b'{"a": "x', b"Sstring:7"),
    (b'{"\xc3\xa9\xe2\x82\xac": "x', b"Sstring:8"),  # columns count code points
    (b'{"a": "x\ty"}', b"Scontrol:9:9"),
    (b'{"a": "x\x00"}', b"Scontrol:9:0"),
    (b'{"a": "x\\q"}', b"Sescape:9"),
    (b'{"a": "x\\', b"Sescape:9"),  # a backslash at the end
    (b'{"a": "\\u12"}', b"Sescape:8"),
    (b'{"a": "\\u12', b"Sescape:8"),
    (b'{"a": "\\udc00"}', b"Ssurrogate-escape:8:DC00"),
    (b'{"a": "\\ud800"}', b"Ssurrogate-escape:8:D800"),
    (b'{"a": "\\ud800\\u0041"}', b"Ssurrogate-escape:8:D800"),
    (b'{"a": "\\ud800\\u00', b"Ssurrogate-escape:8:D800"),
    (b'{"a": "\\ud83d\\ude00', b"Sstring:7"),  # a valid pair, then the end
    (b'{"a": 1.}', b"Snumber:8"),
    (b'{"a": 1.e5}', b"Snumber:8"),
    (b'{"a": 1e}', b"Snumber:8"),
    (b'{"a": 1.5E+}', b"Snumber:10"),
    (b'{"a": 1.5.}', b"Sobject:10"),
    (b'{"a": -}', b"Svalue:7"),
    (b'{"a": 01}', b"Sobject:8"),
    (b'{"a": tru}', b"Svalue:7"),
    (b'{"a": truex}', b"Sobject:11"),
    (b'{"a": -NaN}', b"Svalue:7"),
    (b'{"a": ', b"Send:7"),
    (b'{"a": \r\r', b"Send:7"),  # the trailing \r are not the line's
    (b'{"a": 1,', b"Sname:9"),
    (b'{"a": 1, \r', b"Sname:10"),
    (b"{1: 2}", b"Sname:2"),
    (b'{"a" 1}', b"Scolon:6"),
    (b'{"a": 1}}', b"Sextra:9"),
    (b'{"a": 1} x', b"Sextra:10"),
    (b'{"a": 1 "b": 2}', b"Sobject:9"),
    (b'{"a": [1 2]}', b"Sarray:10"),
    (b'{"a": [1,]}', b"Svalue:10"),
    (b'{"\xc3\xa9": [1 2]}', b"Sarray:10"),
    (b"\x0b{}", b"Svalue:1"),
    (b"[1, 2", b"Sarray:6"),
    (b"nul", b"Svalue:1"),
    (b'"x', b"Sstring:1"),
    (b'{"a": NaNx', b"NNaN"),
    (b'{"a": [1, -Infinity', b"N-Infinity"),
    (b'{"a": 1, "b": 2, "a": [', b"Da"),
    (b'{"a": {"b": 1}, "b": {"a": 1, "a": 2}}', b"Da"),
    (b'{"x": ' + b"[" * 101, b"T"),
    (b"[" * 100 + b"]" * 99, b"Sarray:200"),
    (b'{"a\\u0062" 1}', b"Scolon:12"),
    (b'{"a": 1, "\\u0061": 2}', b"Da"),  # escapes resolved as json resolves them
    (b'{"\\u0061": 1, "a": 2}', b"Da"),
    (
        b'{"\\/\\"\\\\\\b\\f\\n\\r\\t": 1, "/\\u0022\\u005c\\u0008\\u000c\\u000A\\u000d\\u0009": 2}',
        b'D/"\\\x08\x0c\n\r\t',
    ),
    (
        b'{"\\u00e9\\u20ac\\ud83d\\ude00": 1, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80": 2}',
        "D\u00e9\u20ac\U0001f600".encode(),
    ),
    (b'{"\\u0000": 1, "\\u0000": 2}', b"D\x00"),
    (b'{"b": {"\\u0061": 1}, "a": 1, "x": {"a": 1, "a\\u0000": 2, "a": 3}}', b"Da"),
    (b'{"a": 1, "\\u0061b": 2, "c" 3}', b"Scolon:28"),  # an escaped name that repeats nothing
]


@pytest.mark.parametrize(("line", "key"), CASES)
def test_each_defect_kind_gets_the_reference_s_finding(line: bytes, key: bytes) -> None:
    raw = line.rstrip(b"\r\n")
    expected = jsonio.parse_json(raw).finding
    assert expected is not None
    for terminated in (line + b"\n", line + b"\r\n", line):
        assert _keys(terminated) == [key], terminated
    assert text_finding(key) == expected
    outcome = text_event_outcome(key)
    assert outcome is not None and outcome.findings == (expected,) and not outcome.valid


@pytest.mark.parametrize(
    "line",
    [
        b'{"a": 1e400}',  # may overflow: the reference words it
        b'{"a": ' + b"1" * 400 + b"}",
        b"[1, 2]",  # no defect at all: the reference judges the value
    ],
)
def test_what_the_scan_cannot_name_exactly_gets_no_key(line: bytes) -> None:
    assert _key(line) is None


@pytest.mark.parametrize(
    "key",
    [
        b"Sstring",
        b"Sstring:x",
        b"Sstring:",
        b"Scontrol:3",
        b"Sescape:3:41",
        b"Snope:3",
        b"Ustart",
        b"Uwhat:1",
        b"B1",
        b"T!",
    ],
)
def test_a_key_it_cannot_read_settles_nothing(key: bytes) -> None:
    assert text_finding(key) is None


_TOKENS = [b"{", b"}", b"[", b"]", b'"', b"\\", b":", b",", b"NaN", b"-", b".", b"e", b"\\ud800", b"\\u0041"]
_TOKENS += [b"\xff", b"\xe2\x82", b"\x01", b"\r", b'"a"', b"\xc3\xa9", b" ", b"1", b"true", b"\\n"]


def test_mutated_lines_get_the_reference_s_finding_from_their_keys() -> None:
    rng = random.Random(2026)
    base = [
        b'{"reward": 1, "failure_kind": null, "x": [0.5, -1e-3, "\\u00e9\xc3\xa9", {"y": true}], "z": {"a": "b"}}',
        b'{"reward": 0.0, "mask_sample": false, "judge": {"verdict": "ok", "scores": [0.1, 0.2]}}',
    ]
    keyed = 0
    for _ in range(4000):
        line = bytearray(rng.choice(base))
        for _ in range(rng.randint(1, 3)):
            at = rng.randint(0, len(line))
            if rng.random() < 0.6:
                line[at:at] = rng.choice(_TOKENS)
            else:
                del line[at : at + rng.randint(1, 3)]
        raw = bytes(line).rstrip(b"\r\n")
        keys = _keys(bytes(line) + b"\n")  # none: the mutation left a clean line
        key = keys[0] if keys else None
        if key is not None and key[:1] != b"C":
            keyed += 1
            assert text_finding(key) == jsonio.parse_json(raw).finding, (bytes(line), key)
    assert keyed > 3000  # nearly every mutation breaks a rule, and nearly every break is keyed


def _members(count: int) -> bytes:
    return b",".join(b'"k%d": %d' % (i, i) for i in range(count))


@pytest.mark.parametrize(
    ("line", "keyed"),
    [
        (b"{" + _members(4000) + b', "k17": 1}', True),  # more members than the first pass follows
        (b"{" + _members(5000) + b", x}", False),  # more names than text_key holds
        (b'{"' + b"n" * 500 + b'": 1, "' + b"n" * 500 + b'": 2}', True),
        (b'{"' + b"n" * 600 + b'": 1, "' + b"n" * 600 + b'": 2}', False),  # a key over 512 bytes
        (b'{"' + b"\\u00e9" * 20000 + b'": 1, "x" 2}', False),  # more escaped-name bytes than it holds
        (b'{"a": "' + "\u00e9".encode() * 5000 + b'\\x"}', True),  # a column in code points, far out
    ],
)
def test_long_lines_are_keyed_exactly_or_not_at_all(line: bytes, keyed: bool) -> None:
    key = _key(line)
    assert (key is not None) is keyed
    if key is not None:
        assert text_finding(key) == jsonio.parse_json(line).finding
