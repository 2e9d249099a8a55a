"""The contract where training reads it: one reader, and adapters for the trainers that consume NeMo Gym.

    from verify_contract.trainers import read_outcome
    outcome = read_outcome(gym_result)   # reward, mask, failure kind and reason, verdict; never raises
    outcome.masked                       # not policy evidence: masked by the producer, or refused

Adapters, each in an extra (the core stays free of torch):

- ``verify_contract.trainers.verl`` (``[verl]``): agent-loop output, a GRPO estimator over usable samples, a
  failure-budget hook for the metrics dict.
- ``verify_contract.trainers.nemo_rl`` (``[nemo-rl]``): a drop-in ``_extract_mask_sample_flags`` and a
  per-prompt baseline over usable samples.
- ``verify_contract.trainers.trl`` (``[trl]``): a reward-function wrapper for ``GRPOTrainer``.
"""

from verify_contract.trainers._outcome import (
    REASON_CAP,
    VERDICTS,
    Outcome,
    RefusedResult,
    kind_metric_label,
    read_outcome,
    read_pair,
    step_metrics,
    verify_response_of,
)

__all__ = [
    "REASON_CAP",
    "VERDICTS",
    "Outcome",
    "RefusedResult",
    "kind_metric_label",
    "read_outcome",
    "read_pair",
    "step_metrics",
    "verify_response_of",
]
