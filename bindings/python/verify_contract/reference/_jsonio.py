"""Strict JSON text parsing (RFC 8259 + I-JSON): every defect becomes one finding, never an exception.

Which finding a text with several defects gets is fixed by SPEC.md section 2.1: an encoding defect (not
UTF-8, a byte order mark) first, otherwise the first defect in text order. Python's ``json`` module, with
hooks, parses every text; it cannot report in text order (it sees a duplicate name when its object closes,
and deep nesting through the interpreter's recursion limit), so any text it finds a defect in is read again
by ``first_defect``, a small iterative scanner that stops at the first defect. Valid texts, by far the
common case, pay nothing for it.
"""

from __future__ import annotations

import json
import math
import re
import sys

from verify_contract.findings import Finding, finding
from verify_contract.records import FrozenRecord
from verify_contract.reference._text_findings import (
    DUPLICATE_KEY_RULE,
    MAX_DEPTH,
    NON_FINITE_RULE,
    NON_FINITE_TOKENS,
    SYNTAX_RULE,
    bom_finding,
    constant_message,
    duplicate_message,
    duplicate_name_finding,
    invalid_utf8_finding,
    located,
    non_finite_token_finding,
    syntax_message,
    too_deep_finding,
)

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up); mypy knows the name
if TYPE_CHECKING:
    from typing import Any

UTF8_BOM = b"\xef\xbb\xbf"

JSON_WHITESPACE = " \t\n\r"
"""RFC 8259's insignificant whitespace; nothing else (not \\x0b, \\x0c or Unicode spaces) is blank."""


class _Reject(ValueError):
    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule


def _overflow_message(text: str) -> str:
    return f"{text[:40]} overflows to infinity"


def _no_constants(token: str) -> Any:
    raise _Reject(NON_FINITE_RULE, constant_message(token))


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Reject(NON_FINITE_RULE, _overflow_message(text))
    return value


# An integer literal with more digits than this overflows binary64 (max ~1.8e308) in any parser.
MAX_INTEGER_DIGITS = 309


def _finite_int(text: str) -> int:
    if len(text) < MAX_INTEGER_DIGITS:  # at most 308 digits: always finite
        return int(text)
    digits = len(text) - text.startswith("-")
    if digits > MAX_INTEGER_DIGITS:
        raise _Reject(NON_FINITE_RULE, f"an integer of {digits} digits overflows to infinity")
    value = int(text)
    try:
        float(value)
    except OverflowError:
        raise _Reject(NON_FINITE_RULE, f"an integer of {digits} digits overflows to infinity") from None
    return value


def _unique_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _Reject(DUPLICATE_KEY_RULE, duplicate_message(key))
        result[key] = value
    return result


_DECODER = json.JSONDecoder(
    object_pairs_hook=_unique_object, parse_constant=_no_constants, parse_float=_finite_float, parse_int=_finite_int
)
# The same without the integer hook: the json module then reads integers at C speed (a Gym line holds
# thousands of token ids). Exact only for a text without a run of MAX_INTEGER_DIGITS digits, since no
# shorter integer can overflow: ``_decoder`` picks the one to use.
_INT_DECODER = json.JSONDecoder(
    object_pairs_hook=_unique_object, parse_constant=_no_constants, parse_float=_finite_float
)
_LONG_DIGITS = re.compile(f"[0-9]{{{MAX_INTEGER_DIGITS}}}")


_WINDOW = MAX_INTEGER_DIGITS // 2
"""Any run of MAX_INTEGER_DIGITS digits holds a whole window of this many characters starting at a multiple
of it: checking those windows (at C speed) rules most texts out 20 times faster than the regex alone."""


def _decoder(text: str) -> json.JSONDecoder:
    windows = (text[start : start + _WINDOW] for start in range(0, len(text), _WINDOW))
    long_digits = any(window.isdigit() for window in windows) and _LONG_DIGITS.search(text)
    return _DECODER if long_digits else _INT_DECODER


# A \uD800-\uDFFF escape, or a surrogate code point in a str input: the only ways a lone surrogate gets
# into a decoded string.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")
_SURROGATE_CHAR = re.compile(r"[\ud800-\udfff]")


def _may_hold_surrogate(text: str, start: int = 0, end: int = sys.maxsize) -> bool:
    # Two searches, not one alternation: each alone is searched about 4 times faster (a literal prefix).
    return bool(_SURROGATE_ESCAPE.search(text, start, end) or _SURROGATE_CHAR.search(text, start, end))


