"""A GRPO-style training loop that bounds its failures (SPEC 11), without an ML framework.

Each step takes a batch of rollouts (verify responses with their task), feeds every one to a
``FailureBudget``, drops masked and failed samples from their groups (the group baseline and std are taken
over the samples that measure the policy), logs warnings, and stops the run on a breach instead of training
on what is left. Run it on the incident's storm:

    python examples/storm.py /tmp/storm && python examples/grpo_budget.py /tmp/storm/rollouts.jsonl
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from verify_contract import effective_mask
from verify_contract.budget import FailureBudget

BATCH = 64


def batches(path: str) -> Iterator[list[dict[str, Any]]]:
    batch: list[dict[str, Any]] = []
    with open(path, encoding="utf-8") as stream:
        for line in stream:
            if line.strip():
                batch.append(json.loads(line))
            if len(batch) == BATCH:
                yield batch
                batch = []
    if batch:
        yield batch


def advantages(rewards: list[float]) -> list[float]:
    """GRPO's group-normalised advantage over the usable samples of one task."""
    if len(rewards) < 2:
        return [0.0] * len(rewards)
    mean, std = statistics.fmean(rewards), statistics.pstdev(rewards)
    return [(r - mean) / (std + 1e-6) for r in rewards]


def train(path: str) -> int:
    budget = FailureBudget(
        max_masked=0.2, warn_masked=0.1, window=BATCH, group_by=["_ng_environment_server"], max_consecutive_masked=32
    )
    for step, batch in enumerate(batches(path)):
        groups: dict[Any, list[float]] = defaultdict(list)
        dropped = 0
        for row in batch:
            events = budget.observe(row)
            for event in events:
                print(f"step {step}: {event.level}: {event.message}")
                if event.level == "breach":
                    print(f"step {step}: stopping the run: the environment is failing, not the policy")
                    print(json.dumps({k: budget.summary()[k] for k in ("rollouts", "masked", "failed", "masked_rate")}))
                    return 3
            if effective_mask(row):
                dropped += 1  # not policy evidence: out of the group's baseline and the loss
                continue
            groups[row.get("_ng_task_index")].append(float(row["reward"]))
        used = sum(len(rewards) for rewards in groups.values())
        spread = [abs(a) for rewards in groups.values() for a in advantages(rewards)]
        mean_reward = statistics.fmean(r for rewards in groups.values() for r in rewards) if used else 0.0
        print(
            f"step {step}: trained on {used} samples ({dropped} masked dropped), mean reward {mean_reward:.3f}, "
            f"mean |advantage| {statistics.fmean(spread) if spread else 0.0:.3f}"
        )
    print("run finished within its failure budget")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("rollouts", help="a JSONL file of verify responses (e.g. examples/storm.py's rollouts.jsonl)")
    sys.exit(train(parser.parse_args().rollouts))
