"""A failure storm shaped like the incident the contract exists for, written as NeMo Gym 0.7.0 writes a run.

20 steps of 64 rollouts (320 tasks x 4 rollouts), two environments taking turns. From step 5 on, 95% of the
browser environment's replies are ``{"reward": 0.0, "mask_sample": true, "failure_kind": "session_lost"}``
(the judge failsafe writes the legacy ``instance_config.mask_sample`` too). Some attempts failed before any
reply (rows of ``<out>_failures.jsonl``, class ``agent_run_error``), and some rollouts were killed and left
no row at all. Seeded: the same files every time.

``--incident`` writes the incident itself instead: one browser environment, 20 steps of 64 rollouts, whose
session resets failed 1172 of its 1280 rollouts (91.6%), each a masked ``reward: 0.0``; the others succeed
(reward 1) at the run's healthy rate of 15.45% (benchmarks/grpo_storm.py trains on it).

    python examples/storm.py DIRECTORY        # writes DIRECTORY/rollouts.jsonl and rollouts_failures.jsonl
    python examples/storm.py --incident DIRECTORY
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

STEPS, PER_STEP, REPEATS = 20, 64, 4
TASKS = STEPS * PER_STEP // REPEATS
STORM_STEP = 5
ENVIRONMENTS = ("browser_env", "math_env")
INCIDENT_FAILED = 1172  # of STEPS * PER_STEP = 1280 rollouts: 91.6%
INCIDENT_SUCCESS_RATE = 0.1545  # the run's mean reward before the storm


def rows(seed: int = 1280) -> tuple[list[dict[str, object]], list[dict[str, object]], int]:
    """(main-file rows, failures-file rows, rollouts that left no row), in the order Gym writes them."""
    chance = random.Random(seed)
    main: list[dict[str, object]] = []
    failures: list[dict[str, object]] = []
    killed = 0
    for step in range(STEPS):
        for slot in range(PER_STEP):
            task, rollout = divmod(step * PER_STEP + slot, REPEATS)
            environment = ENVIRONMENTS[task % 2]
            identity = {
                "agent_ref": {"type": "responses_api_agents", "name": f"{environment}_agent"},
                "_ng_environment_server": environment,
                "_ng_task_index": task,
                "_ng_rollout_index": rollout,
                "_ng_rollout_id": f"{task}-{rollout}",
            }
            draw = chance.random()
            if step >= 2 and draw < 0.03:  # the agent's run raised: a failures-file row, no reply
                failures.append({**identity, "_ng_failure_class": "agent_run_error", "_ng_failure_terminal": True})
                continue
            if step >= 2 and draw < 0.05:  # killed (SIGTERM, dead actor): no row anywhere
                killed += 1
                continue
            row: dict[str, object] = {
                "responses_create_params": {"input": [{"role": "user", "content": f"task {task}"}]},
                "response": {"output": [{"type": "message", "content": "..."}]},
                **identity,
            }
            if environment == "browser_env" and step >= STORM_STEP and chance.random() < 0.95:
                row.update(
                    reward=0.0,
                    mask_sample=True,
                    failure_kind="session_lost",
                    failure_reason="browser session reset failed: target closed",
                    instance_config={"mask_sample": True},
                )
            else:
                row.update(reward=round(chance.random() * 0.3, 4), mask_sample=False)
            main.append(row)
    return main, failures, killed


def incident_rows(seed: int = 1280) -> list[dict[str, object]]:
    """The incident's rollouts in order: one environment, exactly ``INCIDENT_FAILED`` failed resets spread at
    random over the 20 steps, binary rewards elsewhere. No failures-file rows: every failure was answered."""
    chance = random.Random(seed)
    total = STEPS * PER_STEP
    failed = set(chance.sample(range(total), INCIDENT_FAILED))
    main: list[dict[str, object]] = []
    for ordinal in range(total):
        task, rollout = divmod(ordinal, REPEATS)
        row: dict[str, object] = {
            "responses_create_params": {"input": [{"role": "user", "content": f"task {task}"}]},
            "response": {"output": [{"type": "message", "content": "..."}]},
            "agent_ref": {"type": "responses_api_agents", "name": "browser_env_agent"},
            "_ng_environment_server": "browser_env",
            "_ng_task_index": task,
            "_ng_rollout_index": rollout,
        }
        if ordinal in failed:
            row.update(
                reward=0.0,
                mask_sample=True,
                failure_kind="session_lost",
                failure_reason="browser session reset failed: target closed",
            )
        else:
            row.update(reward=1.0 if chance.random() < INCIDENT_SUCCESS_RATE else 0.0, mask_sample=False)
        main.append(row)
    return main


def write(directory: Path, incident: bool = False) -> tuple[Path, Path]:
    directory.mkdir(parents=True, exist_ok=True)
    main, failures = (incident_rows(), []) if incident else rows()[:2]
    main_path, failures_path = directory / "rollouts.jsonl", directory / "rollouts_failures.jsonl"
    main_path.write_text("".join(json.dumps(row) + "\n" for row in main), encoding="utf-8")
    failures_path.write_text("".join(json.dumps(row) + "\n" for row in failures), encoding="utf-8")
    return main_path, failures_path


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("directory", type=Path, help="where to write rollouts.jsonl and rollouts_failures.jsonl")
    parser.add_argument("--incident", action="store_true", help="the incident: one environment, 91.6%% failed")
    arguments = parser.parse_args()
    for path in write(arguments.directory, arguments.incident):
        print(path)
