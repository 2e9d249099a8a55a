"""The compiled pre-check (``_fastscan.c``) and what its status bytes mean.

``scan`` answers for each line of a chunk: blank, certainly valid and clean (with the counted facts), or
"ask the reference" (``STATUS_TEXT``: the text may break a JSON rule; ``STATUS_CONTRACT``: the text is
strict JSON but a contract field needs the reference). A line of the second kind may come with a memo key:
bytes that determine the reference's whole outcome for it (see ``_fastscan.c``). Without the compiled
module every non-blank line asks the reference, without a key: slower, same report.
"""

from __future__ import annotations

import importlib
from functools import cache
from types import ModuleType

from verify_contract.generated.failure_kinds import KINDS
from verify_contract.schemas import declared_fields, registered_failure_kinds
from verify_contract.versions import Profile, check_profile, check_version, version_key

_native: ModuleType | None
try:
    _native = importlib.import_module("verify_contract._fastscan")
except ImportError:  # no C compiler when the package was installed
    _native = None

STATUS_BLANK = 0
STATUS_TEXT = 254
STATUS_CONTRACT = 253
CLEAN_STATUSES = range(1, 13)
KIND_CLASSES = ("registered", "namespaced")
_BLANK = b" \t\r\n"  # JSON whitespace (RFC 8259): \x0b and \x0c are not blank


def available() -> bool:
    return _native is not None


def clean_facts(status: int) -> tuple[bool, bool, str | None]:
    """(masked, legacy mask in use, failure-kind class) of a clean status byte."""
    code = status - 1
    kind = code >> 2
    return bool(code & 1), bool(code & 2), KIND_CLASSES[kind - 1] if kind else None


@cache
def scan_flags(version: str, profile: Profile) -> int:
    check_version(version)
    check_profile(profile)
    fields = declared_fields(version)
    flags = 0
    if "failure_reason" in fields:
        flags |= 1
    if {"mask_sample", "failure_kind", "instance_config"} <= fields:
        flags |= 2
    if profile == "gym":
        flags |= 4
    return flags


@cache
def clean_kinds(version: str) -> bytes:
    """Registered kinds that draw no warning at ``version`` (deprecated ones do), as ``\\0a\\0b\\0``."""
    deprecated = {k.id for k in KINDS if k.deprecated and version_key(k.deprecated.since) <= version_key(version)}
    names = sorted(registered_failure_kinds(version) - deprecated)
    return b"\0" + b"".join(name.encode() + b"\0" for name in names)


Other = tuple[int, int, int, bytes | None]
"""(line index, start, end, memo key or None) of a line the pre-check did not settle."""


def _slow_scan(chunk: bytes) -> tuple[bytes, list[Other]]:
    statuses = bytearray()
    others: list[Other] = []
    start = 0
    size = len(chunk)
    while start < size:
        cut = chunk.find(b"\n", start)
        stop = size if cut < 0 else cut + 1
        index = len(statuses)
        if chunk[start:stop].strip(_BLANK):
            statuses.append(STATUS_TEXT)
            others.append((index, start, stop, None))
        else:
            statuses.append(STATUS_BLANK)
        start = stop
    return bytes(statuses), others


def _rejudge_blank(chunk: bytes, statuses: bytes, others: list[Other]) -> tuple[bytes, list[Other]]:
    fixed = bytearray(statuses)
    start = 0
    for index, status in enumerate(statuses):
        cut = chunk.find(b"\n", start)
        stop = len(chunk) if cut < 0 else cut + 1
        if status == STATUS_BLANK and chunk[start:stop].strip(_BLANK):
            fixed[index] = STATUS_TEXT
            others.append((index, start, stop, None))
        start = stop
    return bytes(fixed), sorted(others)


def scan(chunk: bytes, version: str, profile: Profile, fast: bool = True) -> tuple[bytes, list[Other]]:
    """One status byte per line of ``chunk``, and (index, start, end, memo key) of every line to ask the
    reference about."""
    if fast and _native is not None:
        statuses, others = _native.scan(chunk, scan_flags(version, profile), clean_kinds(version))
        # The compiled scanner keys text events ('N', 'D') in the order Python's json module meets them (a
        # duplicate when its object closes), not in text order (SPEC 2.1), and counts \x0b and \x0c as blank:
        # until it follows both, those keys are dropped (such lines ask the reference) and its blank lines
        # holding those bytes are re-judged.
        others = [(i, s, e, None if k is not None and k[:1] in b"ND" else k) for i, s, e, k in others]
        if b"\x0b" in chunk or b"\x0c" in chunk:
            return _rejudge_blank(chunk, statuses, others)
        return statuses, others
    return _slow_scan(chunk)


def count_lines(chunk: bytes) -> int:
    """Newlines in ``chunk``, plus one if it does not end with one (the lines ``scan`` reports)."""
    if _native is not None:
        lines: int = _native.count_lines(chunk)
        return lines
    return chunk.count(b"\n") + (bool(chunk) and not chunk.endswith(b"\n"))


def status_counts(statuses: bytes) -> list[int]:
    """How many lines have each status byte (index = status)."""
    if _native is not None:
        counts: list[int] = _native.histogram(statuses)
        return counts
    return [statuses.count(status) for status in range(256)]
