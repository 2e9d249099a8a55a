"""Sends the cases through a transport (a network client, or an ASGI app in process), a bounded number at a
time, and judges each reply."""

from __future__ import annotations

import asyncio
import json
import math
import time
import zlib
from collections import Counter
from collections.abc import Awaitable, Coroutine, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from verify_contract.contract import ABSENT, LATEST_VERSION, Profile, cap
from verify_contract.findings import Finding
from verify_contract.probe._checks import (
    DEFAULT_CHECKS,
    MAX_REPLY_BYTES,
    Judged,
    Reply,
    breaking,
    check_of,
    compare_replies,
    judge_reply,
    refused,
    runnable_checks,
)
from verify_contract.probe._redact import SECRET_NAMES, Redactor
from verify_contract.probe._requests import DEFAULT_CONCURRENCY, DEFAULT_MAX_REQUESTS, DEFAULT_TIMEOUT, Case
from verify_contract.probe._transport import (
    Answer,
    BrokenReply,
    CannotConnect,
    DroppedBeforeReply,
    Transport,
    TransportError,
)

RESENDS = 2
"""Times a request is sent again at most, and only when its connection dropped before any byte of the reply."""
RESEND_PAUSE = 0.1
"""Seconds before a resend (within ``--timeout``): a server that died lets go of its listening socket while it
exits, and a resend sent at once may be accepted by the dying kernel socket and reset, a second drop that
says less than the "cannot connect" it gets a moment later."""


@dataclass(frozen=True)
class Settings:
    """How to probe: the contract to judge by, the checks, and the bounds on the traffic."""

    version: str = LATEST_VERSION
    profile: Profile | None = None
    """None: the wire profile (gym) of ``version``."""
    checks: tuple[str, ...] = DEFAULT_CHECKS
    max_latency: float | None = None
    concurrency: int = DEFAULT_CONCURRENCY
    timeout: float = DEFAULT_TIMEOUT
    """Seconds for a whole request: connecting, sending, resends and reading the whole reply."""
    max_requests: int = DEFAULT_MAX_REQUESTS
    max_reply_bytes: int = MAX_REPLY_BYTES
    """The most of a reply body read, after decompression; a longer one is that case's finding."""
    redact: tuple[str, ...] = SECRET_NAMES
    """Request members (shell patterns, any case) whose values never reach the report (``Redactor``)."""
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
    """Every request put on the wire: first sends, determinism's repeats and resends."""
    resent: int = 0
    """Requests sent again because the connection dropped before any byte of the reply."""
    left_out: int = 0
    """Cases not sent: over ``max_requests``, or after the server refused the first connections."""
    warnings_as_errors: bool = False
    skipped: dict[str, str] = field(default_factory=dict)
    """Checks asked for that could not run, each with the reason (``probe-latency`` without a bound)."""

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
        """No reply breaks the contract (a refused request is not a break: ``refused_cases``)."""
        return not breaking(self.findings, self.warnings_as_errors)

    @property
    def refused_cases(self) -> int:
        """Cases whose request the server refused (4xx): the input's problem, not the server's."""
        return sum(1 for result in self.results if refused(result.findings))

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
            "resent": self.resent,
            "replies": self.replies,
            "unanswered": self.requests_sent - self.resent - self.replies,
            "left_out": self.left_out,
            "breaking_cases": sum(1 for r in self.results if breaking(r.findings, self.warnings_as_errors)),
            "refused_cases": self.refused_cases,
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


class _Budget:
    """The requests left to send (``--max-requests``): a case reserves what it costs when it starts, and a
    resend takes one more, so first sends, repeats and resends together never pass the bound."""

    def __init__(self, limit: int) -> None:
        self.left = limit
        self.sent = 0
        self.resent = 0

    def reserve(self, count: int) -> bool:
        if self.left < count:
            return False
        self.left -= count
        return True

    def release(self, count: int) -> None:
        self.left += count


@dataclass
class _Exchange:
    """What one request got so far: filled as it comes, so a deadline that stops it keeps the part read."""

    status: int | None = None
    content_type: str = ""
    body: bytearray = field(default_factory=bytearray)
    error: str = ""
    cut: str = ""


async def _exchange(
    transport: Transport, endpoint: str, body: bytes, budget: _Budget, cap_bytes: int, into: _Exchange
) -> None:
    headers = REQUEST_HEADERS
    for attempt in range(RESENDS + 1):
        # A kept-alive connection the server closed meanwhile (Starlette's error middleware re-raises after its
        # 500, and uvicorn then drops the connection) fails the next request sent on it before any byte of a
        # reply: only then is the request sent again (the server cannot have acted on it twice), at most
        # RESENDS times, each taken from --max-requests. A reply cut after its headers is never resent: a
        # request that crashes the server mid-reply is that case's finding, not a reason to post it again.
        if attempt:
            if budget.left:
                await asyncio.sleep(RESEND_PAUSE)  # before reserving: a deadline passing here takes nothing
            if not budget.reserve(1):
                into.error += "; not sent again: --max-requests is spent"
                return
            budget.resent += 1
        budget.sent += 1
        try:
            async with transport.post(endpoint, body, headers) as answer:
                into.status = answer.status
                into.content_type = answer.content_type
                await _read_body(answer, cap_bytes, into)
                return
        except DroppedBeforeReply as error:
            into.error = f"the connection dropped before any byte of the reply ({error})"
    return


