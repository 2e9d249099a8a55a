"""The probe's own HTTP/1.1 client for a plain ``http://`` endpoint, on asyncio alone.

Why not aiohttp here: its import alone is 0.2-0.3 s of the command's start-up, before the first request can go
out, and its machinery costs about 0.3 ms of CPU a request on the one event loop that also judges the replies
(1,000 requests 500 at a time against a 0.2 s server: 0.8 s of CPU with aiohttp's import, 0.3 s like this).
aiohttp stays the transport of ``https://`` URLs, of URLs with credentials, and whenever the environment
names a proxy or a netrc file (``_network``): this client knows none of that.

What it does: one ``POST`` a connection at a time, kept alive in a pool of at most ``concurrency``
connections; the reply's head bounded (``MAX_HEAD_BYTES``), 1xx replies skipped, the body framed by
``Content-Length``, chunked coding, or the connection's end, and handed on as it comes, still content-coded
(the probe inflates it under its cap). A socket's reading pauses while more than ``READ_AHEAD`` bytes wait, so
a huge body is never held. A connection whose reply was not read to its end is closed, never reused. A bare
CR or LF in the head or in a chunk's size line is refused: the framing is held to h11's on the same bytes by
``tests/probe/test_http1_fuzz.py``.
"""

from __future__ import annotations

import asyncio
import os
import socket
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from types import TracebackType
from urllib.parse import urlsplit

from verify_contract.probe._transport import BrokenReply, CannotConnect, DroppedBeforeReply, TransportError

MAX_HEAD_BYTES = 64 * 1024
"""The most a reply's status line and headers may take (aiohttp allows 8 KiB a line)."""
READ_AHEAD = 256 * 1024
"""Bytes received and not yet read by the probe past which the socket's reading pauses."""
MAX_CHUNK_LINE = 4096
"""The longest chunk-size line (with its extensions) or trailer line accepted."""
RESOLVED_SECONDS = 10.0
"""How long a host name's addresses are reused before it is resolved again (as aiohttp caches them)."""
USER_AGENT = "verify-contract-probe"
_NO_BODY_STATUSES = frozenset({204, 304})
_HEX_DIGITS = b"0123456789abcdefABCDEF"


def fits(url: str) -> bool:
    """Whether this client can send to ``url`` as aiohttp would: plain http, no credentials in the URL, a URL
    of visible ASCII (aiohttp would percent-encode the rest), and nothing in the environment that aiohttp
    would apply (a proxy variable, a netrc file)."""
    parts = urlsplit(url)
    if parts.scheme.lower() != "http" or "@" in parts.netloc or not parts.hostname:
        return False
    if not url.isascii() or any(character <= " " or character == "\x7f" for character in url):
        return False
    try:
        parts.port  # noqa: B018 (raises on a port out of range, as aiohttp would refuse it)
    except ValueError:
        return False
    return not environment_applies()


def environment_applies() -> bool:
    """Whether aiohttp's ``trust_env`` would find anything: a ``*_proxy`` variable or a netrc file."""
    if any(name.lower().endswith("_proxy") and name.lower() != "no_proxy" for name in os.environ):
        return True
    netrc = os.environ.get("NETRC") or os.path.join(os.path.expanduser("~"), ".netrc")
    return os.path.exists(netrc)


class _Target:
    """The parts of the endpoint's URL a request needs, worked out once."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.host = parts.hostname or ""
        self.port = parts.port or 80
        path = parts.path or "/"
        self.head = (
            f"POST {path}{'?' + parts.query if parts.query else ''} HTTP/1.1\r\nHost: {parts.netloc}\r\n"
            f"User-Agent: {USER_AGENT}\r\nAccept: */*\r\n"
        )


class _NoByte(Exception):
    """The connection ended before any byte of the reply."""


class _Connection(asyncio.Protocol):
    """One kept-alive connection: what it received waits in ``buffer`` for the reader."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.ended = False
        self.error: BaseException | None = None
        self._waiter: asyncio.Future[None] | None = None
        self._paused = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if len(self.buffer) > READ_AHEAD and not self._paused and self.transport is not None:
            self._paused = True
            self.transport.pause_reading()
        self._wake()

    def eof_received(self) -> bool:
        self.ended = True
        self._wake()
        return False

    def connection_lost(self, error: BaseException | None) -> None:
        self.ended = True
        self.error = error
        self._wake()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def more(self) -> bool:
        """Wait for more bytes; False when the connection ended instead."""
        if self.ended:
            return False
        if self._paused and self.transport is not None:
            self._paused = False
            self.transport.resume_reading()
        self._waiter = asyncio.get_running_loop().create_future()
        try:
            await self._waiter
        finally:
            self._waiter = None
        return bool(self.buffer) or not self.ended

    def take(self, count: int) -> bytes:
        if count >= len(self.buffer):
            data = bytes(self.buffer)
            self.buffer.clear()
            return data
        data = bytes(self.buffer[:count])
        del self.buffer[:count]
        return data

    @property
    def usable(self) -> bool:
        """Idle, still open, and with nothing unasked-for waiting in it."""
        return not self.ended and not self.buffer and self.transport is not None and not self.transport.is_closing()

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()

    def why_ended(self) -> str:
        if self.error is None:
            return "the server closed the connection"
        return f"{type(self.error).__name__}: {self.error}"


