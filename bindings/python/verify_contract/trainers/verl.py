"""verl: the contract through verl's three levers (the response mask, the advantage estimator, the metrics).

verl has no per-sample exclusion flag, and its NeMo Gym agent loop reads only the reward: a failed rollout
trains as a genuine 0 and sits in its group's mean and std. With this module (``pip install
'verify-contract[verl]'``, verl 0.9.1):

- **loss**: ``agent_loop_output(result, ...)`` turns a Gym result and its tokens into the loop's
  ``AgentLoopOutput`` (``apply_outcome(output, result)`` does the same to an output already built, padded or
  not): ``reward_score``, a zeroed response mask for a sample that is not policy evidence, and
  ``extra_fields["reward_extra_info"]`` with the same keys on every sample (``EXTRA_KEYS``: masked, failure
  kind, ``""`` for none, verdict). ``no_generation_output(prompt_ids)`` replaces the recipe's fake reward-0
  sample for a result with no generation data: masked, kind ``protocol_violation``.
- **baseline**: the estimator ``ESTIMATOR`` (``algorithm.adv_estimator=grpo_contract``), registered with
  verl's ``register_adv_est``: GRPO over the usable samples of each group; masked samples get advantage 0; a
  group left with fewer than ``min_usable`` usable samples contributes nothing. Identical to verl's
  ``compute_grpo_outcome_advantage`` when nothing is masked. verl hands ``non_tensor_batch`` only to GDPO, so
  ``install()`` rebinds verl's ``compute_advantage`` to ``compute_advantage`` here, which reads the mask from
  the batch and delegates every other estimator unchanged.
- **budget**: ``BudgetHook(FailureBudget(...))`` feeds each step's batch to the budget, merges its figures
  into verl's metrics dict (``contract/...``, low-cardinality) and stops training on a breach with a one-line
  reason (``TrainingStopped``), or only warns. ``install(budget_hook=...)`` calls it from the metrics verl
  computes every step (``compute_data_metrics``).
"""

from __future__ import annotations

import importlib
import logging
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

try:
    import numpy as np
    import torch
    from verl.experimental.agent_loop.agent_loop import AgentLoopMetrics, AgentLoopOutput
    from verl.protocol import DataProto
    from verl.trainer.ppo import core_algos
except ImportError as error:  # one line that names the extra, not verl's import chain
    raise ImportError(
        f"verify_contract.trainers.verl needs {error.name}: pip install 'verify-contract[verl]'"
    ) from error

from verify_contract.budget import ABSENT_GROUP, FAILED, MASKED, NO_KIND, OK, OTHER, BudgetEvent, FailureBudget
from verify_contract.check import kind_label
from verify_contract.contract import LATEST_VERSION, contract_model
from verify_contract.generated.failure_kinds import PROTOCOL_VIOLATION
from verify_contract.trainers._outcome import Outcome, read_outcome

ESTIMATOR = "grpo_contract"
MASKED_KEY, KIND_KEY, VERDICT_KEY = "contract_masked", "contract_failure_kind", "contract_verdict"
EXTRA_KEYS = (MASKED_KEY, KIND_KEY, VERDICT_KEY)
"""The ``reward_extra_info`` keys every sample carries (verl takes the key list from the first sample only)."""
EXTRA_INFO = "reward_extra_info"
MIN_USABLE = 2
MIN_USABLE_SETTING = "contract_min_usable"
"""The ``algorithm`` config key that sets ``min_usable`` (``+algorithm.contract_min_usable=1`` on verl's command
line); absent, ``MIN_USABLE``."""
MAX_GROUP_METRICS = 64
"""Groups with their own metric in one step; the rest are counted under ``(other)`` (low cardinality)."""
METRIC_PREFIX = "contract"
NO_GENERATION = "no generation data in the Gym result"

log = logging.getLogger(__name__)


# -- the loss: the agent loop's output --------------------------------------------------------------------


def extra_info(outcome: Outcome) -> dict[str, Any]:
    """The contract's per-sample fields for ``reward_extra_info``: the same keys and types on every sample."""
    return {MASKED_KEY: outcome.masked, KIND_KEY: outcome.failure_kind or "", VERDICT_KEY: outcome.verdict}


