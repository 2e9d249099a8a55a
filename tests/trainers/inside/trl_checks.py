"""verify_contract.trainers.trl against the real TRL (run inside tests/trainers' environment).

``GRPOTrainer._calculate_rewards`` runs on a stand-in trainer (the attributes it reads), as verl's agent-loop
test does for its worker: the wrapped reward function is called the way TRL calls it, and TRL turns its None
into NaN, which its NaN-aware group baseline (``trl.trainer.utils.nanstd``, ``torch.nanmean``) leaves out.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
import torch
from accelerate import PartialState
from trl import GRPOTrainer
from trl.trainer.utils import nanstd

from verify_contract.trainers.trl import contract_reward

DOCUMENTS = [
    {"reward": 1.0},
    {"reward": 0.0},
    {"reward": 1.0},
    {"reward": 0.0, "mask_sample": True, "failure_kind": "session_lost"},  # the storm's failed reset
    {"reward": 1.0, "mask_sample": "false"},  # breaks the contract: left out, not coerced
    {"reward": 0.0},
    {"reward": 1.0},
    {"reward": 0.0},
]


def _stand_in(reward: Any) -> Any:
    PartialState(cpu=True)  # accelerate's process state (one CPU process), which TRL's logging needs
    return SimpleNamespace(
        accelerator=SimpleNamespace(device=torch.device("cpu"), is_main_process=True),
        reward_funcs=[reward],
        reward_processing_classes=[None],
        reward_func_names=[reward.__name__],
        state=SimpleNamespace(global_step=0),
        args=SimpleNamespace(report_to=[]),
        _log_completion_extra=lambda *a, **k: None,
        _log_metric=lambda *a, **k: None,
        environments=None,
    )


def test_trl_leaves_masked_samples_out_of_the_group_baseline() -> None:
    calls: list[dict[str, Any]] = []

    def verify(prompts: list[str], completions: list[str], **kwargs: Any) -> list[dict[str, Any]]:
        calls.append({"prompts": prompts, "completions": completions, **kwargs})
        return DOCUMENTS

    reward = contract_reward(verify)
    inputs = [{"prompt": f"p{i // 4}", "task": i // 4} for i in range(8)]
    prompts = [row["prompt"] for row in inputs]
    completions = [f"c{i}" for i in range(8)]
    per_func = GRPOTrainer._calculate_rewards(_stand_in(reward), inputs, prompts, completions, [[1]] * 8)
    assert calls and calls[0]["task"] == [row["task"] for row in inputs]  # TRL's dataset columns reach verify
    rewards = per_func[:, 0]
    assert torch.isnan(rewards).tolist() == [False, False, False, True, True, False, False, False]
    # TRL's group statistics (two groups of four), NaN-aware: the failures are not in the first group's mean.
    grouped = rewards.view(-1, 4)
    means = torch.nanmean(grouped, dim=1)
    assert means.tolist() == pytest.approx([2 / 3, 1 / 3])
    assert nanstd(grouped, dim=1)[0].item() == pytest.approx(torch.tensor([1.0, 0.0, 1.0]).std().item())
    advantages = torch.nan_to_num(rewards - means.repeat_interleave(4), nan=0.0)
    assert advantages[3].item() == 0.0 and advantages[4].item() == 0.0
    assert reward.left_out == 2


def test_a_plain_zero_would_have_sat_in_the_baseline() -> None:
    """Without the wrapper the failed reset is a genuine 0 to TRL: the group mean drops from 2/3 to 1/2."""

    def plain(prompts: list[str], completions: list[str], **kwargs: Any) -> list[float]:
        return [float(document["reward"] == 1.0) for document in DOCUMENTS]

    per_func = GRPOTrainer._calculate_rewards(_stand_in(plain), [{"prompt": "p"}] * 8, ["p"] * 8, ["c"] * 8, [[1]] * 8)
    assert not torch.isnan(per_func).any()
    assert torch.nanmean(per_func[:4, 0]).item() == pytest.approx(0.5)