def _has_lone_surrogate(value: Any) -> bool:
    """Whether any string (key or value) holds an unpaired surrogate. The decoder joins valid pairs
    into one code point, so any surrogate left in a decoded string is unpaired."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            stack.extend(node.keys())
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, str) and any("\ud800" <= char <= "\udfff" for char in node):
            return True
    return False


class Parsed(FrozenRecord):
    """A parsed text: its document, or the finding of its first defect."""

    __slots__ = ("document", "finding")
    document: Any
    finding: Finding | None

    def __init__(self, document: Any, finding: Finding | None) -> None:
        self._freeze(document, finding)

    @property
    def ok(self) -> bool:
        return self.finding is None


def nesting_depth(value: Any) -> int:
    """Depth of the deepest array or object in ``value`` (0 for a scalar), without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return deepest


def _fallback(error: Exception) -> Finding:
    """The json module's own finding, should first_defect ever find no defect (the fuzzer checks it never does)."""
    if isinstance(error, _Reject):
        return finding(error.rule, str(error))
    if isinstance(error, json.JSONDecodeError):
        return finding(SYNTAX_RULE, located(error.lineno, error.colno, error.msg))
    return too_deep_finding()


def _too_deep(text: str, document: Any) -> bool:
    # No deeper than the number of opening brackets: counting them (C speed) spares most walks.
    return text.count("[") + text.count("{") > MAX_DEPTH and nesting_depth(document) > MAX_DEPTH


def parse_json(data: bytes | str) -> Parsed:
    """Parse one JSON text strictly: UTF-8, no BOM, finite numbers, unique member names, depth <= 100."""
    if isinstance(data, bytes):
        if data.startswith(UTF8_BOM):
            return Parsed(None, bom_finding())
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            return Parsed(None, invalid_utf8_finding(error.start, error.reason))
    else:
        text = data
        if text.startswith("\ufeff"):
            return Parsed(None, finding(SYNTAX_RULE, "the text starts with a byte order mark (RFC 8259 forbids it)"))
    try:
        document = _decoder(text).decode(text)
    except (_Reject, json.JSONDecodeError, RecursionError) as error:
        return Parsed(None, first_defect(text) or _fallback(error))
    if (_may_hold_surrogate(text) and _has_lone_surrogate(document)) or _too_deep(text, document):
        return Parsed(None, first_defect(text) or finding(SYNTAX_RULE, "the text breaks a JSON rule"))
    return Parsed(document, None)


# ---------------------------------------------------------------------------------------------------------
# first_defect: the first defect of a text in text order (SPEC.md section 2.1).

_WHITESPACE = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_STRING_RUN = re.compile(r'[^"\\\x00-\x1f\ud800-\udfff]*')
_HEX4 = re.compile(r"[0-9a-fA-F]{4}")
_SIMPLE_ESCAPES = frozenset('"\\/bfnrt')

# What the scanner expects next.
_VALUE, _VALUE_OR_END_ARRAY, _NAME, _NAME_OR_END_OBJECT, _COLON, _AFTER_VALUE = range(6)


class _Defect(Exception):
    def __init__(self, rule: str, offset: int, message: str) -> None:
        super().__init__(message)
        self.rule = rule
        self.offset = offset


