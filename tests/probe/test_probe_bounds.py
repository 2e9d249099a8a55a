"""The probe's bounds against a hostile server (tests/hostile_resource_server.py, a real uvicorn process),
each attack at the size that broke it, with the numbers asserted: the probe's peak RSS (a subprocess's
own ``ru_maxrss``), the requests the server received, the bytes read, the exit code. And the secrets a
request carries never reach a report, however the server echoes them.

Before these bounds: a 500 MB body took 1.1 GB of RSS, a 1 MB gzip bomb and an endless body were killed
past 1 GB, ``--timeout 2`` against a byte a second gave a 39 s p50, ``--max-requests 5`` against resets
mid-body sent 15 requests and exited 4, a 289 MB ``--replay`` file with ``--max-requests 10`` used 651 MB,
and ``sk-SECRET123`` came back in text, JSON and JUnit.
"""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from verify_contract.cli._exit_codes import EXIT_INVALID, EXIT_OK, EXIT_UNREACHABLE
from verify_contract.probe import Case, ProbeReport, Settings, file_cases, format_report, probe, probe_with
from verify_contract.probe._checks import MAX_REPLY_BYTES
from verify_contract.probe._redact import MIN_SECRET_LENGTH, REDACTED

from live_servers import uvicorn_server

TESTS = Path(__file__).resolve().parents[1]
MIB = 1024 * 1024
RSS_ALLOWANCE = 4 * MAX_REPLY_BYTES
"""An attack may cost the probe at most this much memory over a plain run: the cap's body, a copy of it,
and the inflater's window; never the attack's size (500 MB to 1 GB)."""

# Runs the command in a fresh interpreter and reports its own peak RSS (KiB on Linux) on the last line.
_MEASURED = (
    "import resource, sys\n"
    "from verify_contract.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "sys.stdout.flush()\n"
    "print('max-rss-kib', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
    "sys.exit(code)\n"
)


@dataclass(frozen=True)
class Run:
    code: int
    out: str
    err: str
    rss: int
    """Peak resident memory of the probe's process, in bytes."""


def measured_probe(*arguments: str) -> Run:
    done = subprocess.run(
        [sys.executable, "-c", _MEASURED, "probe", *arguments], capture_output=True, text=True, timeout=300, check=False
    )
    rss = re.search(r"max-rss-kib (\d+)", done.stderr)
    assert rss is not None, done.stderr
    return Run(done.returncode, done.stdout, done.stderr, int(rss.group(1)) * 1024)


def attack(name: str, **extra: Any) -> dict[str, Any]:
    return {"attack": name, "responses_create_params": {"input": []}, "response": {"output": []}, **extra}


def write_cases(path: Path, cases: dict[str, dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps({"id": name, "request": request}) + "\n" for name, request in cases.items()))
    return path


@pytest.fixture(scope="module")
def hostile() -> Iterator[str]:
    with uvicorn_server("hostile_resource_server:app", TESTS) as url:
        yield url


def received(url: str) -> int:
    count: int = httpx.get(f"{url}/count", timeout=10).json()["verify"]
    return count


@pytest.fixture(scope="module")
def baseline_rss(hostile: str, tmp_path_factory: pytest.TempPathFactory) -> int:
    """The probe's peak RSS on one small valid reply: what every attack is measured against."""
    path = write_cases(tmp_path_factory.mktemp("baseline") / "cases.jsonl", {"fine": attack("fine")})
    run = measured_probe(hostile, "--cases", str(path), "--format", "json")
    assert run.code == EXIT_OK, run.err
    return run.rss


@pytest.mark.parametrize("name", ["huge", "bomb", "endless"])
def test_a_large_reply_is_cut_at_the_cap_in_bounded_memory(
    name: str, hostile: str, baseline_rss: int, tmp_path: Path
) -> None:
    """500 MB, a gzip bomb of 1 GiB and an endless chunked body: each read to 16 MiB (after inflating),
    then cut; one finding of the case, not a crash."""
    path = write_cases(tmp_path / "cases.jsonl", {name: attack(name)})
    run = measured_probe(hostile, "--cases", str(path), "--format", "json")
    report = json.loads(run.out)
    assert run.code == EXIT_INVALID, run.err
    [finding] = report["findings"]
    assert finding["check"] == "probe-http-status" and finding["case"] == name
    assert f"longer than the cap of {MAX_REPLY_BYTES:,} bytes" in finding["message"]
    assert f"({MAX_REPLY_BYTES:,} bytes read)" in finding["message"]
    assert report["statistics"]["requests"] == 1 and report["statistics"]["replies"] == 1
    assert run.rss - baseline_rss < RSS_ALLOWANCE, f"{name}: {run.rss / MIB:.0f} MiB against {baseline_rss / MIB:.0f}"


def test_the_cap_is_an_option(hostile: str, tmp_path: Path) -> None:
    path = write_cases(tmp_path / "cases.jsonl", {"huge": attack("huge")})
    run = measured_probe(hostile, "--cases", str(path), "--format", "json", "--max-reply-bytes", "1000")
    [finding] = json.loads(run.out)["findings"]
    assert run.code == EXIT_INVALID and "(1,000 bytes read)" in finding["message"]


