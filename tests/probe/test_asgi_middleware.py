"""VerifyContractMiddleware: observe mode passes every reply through byte for byte (real uvicorn servers:
the broken server bare and behind the middleware), counts what it finds; enforce mode turns a breaking
reply into a 500 problem+json; in process, each ASGI message goes out as the app sent it."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from verify_contract.asgi import VerifyContractMiddleware

from live_servers import uvicorn_server

TESTS = Path(__file__).resolve().parents[1]
DEFECTS = ["fine", "contract", "mask", "nan", "null", "kind", "content-type", "status", "stream-fine", "stream-broken"]
BREAKING = {"contract", "mask", "nan", "null", "kind", "content-type", "status", "stream-broken"}


def planted(defect: str) -> dict[str, Any]:
    return {"responses_create_params": {"input": []}, "response": {"output": []}, "defect": defect}


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, str]]:
    with (
        uvicorn_server("broken_resource_server:app", TESTS) as bare,
        uvicorn_server("broken_resource_server:observed", TESTS) as observed,
        uvicorn_server("broken_resource_server:enforced", TESTS) as enforced,
    ):
        yield {"bare": bare, "observed": observed, "enforced": enforced}


def _post(url: str, defect: str) -> tuple[int, list[tuple[str, str]], bytes, int]:
    """Status, headers (without the date, which changes by the second), body, and how many chunks came."""
    with httpx.Client(timeout=10) as client, client.stream("POST", f"{url}/verify", json=planted(defect)) as reply:
        chunks = list(reply.iter_raw())
        headers = [(key, value) for key, value in reply.headers.multi_items() if key != "date"]
        return reply.status_code, headers, b"".join(chunks), len(chunks)


def test_observe_mode_passes_every_reply_through_byte_for_byte(servers: dict[str, str]) -> None:
    for defect in DEFECTS:
        bare = _post(servers["bare"], defect)
        observed = _post(servers["observed"], defect)
        assert observed[:3] == bare[:3], defect
    streamed = _post(servers["observed"], "stream-fine")
    assert ("transfer-encoding", "chunked") in streamed[1] and ("content-length" not in dict(streamed[1]))
    stats = httpx.get(f"{servers['observed']}/middleware-stats").json()
    runs = 2  # stream-fine was posted twice
    assert stats["seen"] == stats["judged"] == len(DEFECTS) + runs - 1
    assert stats["breaking"] == len(BREAKING)
    assert stats["ok"] == len(DEFECTS) - len(BREAKING) + runs - 1
    assert stats["findings_by_rule"]["reward-type"] == 3  # contract, null, stream-broken
    # one finding per defect: probe-mask-agree is folded into the contract's rule for the same legacy mask
    assert stats["findings_by_rule"]["legacy-mask-divergent"] == 1 and stats["findings_by_rule"]["json-non-finite"] == 1
    assert (
        "probe-mask-agree" not in stats["findings_by_rule"] and "probe-reward-finite" not in stats["findings_by_rule"]
    )


def test_other_routes_are_not_judged(servers: dict[str, str]) -> None:
    before = httpx.get(f"{servers['observed']}/middleware-stats").json()
    assert httpx.get(f"{servers['observed']}/openapi.json").status_code == 200
    assert httpx.get(f"{servers['observed']}/middleware-stats").json()["seen"] == before["seen"]


def test_enforce_mode_turns_a_breaking_reply_into_a_problem(servers: dict[str, str]) -> None:
    for defect in ("contract", "stream-broken", "nan"):
        status, headers, body, _ = _post(servers["enforced"], defect)
        assert status == 500 and dict(headers)["content-type"] == "application/problem+json", defect
        problem = json.loads(body)
        assert problem["status"] == 500 and problem["title"] == "The verify reply breaks the contract"
        rules = {item["rule"] for item in problem["findings"]}
        assert rules == ({"json-non-finite"} if defect == "nan" else {"reward-type"})  # probe-reward-finite folded in
        assert all(item["context"]["also_found_by"] == ["probe-reward-finite"] for item in problem["findings"])
    for defect in (
        "fine",
        "unregistered-kind",
        "stream-fine",
    ):  # a valid reply (a warning included) goes through unchanged
        assert _post(servers["enforced"], defect)[:3] == _post(servers["bare"], defect)[:3], defect
    stats = httpx.get(f"{servers['enforced']}/middleware-stats").json()
    assert stats["replaced"] == 3 and stats["breaking"] == 3


def test_a_finding_never_quotes_a_secret_of_the_request(servers: dict[str, str]) -> None:
    """The reply echoes a request value as its failure kind, and the kind's finding quotes it: when the
    request names that value under a secret-looking member (``api_key``), the problem shows [REDACTED]."""
    secret = "sk-SECRET123-abcdef"
    control = httpx.post(f"{servers['enforced']}/verify", json={**planted("echo-kind"), "echo": secret}, timeout=10)
    assert control.status_code == 500 and secret in control.text  # not named as a secret: quoted as sent
    request = {**planted("echo-kind"), "echo": secret, "api_key": secret}
    reply = httpx.post(f"{servers['enforced']}/verify", json=request, timeout=10)
    problem = reply.json()
    assert reply.status_code == 500 and [item["rule"] for item in problem["findings"]] == ["failure-kind-format"]
    assert secret not in reply.text and secret[:6] not in reply.text and "[REDACTED]" in problem["detail"]


class _Recorder:
    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    async def __call__(self, message: dict[str, Any]) -> None:
        self.messages.append(message)


def _streaming_app(parts: list[bytes], seen_by_client: list[int], recorder: _Recorder) -> Any:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
        for index, part in enumerate(parts):
            await send({"type": "http.response.body", "body": part, "more_body": index < len(parts) - 1})
            seen_by_client.append(len(recorder.messages))  # what the client had when the app went on

    return app


async def _receive() -> dict[str, Any]:
    return {"type": "http.request", "body": b"", "more_body": False}


def _scope(path: str = "/verify") -> dict[str, Any]:
    return {"type": "http", "method": "POST", "path": path, "headers": []}


def test_observe_forwards_each_message_before_the_app_goes_on() -> None:
    body = json.dumps({"reward": "1", "responses_create_params": {}, "response": {"output": []}}).encode()
    parts = [body[:10], body[10:20], body[20:]]
    recorder, seen = _Recorder(), []
    middleware = VerifyContractMiddleware(_streaming_app(parts, seen, recorder), log_interval=0)
    asyncio.run(middleware(_scope(), _receive, recorder))
    assert seen == [2, 3, 4]  # each chunk reached the client before the app produced the next
    assert [m.get("body") for m in recorder.messages[1:]] == parts
    assert middleware.stats()["breaking"] == 1 and middleware.stats()["findings_by_rule"]["reward-type"] == 1


def test_sampling_and_bad_settings() -> None:
    recorder, seen = _Recorder(), []
    body = json.dumps({"reward": "1"}).encode()
    middleware = VerifyContractMiddleware(_streaming_app([body], seen, recorder), sample=0.0)
    for _ in range(3):
        asyncio.run(middleware(_scope(), _receive, recorder))
    assert (middleware.stats()["seen"], middleware.stats()["unsampled"], middleware.stats()["judged"]) == (3, 3, 0)
    with pytest.raises(ValueError, match="mode 'audit'"):
        VerifyContractMiddleware(middleware, mode="audit")
    with pytest.raises(ValueError, match=r"sample 1\.5"):
        VerifyContractMiddleware(middleware, sample=1.5)


def test_logging_is_rate_limited_and_capped(caplog: pytest.LogCaptureFixture) -> None:
    secret_reason = "token=" + "s" * 5000
    reply = {"reward": None, "failure_kind": "X" * 5000, "failure_reason": secret_reason}
    body = json.dumps({**reply, "responses_create_params": {}, "response": {"output": []}}).encode()
    recorder, seen = _Recorder(), []
    middleware = VerifyContractMiddleware(_streaming_app([body], seen, recorder), log_interval=3600)
    with caplog.at_level(logging.WARNING, logger="verify_contract.asgi"):
        for _ in range(5):
            asyncio.run(middleware(_scope(), _receive, recorder))
    assert len(caplog.records) == 1 and middleware.stats()["breaking"] == 5
    text = caplog.records[0].getMessage()
    assert "reward-type" in text and "failure-kind-format" in text and "token=" not in text and len(text) < 1000


def test_a_log_line_never_quotes_a_secret_of_the_request(caplog: pytest.LogCaptureFixture) -> None:
    secret = "Bearer tok-0123456789"
    request = json.dumps({"Authorization": secret}).encode()
    body = json.dumps({"reward": secret, "responses_create_params": {}, "response": {"output": []}}).encode()
    recorder, seen = _Recorder(), []
    streaming = _streaming_app([body], seen, recorder)

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await receive()  # the app reads its request, as every verify endpoint does
        await streaming(scope, receive, send)

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": request, "more_body": False}

    middleware = VerifyContractMiddleware(app, log_interval=0)

    with caplog.at_level(logging.WARNING, logger="verify_contract.asgi"):
        asyncio.run(middleware(_scope(), receive, recorder))
        asyncio.run(VerifyContractMiddleware(middleware.app, log_interval=0, redact=())(_scope(), receive, recorder))
    redacted, plain = (record.getMessage() for record in caplog.records)
    assert "reward-type" in redacted and "[REDACTED]" in redacted and "tok-0123" not in redacted
    assert "tok-0123" in plain  # without a name to redact, the log would quote it
    assert recorder.messages[1]["body"] == body  # the client's reply is never changed


def test_prometheus_counters_in_a_given_registry() -> None:
    prometheus = pytest.importorskip("prometheus_client")
    registry = prometheus.CollectorRegistry()
    recorder, seen = _Recorder(), []
    body = json.dumps({"reward": "1", "responses_create_params": {}, "response": {"output": []}}).encode()
    middleware = VerifyContractMiddleware(_streaming_app([body], seen, recorder), registry=registry)
    asyncio.run(middleware(_scope(), _receive, recorder))
    value = registry.get_sample_value("verify_contract_middleware_replies_total", {"outcome": "breaking"})
    assert value == 1.0
    assert registry.get_sample_value("verify_contract_middleware_findings_total", {"rule": "reward-type"}) == 1.0


def test_the_pre_check_shortcut_never_hides_a_finding(monkeypatch: pytest.MonkeyPatch) -> None:
    """A reply check's compiled pre-check proves clean skips the body checks: the middleware's (need_values=False)
    and the probe's, which still reads the values. Over every conformance vector holding a document, each way
    finds what the full judge finds (the pre-check turned off), and the probe's reads the same values."""
    from verify_contract.check import _fastpath as fastpath
    from verify_contract.contract import ABSENT
    from verify_contract.probe import _checks
    from verify_contract.probe._checks import Reply, judge_reply
    from verify_contract.vectors import load_vectors

    if not fastpath.available():
        pytest.skip("the compiled pre-check is not built here")
    compared = shortcut = 0
    for vector in load_vectors():
        if not vector.has_instance:
            continue
        reply = Reply(200, "application/json", json.dumps(vector.instance, separators=(",", ":")).encode(), 0.001)
        settings = {"version": vector.contract_version, "profile": vector.profile}
        with monkeypatch.context() as patched:
            patched.setattr(_checks, "_proved_clean", lambda *_: False)
            full = judge_reply(reply, **settings)
        quick = judge_reply(reply, **settings, need_values=False)
        probe = judge_reply(reply, **settings)
        assert quick.findings == probe.findings == full.findings, vector.id
        assert probe == full, vector.id
        compared += 1
        shortcut += quick.document is ABSENT  # proved clean: the body checks did not run
    assert compared > 100 and shortcut > 10


