"""The findings of JSON-text defects: rule ids and wording, stated once.

``jsonio``'s scanner words its findings through these, and ``check`` builds the same findings from the
pre-check's text keys (``check_text_events``) without importing the scanner (its compiled patterns and
decoders cost a few milliseconds of every process's first text defect).
"""

from __future__ import annotations

from verify_contract.contract import contract_model
from verify_contract.findings import Finding, finding
from verify_contract.generated import LATEST_VERSION
from verify_contract.generated.contract_names import (
    RULE_JSON_DUPLICATE_KEY,
    RULE_JSON_NON_FINITE,
    RULE_JSON_SYNTAX,
    RULE_JSON_TOO_DEEP,
)

NON_FINITE_TOKENS = ("NaN", "Infinity", "-Infinity")  # the tokens Python's json reads as numbers

MAX_DEPTH = contract_model(LATEST_VERSION).max_depth
"""Deepest nesting of arrays and objects a document may have; the top-level object is depth 1 (SPEC.md):
the model's ``limits.max_depth`` (the compiled pre-check declines a model whose limit is not its own)."""


NON_FINITE_RULE = RULE_JSON_NON_FINITE
DUPLICATE_KEY_RULE = RULE_JSON_DUPLICATE_KEY


def constant_message(token: str) -> str:
    return f"{token} is not a JSON number"


def duplicate_message(name: str) -> str:
    return f"duplicate member name {name!r}"


def non_finite_token_finding(token: str) -> Finding:
    """The finding of a text whose first defect (SPEC.md 2.1) is the token ``NaN``, ``Infinity`` or
    ``-Infinity`` where a value belongs: it depends on the token alone, not on where it is."""
    return finding(NON_FINITE_RULE, constant_message(token))


def duplicate_name_finding(name: str) -> Finding:
    """The finding of a text whose first defect (SPEC.md 2.1) is a repeated member name (``name`` decoded,
    escapes resolved): it depends on the name alone, not on where it is."""
    return finding(DUPLICATE_KEY_RULE, duplicate_message(name))


SYNTAX_RULE = RULE_JSON_SYNTAX
TOO_DEEP_RULE = RULE_JSON_TOO_DEEP

SYNTAX_MESSAGES: dict[str, str] = {
    "string": "unterminated string",
    "control": "control character U+%04X in a string",
    "escape": "invalid escape",
    "surrogate-escape": "unpaired surrogate escape \\u%04X (I-JSON: strings are Unicode)",
    "surrogate": "unpaired surrogate in a string (I-JSON: strings are Unicode)",
    "number": "malformed number",
    "value": "expecting a value",
    "end": "unexpected end of text, expecting a value",
    "name": "expecting a member name in double quotes",
    "colon": "expecting ':'",
    "extra": "extra data after the JSON value",
    "object": "expecting ',' or '}'",
    "array": "expecting ',' or ']'",
}
"""Every syntax message the scanner words, by tag; ``%04X`` (a code point or an escape's code) marks the
messages that take one. The pre-check keys a line by tag, column and code (``_fastscan.c``'s SYNTAX_TAGS),
and ``syntax_finding`` builds the reference's finding from it."""

CODED_SYNTAX_TAGS = frozenset(tag for tag, message in SYNTAX_MESSAGES.items() if "%04X" in message)

UTF8_REASONS: dict[str, str] = {
    "start": "invalid start byte",
    "continuation": "invalid continuation byte",
    "end": "unexpected end of data",
}
"""The reasons Python's UTF-8 decoder gives (``UnicodeDecodeError.reason``), by the pre-check's tags
(``_fastscan.c``'s UTF8_TAGS); tests/reference/test_text_keys.py checks that CPython words them so."""


def syntax_message(tag: str, code: int | None = None) -> str:
    """The message of syntax defect ``tag`` (a key of SYNTAX_MESSAGES), with its code where it takes one."""
    template = SYNTAX_MESSAGES[tag]
    return template % code if code is not None else template


def located(line: int, column: int, message: str) -> str:
    # Counted within the document (a JSON Lines line is a document: its line 1), said so beside a file's line.
    return f"line {line} column {column} of the document: {message}"


def syntax_finding(tag: str, column: int, code: int | None = None, line: int = 1) -> Finding:
    """The finding of a text whose first defect is syntax defect ``tag`` at ``line`` and ``column`` (both
    counted from 1, the column in code points): the wording ``first_defect`` gives it."""
    return finding(SYNTAX_RULE, located(line, column, syntax_message(tag, code)))


def bom_finding() -> Finding:
    """The finding of a byte text that starts with a UTF-8 byte order mark."""
    return finding(SYNTAX_RULE, "the text starts with a UTF-8 byte order mark (RFC 8259 forbids it)")


def invalid_utf8_finding(start: int, reason: str) -> Finding:
    """The finding of a byte text that is not UTF-8: ``start`` and ``reason`` as Python's decoder reports
    its first ill-formed sequence."""
    return finding(SYNTAX_RULE, f"invalid UTF-8 at byte {start}: {reason}")


def too_deep_finding() -> Finding:
    """The finding of a text whose first defect is an array or object opened deeper than MAX_DEPTH."""
    return finding(TOO_DEEP_RULE, f"the value nests deeper than {MAX_DEPTH} levels")
