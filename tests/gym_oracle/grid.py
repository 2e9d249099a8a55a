"""The generated grid of field values the oracle feeds to each Gym release's `BaseVerifyResponse`.

Each axis lists values of one kind; `cases` crosses them: every value once against the base document
(so each is seen alone), then a seeded sample of the full product (so values meet each other). Values
JSON cannot carry (NaN, infinities, -0.0) travel as {"$float": "..."} and the driver turns them back into
Python floats. Fields a release does not declare are still passed: Gym's base model drops them.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from verify_contract.contract._schemas import registered_failure_kinds

ABSENT = "<absent>"


def special(spelling: str) -> dict[str, str]:
    return {"$float": spelling}


REQUEST_ECHO: dict[str, Any] = {"input": "What is 2 + 2? Answer with a number."}


def response(**extra: Any) -> dict[str, Any]:
    """The smallest `response` every release's NeMoGymResponse (OpenAI's Response) accepts, plus extras."""
    return {
        "id": "resp_oracle",
        "created_at": 1787051043.0,
        "model": "policy_model",
        "object": "response",
        "output": [
            {
                "id": "msg_oracle",
                "type": "message",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": "4", "annotations": []}],
            }
        ],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        **extra,
    }


BIG = 10**309  # beyond binary64's range: 310 digits

REWARDS: list[Any] = [
    *(0, 1, -3, 7, 2**31, 2**53, 2**53 + 1, 2**63 - 1, 2**64, 10**30, 10**308, BIG, -BIG),
    *(0.0, 0.5, -0.25, 1e-300, 5e-324, 1.7976931348623157e308, 1e16 + 1),
    *(special("-0.0"), special("nan"), special("inf"), special("-inf")),
    *(True, False, "0.5", "1", "", None, [], {}),
]
MASKS: list[Any] = [ABSENT, True, False, None, "false", "true", 0, 1, "", [True]]
KIND_SPELLINGS: list[Any] = [
    ABSENT,
    None,
    "usersim:scorer_inconclusive",
    "browser:session_reset",
    "unregistered_but_well_formed",
    "a",
    "",
    " ",
    "Judge Failed",
    "judge failed",
    "a-b",
    "judge-failed",
    "JUDGE_FAILED",
    "Judge_failed",
    "judge_failed\n",
    " judge_failed",
    "a:b:c",
    "ns:",
    ":kind",
    "1abc",
    "judge.failed",
    "é",
    0,
    True,
]
REASONS: list[Any] = [
    ABSENT,
    None,
    "",
    "none",
    "judge returned 503 after 3 attempts",
    "x" * 2001,
    "naïve \u2028 line separator \U0001f600",
    "\ud800",
    0,
    False,
]
UNKNOWN_KEYS: list[dict[str, Any]] = [
    {},
    {"resolved": True, "expected_answer": "4"},
    {"instance_config": {"mask_sample": True}},
    {"_ng_failure_class": "judge_failed", "_ng_failure_judge_error": "503"},
    {"reward_components": {"accuracy": 1.0}},
    {"verifier_metadata": {"count": 2**64, "ratio": special("nan")}},
    {"huge": BIG},
]
RESPONSES: list[dict[str, Any]] = [
    response(),
    response(metadata={"seed": 2**53 + 1}),
    response(metadata={"run": "r1"}, usage=None, prompt_token_ids=[1, 2, 3]),
    response(extra_count=BIG),
    response(extra_score=special("nan")),
    response(extra_nested={"a": [{"b": [1, 2.5, None, "x"]}]}),
]


def kinds() -> list[Any]:
    """Every kind the contract registers at its latest version, then the spellings above."""
    return [*sorted(registered_failure_kinds("1.2.0")), *KIND_SPELLINGS]


def _fields(reward: Any, mask: Any, kind: Any, reason: Any, unknown: dict[str, Any], answer: dict[str, Any]) -> Any:
    fields: dict[str, Any] = {"responses_create_params": REQUEST_ECHO, "response": answer, "reward": reward}
    for name, value in (("mask_sample", mask), ("failure_kind", kind), ("failure_reason", reason)):
        if value != ABSENT:
            fields[name] = value
    return {**unknown, **fields}


def cases(sample: int = 1500, seed: int = 12) -> Iterator[dict[str, Any]]:
    axes: list[list[Any]] = [REWARDS, MASKS, kinds(), REASONS, UNKNOWN_KEYS, RESPONSES]
    base = [1.0, ABSENT, ABSENT, ABSENT, {}, RESPONSES[0]]
    for axis, values in enumerate(axes):
        for index, value in enumerate(values):
            point = list(base)
            point[axis] = value
            yield {"id": f"axis{axis}-{index}", "fields": _fields(*point)}
    sizes = [len(values) for values in axes]
    chooser = random.Random(seed)
    picked = {tuple(chooser.randrange(size) for size in sizes) for _ in range(sample)}
    for indices in sorted(picked):
        yield {
            "id": "cross-" + "-".join(map(str, indices)),
            "fields": _fields(*(axes[axis][index] for axis, index in enumerate(indices))),
        }
