"""Every path of the package that reads a document's effective mask, asked about the same documents (a JSON list,
argv[1], judged at the profile argv[2]); prints one JSON object: path -> what it answered. Run by
tests/contract/test_document_reader.py in a fresh interpreter against a copy of the package whose reading rule
was changed: each path must answer differently then, or it reads the mask with a copy of its own. The copy has
no compiled pre-check (its ``_fastscan`` is left out): ``check`` takes its pure-Python path, where the rule is
read; the C reads the mask at the places the model gives it (``build_field_table``).
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from verify_contract import upgrade
from verify_contract.asgi import VerifyContractMiddleware
from verify_contract.budget import FailureBudget
from verify_contract.check import CheckOptions, check_bytes
from verify_contract.check import _fastpath as fastpath
from verify_contract.contract._versions import LATEST_VERSION
from verify_contract.probe._checks import Reply, judge_reply
from verify_contract.trainers import read_outcome


def _middleware_masked(bodies: list[bytes], profile: str) -> int:
    """The masked rollouts the middleware's failure budget counted, each body served once through it."""

    async def app(scope: Any, receive: Any, send: Any) -> None:
        body = bodies[scope["index"]]
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": body, "more_body": False})

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"{}", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        return None

    middleware = VerifyContractMiddleware(app, profile=profile, budget=FailureBudget(), log_interval=3600)
    for index in range(len(bodies)):
        scope = {"type": "http", "method": "POST", "path": "/verify", "headers": [], "index": index}
        asyncio.run(middleware(scope, receive, send))
    masked: int = middleware.stats()["budget"]["masked"]
    return masked


def answers(documents: list[dict[str, Any]], profile: str) -> dict[str, Any]:
    assert not fastpath.available(), "the copy must run without the compiled pre-check"
    bodies = [json.dumps(document).encode() for document in documents]
    budget = FailureBudget()
    for document in documents:
        budget.observe(document)
    probe = [
        judge_reply(Reply(200, "application/json", body, 0.0), version=LATEST_VERSION, profile=profile).mask
        for body in bodies
    ]
    return {
        "check": check_bytes(b"\n".join(bodies) + b"\n", CheckOptions(profile=profile)).masked,
        "budget": budget.summary()["masked"],
        "probe": probe,
        "upgrade": [upgrade(document, profile).document for document in documents],
        "middleware": _middleware_masked(bodies, profile),
        "trainers": [read_outcome(document, profile=profile).mask for document in documents],
    }


if __name__ == "__main__":
    print(json.dumps(answers(json.loads(sys.argv[1]), sys.argv[2])))
