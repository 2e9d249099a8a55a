"""One reader for every trainer adapter: a Gym result (or a bare verify response) -> an ``Outcome``.

What a sample teaches is decided here once, so verl, NeMo-RL and TRL mask the same samples:

- the reward, read as the number it is (no coercion);
- the producer's effective mask (SPEC 7.1, the library's ``effective_mask``: top-level OR legacy);
- the contract verdict at the core profile (what a trainer reads). A document that breaks the contract is
  not policy evidence: it is masked with the registered kind ``protocol_violation`` and its findings are
  kept for logs, never guessed into a value (``"false"`` is neither false nor true);
- the failure kind and a bounded failure reason, for metrics and logs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from verify_contract.contract import (
    DEFAULT_PROFILE,
    LATEST_VERSION,
    Field,
    MaskTypeError,
    Profile,
    contract_model,
    effective_mask,
    value_at,
)
from verify_contract.findings import Finding
from verify_contract.generated.contract_names import ROLE_FAILURE_KIND, ROLE_FAILURE_REASON, ROLE_REWARD
from verify_contract.generated.failure_kinds import PROTOCOL_VIOLATION
from verify_contract.reference import validate

RESULT_KEY = "full_result"
"""Where NeMo-RL's and verl's Gym result holds the verify response (the collector's record, not the contract)."""
REASON_CAP = 200
"""Characters of ``failure_reason`` an outcome keeps: a log line, never a payload (SPEC 3.4)."""

_MODEL = contract_model(LATEST_VERSION)


def _role(role: str) -> Field:
    field = _MODEL.role(role)
    if field is None:  # pragma: no cover - the shipped model has every role
        raise RuntimeError(f"the contract model has no {role!r} role")
    return field


REWARD_PATH = _role(ROLE_REWARD).path
KIND_PATH = _role(ROLE_FAILURE_KIND).path
REASON_PATH = _role(ROLE_FAILURE_REASON).path
_MISSING_REWARD = _role(ROLE_REWARD).missing_rule

VERDICTS = ("valid", "warning", "invalid")
"""The contract verdict of one document: no finding, warnings only, or an error (then refused)."""


class RefusedResult(ValueError):
    """The document breaks the contract (SPEC 4.2.2): a consumer refuses it rather than guess a value."""

    def __init__(self, outcome: Outcome) -> None:
        super().__init__("; ".join(f"[{f.rule}] {f.message}" for f in outcome.errors) or "refused")
        self.outcome = outcome


@dataclass(frozen=True)
class Outcome:
    """What one sample teaches a trainer."""

    reward: float | None
    """The reward, or None when it is absent or not a finite number (then the outcome is refused)."""
    mask: bool
    """The producer's effective mask (SPEC 7.1); false when a mask field is malformed (then refused)."""
    failure_kind: str | None
    """``protocol_violation`` for a refused document, else the document's kind (None: nothing failed)."""
    failure_reason: str | None
    """The document's reason, capped at ``REASON_CAP`` characters, or the first finding of a refused one."""
    verdict: str
    """``valid``, ``warning`` or ``invalid`` (one of ``VERDICTS``)."""
    findings: tuple[Finding, ...]

    @property
    def refused(self) -> bool:
        return self.verdict == "invalid"

    @property
    def masked(self) -> bool:
        """Not policy evidence: masked by its producer, or refused."""
        return self.mask or self.refused

    @property
    def errors(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity.value == "error")

    @property
    def only_reward_missing(self) -> bool:
        """Refused only because the reward is absent: a mask-only reader (NeMo-RL's flag, whose caller reads
        the reward itself and fails without one) has nothing to say about it."""
        return self.refused and all(f.rule == _MISSING_REWARD for f in self.errors)

    def as_pair(self) -> tuple[bool, float]:
        """(mask, reward) as the conformance kit reads a consumer; refusing is raising ``RefusedResult``."""
        if self.refused or self.reward is None:
            raise RefusedResult(self)
        return self.mask, self.reward


def verify_response_of(result: Any) -> Any:
    """The verify response inside a Gym result (``{"full_result": {...}, ...}``, as NeMo-RL and verl hold it),
    or ``result`` itself when it is a verify response."""
    if isinstance(result, Mapping) and RESULT_KEY in result and REWARD_PATH[0] not in result:
        return result[RESULT_KEY]
    return result


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _capped(text: Any) -> str | None:
    if not isinstance(text, str):
        return None
    return text if len(text) <= REASON_CAP else text[:REASON_CAP] + "..."


def read_outcome(result: Any, *, profile: Profile = DEFAULT_PROFILE, version: str = LATEST_VERSION) -> Outcome:
    """The outcome of one Gym result or verify response, judged at ``profile`` of ``version``.

    Never raises for a bad document: a document that breaks the contract comes back refused (masked, kind
    ``protocol_violation``, its findings kept).
    """
    document = verify_response_of(result)
    findings = tuple(validate(document, version, profile).findings)
    errors = [f for f in findings if f.severity.value == "error"]
    verdict = "invalid" if errors else ("warning" if findings else "valid")
    if not isinstance(document, Mapping):
        return Outcome(None, False, PROTOCOL_VIOLATION, _capped(errors[0].message), verdict, findings)
    try:
        mask = effective_mask(document)
    except MaskTypeError:
        mask = False
    reward = _number(value_at(document, REWARD_PATH))
    if errors:
        return Outcome(reward, mask, PROTOCOL_VIOLATION, _capped(errors[0].message), verdict, findings)
    kind = value_at(document, KIND_PATH)
    return Outcome(
        reward,
        mask,
        kind if isinstance(kind, str) else None,
        _capped(value_at(document, REASON_PATH)),
        verdict,
        findings,
    )


def kind_metric_label(outcome: Outcome) -> str:
    """The failure kind of a sample that is not policy evidence, as a metric label (SPEC 11.6): registered and
    namespaced kinds as they are, every other name ``unregistered``, none ``(none)``; never the reason."""
    from verify_contract.budget import NO_KIND
    from verify_contract.check import kind_label

    return kind_label(outcome.failure_kind or NO_KIND, _MODEL)


def step_metrics(outcomes: Sequence[Outcome], prefix: str = "contract") -> dict[str, float]:
    """One step's low-cardinality figures for a trainer's metrics dict: the masked rate, the refused count and
    the samples left out by failure kind (SPEC 4.2.5)."""
    left_out = [outcome for outcome in outcomes if outcome.masked]
    figures: dict[str, float] = {
        f"{prefix}/masked_rate": len(left_out) / len(outcomes) if outcomes else 0.0,
        f"{prefix}/masked": len(left_out),
        f"{prefix}/refused": sum(outcome.refused for outcome in outcomes),
    }
    for outcome in left_out:
        key = f"{prefix}/kind/{kind_metric_label(outcome)}"
        figures[key] = figures.get(key, 0) + 1
    return figures


def read_pair(document: Any) -> tuple[bool, float]:
    """(mask, reward) of one verify response, refusing (raising ``RefusedResult``) what breaks the contract:
    the reader as ``verify-contract conformance --consumer verify_contract.trainers:read_pair --reads both``
    sees it."""
    return read_outcome(document).as_pair()
