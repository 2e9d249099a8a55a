"""Where a failure budget's failures files are (SPEC 11.1): NeMo Gym writes ``<stem>_failures.jsonl`` beside
``<stem>.jsonl``. A module of its own, so that a plain ``check`` finds them without importing the budget."""

from __future__ import annotations

FAILURES_FILE_SUFFIX = "_failures.jsonl"
"""NeMo Gym's failures file beside ``<stem>.jsonl`` is ``<stem>_failures.jsonl`` (SPEC 11.1)."""


def failures_file_of(file: str) -> str | None:
    """The name of the failures file beside a main output file: ``out.jsonl`` -> ``out_failures.jsonl`` (a
    local path or a URL alike; whether it exists is asked of the main file's ``Source.sibling``)."""
    base = file[: -len(".jsonl")] if file.endswith(".jsonl") else None
    if base is None or base.endswith(FAILURES_FILE_SUFFIX[: -len(".jsonl")]):
        return None
    return base + FAILURES_FILE_SUFFIX


def is_failures_file(file: str) -> bool:
    return file.endswith(FAILURES_FILE_SUFFIX)
