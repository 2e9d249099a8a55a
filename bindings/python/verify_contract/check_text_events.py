"""The outcome of a line whose memo key names its first JSON-text defect, built without the reference.

The pre-check (``_fastscan.c``) keys a line ``N`` + token when its first defect in SPEC.md 2.1 text order
is ``NaN``, ``Infinity`` or ``-Infinity`` where a value belongs, and ``D`` + raw name when it is a repeated
member name (an unescaped name, the line valid UTF-8). The reference's one finding for such a line depends
on that token or name alone, so it is built here from the reference's own wording (``jsonio``); every other
line, and any key this module does not read, goes to the reference. tests/test_differential.py holds the
two to identical outcomes.
"""

from __future__ import annotations

from verify_contract.check_outcome import Outcome
from verify_contract.jsonio import NON_FINITE_TOKENS, duplicate_name_finding, non_finite_token_finding

_TOKENS = {token.encode("ascii"): token for token in NON_FINITE_TOKENS}


def text_event_outcome(key: bytes) -> Outcome | None:
    """The reference's outcome for a line with memo key ``key``, or None if the key does not settle it."""
    kind, event = key[:1], key[1:]
    if kind == b"N" and event in _TOKENS:
        return Outcome((non_finite_token_finding(_TOKENS[event]),), False)
    if kind == b"D":
        try:
            name = event.decode("utf-8")  # unescaped (the pre-check keys no escaped name): the name itself
        except UnicodeDecodeError:
            return None
        return Outcome((duplicate_name_finding(name),), False)
    return None