def apply_outcome(output: AgentLoopOutput, result: Any) -> AgentLoopOutput:
    """Put one Gym result's outcome on an agent loop's output, in place, and return it: an ``AgentLoopOutput``
    (lists) or the padded ``_InternalAgentLoopOutput`` (tensors) that the NeMo Gym recipe builds.

    A sample that is not policy evidence (masked by its producer, or a document that breaks the contract) gets
    an all-zero response mask, so no loss term; the estimator leaves it out of its group and ``extra_info`` says
    why. Its reward stays the one the environment sent (never coerced); a refused document without a number
    gets 0.0, because verl needs a score on every sample to keep ``rm_scores`` for the batch."""
    outcome = read_outcome(result)
    if outcome.masked:
        mask = output.response_mask
        output.response_mask = torch.zeros_like(mask) if isinstance(mask, torch.Tensor) else [0] * len(mask)
    output.reward_score = 0.0 if outcome.reward is None else outcome.reward
    output.extra_fields = {**output.extra_fields}
    output.extra_fields[EXTRA_INFO] = {**output.extra_fields.get(EXTRA_INFO, {}), **extra_info(outcome)}
    return output


def agent_loop_output(
    result: Any,
    *,
    prompt_ids: Sequence[int],
    response_ids: Sequence[int],
    response_mask: Sequence[int],
    response_logprobs: Sequence[float] | None = None,
    num_turns: int = 2,
    metrics: AgentLoopMetrics | None = None,
    extra_fields: dict[str, Any] | None = None,
) -> AgentLoopOutput:
    """The agent loop's output for one Gym result (or verify response) and the tokens the loop took from it,
    with the outcome applied (``apply_outcome``)."""
    output = AgentLoopOutput(
        prompt_ids=list(prompt_ids),
        response_ids=list(response_ids),
        response_mask=list(response_mask),
        response_logprobs=None if response_logprobs is None else list(response_logprobs),
        num_turns=num_turns,
        metrics=metrics or AgentLoopMetrics(),
        extra_fields=dict(extra_fields or {}),
    )
    return apply_outcome(output, result)


def no_generation_output(prompt_ids: Sequence[int], reason: str = NO_GENERATION) -> AgentLoopOutput:
    """The output for a Gym result with no generation data (the recipe's ``_empty_result`` case): a one-token
    response (the prompt's last token, as the recipe does) that is masked, not a genuine zero."""
    outcome = Outcome(None, False, PROTOCOL_VIOLATION, reason, "invalid", ())
    return AgentLoopOutput(
        prompt_ids=list(prompt_ids),
        response_ids=list(prompt_ids[-1:]),
        response_mask=[0],
        reward_score=0.0,
        num_turns=2,
        metrics=AgentLoopMetrics(),
        extra_fields={EXTRA_INFO: extra_info(outcome)},
    )


# -- the baseline: GRPO over usable samples ----------------------------------------------------------------


def _min_usable(config: Any, given: int | None) -> int:
    if given is not None:
        return given
    if config is not None and hasattr(config, "get"):
        return int(config.get(MIN_USABLE_SETTING, MIN_USABLE))
    return MIN_USABLE


def _masked_rows(response_mask: torch.Tensor, masked: Any) -> list[bool]:
    if masked is None:  # the agent loop zeroed the whole response mask of every masked sample
        return (response_mask.sum(dim=-1) == 0).tolist()  # type: ignore[no-any-return]
    return [bool(value) for value in np.asarray(masked).tolist()]


