"""The outcome of a line whose memo key names its first JSON-text defect, built without the reference.

The pre-check (``_fastscan.c``) keys a STATUS_TEXT line by its first defect in SPEC.md 2.1 order when it
can name it exactly: ``B`` a byte order mark; ``U`` + reason tag + ``:`` + byte offset, the first
ill-formed UTF-8 sequence as Python's decoder reports it; ``S`` + syntax tag + ``:`` + column [+ ``:`` +
code in hex], a syntax defect (line 1: a JSONL line holds no newline); ``N`` + token, ``NaN``,
``Infinity`` or ``-Infinity`` where a value belongs; ``D`` + name in UTF-8 (escapes resolved), a
repeated member name; ``T``, nesting deeper than MAX_DEPTH. The reference's one finding for such a line
depends on the key alone, so it is built here through the wording ``jsonio`` itself uses
(``text_findings``: its SYNTAX_MESSAGES and UTF8_REASONS tables, whose tags the C module exports:
tests/reference/test_text_keys.py holds the two to each other);
every other line, and any key this module does not read, goes to the reference. tests/check/test_differential.py
and the fuzz replay (tests/fuzz/fastscan) hold the two to identical outcomes.
"""

from __future__ import annotations

from verify_contract.check._outcome import Outcome
from verify_contract.findings import Finding
from verify_contract.reference import (
    CODED_SYNTAX_TAGS,
    NON_FINITE_TOKENS,
    SYNTAX_MESSAGES,
    UTF8_REASONS,
    bom_finding,
    duplicate_name_finding,
    invalid_utf8_finding,
    non_finite_token_finding,
    syntax_finding,
    too_deep_finding,
)

_TOKENS = {token.encode("ascii"): token for token in NON_FINITE_TOKENS}


def _decimal(field: bytes) -> int:
    if not field.isdigit():  # b"".isdigit() is False
        raise ValueError(field)
    return int(field)


def _syntax(event: bytes) -> Finding | None:
    tag, *numbers = event.decode("ascii").split(":")
    if tag not in SYNTAX_MESSAGES or len(numbers) != (2 if tag in CODED_SYNTAX_TAGS else 1):
        return None
    code = int(numbers[1], 16) if len(numbers) == 2 else None
    return syntax_finding(tag, _decimal(numbers[0].encode("ascii")), code)


def _utf8(event: bytes) -> Finding | None:
    tag, _, start = event.decode("ascii").partition(":")
    if tag not in UTF8_REASONS:
        return None
    return invalid_utf8_finding(_decimal(start.encode("ascii")), UTF8_REASONS[tag])


def text_finding(key: bytes) -> Finding | None:
    """The reference's one finding for a line with text key ``key``, or None if the key does not settle it."""
    kind, event = key[:1], key[1:]
    try:
        if kind == b"S":
            return _syntax(event)
        if kind == b"U":
            return _utf8(event)
    except (UnicodeDecodeError, ValueError):
        return None
    if kind == b"N" and event in _TOKENS:
        return non_finite_token_finding(_TOKENS[event])
    if kind == b"D":
        try:
            name = event.decode("utf-8")  # the name, escapes resolved (the pre-check decodes them as json does)
        except UnicodeDecodeError:
            return None
        return duplicate_name_finding(name)
    if kind == b"B" and not event:
        return bom_finding()
    if kind == b"T" and not event:
        return too_deep_finding()
    return None


def text_event_outcome(key: bytes) -> Outcome | None:
    """The reference's outcome for a line with memo key ``key``, or None if the key does not settle it."""
    found = text_finding(key)
    return Outcome((found,), False) if found is not None else None