@pytest.mark.parametrize("mode", ["observe", "enforce"])
def test_a_reply_over_max_body_goes_out_unjudged(mode: str) -> None:
    body = json.dumps({"reward": "1", "padding": "x" * 300}).encode()
    parts = [body[:100], body[100:200], body[200:]]
    recorder, seen = _Recorder(), []
    middleware = VerifyContractMiddleware(_streaming_app(parts, seen, recorder), mode=mode, max_body=150)
    asyncio.run(middleware(_scope(), _receive, recorder))
    assert recorder.messages[0]["status"] == 200 and [m.get("body") for m in recorder.messages[1:]] == parts
    stats = middleware.stats()
    assert (stats["too_large"], stats["judged"], stats["replaced"]) == (1, 0, 0)


def test_a_failure_budget_sees_every_judged_reply_and_logs_its_breach(caplog: pytest.LogCaptureFixture) -> None:
    """With ``budget=``, the server's own replies feed a FailureBudget (SPEC 11): a storm of masked replies is
    a breach logged when it happens, a breaking reply counts as failed, and stats() has the summary."""
    from verify_contract.budget import FailureBudget

    echo = {"responses_create_params": {}, "response": {"output": []}}
    usable = json.dumps({"reward": 1.0, **echo}).encode()
    masked = json.dumps({"reward": 0.0, "mask_sample": True, "failure_kind": "session_lost", **echo}).encode()
    broken = json.dumps({"reward": "1", **echo}).encode()
    budget = FailureBudget(max_masked=0.5, window=4)
    replies = [usable, usable, broken, masked, masked, usable]
    with caplog.at_level(logging.WARNING, logger="verify_contract.asgi"):
        for body in replies:
            recorder, seen = _Recorder(), []
            middleware = VerifyContractMiddleware(_streaming_app([body], seen, recorder), budget=budget, log_interval=0)
            asyncio.run(middleware(_scope(), _receive, recorder))
            assert recorder.messages[1]["body"] == body  # observe mode: the reply is unchanged
    summary = middleware.stats()["budget"]
    assert (summary["rollouts"], summary["ok"], summary["masked"], summary["failed"]) == (6, 3, 2, 1)
    assert summary["first_breach"]["rollout"] == 5 and summary["first_breach"]["kinds"] == {
        "session_lost": 2,
        "(none)": 1,
    }
    breaches = [r.getMessage() for r in caplog.records if "failure budget breach" in r.getMessage()]
    assert breaches == [
        "verify-contract middleware: failure budget breach: all rollouts: 75.0% masked or failed in "
        "the last 4 rollouts (3 of 4; kinds: session_lost 2, (none) 1)"
    ]
