"""Strict JSON text parsing (RFC 8259 + I-JSON): every defect becomes one finding, never an exception."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from verify_contract.findings import Finding, finding

UTF8_BOM = b"\xef\xbb\xbf"
MAX_DEPTH = 100
"""Deepest nesting of arrays and objects a document may have; the top-level object is depth 1 (SPEC.md)."""


class _Reject(ValueError):
    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule


def _no_constants(token: str) -> Any:
    raise _Reject("json-non-finite", f"{token} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Reject("json-non-finite", f"{text} overflows to infinity")
    return value


# An integer literal with more digits than this overflows binary64 (max ~1.8e308) in any parser.
MAX_INTEGER_DIGITS = 309


def _finite_int(text: str) -> int:
    digits = len(text) - text.startswith("-")
    if digits > MAX_INTEGER_DIGITS:
        raise _Reject("json-non-finite", f"an integer of {digits} digits overflows to infinity")
    value = int(text)
    try:
        float(value)
    except OverflowError:
        raise _Reject("json-non-finite", f"an integer of {digits} digits overflows to infinity") from None
    return value


def _unique_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _Reject("json-duplicate-key", f"duplicate member name {key!r}")
        result[key] = value
    return result


_DECODER = json.JSONDecoder(
    object_pairs_hook=_unique_object, parse_constant=_no_constants, parse_float=_finite_float, parse_int=_finite_int
)
# A \uD800-\uDFFF escape: the only way a lone surrogate gets into a str decoded from valid UTF-8.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")


def _lone_surrogate(value: Any) -> str | None:
    """The first string (key or value) holding an unpaired surrogate. The decoder joins valid pairs
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
            return node
    return None


@dataclass(frozen=True)
class Parsed:
    document: Any
    finding: Finding | None

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


def parse_json(data: bytes | str) -> Parsed:
    """Parse one JSON text strictly: UTF-8, no BOM, finite numbers, unique member names."""
    if isinstance(data, bytes):
        if data.startswith(UTF8_BOM):
            return Parsed(
                None, finding("json-syntax", "the text starts with a UTF-8 byte order mark (RFC 8259 forbids it)")
            )
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            return Parsed(None, finding("json-syntax", f"invalid UTF-8 at byte {error.start}: {error.reason}"))
    else:
        text = data
        if text.startswith("\ufeff"):
            return Parsed(None, finding("json-syntax", "the text starts with a byte order mark (RFC 8259 forbids it)"))
    try:
        document = _DECODER.decode(text)
    except _Reject as error:
        return Parsed(None, finding(error.rule, str(error)))
    except json.JSONDecodeError as error:
        return Parsed(None, finding("json-syntax", f"line {error.lineno} column {error.colno}: {error.msg}"))
    except RecursionError:
        return Parsed(None, finding("json-too-deep", f"the value nests deeper than {MAX_DEPTH} levels"))
    if _SURROGATE_ESCAPE.search(text) and (bad := _lone_surrogate(document)) is not None:
        where = bad.encode("utf-8", "backslashreplace").decode("ascii")[:60]
        return Parsed(
            None, finding("json-syntax", f"unpaired surrogate escape in {where!r} (I-JSON: strings are Unicode)")
        )
    depth = nesting_depth(document)
    if depth > MAX_DEPTH:
        return Parsed(None, finding("json-too-deep", f"the value nests {depth} levels deep; the limit is {MAX_DEPTH}"))
    return Parsed(document, None)


def json_equal(left: Any, right: Any) -> bool:
    """Equal as JSON values: 1 and 1.0 are one number (as in JSON Schema), but true is not 1, and member
    order does not matter. The round-trip criterion of the bindings (SPEC.md, section 3.1)."""
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    if isinstance(left, (int, float)) and isinstance(right, (int, float)):
        return left == right
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(json_equal(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(json_equal(a, b) for a, b in zip(left, right, strict=True))
    return type(left) is type(right) and left == right
