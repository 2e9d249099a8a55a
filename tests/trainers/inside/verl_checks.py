"""verify_contract.trainers.verl against the real verl 0.9.1 on CPU (run inside tests/trainers' environment).

verl's own objects: ``DataProto``, ``compute_grpo_outcome_advantage``, ``register_adv_est``/
``get_adv_estimator_fn``, ``compute_advantage``, ``agg_loss``, ``compute_data_metrics`` and
``AgentLoopWorker._postprocess`` called on a stand-in worker, as verl's own
tests/experimental/agent_loop/test_agent_loop_extra_fields_schema_on_cpu.py does.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
import verl.trainer.ppo.ray_trainer as ray_trainer
from omegaconf import OmegaConf
from verl.experimental.agent_loop.agent_loop import (
    AgentLoopMetrics,
    AgentLoopOutput,
    AgentLoopWorker,
    _InternalAgentLoopOutput,
)
from verl.protocol import DataProto
from verl.trainer.ppo.core_algos import agg_loss, compute_grpo_outcome_advantage, get_adv_estimator_fn

from verify_contract.budget import FailureBudget
from verify_contract.conformance import check_consumer
from verify_contract.generated.failure_kinds import PROTOCOL_VIOLATION
from verify_contract.trainers import RefusedResult, read_outcome
from verify_contract.trainers import verl as adapter
from verify_contract.vectors import load_vectors

PROMPT, RESPONSE = 4, 6  # padded lengths
_METRICS: dict[str, Any] = {"metrics": AgentLoopMetrics()}


def _rewards(scores: list[float], length: int = RESPONSE) -> torch.Tensor:
    """Outcome rewards at the last token, as verl's reward step places them."""
    rewards = torch.zeros(len(scores), length)
    rewards[:, -1] = torch.tensor(scores)
    return rewards


# -- the baseline ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("norm", [True, False])
def test_the_estimator_is_verls_grpo_when_nothing_is_masked(norm: bool) -> None:
    generator = torch.Generator().manual_seed(7)
    index = np.array([f"p{i % 9}" for i in range(64)] + ["single"], dtype=object)  # a singleton group too
    rewards = _rewards(torch.randint(0, 3, (65,), generator=generator).float().tolist())
    mask = torch.ones(65, RESPONSE)
    mask[::5, -2:] = 0  # ragged responses
    ours, _ = adapter.compute_contract_grpo_advantage(rewards.clone(), mask, index, norm_adv_by_std_in_grpo=norm)
    theirs, _ = compute_grpo_outcome_advantage(rewards.clone(), mask, index, norm_adv_by_std_in_grpo=norm)
    assert torch.equal(ours, theirs)
    assert get_adv_estimator_fn(adapter.ESTIMATOR) is adapter.compute_contract_grpo_advantage


def test_a_hand_checked_group_leaves_the_masked_sample_out() -> None:
    """Rewards 1, 0, 1 and a failed 0: the baseline is over 1, 0, 1 (mean 2/3, std sqrt(1/3)), not over all
    four (mean 1/2, std sqrt(1/3): +-0.866 in verl)."""
    index = np.array(["g"] * 4, dtype=object)
    rewards, mask = _rewards([1.0, 0.0, 1.0, 0.0]), torch.ones(4, RESPONSE)
    masked = np.array([False, False, False, True])
    ours, _ = adapter.compute_contract_grpo_advantage(rewards.clone(), mask, index, masked=masked)
    theirs, _ = compute_grpo_outcome_advantage(rewards.clone(), mask, index)
    third = 1 / 3
    expected = [third / third**0.5, -2 * third / third**0.5, third / third**0.5, 0.0]
    assert ours[:, 0].tolist() == pytest.approx(expected, abs=1e-5)
    assert theirs[:, 0].tolist() == pytest.approx([0.866, -0.866, 0.866, -0.866], abs=1e-3)


def test_a_group_with_too_few_usable_samples_contributes_nothing() -> None:
    index = np.array(["a"] * 4 + ["b"] * 2, dtype=object)
    rewards, mask = _rewards([1.0, 0.0, 0.0, 0.0, 1.0, 0.0]), torch.ones(6, RESPONSE)
    masked = np.array([False, True, True, True, False, False])
    ours, _ = adapter.compute_contract_grpo_advantage(rewards.clone(), mask, index, masked=masked)
    assert ours[:4].abs().sum() == 0 and ours[4:].abs().sum() > 0
    alone, _ = adapter.compute_contract_grpo_advantage(rewards.clone(), mask, index, masked=masked, min_usable=1)
    assert alone[0, -1] == pytest.approx(1.0, abs=1e-5)  # verl's singleton rule: mean 0, std 1