ACCEPTED_ENCODINGS = {"gzip": zlib.MAX_WBITS | 16, "deflate": zlib.MAX_WBITS}
"""The content codings the probe asks for and inflates itself, by zlib window bits: zlib stops at the size
cap (``max_length``), where a decoder that inflates whole network chunks (64 KiB of a gzip bomb is 64 MiB)
would not."""


REQUEST_HEADERS = {"content-type": "application/json", "accept-encoding": ", ".join(ACCEPTED_ENCODINGS)}


class _Inflater:
    """A body's content coding undone under a bound; identity passes through."""

    def __init__(self, encoding: str) -> None:
        self.encoding = encoding.strip().lower()
        bits = ACCEPTED_ENCODINGS.get(self.encoding)
        self._zlib = zlib.decompressobj(bits) if bits is not None else None
        self._raw_deflate = False

    @property
    def known(self) -> bool:
        return self.encoding in ("", "identity") or self._zlib is not None

    def inflate(self, data: bytes, limit: int) -> bytes:
        """At most ``limit`` bytes of what ``data`` inflates to (the rest waits in the inflater)."""
        if self._zlib is None:
            return data[:limit]
        try:
            return self._zlib.decompress(data, limit)
        except zlib.error:
            if self.encoding != "deflate" or self._raw_deflate:
                raise
            # "deflate" is sent both zlib-wrapped (RFC 9110) and raw, as browsers also accept
            self._raw_deflate = True
            self._zlib = zlib.decompressobj(-zlib.MAX_WBITS)
            return self._zlib.decompress(data, limit)

    def pending(self) -> bytes:
        return b"" if self._zlib is None else self._zlib.unconsumed_tail


async def _read_body(answer: Answer, cap_bytes: int, into: _Exchange) -> None:
    """The body, inflated as it streams in, up to ``cap_bytes``: a gzip bomb or an endless stream is cut
    there and the connection closed, never held whole."""
    inflater = _Inflater(answer.content_encoding)
    if not inflater.known:
        into.cut = f"content-encoding {cap(inflater.encoding, 40)!r} was not asked for (accept-encoding: gzip, deflate)"
        return
    try:
        async for raw in answer.chunks():
            data = raw
            while data:
                room = cap_bytes - len(into.body)
                part = inflater.inflate(data, room + 1)
                if len(part) > room:
                    into.body += part[:room]
                    into.cut = f"longer than the cap of {cap_bytes:,} bytes (after decompression)"
                    return
                into.body += part
                data = inflater.pending()
    except BrokenReply as error:
        into.cut = f"the connection broke mid-body ({error})"
    except zlib.error as error:
        into.cut = f"the {inflater.encoding} body does not inflate ({cap(str(error), 80)})"


async def _within(seconds: float, work: Awaitable[None]) -> None:
    """``work`` bounded by ``seconds``; asyncio.timeout where there is one (Python 3.11): wait_for's task of its
    own costs twice as much a request, and a turn of the event loop."""
    deadline = getattr(asyncio, "timeout", None)
    if deadline is None:
        await asyncio.wait_for(work, seconds)
        return
    async with deadline(seconds):
        await work


async def _send(
    transport: Transport, endpoint: str, body: bytes, stop: _Stop, budget: _Budget, settings: Settings
) -> Reply:
    """One request, resends included, bounded by ``settings.timeout`` as a whole (connect, send, the whole
    body): a server dripping a byte a second cannot stretch it."""
    started = time.perf_counter()
    into = _Exchange()
    try:
        await _within(settings.timeout, _exchange(transport, endpoint, body, budget, settings.max_reply_bytes, into))
    except asyncio.TimeoutError:
        if into.status is None:
            return Reply(
                None, "", b"", time.perf_counter() - started, f"no reply within --timeout {settings.timeout:g} s"
            )
        into.cut = f"the deadline of --timeout {settings.timeout:g} s passed mid-body"
    except CannotConnect as error:
        if not stop.replied:
            stop.refused = True
        return Reply(None, "", b"", time.perf_counter() - started, f"cannot connect: {error}")
    except TransportError as error:
        return Reply(None, "", b"", time.perf_counter() - started, str(error))
    latency = time.perf_counter() - started
    if into.status is None:
        return Reply(None, "", b"", latency, into.error or "no reply")
    stop.replied = True
    return Reply(into.status, into.content_type, bytes(into.body), latency, cut=into.cut)


