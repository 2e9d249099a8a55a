"""TRL: a reward function for ``GRPOTrainer`` that leaves samples that are not policy evidence out.

TRL lets a reward function return None for a completion it cannot score; a completion whose reward functions
all return None is left out of its group's (NaN-aware) mean and std and gets a zero advantage. So a masked or
refused verify response becomes None, and every other one its reward:

    from verify_contract.trainers.trl import contract_reward

    def verify(prompts, completions, **kwargs):       # your environment's /verify, one response each
        return [my_env.verify(p, c) for p, c in zip(prompts, completions)]

    trainer = GRPOTrainer(model=..., reward_funcs=[contract_reward(verify)], ...)

Pure Python: TRL calls the function, this module never imports TRL (``pip install 'verify-contract[trl]'``
brings a TRL that returns None correctly).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from verify_contract.trainers._outcome import kind_metric_label, read_outcome


class ContractReward:
    """The wrapped reward function; ``kinds`` counts the samples it left out by failure kind (as a metric label:
    unregistered names collapsed), for the trainer's metrics (SPEC 4.2.5), and ``left_out`` how many."""

    def __init__(self, verify: Callable[..., Sequence[Any]], name: str | None = None) -> None:
        self.verify = verify
        # TRL names a reward function's metrics after ``__name__``.
        self.__name__ = name or getattr(verify, "__name__", "contract_reward")
        self.kinds: Counter[str] = Counter()
        self.left_out = 0

    def __call__(self, *args: Any, **kwargs: Any) -> list[float | None]:
        rewards: list[float | None] = []
        for document in self.verify(*args, **kwargs):
            outcome = read_outcome(document)
            if outcome.masked:
                self.left_out += 1
                self.kinds[kind_metric_label(outcome)] += 1
                rewards.append(None)
            else:
                rewards.append(outcome.reward)
        return rewards


def contract_reward(verify: Callable[..., Sequence[Any]], name: str | None = None) -> ContractReward:
    """A TRL reward function from ``verify``, a function with TRL's reward-function arguments that returns one
    verify response (or Gym result) per completion: the reward of each usable one, None for the others."""
    return ContractReward(verify, name)
