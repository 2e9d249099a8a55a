"""Where a failure budget's failures files are (SPEC 11.1): NeMo Gym writes ``<stem>_failures.jsonl`` beside
``<stem>.jsonl``. A module of its own, so that a plain ``check`` finds them without importing the budget."""

from __future__ import annotations

SIDECAR_SUFFIX = "_failures.jsonl"
"""NeMo Gym's failures file beside ``<stem>.jsonl`` is ``<stem>_failures.jsonl`` (SPEC 11.1)."""


def sidecar_of(file: str) -> str | None:
    """The name of the failures file beside a main output file: ``out.jsonl`` -> ``out_failures.jsonl`` (a
    local path or a URL alike; whether it exists is asked of the main file's ``Source.sibling``)."""
    base = file[: -len(".jsonl")] if file.endswith(".jsonl") else None
    if base is None or base.endswith(SIDECAR_SUFFIX[: -len(".jsonl")]):
        return None
    return base + SIDECAR_SUFFIX


def is_sidecar(file: str) -> bool:
    return file.endswith(SIDECAR_SUFFIX)
