"""A resource server that takes its time: every verify request is answered after PACE_SECONDS (asyncio, so a
thousand wait at once), and ``GET /count`` tells how many requests arrived over how many connections (the
client ports seen). It measures the probe's own concurrency: with a pool sized to ``--concurrency``, 1,000
requests at 500 at a time take about two paces and open about 500 connections.
Run it: ``uvicorn --app-dir tests paced_resource_server:app``.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Awaitable, Callable
from typing import Any

Send = Callable[[dict[str, Any]], Awaitable[None]]
Receive = Callable[[], Awaitable[dict[str, Any]]]

PACE_SECONDS = float(os.environ.get("PACE_SECONDS", "0.2"))
_seen: dict[str, Any] = {"requests": 0, "ports": set()}


async def _answer(send: Send, body: dict[str, Any]) -> None:
    data = json.dumps(body).encode()
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": data})


async def app(scope: dict[str, Any], receive: Receive, send: Send) -> None:
    if scope["type"] != "http":
        return
    if scope["method"] != "POST":  # readiness, and the counts
        await _answer(send, {"requests": _seen["requests"], "connections": len(_seen["ports"])})
        return
    _seen["requests"] += 1
    _seen["ports"].add(tuple(scope.get("client") or ("", 0))[1])
    chunks = []
    while True:
        message = await receive()
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            break
    request = json.loads(b"".join(chunks))
    await asyncio.sleep(PACE_SECONDS)
    await _answer(send, {**request, "reward": 1.0})
