"""Numbers every generated target must keep exactly through decode and encode (SPEC 3.1, 3.6), or refuse.

Integers at 2^53 + 1 (the first a double cannot hold), 2^64 (beyond 64 bits), 30 digits, each in ``reward``
and in an unknown member, at depth; doubles whose shortest digits JavaScript would pad with zeros; and a
400-digit integer, beyond the doubles, which the contract calls non-finite (``json-non-finite``), refused.
"""

from __future__ import annotations

import json
from typing import Any

TWO_53_PLUS_1 = 2**53 + 1
TWO_64 = 2**64
THIRTY_DIGITS = 123456789012345678901234567890
FOUR_HUNDRED_DIGITS = 10**399 + 7
assert len(str(FOUR_HUNDRED_DIGITS)) == 400 and len(str(THIRTY_DIGITS)) == 30

# id -> (JSON text of a core document, beyond 64 bits?, refused by every target?)
BIG_NUMBERS: dict[str, tuple[str, bool, bool]] = {
    "big-2^53+1": (f'{{"reward": {TWO_53_PLUS_1}, "x_big": {TWO_53_PLUS_1}}}', False, False),
    "big-2^64": (f'{{"reward": {TWO_64}, "x_big": [{TWO_64}, -{TWO_64}]}}', True, False),
    "big-30-digits": (
        f'{{"reward": {THIRTY_DIGITS}, "x_big": {THIRTY_DIGITS}, "x_deep": {{"a": [{{"b": -{THIRTY_DIGITS}}}]}}}}',
        True,
        False,
    ),
    "big-doubles": (
        '{"reward": -314480692138891865775.89669797, "x_double": 1.7037181445619378e+20, "x_e16": 1e16, '
        '"x_2_53": 9007199254740994.0, "x_small": 0.1}',
        False,
        False,
    ),
    "big-400-digits": (f'{{"reward": {FOUR_HUNDRED_DIGITS}}}', False, True),
}


def exact(value: Any) -> Any:
    """``value`` with each number tagged by kind, so 2^53 + 1 and 2^53, or an integer and a double of another
    value, never compare equal (an integer written as ``1e+16`` or ``9007199254740994.0`` is a double)."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return ("int", value)
    if isinstance(value, float):
        return ("float", value) if not value.is_integer() or abs(value) >= 2**53 else ("int", int(value))
    if isinstance(value, list):
        return [exact(item) for item in value]
    return {key: exact(item) for key, item in value.items()}


def same_numbers(encoded: str, original: str) -> bool:
    """The encoded text holds every number of the original exactly (member order aside)."""
    return bool(exact(json.loads(encoded)) == exact(json.loads(original)))
