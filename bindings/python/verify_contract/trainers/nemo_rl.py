"""NeMo-RL: the mask reader and the GRPO baseline over the samples that measure the policy.

NeMo-RL reads the mask only at ``full_result.instance_config.mask_sample``, with ``bool()``, and takes the
GRPO baseline and std over every sample of a prompt, masked ones included (NeMo-RL issue #4061). Two levers:

- ``extract_mask_sample_flags(results)``: a drop-in for ``nemo_rl.experience.rollouts._extract_mask_sample_flags``
  (same signature, a ``torch.bool`` tensor): the effective mask (top-level OR legacy), and a present mask or
  reward that breaks the contract masks the sample (kind ``protocol_violation``) instead of being coerced.
  ``install()`` puts it in place in this process; ``worker_setup_hook`` does the same in every Ray worker
  (the async GRPO rollout actors are separate processes):
  ``ray.init(runtime_env={"worker_process_setup_hook": "verify_contract.trainers.nemo_rl.worker_setup_hook"})``.
- ``mask_sample_metrics(results)``: the masked rate and the left-out samples by failure kind, for the metrics.
- ``baseline_and_std_per_prompt(prompts, rewards, masked)``: the per-prompt baseline and std over usable
  samples only; a masked sample's baseline is its own reward, so ``rewards - baseline`` is zero for it.

Needs torch (``pip install 'verify-contract[nemo-rl]'``); NeMo-RL itself is not on PyPI.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import Any

try:
    import torch
except ImportError as error:
    raise ImportError("verify_contract.trainers.nemo_rl needs torch: pip install 'verify-contract[nemo-rl]'") from error

from verify_contract.trainers._outcome import read_outcome, step_metrics

TARGET_MODULE = "nemo_rl.experience.rollouts"
TARGET_FUNCTION = "_extract_mask_sample_flags"


def sample_masked(result: Any) -> bool:
    """Whether NeMo-RL should drop this result from the loss: its effective mask, or a present mask or reward
    that breaks the contract. A missing reward is not this reader's business: NeMo-RL reads the reward itself
    (``full_result["reward"]``) and fails the batch without one, and its own tests feed mask-only shapes."""
    outcome = read_outcome(result)
    return outcome.mask or (outcome.refused and not outcome.only_reward_missing)


def extract_mask_sample_flags(results: Sequence[Any]) -> torch.Tensor:
    """True for the samples GRPO must drop from the loss (NeMo-RL's signature and return type)."""
    return torch.tensor([sample_masked(result) for result in results], dtype=torch.bool)


def mask_sample_metrics(results: Sequence[Any], prefix: str = "contract") -> dict[str, float]:
    """The step's masked rate, refused count and left-out samples by failure kind, for NeMo-RL's metrics dict
    (NeMo-RL logs only ``num_mask_sample_filtered``; SPEC 4.2.5 asks for the kinds)."""
    return step_metrics([read_outcome(result) for result in results], prefix)


def install(module: str = TARGET_MODULE) -> Callable[..., Any]:
    """Replace NeMo-RL's reader in this process; returns the one it replaced.

    NeMo-RL looks the reader up as a module global when it calls it, so replacing the attribute reaches every
    caller in this process (the sync GRPO driver). Raises ImportError when ``module`` cannot be imported."""
    target = importlib.import_module(module)
    previous: Callable[..., Any] = getattr(target, TARGET_FUNCTION)
    if previous is not extract_mask_sample_flags:
        setattr(target, TARGET_FUNCTION, extract_mask_sample_flags)
    return previous


def worker_setup_hook() -> None:
    """Ray's ``worker_process_setup_hook``: install the reader in each worker process that has NeMo-RL, and do
    nothing in one that does not (a Ray cluster runs workers of many kinds)."""
    try:
        install()
    except ImportError:
        return


def baseline_and_std_per_prompt(
    prompts: torch.Tensor,
    rewards: torch.Tensor,
    masked: torch.Tensor,
    *,
    leave_one_out_baseline: bool = False,
    min_usable: int = 2,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-prompt baseline and std over the usable samples (``~masked``) only.

    ``prompts`` identifies each sample's prompt: a [N, L] tensor of token ids (NeMo-RL's ``input_ids``, equal
    rows are one prompt) or a [N] tensor of group ids. Usable samples of a prompt with at least ``min_usable``
    usable samples get the mean of the usable rewards (leaving their own out when ``leave_one_out_baseline``)
    and their unbiased std. Every other sample (masked, or in a prompt with too few usable samples) gets its
    own reward as baseline and a std of 0: ``rewards - baseline`` is 0, so it teaches nothing and moves no
    other sample's baseline.
    """
    if min_usable < 2:
        raise ValueError(f"min_usable must be at least 2 (a std needs two samples), not {min_usable}")
    rewards = rewards.to(torch.float32) if not rewards.is_floating_point() else rewards
    usable = ~masked.to(torch.bool)
    keys = prompts if prompts.dim() == 1 else prompts.reshape(prompts.shape[0], -1)
    _, group = (
        torch.unique(keys, dim=0, return_inverse=True) if keys.dim() > 1 else torch.unique(keys, return_inverse=True)
    )
    baseline = rewards.clone()
    std = torch.zeros_like(rewards)
    for index in torch.unique(group).tolist():
        members = (group == index) & usable
        count = int(members.sum())
        if count < min_usable:
            continue
        values = rewards[members]
        total = values.sum()
        if leave_one_out_baseline:
            baseline[members] = (total - values) / (count - 1)
        else:
            baseline[members] = total / count
        std[members] = values.std()
    return baseline, std
