"""The incident through real verl GRPO, with and without the contract's verl adapter (needs ``[verl]``).

The incident's shape (``examples/storm.py --incident``): one browser environment, 20 steps of 64 rollouts
(16 prompts x 4), its session resets failing 1172 of 1280 rollouts (91.6%) with a masked ``reward: 0.0``;
the others succeed at the run's healthy rate (15.45%). Each step's batch goes through verl 0.9.1 twice:

- **verl today** (the NeMo Gym recipe reads only the reward): every sample is trained, a failure as a genuine
  0, and ``compute_advantage(..., "grpo")``, verl's own GRPO, takes each group's mean and std over all four;
- **with the adapter**: ``agent_loop_output`` zeroes a masked sample's response mask and records the mask,
  and ``compute_advantage(..., "grpo_contract")`` leaves masked samples out of their group (a group left with
  fewer than 2 usable samples contributes nothing).

Per step it prints the share of the samples trained on (a non-zero response mask) that were failures, the
mean reward as trained against the true mean of the usable samples, and, for the usable samples that share a
group with a failure, how far their advantage moves (mean absolute difference of the two runs' advantages).
No model is trained: the usable rewards are drawn at a fixed rate, so what a policy would learn from the
difference over the steps is not measured.

    PYTHONPATH=bindings/python "$(python tests/trainers/environment.py)" benchmarks/grpo_storm.py [--markdown]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np
import torch
from verl.protocol import DataProto
from verl.trainer.ppo import ray_trainer

from verify_contract.trainers import read_outcome
from verify_contract.trainers import verl as adapter

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
import storm  # examples/storm.py: the incident's rows

RESPONSE = 4  # response tokens per sample: the outcome reward sits on the last one
TOKENS = {"prompt_ids": [101, 102], "response_ids": [11, 12, 13, 14], "response_mask": [1, 1, 1, 1]}


def _batch(rows: list[dict[str, Any]], with_adapter: bool) -> DataProto:
    """One step's batch as verl's trainer holds it before the advantage: scores at the last token, the response
    mask, the group ids; with the adapter, the agent loop's output for each Gym result."""
    rewards = torch.zeros(len(rows), RESPONSE)
    masks = torch.ones(len(rows), RESPONSE)
    masked = np.zeros(len(rows), dtype=bool)
    for i, row in enumerate(rows):
        if with_adapter:
            output = adapter.agent_loop_output({"full_result": row}, **TOKENS)
            rewards[i, -1] = output.reward_score
            masks[i] = torch.tensor(output.response_mask, dtype=torch.float32)
            masked[i] = output.extra_fields[adapter.EXTRA_INFO][adapter.MASKED_KEY]
        else:
            rewards[i, -1] = float(row["reward"])  # the recipe: full_result.reward, nothing else
    non_tensors: dict[str, Any] = {"uid": np.array([str(row["_ng_task_index"]) for row in rows], dtype=object)}
    if with_adapter:
        non_tensors[adapter.MASKED_KEY] = masked
    return DataProto.from_dict(
        tensors={"token_level_rewards": rewards, "response_mask": masks}, non_tensors=non_tensors
    )


def step_figures(rows: list[dict[str, Any]]) -> dict[str, float]:
    failed = np.array([read_outcome(row).masked for row in rows])
    rewards = np.array([float(row["reward"]) for row in rows])
    adapter.install()
    today = ray_trainer.compute_advantage(_batch(rows, False), adv_estimator="grpo")
    contract = ray_trainer.compute_advantage(_batch(rows, True), adv_estimator=adapter.ESTIMATOR)
    figures: dict[str, float] = {"samples": len(rows), "failed": int(failed.sum())}
    for name, done in (("today", today), ("contract", contract)):
        trained = done.batch["response_mask"].sum(dim=-1).numpy() > 0
        figures[f"{name}_failed_share"] = float((trained & failed).sum() / max(trained.sum(), 1))
        figures[f"{name}_mean_trained"] = float(rewards[trained].mean()) if trained.any() else float("nan")
        advantage = done.batch["advantages"][:, -1].numpy()
        figures[f"{name}_failures_pushing"] = int(((advantage != 0) & failed).sum())
        figures[f"{name}_usable_pushing"] = int(((advantage != 0) & ~failed).sum())
    figures["usable_mean"] = float(rewards[~failed].mean()) if (~failed).any() else 0.0
    groups = np.array([row["_ng_task_index"] for row in rows])
    with_failure = np.isin(groups, groups[failed]) & ~failed
    moved = np.abs(today.batch["advantages"][:, -1].numpy() - contract.batch["advantages"][:, -1].numpy())
    figures["usable_beside_failure"] = int(with_failure.sum())
    figures["advantage_moved"] = float(moved[with_failure].mean()) if with_failure.any() else 0.0
    return figures


def run() -> list[dict[str, float]]:
    rows = storm.incident_rows()
    return [step_figures(rows[step * storm.PER_STEP : (step + 1) * storm.PER_STEP]) for step in range(storm.STEPS)]


def _percent(value: float) -> str:
    return "-" if value != value else f"{value:.1%}"


PUSHING = ("failures", "usable")
HEADER = (
    "| step | failed | failures trained on: today / adapter | with an advantage, failures: today / adapter "
    "| usable: today / adapter | mean reward trained: today / adapter / usable | usable beside a failure "
    "| their advantage moves by |"
)


def table(steps: list[dict[str, float]]) -> str:
    """The per-step table README shows, and a last row over the run."""
    lines = [HEADER, "|---:|---:|---|---|---|---|---:|---:|"]
    total: dict[str, float] = {}
    for number, f in enumerate(steps, 1):
        lines.append(
            f"| {number} | {f['failed']:.0f}/{f['samples']:.0f} "
            f"| {_percent(f['today_failed_share'])} / {_percent(f['contract_failed_share'])} "
            f"| {f['today_failures_pushing']:.0f} / {f['contract_failures_pushing']:.0f} "
            f"| {f['today_usable_pushing']:.0f} / {f['contract_usable_pushing']:.0f} "
            f"| {_percent(f['today_mean_trained'])} / {_percent(f['contract_mean_trained'])} / "
            f"{_percent(f['usable_mean'])} | {f['usable_beside_failure']:.0f} | {f['advantage_moved']:.3f} |"
        )
        for key in ("samples", "failed", *(f"{n}_{w}_pushing" for n in ("today", "contract") for w in PUSHING)):
            total[key] = total.get(key, 0.0) + f[key]
        total["beside"] = total.get("beside", 0.0) + f["usable_beside_failure"]
        total["moved"] = total.get("moved", 0.0) + f["advantage_moved"] * f["usable_beside_failure"]
        total["reward"] = total.get("reward", 0.0) + f["usable_mean"] * (f["samples"] - f["failed"])
    usable = total["samples"] - total["failed"]
    moved = total["moved"] / max(total["beside"], 1)
    lines.append(
        f"| all | {total['failed']:.0f}/{total['samples']:.0f} | {_percent(total['failed'] / total['samples'])} / "
        f"0.0% | {total['today_failures_pushing']:.0f} / {total['contract_failures_pushing']:.0f} "
        f"| {total['today_usable_pushing']:.0f} / {total['contract_usable_pushing']:.0f} "
        f"| {_percent(total['reward'] / total['samples'])} / {_percent(total['reward'] / usable)} / "
        f"{_percent(total['reward'] / usable)} | {total['beside']:.0f} | {moved:.3f} |"
    )
    return "\n".join(lines)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.parse_args()
    print(table(run()))
