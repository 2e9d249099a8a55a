"""Numbers every generated target must keep through decode and encode (SPEC 3.1, 3.6), or refuse, and SPEC
3.1's one rule that every round trip of every binding and target is judged by (``same_value``).

Integers at 2^53 + 1 (the first a double cannot hold), 2^64 (beyond 64 bits), 30 digits, each in ``reward``
and in an unknown member, at depth; doubles whose shortest digits JavaScript would pad with zeros; spellings
that one JSON library keeps and another rewrites (``1.0``, ``-0.0``, ``1E2``, ``-0``); and a 400-digit
integer, beyond the doubles, which the contract calls non-finite (``json-non-finite``), refused.
"""

from __future__ import annotations

import json
from typing import Any

from verify_contract.reference._jsonio import json_equal

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
    "number-spellings": (
        '{"reward": -0.0, "x_one": 1.0, "x_e2": 1E2, "x_neg_zero": -0, "x_tiny": 5e-324, "x_exp": 1234567890123451e2, '
        '"x_list": [0.0, -0.0, 1.50, 2.5e-3]}',
        False,
        False,
    ),
    "big-400-digits": (f'{{"reward": {FOUR_HUNDRED_DIGITS}}}', False, True),
}


def same_value(original: Any, encoded: Any) -> bool:
    """SPEC 3.1's one rule for a re-encode, on documents read as the reference reads JSON (an integer literal
    is that integer, exactly; any other literal the nearest binary64): every number has the same value as
    a real number, at any depth, in any member. ``1.0`` may come back as ``1`` and ``-0.0`` as ``0`` (the
    same value), ``2^53 + 1`` must not come back as ``2^53`` or as the double ``9007199254740993.0``, nor a
    double beyond 2^53 as an integer literal other than its exact value. Booleans are not numbers; member
    order does not matter."""
    return json_equal(original, encoded)


def same_numbers(encoded: str, original: str) -> bool:
    """The encoded text holds every number of the original with the same value (``same_value``)."""
    return same_value(json.loads(original), json.loads(encoded))