def _where(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column


def _syntax(offset: int, tag: str, code: int | None = None) -> _Defect:
    return _Defect(SYNTAX_RULE, offset, syntax_message(tag, code))


def _scan_string(text: str, start: int) -> int:
    """The offset just past the string whose opening quote is at ``start``."""
    pos = start + 1
    size = len(text)
    while True:
        pos = _STRING_RUN.match(text, pos).end()  # type: ignore[union-attr]
        if pos >= size:
            raise _syntax(start, "string")
        char = text[pos]
        if char == '"':
            return pos + 1
        if char != "\\":
            if "\ud800" <= char <= "\udfff":
                raise _syntax(pos, "surrogate")
            raise _syntax(pos, "control", ord(char))
        escape = text[pos + 1 : pos + 2]
        if escape in _SIMPLE_ESCAPES and escape:
            pos += 2
            continue
        if escape != "u" or not _HEX4.fullmatch(text, pos + 2, pos + 6):
            raise _syntax(pos, "escape")
        code = int(text[pos + 2 : pos + 6], 16)
        if 0xDC00 <= code <= 0xDFFF:
            raise _syntax(pos, "surrogate-escape", code)
        if 0xD800 <= code <= 0xDBFF:
            low = text[pos + 6 : pos + 12]
            if not (low[:2] == "\\u" and _HEX4.fullmatch(low, 2) and 0xDC00 <= int(low[2:], 16) <= 0xDFFF):
                raise _syntax(pos, "surrogate-escape", code)
            pos += 12
            continue
        pos += 6


def _check_number(token: str, offset: int) -> None:
    try:
        if _NUMBER.fullmatch(token).group(1, 2) == (None, None):  # type: ignore[union-attr]
            _finite_int(token)
        else:
            _finite_float(token)
    except _Reject as error:
        raise _Defect(error.rule, offset, str(error)) from None


# A JSON string or a bracket: what ``_container_depths`` steps through (every other token holds no bracket).
_STRING_OR_BRACKET = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.DOTALL)


UNCLOSED = MAX_DEPTH + 1
"""The depth ``_container_depths`` gives a container that never closes: past any limit, as it holds a defect."""


def _container_depths(text: str) -> dict[int, int]:
    """Offset of each array or object -> its nesting depth (1 for ``[]``; ``UNCLOSED`` if it never closes),
    in one pass over the brackets outside strings. Exact for every container the scan reaches that holds no
    defect: the text before it was read as tokens, so strings and brackets line up; a defect inside a
    container can only misplace what is said of that container, and the scan then steps into it token by
    token anyway (the token scan, never this map, decides every finding)."""
    depths: dict[int, int] = {}
    open_containers: list[list[int]] = []  # [offset, deepest child depth]
    for match in _STRING_OR_BRACKET.finditer(text):
        char = text[match.start()]
        if char in "[{":
            open_containers.append([match.start(), 0])
        elif char in "]}":
            if not open_containers:
                break
            start, inner = open_containers.pop()
            depths[start] = inner + 1
            if open_containers and open_containers[-1][1] < inner + 1:
                open_containers[-1][1] = inner + 1
    for start, _ in open_containers:
        depths[start] = UNCLOSED
    return depths


def _clean_value_end(
    text: str, start: int, depth: int, decoder: json.JSONDecoder, depths: dict[int, int]
) -> int | None:
    """The end of the array or object at ``start`` (nested ``depth`` levels deep) if it holds no defect,
    else None. Python's json module reads it at C speed, so the scan only steps through the values that
    hold the defect, not through every token of the text. ``depths`` (``_container_depths``, for a text
    with more brackets than the depth limit) spares decoding and walking a value that is too deep at
    every level the scan steps through it: without it, every level decoded the rest of the text again, and a
    1 kB text nested 490 deep took 44 ms to refuse (1.0 ms with it)."""
    known = depths.get(start)
    if known is not None and depth + known > MAX_DEPTH:
        return None  # too deep or unclosed (or holding a defect that misplaces its brackets): step in
    try:
        value, end = decoder.scan_once(text, start)  # type: ignore[attr-defined]
    except (_Reject, json.JSONDecodeError, StopIteration, RecursionError):
        return None
    if _may_hold_surrogate(text, start, end) or (
        known is None
        and depth + text.count("[", start, end) + text.count("{", start, end) > MAX_DEPTH
        and depth + nesting_depth(value) > MAX_DEPTH
    ):
        return None
    end_offset: int = end
    return end_offset


