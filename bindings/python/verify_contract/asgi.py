"""``VerifyContractMiddleware``: judges a resource server's own ``/verify`` replies as it serves them.

Pure ASGI (any framework: FastAPI, Starlette, a bare app), no dependency beyond this package::

    app = VerifyContractMiddleware(app)                   # observe: count and log, change nothing
    app = VerifyContractMiddleware(app, mode="enforce")   # a server's own tests: a breaking reply becomes a 500

In ``observe`` mode the client receives exactly what the app sent (each body chunk forwarded as it comes,
headers untouched); a copy of the body (up to ``max_body`` bytes) is judged by the probe's checks after the
last chunk has gone out. Findings are counted (``stats()``, and Prometheus counters when a registry is
given) and logged at most once per ``log_interval`` seconds, messages capped; a reply with findings is
judged again with the request's secrets redacted (``redact``, as the probe does), so a log line never
quotes a secret the reply echoed. In ``enforce`` mode the reply
is held until it is complete (up to ``max_body`` bytes; a longer one goes out unjudged) and a breaking one
is replaced by a 500 ``application/problem+json`` body.
"""

from __future__ import annotations

import json
import logging
import random
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable, MutableMapping
from typing import TYPE_CHECKING, Any

from verify_contract._counted import counted
from verify_contract.contract import LATEST_VERSION, Profile, cap
from verify_contract.findings import Finding
from verify_contract.probe import (
    DEFAULT_CHECKS,
    MAX_REPLY_BYTES,
    SECRET_NAMES,
    Redactor,
    Reply,
    breaking,
    judge_reply,
    problem_details,
    wire_profile,
)

if TYPE_CHECKING:
    from verify_contract.budget import FailureBudget

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

MODES = ("observe", "enforce")
LOGGER = logging.getLogger("verify_contract.asgi")