async def _probe_case(
    transport: Transport,
    endpoint: str,
    case: Case,
    settings: Settings,
    checks: tuple[str, ...],
    profile: Profile,
    stop: _Stop,
    budget: _Budget,
) -> CaseResult:
    body = json.dumps(case.request).encode("ascii")  # escapes keep a lone surrogate a request holds sendable
    redactor = Redactor.for_request(case.request, settings.redact)
    first = redactor.reply(await _send(transport, endpoint, body, stop, budget, settings))
    judged = _judge(first, settings, profile, checks)
    findings = list(judged.findings)
    latencies = [first.latency] if first.status is not None else []
    if "probe-determinism" in checks and first.status is None:
        budget.release(1)  # the repeat reserved for this case is not sent
    elif "probe-determinism" in checks:
        second = redactor.reply(await _send(transport, endpoint, body, stop, budget, settings))
        if second.status is not None:
            latencies.append(second.latency)
            findings += compare_replies(judged, _judge(second, settings, profile, ()))
        else:
            again = _judge(second, settings, profile, ("probe-http-status",)).findings
            findings += [item.replace(message=f"the repeated request: {item.message}") for item in again]
    read = isinstance(judged.document, dict)
    return CaseResult(case.id, findings, latencies, first.status is not None, read, judged.failure_kind, judged.mask)


def _judge(reply: Reply, settings: Settings, profile: Profile, checks: Sequence[str]) -> Judged:
    return judge_reply(
        reply, version=settings.version, profile=profile, checks=checks, max_latency=settings.max_latency
    )


class Cases(Protocol):
    """Cases to send: a list, or a file read as it is sent (``file_cases``, ``replay_cases``); its length is
    known before the first is sent, so the cases left out are counted without being read."""

    def __len__(self) -> int: ...

    def __iter__(self) -> Iterator[Case]: ...


async def probe_with(transport: Transport, endpoint: str, cases: Cases, settings: Settings) -> ProbeReport:
    """Probe ``endpoint`` through ``transport`` (the network's, or an ASGI app's in process): at most
    ``settings.concurrency`` requests at once and ``settings.max_requests`` in all (a case checked for
    determinism costs two, a resend one). Cases are taken one at a time from ``cases``, so a large file is
    never held."""
    from verify_contract.probe._checks import wire_profile

    profile = settings.profile or wire_profile(settings.version)
    checks, skipped = runnable_checks(settings.checks, settings.max_latency)
    report = ProbeReport(
        endpoint, settings.version, profile, checks, warnings_as_errors=settings.warnings_as_errors, skipped=skipped
    )
    total = len(cases)
    cost = 2 if "probe-determinism" in checks else 1
    budget = _Budget(settings.max_requests)
    stop = _Stop()
    source = iter(cases)
    outcomes: list[tuple[int, CaseResult]] = []
    started = 0

    async def worker() -> None:
        nonlocal started
        while not stop.refused and budget.reserve(cost):
            case = next(source, None)
            if case is None:
                budget.release(cost)
                return
            index, started = started, started + 1
            result = await _probe_case(transport, endpoint, case, settings, checks, profile, stop, budget)
            outcomes.append((index, result))

    await asyncio.gather(*(worker() for _ in range(max(1, min(settings.concurrency, total)))))
    report.results = [result for _, result in sorted(outcomes, key=lambda outcome: outcome[0])]
    report.requests_sent = budget.sent
    report.resent = budget.resent
    report.left_out = total - started
    return report


def probe(endpoint: str, cases: Cases, settings: Settings = Settings()) -> ProbeReport:
    """Probe a running server at ``endpoint`` (an http or https URL)."""

    from verify_contract.probe._http1 import PlainHttpTransport, fits

    async def run() -> ProbeReport:
        if fits(endpoint):  # plain http: the probe's own client, without aiohttp's start-up and per-request cost
            async with PlainHttpTransport(settings.concurrency) as transport:
                return await probe_with(transport, endpoint, cases, settings)
        from verify_contract.probe._network import NetworkTransport  # aiohttp: the probe extra

        async with NetworkTransport(settings.concurrency) as network:
            return await probe_with(network, endpoint, cases, settings)

    return _run(run())


def _run(work: Coroutine[Any, Any, ProbeReport]) -> ProbeReport:
    """``asyncio.run(work)``, the report handed out past the main task: Python 3.11's ``asyncio.run`` formats
    that task, its result included, when it puts back the SIGINT handler (twice: a repr of every case's result,
    3 ms a thousand cases)."""
    reports: list[ProbeReport] = []

    async def main() -> None:
        reports.append(await work)

    asyncio.run(main())
    return reports[0]


async def probe_app_async(
    app: Any, cases: Cases, settings: Settings = Settings(), path: str = "/verify"
) -> ProbeReport:
    """Probe an ASGI app in this process, as a server's own tests do (no HTTP client: ``AppTransport``)."""
    from verify_contract.probe._in_process import AppTransport

    return await probe_with(AppTransport(app), f"http://app.test{path}", cases, settings)


def probe_app(app: Any, cases: Cases, settings: Settings = Settings(), path: str = "/verify") -> ProbeReport:
    """``probe_app_async`` from synchronous code (a test without an event loop)."""
    return _run(probe_app_async(app, cases, settings, path))
