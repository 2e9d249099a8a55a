"""The probe's own HTTP/1.1 client (verify_contract.probe._http1) against a scripted server on 127.0.0.1 that
writes each reply byte for byte: the framings uvicorn never sends (chunk extensions and trailers, a body that
runs to the connection's end, interim 1xx replies), the connection kept or not, and each way a reply can fail
mapped to the error the runner acts on (a drop before any byte is the only one it sends again)."""

from __future__ import annotations

import asyncio
import gzip
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from verify_contract.probe import Case, Settings
from verify_contract.probe._http1 import MAX_HEAD_BYTES, PlainHttpTransport, fits
from verify_contract.probe._runner import probe_with
from verify_contract.probe._transport import BrokenReply, DroppedBeforeReply, TransportError


@dataclass(frozen=True)
class Scripted:
    data: bytes
    close: bool = False
    """Close the connection once ``data`` is written."""


def sized(body: bytes, *headers: str, status: str = "200 OK") -> bytes:
    lines = "".join(f"{header}\r\n" for header in ("Content-Type: application/json", *headers))
    return f"HTTP/1.1 {status}\r\n{lines}Content-Length: {len(body)}\r\n\r\n".encode() + body


class ScriptedServer:
    """Answers the n-th request with the n-th script, whatever connection it came on; counts the connections."""

    def __init__(self, replies: list[Scripted]) -> None:
        self.replies = replies
        self.requests = 0
        self.connections = 0
        self.handlers: list[asyncio.Task[None] | None] = []

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        self.handlers.append(asyncio.current_task())  # type: ignore[arg-type]
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = re.search(rb"(?i)\r\ncontent-length: *(\d+)", head)
                assert length is not None and head.startswith(b"POST /verify HTTP/1.1\r\n"), head
                await reader.readexactly(int(length.group(1)))
                reply = self.replies[self.requests]
                self.requests += 1
                writer.write(reply.data)
                await writer.drain()
                if reply.close:
                    return
        except asyncio.IncompleteReadError:
            return
        finally:
            writer.close()

    async def finished(self, listening: asyncio.Server) -> None:
        """Every connection's handler has returned (the client closed its end) and the socket is closed."""
        await asyncio.gather(*(task for task in self.handlers if task is not None))
        listening.close()
        await listening.wait_closed()


Outcome = tuple[int, str, bytes] | TransportError


def exchange(
    replies: list[Scripted], requests: int = 1, host: str = "127.0.0.1"
) -> tuple[list[Outcome], ScriptedServer]:
    """``requests`` posts one after another through one transport: each reply's status, type and body, or
    the transport's error."""
    server = ScriptedServer(replies)

    async def run() -> list[Outcome]:
        listening = await asyncio.start_server(server.handle, "127.0.0.1", 0)
        port = listening.sockets[0].getsockname()[1]
        outcomes: list[Outcome] = []
        async with PlainHttpTransport(4) as transport:
            for _ in range(requests):
                try:
                    url = f"http://{host}:{port}/verify"
                    async with transport.post(url, b"{}", {"content-type": "application/json"}) as answer:
                        body = b"".join([part async for part in answer.chunks()])
                        outcomes.append((answer.status, answer.content_type, body))
                except TransportError as error:
                    outcomes.append(error)
        await server.finished(listening)
        return outcomes

    return asyncio.run(run()), server


def test_a_kept_alive_connection_carries_the_next_request() -> None:
    outcomes, server = exchange([Scripted(sized(b'{"reward": 1}')), Scripted(sized(b'{"reward": 0}'))], 2)
    assert outcomes == [(200, "application/json", b'{"reward": 1}'), (200, "application/json", b'{"reward": 0}')]
    assert server.connections == 1


def test_a_host_name_is_resolved_to_the_address_that_answers() -> None:
    """localhost may resolve to ::1 first, where the server (on 127.0.0.1) is not: the next address is tried."""
    outcomes, server = exchange([Scripted(sized(b"{}", "Connection: close")), Scripted(sized(b"{}"))], 2, "localhost")
    assert outcomes == [(200, "application/json", b"{}")] * 2 and server.connections == 2


def test_a_chunked_body_with_extensions_and_trailers_is_read_whole_and_the_connection_kept() -> None:
    chunked = (
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        b'4;name=value\r\n{"re\r\nA\r\nward": 1.0\r\n1\r\n}\r\n0\r\nX-Checksum: none\r\n\r\n'
    )
    outcomes, server = exchange([Scripted(chunked), Scripted(sized(b"{}"))], 2)
    assert outcomes == [(200, "application/json", b'{"reward": 1.0}'), (200, "application/json", b"{}")]
    assert server.connections == 1


def test_interim_replies_are_skipped() -> None:
    interim = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>; rel=preload\r\n\r\n"
    outcomes, _ = exchange([Scripted(interim + sized(b"{}", status="201 Created"))])
    assert outcomes == [(201, "application/json", b"{}")]


def test_a_body_without_a_length_runs_to_the_connections_end_and_the_connection_is_not_reused() -> None:
    to_the_end = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n" + b'{"reward": 1}'
    outcomes, server = exchange([Scripted(to_the_end, close=True), Scripted(sized(b"{}"))], 2)
    assert outcomes == [(200, "application/json", b'{"reward": 1}'), (200, "application/json", b"{}")]
    assert server.connections == 2


@pytest.mark.parametrize(
    "head", ["Connection: close", "Connection: keep-alive, close"], ids=["close", "close-in-a-list"]
)
def test_a_reply_that_says_close_is_not_followed_on_its_connection(head: str) -> None:
    outcomes, server = exchange([Scripted(sized(b"{}", head)), Scripted(sized(b"{}"))], 2)
    assert [outcome[0] for outcome in outcomes if isinstance(outcome, tuple)] == [200, 200]
    assert server.connections == 2