def test_without_a_mask_the_estimator_reads_the_zeroed_response_mask() -> None:
    index = np.array(["g"] * 4, dtype=object)
    mask = torch.ones(4, RESPONSE)
    mask[3] = 0
    inferred, _ = adapter.compute_contract_grpo_advantage(_rewards([1.0, 0.0, 1.0, 0.0]), mask, index)
    given, _ = adapter.compute_contract_grpo_advantage(
        _rewards([1.0, 0.0, 1.0, 0.0]), mask, index, masked=np.array([0, 0, 0, 1], dtype=bool)
    )
    assert torch.equal(inferred, given)


# -- the agent loop and verl's postprocessing ------------------------------------------------------------------


def _internal(output: AgentLoopOutput) -> _InternalAgentLoopOutput:
    """Pad one output as the worker's _agent_loop_postprocess does (prompt left, response right)."""
    if isinstance(output, _InternalAgentLoopOutput):
        return output
    prompt = [0] * (PROMPT - len(output.prompt_ids)) + output.prompt_ids
    response = output.response_ids + [0] * (RESPONSE - len(output.response_ids))
    response_mask = output.response_mask + [0] * (RESPONSE - len(output.response_mask))
    attention = [int(i >= PROMPT - len(output.prompt_ids)) for i in range(PROMPT)]
    attention += [int(i < len(output.response_ids)) for i in range(RESPONSE)]

    def row(values: list[int]) -> torch.Tensor:
        return torch.tensor([values], dtype=torch.long)

    return _InternalAgentLoopOutput(
        prompt_ids=row(prompt),
        response_ids=row(response),
        response_mask=row(response_mask),
        attention_mask=row(attention),
        input_ids=row(prompt + response),
        position_ids=row(list(range(PROMPT + RESPONSE))),
        reward_score=output.reward_score,
        num_turns=output.num_turns,
        metrics=output.metrics,
        extra_fields=output.extra_fields,
    )


def _postprocess(outputs: list[AgentLoopOutput], uids: list[str]) -> DataProto:
    worker = type("_StandInWorker", (), {"reward_loop_worker_handles": None, "distillation_enabled": False})()
    return AgentLoopWorker._postprocess(
        worker,
        inputs=[_internal(output) for output in outputs],
        input_non_tensor_batch={
            "uid": np.array(uids, dtype=object),
            "data_source": np.array(["browser_env"] * len(uids), dtype=object),
        },
    )


def _tokens() -> dict[str, Any]:
    return {"prompt_ids": [101, 102], "response_ids": [11, 12, 13], "response_mask": [1, 1, 1]}


RESULTS = [
    {"full_result": {"reward": 1.0}},
    {"full_result": {"reward": 0.0}},
    {"full_result": {"reward": 1, "mask_sample": False}},
    {"full_result": {"reward": 0.0, "mask_sample": True, "failure_kind": "session_lost"}},
    {"full_result": {"reward": 1.0, "mask_sample": "false"}},  # malformed: refused, masked
]


def _batch() -> DataProto:
    outputs = [adapter.agent_loop_output(result, **_tokens()) for result in RESULTS]
    outputs.append(adapter.no_generation_output([101, 102]))
    return _postprocess(outputs, ["g"] * 6)


def test_postprocess_accepts_the_outputs_with_uniform_extra_keys() -> None:
    batch = _batch()
    found = batch.non_tensor_batch
    assert found[adapter.MASKED_KEY].tolist() == [False, False, False, True, True, True]
    assert found[adapter.KIND_KEY].tolist() == ["", "", "", "session_lost", PROTOCOL_VIOLATION, PROTOCOL_VIOLATION]
    assert found[adapter.VERDICT_KEY].tolist() == ["valid", "valid", "valid", "valid", "invalid", "invalid"]
    assert batch.meta_info["reward_extra_keys"] == list(adapter.EXTRA_KEYS)
    # Every sample has a score (else verl drops rm_scores for the whole batch); masked ones have no loss tokens.
    scores = batch.batch["rm_scores"].sum(dim=-1).tolist()
    assert scores == [1.0, 0.0, 1.0, 0.0, 1.0, 0.0]  # the refused "false" mask keeps its reward, masked
    assert batch.batch["response_mask"].sum(dim=-1).tolist() == [3, 3, 3, 0, 0, 0]