def _scan(text: str) -> None:
    """Raise the first defect of ``text``; return if it has none."""
    size = len(text)
    decoder = _decoder(text)
    depths = _container_depths(text) if text.count("[") + text.count("{") > MAX_DEPTH else {}
    stack: list[set[str] | None] = []  # per open container: the names seen (object) or None (array)
    expect = _VALUE
    pos = _WHITESPACE.match(text).end()  # type: ignore[union-attr]
    while True:
        char = text[pos] if pos < size else ""
        if expect in (_VALUE, _VALUE_OR_END_ARRAY):
            if expect == _VALUE_OR_END_ARRAY and char == "]":
                stack.pop()
                pos, expect = pos + 1, _AFTER_VALUE
            elif char in ("{", "["):
                if len(stack) + 1 > MAX_DEPTH:
                    found = too_deep_finding()
                    raise _Defect(found.rule, pos, found.message)
                end = _clean_value_end(text, pos, len(stack), decoder, depths) if stack else None
                if end is not None:
                    pos, expect = end, _AFTER_VALUE
                else:  # the defect is inside: read it token by token
                    stack.append(set() if char == "{" else None)
                    pos, expect = pos + 1, (_NAME_OR_END_OBJECT if char == "{" else _VALUE_OR_END_ARRAY)
            elif char == '"':
                pos, expect = _scan_string(text, pos), _AFTER_VALUE
            elif text.startswith(NON_FINITE_TOKENS, pos):
                token = next(t for t in NON_FINITE_TOKENS if text.startswith(t, pos))
                found = non_finite_token_finding(token)
                raise _Defect(found.rule, pos, found.message)
            elif (number := _NUMBER.match(text, pos)) is not None:
                # A '.' or an exponent mark that could continue the number but has no digits after it
                # makes the whole literal malformed (a syntax error), not a number that may overflow.
                after = text[number.end() : number.end() + 1]
                if (after in ("e", "E") and number.group(2) is None) or (
                    after == "." and number.group(1, 2) == (None, None)
                ):
                    raise _syntax(number.end(), "number")
                _check_number(number.group(), pos)
                pos, expect = number.end(), _AFTER_VALUE
            elif text.startswith(("true", "null"), pos):
                pos, expect = pos + 4, _AFTER_VALUE
            elif text.startswith("false", pos):
                pos, expect = pos + 5, _AFTER_VALUE
            else:
                raise _syntax(pos, "value" if char else "end")
        elif expect in (_NAME, _NAME_OR_END_OBJECT):
            if expect == _NAME_OR_END_OBJECT and char == "}":
                stack.pop()
                pos, expect = pos + 1, _AFTER_VALUE
            elif char == '"':
                end = _scan_string(text, pos)
                # Without an escape a name is its characters (_scan_string refused control characters).
                name = text[pos + 1 : end - 1] if "\\" not in text[pos:end] else json.loads(text[pos:end])
                names = stack[-1]
                assert names is not None
                if name in names:
                    found = duplicate_name_finding(name)
                    raise _Defect(found.rule, pos, found.message)
                names.add(name)
                pos, expect = end, _COLON
            else:
                raise _syntax(pos, "name")
        elif expect == _COLON:
            if char != ":":
                raise _syntax(pos, "colon")
            pos, expect = pos + 1, _VALUE
        else:  # _AFTER_VALUE
            if not stack:
                if pos < size:
                    raise _syntax(pos, "extra")
                return
            is_object = stack[-1] is not None
            if char == ",":
                pos, expect = pos + 1, (_NAME if is_object else _VALUE)
            elif char == ("}" if is_object else "]"):
                stack.pop()
                pos += 1
            else:
                raise _syntax(pos, "object" if is_object else "array")
        pos = _WHITESPACE.match(text, pos).end()  # type: ignore[union-attr]


def first_defect(text: str) -> Finding | None:
    """The finding of the first defect of ``text`` in text order, or None if it has none. Iterative: the
    same answer at any call depth and recursion limit. ``parse_json`` calls it only on texts the ``json``
    module refused or found a defect in (and keeps the module's finding should the two ever disagree on
    whether there is a defect: the differential fuzzer, tests/fuzz, checks that they never do)."""
    try:
        _scan(text)
    except _Defect as defect:
        # Only a syntax error says where: the other findings depend on the value alone, so that equal
        # defects give equal findings (check memoises them).
        message = located(*_where(text, defect.offset), str(defect)) if defect.rule == SYNTAX_RULE else str(defect)
        return finding(defect.rule, message)
    return None


def json_equal(left: Any, right: Any) -> bool:
    """Equal as JSON values: numbers equal as real numbers (1 and 1.0, -0.0 and 0 are one number, as in JSON
    Schema; an int and a float compare exactly, so 2**53 + 1 is not the double 2**53), true is not 1, and
    member order does not matter. On documents read as ``parse_json`` reads them, this is SPEC 3.1's one rule
    for what a re-encode keeps of a number, by which every binding's round trip is judged."""
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    if isinstance(left, (int, float)) and isinstance(right, (int, float)):
        return left == right
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(json_equal(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(json_equal(a, b) for a, b in zip(left, right, strict=True))
    return type(left) is type(right) and left == right
