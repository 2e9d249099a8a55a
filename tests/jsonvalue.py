"""JSON value equality for round-trip tests."""

from __future__ import annotations

from typing import Any


def json_equal(left: Any, right: Any) -> bool:
    """Equal as JSON values: 1 and 1.0 are the same number (as in JSON Schema), but true is not 1."""
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    if isinstance(left, (int, float)) and isinstance(right, (int, float)):
        return left == right
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(json_equal(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(json_equal(a, b) for a, b in zip(left, right, strict=True))
    return type(left) is type(right) and left == right


def same_key_order(left: Any, right: Any) -> bool:
    if isinstance(left, dict) and isinstance(right, dict):
        return list(left) == list(right) and all(same_key_order(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return all(same_key_order(a, b) for a, b in zip(left, right, strict=True))
    return True