class _Counters:
    """The middleware's counts (thread-safe: a sync app's threadpool and the loop may both count)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.outcomes: Counter[str] = Counter()
        self.rules: Counter[str] = Counter()


class _PrometheusCounters:
    """The same counts as Prometheus counters in a registry the server passes (prometheus_client installed)."""

    def __init__(self, registry: Any) -> None:
        try:
            from prometheus_client import Counter as PromCounter
        except ImportError as error:
            raise ImportError("a metrics registry needs prometheus_client: pip install prometheus-client") from error
        self.replies = PromCounter(
            "verify_contract_middleware_replies",
            "Verify replies the middleware saw, by outcome (ok, breaking, unsampled, too_large, replaced).",
            ["outcome"],
            registry=registry,
        )
        self.findings = PromCounter(
            "verify_contract_middleware_findings",
            "Findings in the judged verify replies, by rule id.",
            ["rule"],
            registry=registry,
        )


class VerifyContractMiddleware:
    """Judge the replies of ``POST path`` (see the module's docstring).

    ``sample``: the share of replies judged (0 to 1); ``seed`` makes the draw reproducible. ``version`` and
    ``profile``: the contract to judge by (the latest version, the wire profile gym). ``registry``: a
    ``prometheus_client.CollectorRegistry`` to register ``verify_contract_middleware_replies_total`` and
    ``verify_contract_middleware_findings_total`` in. ``budget``: a ``verify_contract.budget.FailureBudget``
    fed every judged reply (SPEC 11: masked, or failed when it breaks the contract); its warnings and breaches
    are logged as they happen, and ``stats()["budget"]`` is its summary. It parses each judged reply once more.
    ``redact``: request members (shell patterns, any case) whose values a finding must never quote (the
    probe's ``SECRET_NAMES`` by default); a copy of the request body (up to ``max_body``) is kept for it.
    """

    def __init__(
        self,
        app: ASGIApp,
        mode: str = "observe",
        sample: float = 1.0,
        path: str = "/verify",
        *,
        version: str = LATEST_VERSION,
        profile: Profile | None = None,
        checks: tuple[str, ...] = DEFAULT_CHECKS,
        max_body: int = MAX_REPLY_BYTES,
        log_interval: float = 10.0,
        registry: Any = None,
        budget: FailureBudget | None = None,
        seed: int | None = None,
        logger: logging.Logger = LOGGER,
        redact: tuple[str, ...] = SECRET_NAMES,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"mode {mode!r}: expected one of {', '.join(MODES)}")
        if not 0.0 <= sample <= 1.0:
            raise ValueError(f"sample {sample!r}: expected a share between 0 and 1")
        self.app = app
        self.mode = mode
        self.sample = sample
        self.path = path
        self.version = version
        self.profile = profile or wire_profile(version)
        self.checks = tuple(check for check in checks if check != "probe-determinism")
        self.max_body = max_body
        self.redact = redact
        self.log_interval = log_interval
        self.logger = logger
        self._random = random.Random(seed)
        self._counters = _Counters()
        self._prometheus = _PrometheusCounters(registry) if registry is not None else None
        self.budget = budget
        self._last_log = float("-inf")
        self._suppressed = 0

    def stats(self) -> dict[str, Any]:
        """A snapshot: replies by outcome (``seen``, ``judged``, ``ok``, ``breaking``, ``unsampled``,
        ``too_large``, ``replaced``) and findings by rule id."""
        with self._counters.lock:
            outcomes = dict(self._counters.outcomes)
            rules = dict(sorted(self._counters.rules.items()))
        keys = ("seen", "judged", "ok", "breaking", "unsampled", "too_large", "replaced")
        found = {**{key: outcomes.get(key, 0) for key in keys}, "findings_by_rule": rules}
        if self.budget is not None:
            with self._counters.lock:
                found["budget"] = self.budget.summary()
        return found

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST" or scope.get("path") != self.path:
            await self.app(scope, receive, send)
            return
        self._count("seen")
        if self.sample < 1.0 and self._random.random() >= self.sample:
            self._count("unsampled")
            await self.app(scope, receive, send)
            return
        request = _RequestCopy(self.max_body)

        async def copying_receive() -> Message:
            message = await receive()
            if message["type"] == "http.request":
                request.add(message.get("body", b""))
            return message

        if self.mode == "observe":
            await self._observe(scope, copying_receive, send, request)
        else:
            await self._enforce(scope, copying_receive, send, request)

    async def _observe(self, scope: Scope, receive: Receive, send: Send, request: _RequestCopy) -> None:
        started = time.perf_counter()
        status: int | None = None
        content_type = ""
        chunks: list[bytes] = []
        size = 0

        async def observing_send(message: Message) -> None:
            nonlocal status, content_type, size
            await send(message)  # first: the client gets the app's bytes unchanged and without delay
            if message["type"] == "http.response.start":
                status = message["status"]
                content_type = _header(message.get("headers", ()), b"content-type")
            elif message["type"] == "http.response.body":
                body = message.get("body", b"")
                if size <= self.max_body:
                    chunks.append(body)
                size += len(body)
                if not message.get("more_body", False):
                    if size > self.max_body:
                        self._count("too_large")
                        return
                    reply = Reply(status, content_type, b"".join(chunks), time.perf_counter() - started)
                    self._judge(reply, request)

        await self.app(scope, receive, observing_send)

    async def _enforce(self, scope: Scope, receive: Receive, send: Send, request: _RequestCopy) -> None:
        started = time.perf_counter()
        held: list[Message] = []
        start: Message | None = None
        size = 0
        passed = False  # a reply over max_body goes out unjudged, as it comes

        async def holding_send(message: Message) -> None:
            nonlocal start, size, passed
            if message["type"] == "http.response.start":
                start = message
                return
            if passed or message["type"] != "http.response.body" or start is None:
                await send(message)
                return
            held.append(message)
            size += len(message.get("body", b""))
            if size > self.max_body:
                self._count("too_large")
                passed = True
                await send(start)
                for part in held:
                    await send(part)
                held.clear()
                return
            if message.get("more_body", False):
                return
            body = b"".join(part.get("body", b"") for part in held)
            content_type = _header(start.get("headers", ()), b"content-type")
            findings = self._judge(Reply(start["status"], content_type, body, time.perf_counter() - started), request)
            if breaking(findings):
                self._count("replaced")
                problem = json.dumps(problem_details(findings)).encode("utf-8")
                headers = [(b"content-type", b"application/problem+json"), (b"content-length", b"%d" % len(problem))]
                await send({"type": "http.response.start", "status": 500, "headers": headers})
                await send({"type": "http.response.body", "body": problem, "more_body": False})
                return
            await send(start)
            for part in held:
                await send(part)

        await self.app(scope, receive, holding_send)

    def _judge(self, reply: Reply, request: _RequestCopy) -> list[Finding]:
        try:
            judged = judge_reply(
                reply, version=self.version, profile=self.profile, checks=self.checks, need_values=False
            )
            if judged.findings:  # a clean reply (the usual one) costs no parse of its request
                redactor = Redactor.for_request(request.document(), self.redact)
                if redactor:
                    judged = judge_reply(
                        redactor.reply(reply),
                        version=self.version,
                        profile=self.profile,
                        checks=self.checks,
                        need_values=False,
                    )
        except Exception:  # the server's reply must never fail because its judge did
            self.logger.exception("verify-contract middleware: judging a reply failed")
            return []
        findings = list(judged.findings)
        broke = breaking(findings)
        with self._counters.lock:
            self._counters.outcomes["judged"] += 1
            self._counters.outcomes["breaking" if broke else "ok"] += 1
            self._counters.rules.update(item.rule for item in findings)
        if self._prometheus is not None:
            self._prometheus.replies.labels("breaking" if broke else "ok").inc()
            for item in findings:
                self._prometheus.findings.labels(item.rule).inc()
        if self.budget is not None:
            self._budget_observe(reply.body, broke)
        if findings:
            self._log(findings)
        return findings

    def _budget_observe(self, body: bytes, broke: bool) -> None:
        """The reply in the failure budget; a warning or a breach is logged once, when it happens."""
        import orjson

        try:
            document = orjson.loads(body)
        except orjson.JSONDecodeError:
            document = None  # not one JSON document: failed, as a consumer refuses it
        assert self.budget is not None
        with self._counters.lock:
            events = self.budget.observe(document, valid=not broke)
        for event in events:
            self.logger.warning("verify-contract middleware: failure budget %s: %s", event.level, event.message)

    def _count(self, outcome: str) -> None:
        with self._counters.lock:
            self._counters.outcomes[outcome] += 1
        if self._prometheus is not None and outcome not in ("seen", "judged"):
            self._prometheus.replies.labels(outcome).inc()

    def _log(self, findings: list[Finding]) -> None:
        """One log line per ``log_interval`` seconds at most, saying how many were held back meanwhile."""
        now = time.monotonic()
        with self._counters.lock:
            if now - self._last_log < self.log_interval:
                self._suppressed += 1
                return
            self._last_log, suppressed, self._suppressed = now, self._suppressed, 0
        shown = "; ".join(f"{item.rule}: {cap(item.message, 120)}" for item in findings[:3])
        more = f" (+{len(findings) - 3} more)" if len(findings) > 3 else ""
        held_back = (
            f"; {counted(suppressed, 'reply', 'replies')} with findings not logged since the last line"
            if suppressed
            else ""
        )
        self.logger.warning("verify-contract: a %s reply has findings: %s%s%s", self.path, shown, more, held_back)


class _RequestCopy:
    """The request body as the app read it, up to a bound: the secrets a finding must not quote are in it."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._parts: list[bytes] = []
        self._size = 0

    def add(self, part: bytes) -> None:
        self._size += len(part)
        if self._size <= self._limit:
            self._parts.append(part)
        else:
            self._parts.clear()  # over the bound: no copy is kept, and nothing is known to redact

    def document(self) -> Any:
        if not self._parts:
            return None
        try:
            return json.loads(b"".join(self._parts))
        except (ValueError, RecursionError):
            return None


def _header(headers: Any, name: bytes) -> str:
    for key, value in headers:
        if key.lower() == name:
            text: str = value.decode("latin-1")
            return text
    return ""
