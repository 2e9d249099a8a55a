"""A trainer-side reader of verify responses: what NeMo-RL or verl needs to follow SPEC 4.2.

``read_sample`` refuses a document that breaks the contract (never guesses a mask or a reward), reads
the effective mask from both locations, and keeps the failure kind, which ``summarize`` counts for the
trainer's metrics (SPEC 4.2.5). Run it on a JSON Lines file of verify responses:

    python examples/trainer_reader.py examples/results.jsonl
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from verify_contract import effective_mask, parse_json, validate


@dataclass(frozen=True)
class Sample:
    reward: float
    masked: bool
    failure_kind: str | None


class RefusedDocument(ValueError):
    """The document breaks the contract: log it as a collection failure, do not train on it."""


def read_sample(document: dict[str, Any]) -> Sample:
    result = validate(document)  # the core profile: what a trainer needs
    if not result.valid:
        raise RefusedDocument("; ".join(f"[{f.rule}] {f.message}" for f in result.errors))
    kind = document.get("failure_kind")
    return Sample(float(document["reward"]), effective_mask(document), kind)


def read_mask(document: dict[str, Any]) -> bool:
    """The mask alone, for ``verify-contract conformance --consumer trainer_reader:read_mask``."""
    return read_sample(document).masked


def read_line(line: bytes) -> Sample:
    """One JSON Lines record, parsed strictly (duplicate keys, NaN, a BOM... are refused)."""
    parsed = parse_json(line)
    if parsed.finding is not None:
        raise RefusedDocument(f"[{parsed.finding.rule}] {parsed.finding.message}")
    return read_sample(parsed.document)


def summarize(lines: Iterable[bytes]) -> dict[str, Any]:
    """Counts a trainer logs: samples, masked ones, refused ones, and samples per failure kind."""
    samples, refused = [], 0
    for line in lines:
        if not line.strip():
            continue
        try:
            samples.append(read_line(line))
        except RefusedDocument:
            refused += 1
    kinds = Counter(s.failure_kind for s in samples if s.failure_kind is not None)
    trained = [s.reward for s in samples if not s.masked]
    return {
        "samples": len(samples),
        "masked": sum(s.masked for s in samples),
        "refused": refused,
        "mean_reward_trained": sum(trained) / len(trained) if trained else None,
        "failure_kinds": dict(sorted(kinds.items())),
    }


if __name__ == "__main__":
    with open(sys.argv[1], "rb") as stream:
        print(summarize(stream))