@core_algos.register_adv_est(ESTIMATOR)  # type: ignore[untyped-decorator]
def compute_contract_grpo_advantage(
    token_level_rewards: torch.Tensor,
    response_mask: torch.Tensor,
    index: np.ndarray[Any, Any],
    epsilon: float = 1e-6,
    norm_adv_by_std_in_grpo: bool = True,
    config: Any = None,
    masked: Any = None,
    min_usable: int | None = None,
    **_: Any,
) -> tuple[torch.Tensor, torch.Tensor]:
    """GRPO's outcome advantage over the usable samples of each group.

    ``masked`` (one boolean per sample; default: the samples whose response mask is all zero) are left out of
    their group's mean and std and get advantage 0. A group with a masked sample and fewer than ``min_usable``
    usable ones contributes nothing (all 0); a group with no masked sample is computed exactly as verl's
    ``compute_grpo_outcome_advantage`` (same operations, same order: equal results, a singleton included).
    ``min_usable`` defaults to the ``algorithm`` config's ``contract_min_usable``, else 2.
    """
    min_usable = _min_usable(config, min_usable)
    if min_usable < 1:
        raise ValueError(f"min_usable must be at least 1, not {min_usable}")
    flags = _masked_rows(response_mask, masked)
    scores = token_level_rewards.sum(dim=-1)
    members: dict[Any, list[int]] = {}
    with torch.no_grad():
        for i in range(scores.shape[0]):
            members.setdefault(index[i], []).append(i)
        means: dict[Any, torch.Tensor] = {}
        stds: dict[Any, torch.Tensor] = {}
        silent: set[Any] = set()
        for group, rows in members.items():
            usable = [i for i in rows if not flags[i]]
            if len(usable) < len(rows) and len(usable) < min_usable:
                silent.add(group)
            elif len(usable) == 1:
                means[group], stds[group] = torch.tensor(0.0), torch.tensor(1.0)
            else:
                values = torch.stack([scores[i] for i in usable])
                means[group], stds[group] = torch.mean(values), torch.std(values)
        for i in range(scores.shape[0]):
            group = index[i]
            if flags[i] or group in silent:
                scores[i] = 0.0
            elif norm_adv_by_std_in_grpo:
                scores[i] = (scores[i] - means[group]) / (stds[group] + epsilon)
            else:
                scores[i] = scores[i] - means[group]
        scores = scores.unsqueeze(-1) * response_mask
    return scores, scores


_ADVANTAGE_MODULES = (
    "verl.trainer.ppo.ray_trainer",
    "verl.trainer.ppo.v1.utils",
    "verl.experimental.separation.ray_trainer",
)
_original_compute_advantage: Callable[..., DataProto] = importlib.import_module(_ADVANTAGE_MODULES[0]).compute_advantage


def compute_advantage(
    data: DataProto,
    adv_estimator: Any,
    gamma: float = 1.0,
    lam: float = 1.0,
    num_repeat: int = 1,
    norm_adv_by_std_in_grpo: bool = True,
    config: Any = None,
    min_usable: int | None = None,
) -> DataProto:
    """verl's ``compute_advantage`` that hands the contract's mask (``non_tensor_batch["contract_masked"]``,
    from ``reward_extra_info``) to ``ESTIMATOR``; every other estimator goes to verl's own, unchanged."""
    if getattr(adv_estimator, "value", adv_estimator) != ESTIMATOR:
        return _original_compute_advantage(data, adv_estimator, gamma, lam, num_repeat, norm_adv_by_std_in_grpo, config)
    if "response_mask" not in data.batch.keys():  # noqa: SIM118 (a TensorDict refuses `in` on itself)
        from verl.trainer.ppo.ray_trainer import compute_response_mask

        data.batch["response_mask"] = compute_response_mask(data)
    advantages, returns = compute_contract_grpo_advantage(
        token_level_rewards=data.batch["token_level_rewards"],
        response_mask=data.batch["response_mask"],
        index=data.non_tensor_batch["uid"],
        norm_adv_by_std_in_grpo=norm_adv_by_std_in_grpo,
        config=config,
        masked=data.non_tensor_batch.get(MASKED_KEY),
        min_usable=min_usable,
    )
    data.batch["advantages"] = advantages
    data.batch["returns"] = returns
    return data


# -- the budget: a per-step hook -------------------------------------------------------------------------


class TrainingStopped(RuntimeError):
    """A failure budget was breached: the environment is failing, not the policy (SPEC 11.4)."""


