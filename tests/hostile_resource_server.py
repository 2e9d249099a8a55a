"""A hostile resource server for the probe's bounds (tests/probe/test_probe_bounds.py): a plain ASGI app, so that
each reply is exactly what the attack needs (a body of hundreds of megabytes, a gzip bomb, an endless
stream, a byte a second, a connection reset mid-body, the request's secrets echoed every way a server can).

Each request names its attack (``"attack": "<name>"``, a task key as Gym's requests carry); ``GET /count``
answers how many verify requests arrived, so a test can count what the probe really sent.
Run it: ``uvicorn --app-dir tests hostile_resource_server:app``.
"""

from __future__ import annotations

import asyncio
import html
import json
import os
import signal
import zlib
from collections.abc import Awaitable, Callable
from functools import cache
from typing import Any
from urllib.parse import quote

Send = Callable[[dict[str, Any]], Awaitable[None]]
Receive = Callable[[], Awaitable[dict[str, Any]]]

MIB = 1024 * 1024
HUGE_BYTES = 500 * MIB
BOMB_BYTES = 1024 * MIB
"""What the gzip bomb inflates to (about 1 MB on the wire)."""
ENDLESS_LIMIT = 4096 * MIB
"""The "endless" body stops here all the same: a test server's loops are bounded."""
DRIP_BYTES = 120
"""One byte a second, for two minutes at most."""

_received = {"verify": 0}


@cache
def gzip_bomb() -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)  # 31: the gzip container
    zeros = bytes(MIB)
    parts = [packer.compress(zeros) for _ in range(BOMB_BYTES // MIB)]
    return b"".join(parts) + packer.flush()


def _echo(request: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in request.items() if key != "attack"}


def _reply(request: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {**_echo(request), "reward": 1.0, **fields}


async def _start(send: Send, status: int = 200, media: str = "application/json", **headers: str) -> None:
    pairs = [(b"content-type", media.encode("latin-1"))]
    pairs += [(name.replace("_", "-").encode(), value.encode("latin-1")) for name, value in headers.items()]
    await send({"type": "http.response.start", "status": status, "headers": pairs})


async def _whole(send: Send, body: bytes, status: int = 200, media: str = "application/json", **headers: str) -> None:
    await _start(send, status, media, content_length=str(len(body)), **headers)
    await send({"type": "http.response.body", "body": body})


def _secret(request: dict[str, Any]) -> str:
    return str(request.get("api_key", ""))


async def _attack(name: str, request: dict[str, Any], send: Send) -> None:
    if name == "fine":
        await _whole(send, json.dumps(_reply(request)).encode())
    elif name == "huge":  # a body of 500 MB, streamed in 1 MiB chunks
        await _start(send, content_length=str(HUGE_BYTES))
        chunk = b" " * MIB
        for _ in range(HUGE_BYTES // MIB):
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b""})
    elif name == "bomb":  # about 1 MB of gzip that inflates to 1 GiB
        await _whole(send, gzip_bomb(), content_encoding="gzip")
    elif name == "endless":  # chunked, never ending (bounded here at 4 GiB)
        await _start(send)
        chunk = b" " * MIB
        for _ in range(ENDLESS_LIMIT // MIB):
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b""})
    elif name == "drip":  # a valid reply, one byte a second
        await _start(send)
        for byte in json.dumps(_reply(request)).encode()[:DRIP_BYTES]:
            await send({"type": "http.response.body", "body": bytes([byte]), "more_body": True})
            await asyncio.sleep(1.0)
        await send({"type": "http.response.body", "body": b""})
    elif name == "vanish":  # the process dies before any byte of a reply: the connection drops, nothing came
        os.kill(os.getpid(), signal.SIGKILL)
    elif name == "reset":  # headers and part of the body, then the connection is dropped
        await _start(send, content_length="1000")
        await send({"type": "http.response.body", "body": b'{"reward": 1.0, ', "more_body": True})
        raise RuntimeError("the scorer crashed mid-reply")
    else:
        await _echo_attack(name, request, send)


async def _echo_attack(name: str, request: dict[str, Any], send: Send) -> None:
    secret = _secret(request)
    if name == "echo-400":  # FastAPI's validation error: the request quoted under "input"
        detail = {"detail": [{"input": _echo(request), "type": "missing", "loc": ["body", "expected_answer"]}]}
        await _whole(send, json.dumps(detail).encode(), status=422)
    elif name == "echo-prefix":  # the secret where an 80-character quote of the body would cut it in half
        await _whole(send, f"{'x' * 65} bad key {secret} rejected".encode(), status=400, media="text/plain")
    elif name == "echo-batch":  # a batch array: the requests come back in a list
        await _whole(send, json.dumps([_reply(request), _reply(request)]).encode())
    elif name == "echo-repr":  # a Python repr in a 500 page
        await _whole(send, f"Error {request!r}".encode(), status=500, media="text/plain")
    elif name == "echo-escaped":  # JSON with every non-ASCII character and / escaped, in a 503
        body = json.dumps(_echo(request), ensure_ascii=True).replace("/", "\\/")
        await _whole(send, body.encode(), status=503)
    elif name == "echo-encoded":  # percent-encoded and HTML-escaped, in a 503
        text = f"<p>retry {html.escape(secret)}</p> /retry?key={quote(secret, safe='')}"
        await _whole(send, text.encode(), status=503, media="text/html")
    elif name == "echo-header":  # in the content type
        await _whole(send, json.dumps(_reply(request)).encode(), media=f"text/plain; key={quote(secret, safe='')}")
    elif name == "echo-fields":  # as the failure kind and reason, and as the reward
        reply = _reply(request, reward=secret, mask_sample=True, failure_kind=secret, failure_reason=secret)
        await _whole(send, json.dumps(reply).encode())
    elif name == "echo-nested":  # JSON inside a JSON string
        await _whole(send, json.dumps({"detail": json.dumps(_echo(request))}).encode(), status=400)
    else:
        await _whole(send, json.dumps({"detail": f"unknown attack {name!r}"}).encode(), status=400)


async def app(scope: dict[str, Any], receive: Receive, send: Send) -> None:
    if scope["type"] != "http":
        return
    if scope["method"] == "GET":
        count = _received["verify"] if scope["path"] == "/count" else 0
        await _whole(send, json.dumps({"verify": count}).encode())
        return
    _received["verify"] += 1
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    request = json.loads(body)
    await _attack(str(request.get("attack", "fine")), request, send)