def test_the_timeout_bounds_the_whole_request(hostile: str, tmp_path: Path) -> None:
    """A byte a second: every read comes within --timeout 2, but the request as a whole does not. The probe
    stops at the deadline with the bytes read so far, and does not send it again."""
    before = received(hostile)
    path = write_cases(tmp_path / "cases.jsonl", {"drip": attack("drip")})
    run = measured_probe(hostile, "--cases", str(path), "--format", "json", "--timeout", "2")
    report = json.loads(run.out)
    assert run.code == EXIT_INVALID, run.err
    [finding] = report["findings"]
    assert "the deadline of --timeout 2 s passed mid-body" in finding["message"]
    read = int(re.search(r"\(([\d,]+) bytes read\)", finding["message"]).group(1).replace(",", ""))  # type: ignore[union-attr]
    assert 0 < read <= 4  # a byte a second for 2 s; without the deadline, the whole reply (120 bytes, 2 min)
    assert report["statistics"]["latency_ms"]["p50"] < 10_000  # was 39 s: per read, multiplied by resends
    assert received(hostile) - before == report["statistics"]["requests"] == 1


def test_a_reply_cut_mid_body_is_a_finding_sent_once(hostile: str, tmp_path: Path) -> None:
    """Resets after the headers: each case one request (no resend, since bytes of the reply came), counted
    against --max-requests, and a finding of its case: exit 1, not 4 "unreachable"."""
    before = received(hostile)
    path = write_cases(tmp_path / "cases.jsonl", {f"reset-{n}": attack("reset") for n in range(8)})
    run = measured_probe(hostile, "--cases", str(path), "--format", "json", "--max-requests", "5")
    report = json.loads(run.out)
    stats = report["statistics"]
    assert run.code == EXIT_INVALID, run.err
    assert received(hostile) - before == stats["requests"] == 5  # was 15
    assert (stats["resent"], stats["replies"], stats["left_out"], stats["unanswered"]) == (0, 5, 3, 0)
    assert not report["unreachable"]
    assert len(report["findings"]) == 5
    assert all("the connection broke mid-body" in item["message"] for item in report["findings"])


@pytest.mark.parametrize(("max_requests", "resent"), [(2, 1), (1, 0)])
def test_a_resend_is_counted_against_max_requests(max_requests: int, resent: int, tmp_path: Path) -> None:
    """The server dies before any byte of its reply: the request is sent again only if --max-requests has
    a request left for it, and the resend is counted; nothing came back, so the run is "unreachable"."""
    path = write_cases(tmp_path / "cases.jsonl", {f"vanish-{n}": attack("vanish") for n in range(3)})
    with uvicorn_server("hostile_resource_server:app", TESTS) as url:
        run = measured_probe(
            url, "--cases", str(path), "--format", "json", "--concurrency", "1", "--max-requests", str(max_requests)
        )
    report = json.loads(run.out)
    stats = report["statistics"]
    assert run.code == EXIT_UNREACHABLE, run.err
    assert (stats["requests"], stats["resent"], stats["replies"], stats["left_out"]) == (max_requests, resent, 0, 2)
    [finding] = report["findings"]
    if resent:
        assert "cannot connect" in finding["message"]  # the resend found the server gone
    else:
        assert (
            "dropped before any byte of the reply" in finding["message"]
            and "--max-requests is spent" in finding["message"]
        )


