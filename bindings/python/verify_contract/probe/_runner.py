"""Sends the cases to a server with httpx's async client, a bounded number at a time, and judges each reply."""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

from verify_contract.contract._versions import LATEST_VERSION, Profile
from verify_contract.findings import Finding
from verify_contract.probe._checks import (
    DEFAULT_CHECKS,
    Judged,
    Reply,
    breaking,
    cap,
    check_of,
    compare_replies,
    judge_reply,
)
from verify_contract.probe._requests import DEFAULT_MAX_REQUESTS, Case
from verify_contract.reference._semantic import ABSENT

RESENDS = 2


@dataclass(frozen=True)
class Settings:
    """How to probe: the contract to judge by, the checks, and the bounds on the traffic."""

    version: str = LATEST_VERSION
    profile: Profile | None = None
    """None: the wire profile (gym) of ``version``."""
    checks: tuple[str, ...] = DEFAULT_CHECKS
    max_latency: float | None = None
    concurrency: int = 4
    timeout: float = 30.0
    max_requests: int = DEFAULT_MAX_REQUESTS
    warnings_as_errors: bool = False


@dataclass
class CaseResult:
    case: str
    findings: list[Finding]
    latencies: list[float]
    replied: bool
    read: bool = False
    """The reply held a document (a 200 whose body parsed): its failure kind and mask are counted."""
    failure_kind: Any = ABSENT
    masked: bool | None = None


@dataclass
class ProbeReport:
    endpoint: str
    version: str
    profile: Profile
    checks: tuple[str, ...]
    results: list[CaseResult] = field(default_factory=list)
    requests_sent: int = 0
    left_out: int = 0
    """Cases not sent: over ``max_requests``, or after the server refused the first connections."""
    warnings_as_errors: bool = False

    @property
    def findings(self) -> list[Finding]:
        return [item for result in self.results for item in result.findings]

    @property
    def replies(self) -> int:
        return sum(len(result.latencies) for result in self.results)

    @property
    def unreachable(self) -> bool:
        """No request got any HTTP reply: the server could not be reached."""
        return bool(self.results) and not any(result.replied for result in self.results)

    @property
    def ok(self) -> bool:
        return not breaking(self.findings, self.warnings_as_errors)

    def statistics(self) -> dict[str, Any]:
        """Counts at the end of a run: replies, findings by check and by rule, failure kinds, latency."""
        findings = self.findings
        latencies = sorted(latency for result in self.results for latency in result.latencies)
        kinds: Counter[str] = Counter()
        for result in self.results:
            if result.read and result.failure_kind is not ABSENT:
                kinds[_kind_label(result.failure_kind)] += 1
            elif result.read:
                kinds["(none)"] += 1
        return {
            "cases": len(self.results),
            "requests": self.requests_sent,
            "replies": self.replies,
            "unanswered": self.requests_sent - self.replies,
            "left_out": self.left_out,
            "breaking_cases": sum(1 for r in self.results if breaking(r.findings, self.warnings_as_errors)),
            "by_check": dict(sorted(Counter(check_of(item) for item in findings).items())),
            "by_rule": dict(sorted(Counter(item.rule for item in findings).items())),
            "by_severity": dict(sorted(Counter(item.severity.value for item in findings).items())),
            "failure_kinds": dict(sorted(kinds.items())),
            "masked": sum(1 for result in self.results if result.masked),
            "latency_ms": {
                name: _percentile(latencies, share) for name, share in (("p50", 50), ("p90", 90), ("p99", 99))
            },
        }


def _kind_label(kind: Any) -> str:
    if kind is None:
        return "(null)"
    if kind == "":
        return "(empty)"
    return cap(kind, 60) if isinstance(kind, str) else f"({type(kind).__name__})"


def _percentile(sorted_seconds: Sequence[float], share: int) -> float | None:
    """Nearest-rank percentile in milliseconds, or None without replies."""
    if not sorted_seconds:
        return None
    rank = max(1, math.ceil(share / 100 * len(sorted_seconds)))
    return round(sorted_seconds[rank - 1] * 1000, 3)


class _Stop:
    """Set when the server refused connections before any reply: the remaining cases are not sent."""

    def __init__(self) -> None:
        self.refused = False
        self.replied = False


async def _post(client: httpx.AsyncClient, endpoint: str, body: bytes) -> httpx.Response:
    headers = {"content-type": "application/json"}
    # A kept-alive connection the server closed meanwhile (Starlette's error middleware re-raises after its
    # 500, and uvicorn then drops the connection) fails the next request sent on it: the request is sent
    # again, as browsers do, at most RESENDS times (the pool may hold more than one such connection). A
    # server that drops every connection still gets no reply.
    for _ in range(RESENDS):
        try:
            return await client.post(endpoint, content=body, headers=headers)
        except (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError):
            continue
    return await client.post(endpoint, content=body, headers=headers)


