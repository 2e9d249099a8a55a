"""The obligations of SPEC sections 4.1 (producers) and 4.2 (consumers), one id each.

The ids are the ones SPEC.md names next to each obligation (``tests/test_conformance_obligations.py``
holds the two lists equal). ``checked`` says whether the kit can judge an obligation from a model class
or a read function: "mask a failure" needs the environment's own knowledge of what failed, "surface
failure-kind counts" is about a trainer's metrics; the report lists them as not checked.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Literal

from verify_contract.findings import Severity

Role = Literal["producer", "consumer"]


class Level(str, Enum):
    MUST = "MUST"
    SHOULD = "SHOULD"

    @property
    def severity(self) -> Severity:
        """A broken MUST is an error (the subject does not conform); a broken SHOULD, a warning."""
        return Severity.ERROR if self is Level.MUST else Severity.WARNING


@dataclass(frozen=True)
class Obligation:
    id: str
    role: Role
    section: str
    level: Level
    text: str
    checked: bool = True


PRODUCER_OBLIGATIONS: tuple[Obligation, ...] = (
    Obligation(
        "producer-valid",
        "producer",
        "4.1.1",
        Level.MUST,
        "emit documents valid against the claimed profile and version, under section 2.1's JSON rules",
    ),
    Obligation(
        "producer-mask-failures",
        "producer",
        "4.1.2",
        Level.MUST,
        "set mask_sample true when the reward does not measure the policy (and name a failure_kind)",
        checked=False,
    ),
    Obligation(
        "producer-no-false-mask",
        "producer",
        "4.1.3",
        Level.MUST,
        "not mask a genuine zero, nor express a failure only through failure_reason",
        checked=False,
    ),
    Obligation(
        "producer-registered-kinds",
        "producer",
        "4.1.4",
        Level.SHOULD,
        "use registered kinds, or namespaced kinds for its own (unregistered and deprecated kinds warn)",
    ),
    Obligation(
        "producer-legacy-mirror",
        "producer",
        "4.1.5",
        Level.MUST,
        "write the top-level mask_sample, with the same value, whenever it writes instance_config.mask_sample",
    ),
    Obligation(
        "producer-no-null",
        "producer",
        "4.1.6",
        Level.MUST,
        "not write null for a field that is not nullable (absent is how mask_sample says false)",
    ),
    Obligation(
        "producer-round-trip",
        "producer",
        "4.1.7",
        Level.MUST,
        "keep every key it does not know and every value when it re-emits a document (sections 3.1, 3.6)",
    ),
)

CONSUMER_OBLIGATIONS: tuple[Obligation, ...] = (
    Obligation(
        "consumer-effective-mask",
        "consumer",
        "4.2.1",
        Level.MUST,
        "compute the effective mask, mask_sample OR instance_config.mask_sample, reading both locations",
    ),
    Obligation(
        "consumer-refuse-mask",
        "consumer",
        "4.2.2",
        Level.MUST,
        "refuse a non-boolean mask (either location), never coerce it",
    ),
    Obligation(
        "consumer-refuse-reward",
        "consumer",
        "4.2.2",
        Level.MUST,
        "refuse a missing or non-number reward, never coerce it; read a number reward as its value",
    ),
    Obligation(
        "consumer-refuse-json",
        "consumer",
        "4.2.2",
        Level.MUST,
        "refuse a document that breaks section 2.1 (JSON text rules, top-level object)",
    ),
    Obligation(
        "consumer-unknown-keys",
        "consumer",
        "4.2.3",
        Level.MUST,
        "ignore unknown keys, never refuse a document for them",
    ),
    Obligation(
        "consumer-unregistered-kinds",
        "consumer",
        "4.2.3",
        Level.MUST,
        "treat unregistered and namespaced failure kinds as generic failures, never refuse them",
    ),
    Obligation(
        "consumer-earlier-versions",
        "consumer",
        "4.2.4",
        Level.MUST,
        "accept documents of every earlier 1.x version, absent fields taking their defaults",
    ),
    Obligation(
        "consumer-kind-metrics",
        "consumer",
        "4.2.5",
        Level.SHOULD,
        "surface failure_kind counts in its metrics",
        checked=False,
    ),
)

OBLIGATIONS: dict[str, Obligation] = {o.id: o for o in PRODUCER_OBLIGATIONS + CONSUMER_OBLIGATIONS}


def obligations_of(role: Role) -> tuple[Obligation, ...]:
    return PRODUCER_OBLIGATIONS if role == "producer" else CONSUMER_OBLIGATIONS
