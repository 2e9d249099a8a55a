"""A JSON Schema error's message with values spelled as JSON (``true``, ``null``, ``"x"``), not as Python
reprs (``True``, ``None``, ``'x'``), and each value capped so a whole document never fills a line."""

from __future__ import annotations

import json

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (check's start-up); mypy knows the name
if TYPE_CHECKING:
    from typing import Any

VALUE_LIMIT = 60
"""Characters of one quoted value in a message; longer values end with an ellipsis."""


_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": "), default=repr)
_encode_string = json.encoder.encode_basestring  # the C encoder of a str, without json.dumps' set-up


def json_text(value: Any, limit: int = VALUE_LIMIT) -> str:
    """``value`` as compact JSON, at most ``limit`` characters (an ellipsis marks the cut). Called for every
    finding ``check`` composes, so scalars skip the encoder's set-up."""
    if isinstance(value, str):
        text = _encode_string(value)
    elif value is None or isinstance(value, bool):
        text = "null" if value is None else ("true" if value else "false")
    elif type(value) is int:
        text = str(value)
    elif type(value) is float and value - value == 0:  # finite: JSON writes a float as its repr
        text = repr(value)
    else:
        text = _ENCODER.encode(value)
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _types(value: Any) -> str:
    names = value if isinstance(value, list) else [value]
    return " or ".join(json_text(name) for name in names)


_BOUNDS = {
    "minimum": "less than the minimum of",
    "maximum": "greater than the maximum of",
    "exclusiveMinimum": "less than or equal to the exclusive minimum of",
    "exclusiveMaximum": "greater than or equal to the exclusive maximum of",
    "minLength": "shorter than the minimum length of",
    "maxLength": "longer than the maximum length of",
    "minItems": "shorter than the minimum item count of",
    "maxItems": "longer than the maximum item count of",
}


def schema_error_message(keyword: Any, value: Any, instance: Any) -> str:
    """The message of a failed ``keyword`` (its schema value ``value``) on ``instance``."""
    shown = json_text(instance)
    if keyword == "type":
        return f"{shown} is not of type {_types(value)}"
    if keyword == "required" and isinstance(instance, dict) and isinstance(value, list):
        missing = [name for name in value if name not in instance]
        return f"required member {', '.join(json_text(name) for name in missing)} is missing"
    if keyword == "enum":
        return f"{shown} is not one of {json_text(value)}"
    if keyword == "const":
        return f"{shown} is not {json_text(value)}"
    if keyword == "pattern":
        return f"{shown} does not match {json_text(value)}"
    if keyword in _BOUNDS:
        return f"{shown} is {_BOUNDS[keyword]} {json_text(value)}"
    if keyword == "additionalProperties" and value is False and isinstance(instance, dict):
        return f"{shown} has members the schema does not declare"
    if keyword in ("anyOf", "oneOf"):
        return f"{shown} is not valid under {'any' if keyword == 'anyOf' else 'exactly one'} of the given schemas"
    return f"{shown} breaks {keyword} {json_text(value)}"