async def _send(client: httpx.AsyncClient, endpoint: str, body: bytes, stop: _Stop) -> Reply:
    started = time.perf_counter()
    try:
        answer = await _post(client, endpoint, body)
    except httpx.ConnectError as error:
        if not stop.replied:
            stop.refused = True
        return Reply(None, "", b"", time.perf_counter() - started, f"cannot connect: {cap(str(error), 120)}")
    except httpx.TimeoutException:
        return Reply(None, "", b"", time.perf_counter() - started, "timed out")
    except httpx.HTTPError as error:
        return Reply(None, "", b"", time.perf_counter() - started, f"{type(error).__name__}: {cap(str(error), 120)}")
    stop.replied = True
    latency = time.perf_counter() - started
    return Reply(answer.status_code, answer.headers.get("content-type", ""), answer.content, latency)


async def _probe_case(
    client: httpx.AsyncClient, endpoint: str, case: Case, settings: Settings, profile: Profile, stop: _Stop
) -> tuple[CaseResult, int] | None:
    if stop.refused:
        return None
    body = json.dumps(case.request).encode("ascii")  # escapes keep a lone surrogate a request holds sendable
    first = await _send(client, endpoint, body, stop)
    judged = _judge(first, settings, profile)
    findings = list(judged.findings)
    latencies = [first.latency] if first.status is not None else []
    sent = 1
    if "probe-determinism" in settings.checks and first.status is not None:
        second = await _send(client, endpoint, body, stop)
        sent += 1
        if second.status is not None:
            latencies.append(second.latency)
            findings += compare_replies(judged, _judge(second, settings, profile, checks=()))
        else:
            again = _judge(second, settings, profile, checks=("probe-http-status",)).findings
            findings += [item.replace(message=f"the repeated request: {item.message}") for item in again]
    located = [item.replace(file=case.id) for item in findings]
    read = isinstance(judged.document, dict)
    result = CaseResult(case.id, located, latencies, first.status is not None, read, judged.failure_kind, judged.mask)
    return result, sent


def _judge(reply: Reply, settings: Settings, profile: Profile, checks: Sequence[str] | None = None) -> Judged:
    chosen = settings.checks if checks is None else checks
    return judge_reply(
        reply, version=settings.version, profile=profile, checks=chosen, max_latency=settings.max_latency
    )


async def probe_with(
    client: httpx.AsyncClient, endpoint: str, cases: Sequence[Case], settings: Settings
) -> ProbeReport:
    """Probe ``endpoint`` through ``client`` (a network or an ASGI transport): at most ``settings.concurrency``
    requests at once and ``settings.max_requests`` in all (a case checked for determinism costs two)."""
    from verify_contract.probe._checks import wire_profile

    profile = settings.profile or wire_profile(settings.version)
    cost = 2 if "probe-determinism" in settings.checks else 1
    chosen = list(cases[: max(0, settings.max_requests // cost)])
    report = ProbeReport(
        endpoint, settings.version, profile, settings.checks, warnings_as_errors=settings.warnings_as_errors
    )
    report.left_out = len(cases) - len(chosen)
    stop = _Stop()
    gate = asyncio.Semaphore(max(1, settings.concurrency))

    async def one(case: Case) -> tuple[CaseResult, int] | None:
        async with gate:
            return await _probe_case(client, endpoint, case, settings, profile, stop)

    for outcome in await asyncio.gather(*(one(case) for case in chosen)):
        if outcome is None:
            report.left_out += 1
            continue
        result, sent = outcome
        report.results.append(result)
        report.requests_sent += sent
    return report


def probe(endpoint: str, cases: Sequence[Case], settings: Settings = Settings()) -> ProbeReport:
    """Probe a running server at ``endpoint`` (an http or https URL)."""

    async def run() -> ProbeReport:
        limits = httpx.Limits(max_connections=max(1, settings.concurrency))
        async with httpx.AsyncClient(timeout=settings.timeout, limits=limits, follow_redirects=False) as client:
            return await probe_with(client, endpoint, cases, settings)

    return asyncio.run(run())


async def probe_app_async(
    app: Any, cases: Sequence[Case], settings: Settings = Settings(), path: str = "/verify"
) -> ProbeReport:
    """Probe an ASGI app in this process (httpx's ASGITransport), as a server's own tests do."""
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://app.test", timeout=settings.timeout) as client:
        return await probe_with(client, f"http://app.test{path}", cases, settings)


def probe_app(app: Any, cases: Sequence[Case], settings: Settings = Settings(), path: str = "/verify") -> ProbeReport:
    """``probe_app_async`` from synchronous code (a test without an event loop)."""
    return asyncio.run(probe_app_async(app, cases, settings, path))
