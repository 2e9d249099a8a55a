"""``probe_app``: the probe drives an ASGI app in process (no server, no HTTP client) and reads its reply as it
is sent, one message at a time, so the size cap and the deadline stop a hostile app as they stop a server
(tests/hostile_resource_server.py's app, imported here). An app's own exception reaches the test that drove it.
"""

from __future__ import annotations

import asyncio
from typing import Any

import hostile_resource_server
import pytest

from verify_contract.probe import Case, Settings, probe_app, probe_app_async


def _attack(name: str) -> list[Case]:
    return [Case(name, {"attack": name, "responses_create_params": {"input": []}, "response": {"output": []}})]


SETTINGS = Settings(checks=("probe-http-status", "probe-contract"), timeout=30)


def test_a_well_formed_reply_passes() -> None:
    report = probe_app(hostile_resource_server.app, _attack("fine"), SETTINGS)
    stats = report.statistics()
    assert report.ok and report.findings == [] and stats["replies"] == stats["requests"] == 1


def test_an_endless_body_is_cut_at_the_cap() -> None:
    """4 GiB streamed: read to the cap, then the app is stopped (a client that held the whole body first would
    take minutes and gigabytes here). The inflater under the cap is the network's: test_probe_bounds.py."""
    settings = Settings(checks=SETTINGS.checks, max_reply_bytes=10_000)
    report = probe_app(hostile_resource_server.app, _attack("endless"), settings)
    [finding] = report.findings
    assert "longer than the cap of 10,000 bytes (after decompression)" in finding.message
    assert "(10,000 bytes read)" in finding.message


def test_the_deadline_stops_a_dripping_body() -> None:
    report = probe_app(hostile_resource_server.app, _attack("drip"), Settings(checks=SETTINGS.checks, timeout=0.5))
    [finding] = report.findings
    assert "the deadline of --timeout 0.5 s passed mid-body" in finding.message
    assert report.statistics()["latency_ms"]["p50"] < 10_000


def test_the_apps_exception_reaches_the_test() -> None:
    """As httpx's ASGI transport did: a crash is the app's bug, shown with its traceback, not a finding."""

    async def crashing(scope: dict[str, Any], receive: Any, send: Any) -> None:
        await receive()
        raise LookupError("the scorer crashed")

    with pytest.raises(LookupError, match="the scorer crashed"):
        probe_app(crashing, _attack("fine"), SETTINGS)


def test_an_app_waiting_for_the_disconnect_is_not_left_running() -> None:
    """An app that streams a reply and then waits on ``receive`` for the client to go, as servers that watch
    for a disconnect do: the probe's disconnect ends it, and no task outlives the run."""
    ended: list[str] = []

    async def watching(scope: dict[str, Any], receive: Any, send: Any) -> None:
        await receive()
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": b'{"reward": 1.0}'})
        ended.append((await receive())["type"])

    async def run() -> int:
        report = await probe_app_async(watching, _attack("fine"), Settings(profile="core", checks=("probe-contract",)))
        assert report.ok, report.findings
        return len(asyncio.all_tasks())

    assert asyncio.run(run()) == 1  # only run() itself
    assert ended == ["http.disconnect"]