def test_the_outcome_applies_to_the_padded_output_the_recipe_builds() -> None:
    """The NeMo Gym recipe builds verl's padded _InternalAgentLoopOutput itself: apply_outcome works on it."""
    plain = AgentLoopOutput(prompt_ids=[101, 102], response_ids=[11, 12, 13], response_mask=[1, 1, 1], **_METRICS)
    padded = [adapter.apply_outcome(_internal(plain.model_copy(deep=True)), result) for result in RESULTS]
    batch = _postprocess(padded, ["g"] * len(padded))
    assert batch.batch["response_mask"].sum(dim=-1).tolist() == [3, 3, 3, 0, 0]
    assert batch.non_tensor_batch[adapter.MASKED_KEY].tolist() == [False, False, False, True, True]
    assert batch.batch["rm_scores"].sum(dim=-1).tolist() == [1.0, 0.0, 1.0, 0.0, 1.0]


def test_the_first_samples_keys_are_every_samples_keys() -> None:
    """verl reads the key list from the first sample: a masked first sample must not add or drop keys."""
    outputs = [adapter.agent_loop_output(result, **_tokens()) for result in reversed(RESULTS)]
    batch = _postprocess(outputs, ["g"] * len(outputs))
    assert all(key in batch.non_tensor_batch for key in adapter.EXTRA_KEYS)
    assert batch.non_tensor_batch[adapter.MASKED_KEY].dtype == np.bool_


def test_compute_advantage_hands_the_mask_to_the_estimator() -> None:
    batch = _batch()
    batch.batch["token_level_rewards"] = batch.batch["rm_scores"]
    adapter.install()
    assert ray_trainer.compute_advantage is adapter.compute_advantage
    done = ray_trainer.compute_advantage(batch, adv_estimator=adapter.ESTIMATOR)
    advantages = done.batch["advantages"].sum(dim=-1)
    # Usable rewards 1, 0, 1: mean 2/3, std sqrt(1/3); three response tokens each; masked rows 0.
    unit = (1 / 3) / (1 / 3) ** 0.5
    assert advantages.tolist() == pytest.approx([3 * unit, -6 * unit, 3 * unit, 0, 0, 0], abs=1e-4)
    # Other estimators reach verl's own code unchanged: plain GRPO counts the masked zeros in the baseline.
    grpo = _batch()
    grpo.batch["token_level_rewards"] = grpo.batch["rm_scores"]
    plain = ray_trainer.compute_advantage(grpo, adv_estimator="grpo").batch["advantages"][:, 0]
    expected, _ = compute_grpo_outcome_advantage(
        grpo.batch["rm_scores"], grpo.batch["response_mask"], grpo.non_tensor_batch["uid"]
    )
    assert torch.equal(plain, expected[:, 0])


def test_min_usable_comes_from_the_algorithm_config() -> None:
    """verl passes ``config=self.config.algorithm``: ``+algorithm.contract_min_usable=1`` reaches the estimator."""
    rows = [{"full_result": {"reward": 1.0}}] + [{"full_result": {"reward": 0.0, "mask_sample": True}}] * 3
    batch = _postprocess([adapter.agent_loop_output(row, **_tokens()) for row in rows], ["g"] * 4)
    batch.batch["token_level_rewards"] = batch.batch["rm_scores"]
    silent = adapter.compute_advantage(batch, adapter.ESTIMATOR, config=OmegaConf.create({}))
    assert silent.batch["advantages"].abs().sum() == 0  # one usable sample: the group contributes nothing
    alone = adapter.compute_advantage(batch, adapter.ESTIMATOR, config=OmegaConf.create({"contract_min_usable": 1}))
    assert alone.batch["advantages"][0].sum().item() == pytest.approx(3.0, abs=1e-4)  # verl's singleton rule


def test_agg_loss_ignores_masked_samples() -> None:
    batch = _batch()
    mask = batch.batch["response_mask"].float()
    losses = torch.arange(6 * RESPONSE, dtype=torch.float32).reshape(6, RESPONSE)
    for mode in ("token-mean", "seq-mean-token-sum", "seq-mean-token-mean"):
        whole = agg_loss(losses, mask, mode)
        usable = agg_loss(losses[:3], mask[:3], mode)
        assert whole == pytest.approx(usable.item()), mode
        poisoned = losses.clone()
        poisoned[3:] = 1e6  # whatever a masked sample's loss is, it is not counted
        assert agg_loss(poisoned, mask, mode) == pytest.approx(whole.item()), mode


