"""Consumer conformance: run the vectors through a trainer's read function and compare with the contract.

A read function takes one verify-response document (a dict, as a trainer gets it from its JSON parser)
and returns what the trainer will act on: the mask flag (``reads="mask"``), the reward
(``reads="reward"``), or both (``reads="both"``: a ``(mask, reward)`` pair or a mapping with keys
``mask`` and ``reward``).

Expected results come from the vectors. A vector whose ``effective_mask`` is null has no defined mask
(the document breaks the contract, or its mask is not a boolean): a conforming consumer must refuse it
(raise) rather than return a value, because any value would be a guess, as ``bool("false")`` is. With
``invalid="skip"`` those vectors are not used, for readers that only ever see documents that a
validation step has already accepted. Vectors about the JSON text itself (duplicate keys, NaN tokens,
nesting depth, bad UTF-8) are not applicable: a read function gets a dict, after the parser, whose job
those are (``verify-contract check`` or ``verify_contract.parse_json``). Gym-profile vectors that are
invalid only at the gym profile are not applicable either (see ``consumer_vector``).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal

from verify_contract.conformance.report import ConformanceReport, Issue, short
from verify_contract.jsonio import parse_json
from verify_contract.vectors import Vector, load_vectors
from verify_contract.versions import LATEST_VERSION

Reads = Literal["mask", "reward", "both"]
InvalidPolicy = Literal["refuse", "skip"]
READS: tuple[Reads, ...] = ("mask", "reward", "both")


def _document(vector: Vector) -> Any:
    """The dict a consumer gets, or None when the JSON text itself breaks the contract (duplicate keys,
    NaN, deep nesting...): that is the parser's business, and a dict cannot show it to a reader."""
    if vector.has_instance:
        return copy.deepcopy(vector.instance)
    parsed = parse_json(vector.text)
    return parsed.document if parsed.ok else None


def consumer_vector(vector: Vector, version: str) -> bool:
    """Vectors of ``version`` that say something about reading: every core-profile one, and the valid
    gym-profile ones (a gym document that lacks the request echo is no reader's business)."""
    return vector.contract_version == version and (vector.profile == "core" or vector.valid)


def _split(result: Any, reads: Reads) -> tuple[Any, Any]:
    if reads == "mask":
        return result, None
    if reads == "reward":
        return None, result
    if isinstance(result, Mapping):
        return result.get("mask"), result.get("reward")
    mask, reward = result
    return mask, reward


def _is_bool(value: Any) -> bool:
    """A boolean, or a NumPy-style boolean scalar; not 0, 1 or a string."""
    return isinstance(value, bool) or type(value).__name__ == "bool_"


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def check_consumer(
    read: Callable[[Any], Any],
    reads: Reads = "mask",
    vectors: Iterable[Vector] | None = None,
    invalid: InvalidPolicy = "refuse",
    name: str | None = None,
    version: str = LATEST_VERSION,
) -> ConformanceReport:
    """Run the vectors of ``version`` through ``read`` and report each disagreement with the contract."""
    if reads not in READS:
        raise ValueError(f"reads must be one of {READS}, not {reads!r}")
    subject = name or f"{getattr(read, '__module__', '?')}.{getattr(read, '__qualname__', repr(read))}"
    report = ConformanceReport(subject, "consumer")
    for vector in load_vectors() if vectors is None else vectors:
        if not consumer_vector(vector, version):
            report.skipped += 1
            continue
        document = _document(vector)
        wants_mask = reads in ("mask", "both")
        wants_reward = reads in ("reward", "both")
        refuse = (wants_mask and vector.effective_mask is None) or (wants_reward and not vector.valid)
        if document is None or (refuse and invalid == "skip"):
            report.skipped += 1
            continue
        report.checked += 1
        shown = short(vector.instance if vector.has_instance else vector.text, 160)
        try:
            result = read(copy.deepcopy(document))
        except Exception as error:  # refusing is the expected answer to an undefined mask or reward
            if not refuse:
                detail = f"raised {type(error).__name__}: {error} on a document the contract accepts: {shown}"
                report.issues.append(Issue("refuses-valid", vector.id, vector.description, detail))
            continue
        if refuse:
            why = ", ".join(vector.findings) or "no defined mask"
            detail = f"returned {short(result)} instead of refusing a document the contract rejects ({why}): {shown}"
            report.issues.append(Issue("accepts-invalid", vector.id, vector.description, detail))
            continue
        try:
            mask, reward = _split(result, reads)
        except (TypeError, ValueError):
            detail = f"returned {short(result)}: expected a (mask, reward) pair or a mapping with mask and reward"
            report.issues.append(Issue("crashed", vector.id, vector.description, detail))
            continue
        if wants_mask and not (_is_bool(mask) and bool(mask) is vector.effective_mask):
            expected = str(vector.effective_mask).lower()
            detail = f"mask {short(mask)}, expected {expected} (mask_sample OR instance_config.mask_sample): {shown}"
            report.issues.append(Issue("wrong-mask", vector.id, vector.description, detail))
        if wants_reward:
            expected_reward = _number(document["reward"])
            if _number(reward) is None or _number(reward) != expected_reward:
                detail = f"reward {short(reward)}, expected {expected_reward}: {shown}"
                report.issues.append(Issue("wrong-reward", vector.id, vector.description, detail))
    return report