def test_a_large_replay_file_is_streamed(hostile: str, baseline_rss: int, tmp_path: Path) -> None:
    """A 289 MB rollout file with --max-requests 10: read as sent (10 rows parsed for sending, every row
    checked once), memory independent of its size; with --n, a reservoir of 20 line numbers."""
    rollouts = tmp_path / "rollouts.jsonl"
    row = {**attack("fine"), "padding": "p" * 9_900, "reward": 1.0}
    line = json.dumps(row) + "\n"
    rows = 289 * 1_000_000 // len(line)
    with rollouts.open("w") as handle:
        for _ in range(rows // 100):
            handle.write(line * 100)
    assert rollouts.stat().st_size > 288_000_000
    written = rows // 100 * 100
    for sample in ((), ("--n", "20")):
        before = received(hostile)
        run = measured_probe(
            hostile, "--replay", str(rollouts), *sample, "--max-requests", "10", "--format", "json", "--timeout", "60"
        )
        stats = json.loads(run.out)["statistics"]
        assert run.code == EXIT_OK, run.err
        assert received(hostile) - before == stats["requests"] == 10
        assert stats["left_out"] == (10 if sample else written - 10)
        assert run.rss - baseline_rss < 64 * MIB, f"{run.rss / MIB:.0f} MiB against {baseline_rss / MIB:.0f}"


SECRETS = {
    "api_key": "sk-SECRET123",
    "Authorization": "Bearer tok-9f8e7d6c5b",
    "user_password": 'hunter2/ünïcode"quoted',
    "ssn": "123-45-6789",  # not a secret-looking name: redacted because --redact ssn names it
}
ECHOES = (
    "echo-400",
    "echo-prefix",
    "echo-batch",
    "echo-repr",
    "echo-escaped",
    "echo-encoded",
    "echo-header",
    "echo-fields",
    "echo-nested",
)


def _secret_request(name: str) -> dict[str, Any]:
    """The secrets first: a server's echo quotes them within the 80 characters a status finding shows."""
    return {**SECRETS, "session": {"refresh_token": "rt-0123456789abcdef"}, **attack(name)}


def _leaks(text: str) -> list[str]:
    """Every secret, or a piece of one of MIN_SECRET_LENGTH + 2 characters or more, found in ``text``."""
    secrets = [*SECRETS.values(), "rt-0123456789abcdef"]
    size = MIN_SECRET_LENGTH + 2
    pieces = {secret[start : start + size] for secret in secrets for start in range(len(secret) - size + 1)}
    return sorted(piece for piece in pieces if piece in text)


def _by_case(report: dict[str, Any]) -> dict[str, str]:
    messages: dict[str, str] = {}
    for item in report["findings"]:
        messages[item["case"]] = messages.get(item["case"], "") + item["message"] + json.dumps(item.get("context"))
    return messages


def test_secrets_never_reach_the_report(hostile: str, tmp_path: Path) -> None:
    """The server echoes the request every way it can; no format shows a secret, or a piece of one (a
    quote cut at its cap included), and each echo's finding shows where a secret was."""
    path = write_cases(tmp_path / "cases.jsonl", {name: _secret_request(name) for name in ECHOES})
    outputs = {}
    for output_format in ("text", "json", "junit"):
        run = measured_probe(hostile, "--cases", str(path), "--format", output_format, "--redact", "SSN")
        assert run.code == EXIT_INVALID, run.err
        outputs[output_format] = run.out
        assert _leaks(run.out + run.err) == [], output_format
    by_case = _by_case(json.loads(outputs["json"]))
    # echo-prefix: the 80 characters quoted end 6 into the secret, so 6 of "[REDACTED]" show
    assert {name for name, text in by_case.items() if REDACTED[:6] in text} == set(ECHOES)
    assert (
        REDACTED in outputs["text"]
        and REDACTED in ElementTree.tostring(ElementTree.fromstring(outputs["junit"])).decode()
    )


def test_without_redaction_the_echoes_would_leak(hostile: str, tmp_path: Path) -> None:
    """The attack is real: with no name to redact, every echo puts a secret (or a piece) in the report."""
    path = write_cases(tmp_path / "cases.jsonl", {name: _secret_request(name) for name in ECHOES})
    report = probe(f"{hostile}/verify", file_cases(path), Settings(redact=()))
    by_case = _by_case(json.loads(format_report(report, "json")))
    assert {name for name, text in by_case.items() if _leaks(text)} == set(ECHOES)
    for output_format in ("text", "junit"):
        assert _leaks(format_report(report, output_format)), output_format


def _probe_through_aiohttp(endpoint: str, cases: list[Case], settings: Settings) -> ProbeReport:
    """``probe`` through aiohttp's transport, which https URLs and proxies take (plain http takes the probe's own)."""
    from verify_contract.probe._network import NetworkTransport

    async def run() -> ProbeReport:
        async with NetworkTransport(settings.concurrency) as transport:
            return await probe_with(transport, endpoint, cases, settings)

    return asyncio.run(run())


@pytest.mark.parametrize("client", [probe, _probe_through_aiohttp], ids=["own-client", "aiohttp"])
@pytest.mark.parametrize(("cases", "concurrency"), [(200, 50), (30, 1)])
def test_the_pool_holds_at_most_concurrency_connections(
    cases: int,
    concurrency: int,
    client: Callable[[str, list[Case], Settings], ProbeReport],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Against a server that answers after a pace (tests/paced_resource_server.py counts the requests and the
    client ports it saw), N requests at concurrency C reuse C kept-alive connections: at most C opened, so the
    run takes about ceil(N / C) paces. httpx's pool opened ~930 connections for 1,000 requests at 500 (and
    took 135 times the ideal: benchmarks/probe_concurrency.py measures the time; this asserts the counts)."""
    monkeypatch.setenv("PACE_SECONDS", "0.2")
    request = attack("fine")
    settings = Settings(checks=("probe-http-status", "probe-contract"), concurrency=concurrency, timeout=60)
    with uvicorn_server("paced_resource_server:app", TESTS, ready_path="/count") as url:
        report = client(f"{url}/verify", [Case(f"case-{n}", request) for n in range(cases)], settings)
        seen = httpx.get(f"{url}/count", timeout=10).json()
    stats = report.statistics()
    assert report.ok and stats["requests"] == stats["replies"] == cases, stats
    assert seen["requests"] == cases
    assert seen["connections"] <= concurrency, f"{seen['connections']} connections for --concurrency {concurrency}"
    assert seen["connections"] > concurrency // 2  # the requests did go out C at a time, not one by one