# -- the budget ------------------------------------------------------------------------------------------------


def test_the_budget_hook_merges_metrics_and_stops_on_a_breach() -> None:
    hook = adapter.BudgetHook(FailureBudget(max_masked=0.4, window=6, group_by=["data_source"]))
    metrics: dict[str, Any] = {}
    with pytest.raises(adapter.TrainingStopped) as stopped:
        hook(_batch(), metrics)
    assert "\n" not in str(stopped.value) and "50.0% masked or failed" in str(stopped.value)
    assert metrics["contract/masked_rate"] == 0.5
    assert metrics["contract/masked_rate/browser_env"] == 0.5
    assert metrics["contract/kind/session_lost"] == 1 and metrics[f"contract/kind/{PROTOCOL_VIOLATION}"] == 2
    assert metrics["contract/refused"] == 2 and metrics["contract/breached"] == 1


def test_the_budget_hook_only_warns_when_asked(caplog: pytest.LogCaptureFixture) -> None:
    hook = adapter.BudgetHook(FailureBudget(max_masked=0.4, window=6), on_breach="warn")
    with caplog.at_level(logging.WARNING):
        events = hook(_batch(), {})
    assert [event.level for event in events] == ["breach"]
    assert "budget breach at step 1" in caplog.text


def test_install_runs_the_hook_from_verls_step_metrics() -> None:
    """verl's fit merges compute_data_metrics into its metrics dict every step: the hook's figures arrive there,
    and a breach raised from it ends fit."""
    hook = adapter.BudgetHook(FailureBudget(max_masked=0.9, window=6))
    saved = ray_trainer.compute_data_metrics
    try:
        adapter.install(hook)
        batch = _batch()
        batch.batch["token_level_rewards"] = batch.batch["token_level_scores"] = batch.batch["rm_scores"]
        batch = ray_trainer.compute_advantage(batch, adv_estimator=adapter.ESTIMATOR)
        metrics = ray_trainer.compute_data_metrics(batch=batch, use_critic=False)
    finally:
        ray_trainer.compute_data_metrics = saved
    assert metrics["contract/masked_rate"] == 0.5 and "critic/score/mean" in metrics


# -- the consumer kit ------------------------------------------------------------------------------------------


def read_through_the_agent_loop(document: Any) -> tuple[bool, float]:
    """What the adapter hands verl, read back: the mask from reward_extra_info (and the zeroed response mask),
    the reward from reward_score; a refused document raises."""
    output = adapter.agent_loop_output(document, **_tokens())
    info = output.extra_fields[adapter.EXTRA_INFO]
    if info[adapter.VERDICT_KEY] == "invalid":
        raise RefusedResult(read_outcome(document))
    assert (sum(output.response_mask) == 0) is info[adapter.MASKED_KEY]
    return info[adapter.MASKED_KEY], output.reward_score if output.reward_score is not None else float("nan")


def test_the_verl_reader_passes_the_consumer_kit() -> None:
    report = check_consumer(read_through_the_agent_loop, "both")
    assert report.ok, report.format_text()


def test_the_verl_payloads_read_as_the_vectors_say() -> None:
    vectors = [v for v in load_vectors() if v.file.startswith("payloads-verl") and v.valid]
    assert len(vectors) >= 4
    for vector in vectors:
        output = adapter.agent_loop_output({"full_result": vector.instance}, **_tokens())
        assert output.extra_fields[adapter.EXTRA_INFO][adapter.MASKED_KEY] is vector.effective_mask, vector.id


# -- README ------------------------------------------------------------------------------------------------------


def readme_example(name: str) -> str:
    """A README block marked ``<!-- example: NAME -->`` (left out of tests/docs/test_docs_examples.py, run here)."""
    text = (Path(__file__).resolve().parents[3] / "README.md").read_text(encoding="utf-8")
    found = re.search(rf"<!-- example: {re.escape(name)} -->\n```python\n(.*?)```\n", text, re.DOTALL)
    assert found is not None, f"README has no example {name}"
    return found.group(1)


def test_the_readme_lines_for_verl_run() -> None:
    saved = ray_trainer.compute_data_metrics
    try:
        exec(compile(readme_example("trainers-verl"), "README.md:trainers-verl", "exec"), {})
        assert ray_trainer.compute_advantage is adapter.compute_advantage
        assert ray_trainer.compute_data_metrics is not saved  # the budget hook sits in verl's step metrics
    finally:
        ray_trainer.compute_data_metrics = saved