class BudgetHook:
    """Feeds each step's batch to a ``FailureBudget`` and merges its figures into verl's metrics dict.

    The budget's ``group_by`` names ``non_tensor_batch`` keys (``data_source``, ``agent_name``, ...), a sample
    without one being ``(absent)``. ``on_breach="stop"`` raises ``TrainingStopped`` with a one-line reason,
    which ends verl's ``fit``; ``"warn"`` logs the reason and trains on."""

    def __init__(self, budget: FailureBudget, on_breach: str = "stop") -> None:
        if on_breach not in ("stop", "warn"):
            raise ValueError(f"on_breach must be 'stop' or 'warn', not {on_breach!r}")
        self.budget = budget
        self.on_breach = on_breach
        self.steps = 0
        self._model = contract_model(LATEST_VERSION)

    def __call__(self, batch: DataProto, metrics: dict[str, Any]) -> list[BudgetEvent]:
        self.steps += 1
        found = batch.non_tensor_batch
        size = len(batch)
        masked = found.get(MASKED_KEY, np.zeros(size, dtype=bool))
        kinds = found.get(KIND_KEY, np.full(size, "", dtype=object))
        verdicts = found.get(VERDICT_KEY, np.full(size, "valid", dtype=object))
        columns = [found.get(name) for name in self.budget.group_names]
        events: list[BudgetEvent] = []
        step_kinds: Counter[str] = Counter()
        by_group: dict[str, list[int]] = {}
        for i in range(size):
            state = FAILED if verdicts[i] == "invalid" else (MASKED if bool(masked[i]) else OK)
            kind = str(kinds[i]) or None
            group = tuple(ABSENT_GROUP if column is None or column[i] is None else str(column[i]) for column in columns)
            events += self.budget.record(state, kind, group)
            if state != OK:
                step_kinds[kind_label(kind or NO_KIND, self._model)] += 1
            if group:
                label = ",".join(group)
                if label not in by_group and len(by_group) >= MAX_GROUP_METRICS:
                    label = OTHER
                counts = by_group.setdefault(label, [0, 0])
                counts[0] += 1
                counts[1] += state != OK
        bad = sum(step_kinds.values())
        metrics[f"{METRIC_PREFIX}/masked_rate"] = bad / size if size else 0.0
        metrics[f"{METRIC_PREFIX}/masked"] = bad
        metrics[f"{METRIC_PREFIX}/refused"] = int(sum(v == "invalid" for v in verdicts))
        metrics[f"{METRIC_PREFIX}/run_masked_rate"] = self.budget.summary()["masked_rate"]
        for kind, count in step_kinds.items():
            metrics[f"{METRIC_PREFIX}/kind/{kind}"] = count
        for label, (total, group_bad) in by_group.items():
            metrics[f"{METRIC_PREFIX}/masked_rate/{label}"] = group_bad / total
        metrics[f"{METRIC_PREFIX}/breached"] = int(self.budget.breached)
        for event in events:
            line = f"verify-contract budget {event.level} at step {self.steps}: {event.message}"
            if event.level == "breach" and self.on_breach == "stop":
                raise TrainingStopped(line)
            log.warning(line)
        return events


# -- installing ----------------------------------------------------------------------------------------------


def install(budget_hook: BudgetHook | None = None) -> None:
    """Rebind verl's ``compute_advantage`` wherever its trainers import it (so ``algorithm.adv_estimator=
    grpo_contract`` reaches the mask), and, with ``budget_hook``, call it from the metrics verl computes every
    step. Call it in the driver process before ``RayPPOTrainer.fit``. A trainer module that cannot be imported
    here (the v1 trainer needs ``transfer_queue``) is skipped; imported later, it takes the rebound function
    from ``ray_trainer``."""
    for name in _ADVANTAGE_MODULES:
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        if getattr(module, "compute_advantage", None) is _original_compute_advantage:
            setattr(module, "compute_advantage", compute_advantage)  # noqa: B010 (an untyped module)
    if budget_hook is None:
        return
    trainer = importlib.import_module(_ADVANTAGE_MODULES[0])
    original = trainer.compute_data_metrics

    def compute_data_metrics(batch: DataProto, *args: Any, **kwargs: Any) -> dict[str, Any]:
        metrics: dict[str, Any] = original(batch, *args, **kwargs)
        budget_hook(batch, metrics)
        return metrics

    setattr(trainer, "compute_data_metrics", compute_data_metrics)  # noqa: B010 (an untyped module)
