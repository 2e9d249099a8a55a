"""A resource server built on the real nemo-gym package, run under uvicorn in the Gym oracle's Python 3.13
environment (it imports nemo_gym, not verify_contract): ``SimpleResourcesServer.setup_webserver()`` builds
Gym's own FastAPI app (session and rollout-context middleware, ``judge_failsafe``, the tracing wrapper).

Each request carries ``plant``: the reply fields to set (``reward`` may be ``"nan"``, ``"inf"``, ``"-inf"``),
``judge_error`` (raise Gym's JudgeError: ``judge_failsafe`` answers) and ``response_extra`` (members added to
the echoed ``response``, whose OpenAI model keeps unknown members).
"""

from __future__ import annotations

from typing import Any

from nemo_gym.base_resources_server import (
    BaseResourcesServerConfig,
    BaseVerifyRequest,
    BaseVerifyResponse,
    SimpleResourcesServer,
)
from pydantic import ConfigDict

try:
    from nemo_gym.base_resources_server import JudgeError
except ImportError:  # where the release keeps it elsewhere
    from nemo_gym.judge import JudgeError  # type: ignore[no-redef]

NON_FINITE = {"nan": float("nan"), "inf": float("inf"), "-inf": float("-inf")}


class PlantedRequest(BaseVerifyRequest):
    model_config = ConfigDict(extra="allow")
    plant: dict[str, Any] = {}  # noqa: RUF012 (a pydantic field: copied per instance)


class PlantedResourcesServer(SimpleResourcesServer):
    async def verify(self, body: PlantedRequest) -> BaseVerifyResponse:
        plant = dict(body.plant)
        if plant.pop("judge_error", False):
            raise JudgeError("judge returned 503 after 3 attempts")
        reward = plant.pop("reward", 1.0)
        reward = NON_FINITE.get(reward, reward) if isinstance(reward, str) else reward
        if plant.pop("big_integer_in_response", False):
            body.response.__pydantic_extra__ = {**(body.response.__pydantic_extra__ or {}), "big": 10**310}
        echo = body.model_dump(exclude={"plant"})
        if "big" in (body.response.__pydantic_extra__ or {}):
            echo["response"] = body.response
        return BaseVerifyResponse(**{**echo, "reward": reward, **plant})


config = BaseResourcesServerConfig(host="127.0.0.1", port=0, entrypoint="gym_probe_server.py", name="planted")
server = PlantedResourcesServer.model_construct(config=config, server_client=None)
app = server.setup_webserver()
