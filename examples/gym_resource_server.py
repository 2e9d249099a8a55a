"""A minimal NeMo Gym-style resource server whose ``/verify`` answers follow the contract (``gym`` profile).

Run it:  uvicorn --app-dir examples gym_resource_server:app --port 8000

The task: the policy must answer an arithmetic question; the request echoes ``expected_answer`` (a key the
contract does not know, which the reply keeps, as Gym's servers do). Scoring asks a "judge"; when the judge
cannot answer, the reward is not a measurement of the policy, so the reply says so: ``mask_sample: true``,
a registered ``failure_kind`` and a human-readable ``failure_reason`` (SPEC 4.1.2). A wrong answer is a
genuine zero and is not masked (SPEC 4.1.3).
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from pydantic import BaseModel, ConfigDict

from verify_contract import failure_kinds
from verify_contract.models import GymVerifyResponse


class VerifyRequest(BaseModel):
    """What Gym's agent posts to /verify: the request it sent to the model, the model's response, the task."""

    model_config = ConfigDict(extra="allow")  # keep the task's own keys, to echo them back

    responses_create_params: dict[str, Any]
    response: dict[str, Any]
    expected_answer: str


class JudgeUnavailable(RuntimeError):
    """The judge could not be reached: nothing is known about the policy's answer."""


def final_text(response: dict[str, Any]) -> str:
    """The text of the last message of a Responses API ``output``."""
    for item in reversed(response.get("output", [])):
        if item.get("type") == "message":
            return "".join(
                part.get("text", "") for part in item.get("content", []) if part.get("type") == "output_text"
            )
    return ""


def judge(answer: str, expected: str) -> bool:
    """A stand-in for a judge model; the answer "judge down" simulates an unreachable judge."""
    if answer.strip() == "judge down":
        raise JudgeUnavailable("judge returned 503 after 3 attempts")
    return answer.strip() == expected.strip()


app = FastAPI(title="arithmetic resource server")


@app.post("/verify")
async def verify(body: VerifyRequest) -> GymVerifyResponse:
    echo = body.model_dump()  # the request and the task's own keys come back, as in Gym's BaseVerifyResponse
    try:
        correct = judge(final_text(body.response), body.expected_answer)
    except JudgeUnavailable as error:
        return GymVerifyResponse(
            **echo,
            reward=0.0,
            mask_sample=True,  # the reward does not measure the policy
            failure_kind=failure_kinds.JUDGE_FAILED,
            failure_reason=str(error),
        )
    return GymVerifyResponse(**echo, reward=1.0 if correct else 0.0)