def test_an_http_1_0_reply_keeps_the_connection_only_when_it_says_so() -> None:
    old = b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\n{}"
    kept = b"HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\n{}"
    _, closed_server = exchange([Scripted(old), Scripted(old)], 2)
    _, kept_server = exchange([Scripted(kept), Scripted(kept)], 2)
    assert (closed_server.connections, kept_server.connections) == (2, 1)


def test_a_drop_before_any_byte_is_the_one_error_the_runner_sends_again() -> None:
    [outcome], _ = exchange([Scripted(b"", close=True)])
    assert isinstance(outcome, DroppedBeforeReply)


@pytest.mark.parametrize(
    ("data", "error", "said"),
    [
        (b"HTTP/1.1 200 OK\r\nContent-Le", TransportError, "mid-way through the reply's head"),
        (b'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"reward"', BrokenReply, "with 91 of 100 body bytes to come"),
        (
            b'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n9\r\n{"reward"\r\n',
            BrokenReply,
            "before a chunk's size",
        ),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", BrokenReply, "a malformed chunk size"),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0x2\r\n{}\r\n", BrokenReply, "a malformed chunk size"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 2, 3\r\n\r\n{}", TransportError, "conflicting Content-Length"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: -2\r\n\r\n{}", TransportError, "a malformed Content-Length"),
        (b"SMTP ready\r\n\r\n", TransportError, "not an HTTP/1.x status line"),
        (b"HTTP/1.1 200 OK\r\n no-name\r\n\r\n", TransportError, "a malformed header line"),
        (b"HTTP/1.1 200 OK\r\n" + b"X-Long: " + b"x" * MAX_HEAD_BYTES, TransportError, "head is longer than"),
        # Found by test_http1_fuzz: read leniently, each framed a body h11 refuses (the first hid its length).
        (b"HTTP/1.1 200 OK\r\nX-A: 1\nContent-Length: 2\r\n\r\n{}junk", TransportError, "a bare CR or LF"),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\n{}\r\n0\r\n\r\n", BrokenReply, "not ended by CRLF"),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n 2\r\n{}\r\n0\r\n\r\n", BrokenReply, "malformed chunk"),
    ],
    ids=[
        "cut-head",
        "cut-body",
        "cut-chunk",
        "bad-chunk",
        "hex-prefixed-chunk",
        "two-lengths",
        "bad-length",
        "not-http",
        "bad-header",
        "long-head",
        "header-hidden-by-bare-lf",
        "chunk-size-ended-by-bare-lf",
        "chunk-size-after-a-space",
    ],
)
def test_each_broken_reply_is_its_error_never_a_resend(data: bytes, error: type[TransportError], said: str) -> None:
    [outcome], _ = exchange([Scripted(data, close=True)])
    assert type(outcome) is error and said in str(outcome), repr(outcome)


def test_the_runner_judges_a_reply_that_came_chunked_and_gzipped() -> None:
    """Through ``probe_with``, as the command sends: a gzipped chunked reply is inflated and judged clean."""
    body = gzip.compress(
        json.dumps({"responses_create_params": {"input": []}, "response": {"output": []}, "reward": 1.0}).encode()
    )
    chunked = (
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n"
        + b"".join(b"%x\r\n%s\r\n" % (len(body[i : i + 7]), body[i : i + 7]) for i in range(0, len(body), 7))
        + b"0\r\n\r\n"
    )
    server = ScriptedServer([Scripted(chunked)])

    async def run() -> list[str]:
        listening = await asyncio.start_server(server.handle, "127.0.0.1", 0)
        port = listening.sockets[0].getsockname()[1]
        async with PlainHttpTransport(1) as transport:
            report = await probe_with(transport, f"http://127.0.0.1:{port}/verify", [Case("one", {})], Settings())
        await server.finished(listening)
        return [item.message for item in report.findings]

    assert asyncio.run(run()) == []


@pytest.mark.parametrize(
    ("url", "environment", "fitting"),
    [
        ("http://127.0.0.1:8000/verify", {}, True),
        ("http://localhost/verify?x=1", {}, True),
        ("https://127.0.0.1:8000/verify", {}, False),
        ("http://user:secret@127.0.0.1:8000/verify", {}, False),
        ("http://127.0.0.1:8000/vérifier", {}, False),
        ("http://127.0.0.1:99999/verify", {}, False),
        ("http://127.0.0.1:8000/verify", {"HTTP_PROXY": "http://proxy:3128"}, False),
        ("http://127.0.0.1:8000/verify", {"https_proxy": "http://proxy:3128"}, False),
        ("http://127.0.0.1:8000/verify", {"NO_PROXY": "*"}, True),
        ("http://127.0.0.1:8000/verify", {"NETRC": "netrc"}, False),
    ],
)
def test_plain_http_without_proxy_or_credentials_is_the_own_clients(
    url: str, environment: dict[str, str], fitting: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """aiohttp keeps https, credentials in the URL, and whatever its ``trust_env`` would find: a proxy
    variable or a netrc file."""
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.netrc
    for name in list(os.environ):
        if name.lower().endswith("_proxy") or name == "NETRC":
            monkeypatch.delenv(name)
    (tmp_path / "netrc").write_text("machine 127.0.0.1 login a password b\n")
    for name, value in environment.items():
        monkeypatch.setenv(name, str(tmp_path / value) if name == "NETRC" else value)
    assert fits(url) is fitting