class _Answer:
    """A reply whose head has come; ``chunks`` reads its body as framed."""

    def __init__(self, connection: _Connection, status: int, headers: dict[str, str], keep_alive: bool) -> None:
        self._connection = connection
        self.status = status
        self.content_type = headers.get("content-type", "")
        self.content_encoding = headers.get("content-encoding", "")
        self.complete = False
        self.reusable = keep_alive
        self._length: int | None = None
        self._chunked = False
        coding = headers.get("transfer-encoding")
        if status in _NO_BODY_STATUSES or status < 200:
            self._length = 0
        elif coding is not None:
            # RFC 9112 6.3: chunked last frames the body; any other coding runs to the connection's end.
            self._chunked = coding.rsplit(",", 1)[-1].strip().lower() == "chunked"
            self.reusable = self.reusable and self._chunked
        elif "content-length" in headers:
            self._length = _content_length(headers["content-length"])
        else:
            self.reusable = False

    async def chunks(self) -> AsyncIterator[bytes]:
        if self._chunked:
            async for part in self._chunked_body():
                yield part
        elif self._length is not None:
            async for part in self._sized_body(self._length):
                yield part
        else:
            async for part in self._body_to_the_end():
                yield part
        self.complete = True

    async def _sized_body(self, length: int) -> AsyncIterator[bytes]:
        connection = self._connection
        left = length
        while left:
            if not connection.buffer and not await connection.more():
                raise BrokenReply(f"{connection.why_ended()} with {left:,} of {length:,} body bytes to come")
            part = connection.take(left)
            left -= len(part)
            yield part

    async def _body_to_the_end(self) -> AsyncIterator[bytes]:
        connection = self._connection
        while connection.buffer or await connection.more():
            if connection.buffer:
                yield connection.take(len(connection.buffer))
        if connection.error is not None:
            raise BrokenReply(connection.why_ended())

    async def _chunked_body(self) -> AsyncIterator[bytes]:
        connection = self._connection
        while True:
            line = await _line(connection, "a chunk's size")
            size_text = line.split(b";", 1)[0].rstrip(b" \t")  # OWS after the size, BWS before ";", none before
            size = int(size_text, 16) if size_text and not size_text.strip(_HEX_DIGITS) else -1  # no 0x, no _
            if size < 0:
                raise BrokenReply(f"a malformed chunk size {size_text[:40]!r}")
            if size == 0:
                while await _line(connection, "the trailers", bare_lf=True):
                    pass
                return
            async for part in self._sized_body(size):
                yield part
            if await _line(connection, "a chunk's end"):
                raise BrokenReply("a chunk longer than its size")


def _content_length(text: str) -> int:
    values = {value.strip() for value in text.split(",")}
    if len(values) != 1:
        raise TransportError(f"conflicting Content-Length values {text[:60]!r}")
    value = values.pop()
    if not value.isdigit() or not value.isascii():
        raise TransportError(f"a malformed Content-Length {value[:60]!r}")
    return int(value)


async def _line(connection: _Connection, what: str, bare_lf: bool = False) -> bytes:
    """One CRLF-ended line of a chunked body, without its ending. A bare LF or CR in a chunk's size or end is
    refused, as h11 does (a framing read two ways is how a reply hides in another); ``bare_lf`` takes LF alone
    for a line's end (RFC 9112 2.2 allows it), as h11 does in the trailers, where it frames nothing."""
    while True:
        end = connection.buffer.find(b"\n")
        if end >= 0:
            line = connection.take(end + 1)[:-1]
            if bare_lf:
                return line.removesuffix(b"\r")
            if not line.endswith(b"\r") or b"\r" in line[:-1]:
                raise BrokenReply(f"{what} not ended by CRLF: {line[:40]!r}")
            return line[:-1]
        if len(connection.buffer) > MAX_CHUNK_LINE:
            raise BrokenReply(f"{what} takes more than {MAX_CHUNK_LINE:,} bytes")
        if not await connection.more():
            raise BrokenReply(f"{connection.why_ended()} before {what}")


