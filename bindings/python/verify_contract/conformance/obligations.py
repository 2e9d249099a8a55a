"""The obligations of SPEC sections 4.1 (producers) and 4.2 (consumers), one id each, as the resolved model
states them (``schema/contract.yaml``, ``obligations``).

The ids are the ones SPEC.md names next to each obligation (``tests/conformance/test_conformance_kit.py`` holds the two
lists equal). ``checked`` says whether the kit can judge an obligation from a model class
or a read function: "mask a failure" needs the environment's own knowledge of what failed, "surface
failure-kind counts" is about a trainer's metrics; the report lists them as not checked.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Literal

from verify_contract.contract import contract_model
from verify_contract.findings import Severity
from verify_contract.generated import LATEST_VERSION

Role = Literal["producer", "consumer"]
_LATEST = contract_model(LATEST_VERSION)


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


def _obligations(role: Role) -> tuple[Obligation, ...]:
    return tuple(
        Obligation(o["id"], role, o["section"], Level(o["level"]), o["text"], o["checked"])
        for o in _LATEST.obligations
        if o["role"] == role
    )


PRODUCER_OBLIGATIONS: tuple[Obligation, ...] = _obligations("producer")
CONSUMER_OBLIGATIONS: tuple[Obligation, ...] = _obligations("consumer")

OBLIGATIONS: dict[str, Obligation] = {o.id: o for o in PRODUCER_OBLIGATIONS + CONSUMER_OBLIGATIONS}


def obligations_of(role: Role) -> tuple[Obligation, ...]:
    return PRODUCER_OBLIGATIONS if role == "producer" else CONSUMER_OBLIGATIONS
