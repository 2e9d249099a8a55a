"""Strict JSON text parsing (RFC 8259 + I-JSON): every defect becomes one finding, never an exception."""

from __future__ import annotations

import json
import math
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


def _unique_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _Reject("json-duplicate-key", f"duplicate member name {key!r}")
        result[key] = value
    return result


_DECODER = json.JSONDecoder(object_pairs_hook=_unique_object, parse_constant=_no_constants, parse_float=_finite_float)


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
    depth = nesting_depth(document)
    if depth > MAX_DEPTH:
        return Parsed(None, finding("json-too-deep", f"the value nests {depth} levels deep; the limit is {MAX_DEPTH}"))
    return Parsed(document, None)