async def _head(connection: _Connection) -> tuple[int, dict[str, str], bool]:
    """The next final reply's status, headers (names lowercased; repeats joined by commas) and whether the
    connection may be kept; 1xx replies before it are skipped."""
    received = False
    while True:
        searched = 0  # a head dripped a byte at a time is searched once, not once a byte
        while True:
            end = connection.buffer.find(b"\r\n\r\n", searched)
            if end >= 0:
                head = connection.take(end + 4)
                break
            if len(connection.buffer) > MAX_HEAD_BYTES:
                raise TransportError(f"the reply's head is longer than {MAX_HEAD_BYTES:,} bytes")
            searched = max(0, len(connection.buffer) - 3)
            received = received or bool(connection.buffer)
            if not await connection.more():
                if not received and not connection.buffer:
                    raise _NoByte(connection.why_ended())
                raise TransportError(f"{connection.why_ended()} mid-way through the reply's head")
        received = True
        lines = head.decode("latin-1").split("\r\n")
        if any("\n" in line or "\r" in line for line in lines):
            # A bare LF or CR inside a line would hide a header (Content-Length, Transfer-Encoding) in the value
            # of the one before it, framing the body otherwise than a parser that takes LF for a line's end.
            raise TransportError("a bare CR or LF in the reply's head")
        version, _, rest = lines[0].partition(" ")
        code = rest[:3]
        if not version.startswith("HTTP/1.") or len(code) != 3 or not code.isdigit() or rest[3:4] not in ("", " "):
            raise TransportError(f"not an HTTP/1.x status line: {lines[0][:60]!r}")
        status = int(code)
        headers: dict[str, str] = {}
        for line in lines[1:]:
            if not line:
                continue
            name, colon, value = line.partition(":")
            if not colon or not name or name != name.strip():
                raise TransportError(f"a malformed header line {line[:60]!r}")
            key = name.lower()
            headers[key] = f"{headers[key]}, {value.strip()}" if key in headers else value.strip()
        if 100 <= status < 200 and status != 101:
            continue  # an interim reply (100 Continue, 103 Early Hints): the final one follows
        tokens = {token.strip().lower() for token in headers.get("connection", "").split(",")}
        keep_alive = "keep-alive" in tokens if version == "HTTP/1.0" else "close" not in tokens
        return status, headers, keep_alive and status != 101


class PlainHttpTransport:
    """Requests to plain ``http://`` URLs over a pool of at most ``concurrency`` kept-alive connections."""

    def __init__(self, concurrency: int) -> None:
        self._slots = asyncio.Semaphore(max(1, concurrency))
        self._idle: list[_Connection] = []
        self._open: set[_Connection] = set()
        self._targets: dict[str, _Target] = {}
        self._addresses: dict[tuple[str, int], tuple[float, list[str]]] = {}

    async def __aenter__(self) -> PlainHttpTransport:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        for connection in self._open:
            connection.close()
        self._open.clear()
        self._idle.clear()

    @asynccontextmanager
    async def post(self, url: str, body: bytes, headers: dict[str, str]) -> AsyncIterator[_Answer]:
        target = self._targets.get(url)
        if target is None:
            target = self._targets[url] = _Target(url)
        lines = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
        request = f"{target.head}{lines}Content-Length: {len(body)}\r\n\r\n".encode("latin-1") + body
        async with self._slots:
            connection = await self._connection(target)
            answer: _Answer | None = None
            try:
                assert connection.transport is not None
                connection.transport.write(request)
                try:
                    status, reply_headers, keep_alive = await _head(connection)
                except _NoByte as error:
                    raise DroppedBeforeReply(str(error)) from None
                answer = _Answer(connection, status, reply_headers, keep_alive)
                yield answer
            finally:
                if answer is not None and answer.complete and answer.reusable and connection.usable:
                    self._idle.append(connection)  # back to the pool
                else:
                    self._open.discard(connection)
                    connection.close()

    async def _connection(self, target: _Target) -> _Connection:
        while self._idle:
            connection = self._idle.pop()
            if connection.usable:
                return connection
            self._open.discard(connection)
            connection.close()
        loop = asyncio.get_running_loop()
        failures: list[str] = []
        addresses = await self._resolved(target)
        for address in list(addresses):
            try:
                _, connection = await loop.create_connection(_Connection, address, target.port)
            except OSError as error:
                failures.append(f"{address}: {error.strerror or error}")
                continue
            if address != addresses[0]:  # the next connections try first the address that answered
                addresses.remove(address)
                addresses.insert(0, address)
            self._open.add(connection)
            return connection
        where = f"{target.host}:{target.port}"
        raise CannotConnect(f"Cannot connect to host {where} [{'; '.join(failures)[:200]}]")

    async def _resolved(self, target: _Target) -> list[str]:
        """The host's addresses, resolved once every ``RESOLVED_SECONDS`` (an address literal is its own)."""
        if _is_address(target.host):
            return [target.host]
        key = (target.host, target.port)
        now = time.monotonic()
        cached = self._addresses.get(key)
        if cached is not None and now - cached[0] < RESOLVED_SECONDS:
            return cached[1]
        try:
            found = await asyncio.get_running_loop().getaddrinfo(
                target.host, target.port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP
            )
        except OSError as error:
            raise CannotConnect(f"Cannot connect to host {target.host}:{target.port} [{error}]") from None
        addresses = list(dict.fromkeys(str(info[4][0]) for info in found))
        self._addresses[key] = (now, addresses)
        return addresses


def _is_address(host: str) -> bool:
    for family in (socket.AF_INET, socket.AF_INET6):
        try:
            socket.inet_pton(family, host)
        except OSError:
            continue
        return True
    return False
