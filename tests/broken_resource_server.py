"""A deliberately broken resource server for the probe's and the middleware's tests.

Each request names the defect to plant in its reply (``"defect": "<name>"``, a task key as Gym's requests
carry); ``fine`` answers a valid gym reply. Run it: ``uvicorn --app-dir tests broken_resource_server:app``;
``observed`` and ``enforced`` are the same app behind ``VerifyContractMiddleware``.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse

from verify_contract.asgi import VerifyContractMiddleware

app = FastAPI(title="a broken resource server")
_draw = random.Random(20261202)  # fixed, so a failing run replays; successive draws still differ


def _reply(request: dict[str, Any], **fields: Any) -> dict[str, Any]:
    echo = {key: value for key, value in request.items() if key != "defect"}
    return {**echo, **fields}


def _raw(text: str, media_type: str = "application/json") -> Response:
    return Response(content=text.encode("utf-8"), media_type=media_type)


@app.post("/verify")
async def verify(request: Request) -> Response:
    body = await request.json()
    defect = body.get("defect", "fine")
    if defect == "fine":
        return JSONResponse(_reply(body, reward=1.0, mask_sample=False), headers={"x-task": "fine"})
    if defect == "crash":  # Starlette answers 500 and re-raises; uvicorn then drops the kept-alive connection
        raise RuntimeError("the scorer crashed")
    if defect == "status":
        return JSONResponse({"detail": "the judge pool is exhausted"}, status_code=503)
    if defect == "content-type":
        return _raw(json.dumps(_reply(body, reward=1.0)), media_type="text/plain")
    if defect == "contract":
        return JSONResponse(_reply(body, reward="0.5"))
    if defect == "kind":
        return JSONResponse(_reply(body, reward=0.0, mask_sample=True, failure_kind="Judge Failed"))
    if defect == "unregistered-kind":
        return JSONResponse(_reply(body, reward=0.0, mask_sample=True, failure_kind="judge_melted"))
    if defect == "mask":
        return JSONResponse(_reply(body, reward=0.0, mask_sample=False, instance_config={"mask_sample": True}))
    if defect == "nan":  # what json.dumps writes for float("nan")
        return _raw(json.dumps(_reply(body, reward=float("nan"))))
    if defect == "null":  # what pydantic's model_dump_json writes for a NaN reward
        return JSONResponse(_reply(body, reward=None))
    if defect == "random":
        return JSONResponse(_reply(body, reward=_draw.random()))
    if defect == "slow":
        await asyncio.sleep(2.0)  # the tests bound latency at 1 s: far from both this and a loaded machine's
        return JSONResponse(_reply(body, reward=1.0))
    if defect == "echo-kind":  # the request's "echo" comes back as the failure kind, which a finding quotes
        return JSONResponse(_reply(body, reward=0.0, mask_sample=True, failure_kind=body.get("echo")))
    if defect == "stream-fine":
        return StreamingResponse(_chunks(json.dumps(_reply(body, reward=1.0))), media_type="application/json")
    if defect == "stream-broken":
        return StreamingResponse(_chunks(json.dumps(_reply(body, reward="1"))), media_type="application/json")
    return JSONResponse({"detail": f"unknown defect {defect!r}"}, status_code=400)


async def _chunks(text: str) -> AsyncIterator[bytes]:
    data = text.encode("utf-8")
    third = max(1, len(data) // 3)
    for start in range(0, len(data), third):
        yield data[start : start + third]
        await asyncio.sleep(0)


observed_middleware = VerifyContractMiddleware(app, mode="observe", log_interval=0.0)
enforced_middleware = VerifyContractMiddleware(app, mode="enforce")


async def _with_stats(middleware: VerifyContractMiddleware, scope: Any, receive: Any, send: Any) -> None:
    """The middleware, and its stats() at GET /middleware-stats (the tests read them from outside)."""
    if scope["type"] == "http" and scope["path"] == "/middleware-stats":
        body = json.dumps(middleware.stats()).encode("utf-8")
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": body})
        return
    await middleware(scope, receive, send)


async def observed(scope: Any, receive: Any, send: Any) -> None:
    await _with_stats(observed_middleware, scope, receive, send)


async def enforced(scope: Any, receive: Any, send: Any) -> None:
    await _with_stats(enforced_middleware, scope, receive, send)
