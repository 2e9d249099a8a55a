"""A seeded differential fuzz of the probe's own HTTP/1.1 client (verify_contract.probe._http1) against h11:
random replies (1xx first, 204/304, headers in any case, Content-Length, chunked with extensions and trailers,
read to the close, several on one kept-alive connection, and malformed ones) are served from a real socket in
random write splits; what the client yields must be what h11 parses from the same bytes as a client, and where
h11 refuses the reply the client must raise one of its transport errors, never hang and never yield a body.

A longer run: ``HTTP1_FUZZ_SEEDS=5000 pytest tests/probe/test_http1_fuzz.py -n 2`` (about 20 s)."""

from __future__ import annotations

import asyncio
import os
import random
from dataclasses import dataclass

import h11
import pytest

from verify_contract.probe._http1 import MAX_HEAD_BYTES, PlainHttpTransport
from verify_contract.probe._transport import TransportError

SEEDS = int(os.environ.get("HTTP1_FUZZ_SEEDS", "300"))
EXCHANGE_SECONDS = 10.0
"""Bound on one seed's whole exchange: a hang fails the seed instead of the run."""


@dataclass(frozen=True)
class Reply:
    data: bytes
    last: bool
    """The last reply of the connection: the server closes once it is written."""
    head_end: int
    """Where the head's blank line ends in ``data`` (-1 when the head never ends)."""


Outcome = tuple[int, bytes] | str
"""A status and the body, or the name of the refusal."""


def _case(rng: random.Random, name: str) -> str:
    choice = rng.randrange(3)
    return name.lower() if choice == 0 else name.upper() if choice == 1 else name


def _head(rng: random.Random, status: int, headers: list[tuple[str, str]], version: str = "1.1") -> bytes:
    extra = [(f"X-Fuzz-{index}", "v" * rng.randrange(0, 30)) for index in range(rng.randrange(0, 4))]
    if rng.random() < 0.5:
        extra.append(("Content-Type", "application/json"))
    lines = headers + extra
    rng.shuffle(lines)
    reason = rng.choice(["", " OK", " Whatever Reason"])
    text = f"HTTP/{version} {status}{reason}\r\n" + "".join(f"{_case(rng, n)}: {v}\r\n" for n, v in lines)
    return (text + "\r\n").encode("latin-1")


def _interim(rng: random.Random) -> bytes:
    return b"".join(_head(rng, rng.choice([100, 102, 103]), []) for _ in range(rng.choice([0, 0, 1, 2])))


def _body(rng: random.Random) -> bytes:
    return bytes(rng.randrange(256) for _ in range(rng.choice([0, 1, 2, 17, 200, rng.randrange(0, 5000)])))


def _chunked(rng: random.Random, body: bytes, bad_size: bytes | None = None) -> bytes:
    out = bytearray()
    position = 0
    while position < len(body):
        size = min(len(body) - position, rng.choice([1, 3, 64, 1000, rng.randrange(1, 9000)]))
        digits = f"{size:x}" if rng.random() < 0.5 else f"{size:X}"
        extension = rng.choice(["", "", ";name", ";name=value", ';q="quoted; text"'])
        out += f"{'0' * rng.choice([0, 0, 2])}{digits}{extension}\r\n".encode() + body[position : position + size]
        out += b"\r\n"
        position += size
    if bad_size is not None:
        lenient = {b"0x10": 16, b"1_0": 16, b"5 5": 0x55}.get(bad_size, 5)
        out += bad_size + b"\r\n" + b"x" * lenient + b"\r\n"
    out += b"0" + rng.choice([b"", b";last"]) + b"\r\n"
    for index in range(rng.choice([0, 0, 1, 2])):
        out += f"Trailer-{index}: t\r\n".encode()
    return bytes(out + b"\r\n")


def _final(rng: random.Random, keep: bool) -> bytes:
    """A well-framed final reply; ``keep`` asks for one the connection survives (no Connection: close)."""
    framing = rng.choice(["length", "chunked", "empty-status"] + ([] if keep else ["to-close", "to-close-1.0"]))
    connection = [] if keep or rng.random() < 0.5 else [("Connection", "close")]
    body = _body(rng)
    if framing == "length":
        return _head(rng, rng.choice([200, 200, 400, 500]), [("Content-Length", str(len(body))), *connection]) + body
    if framing == "chunked":
        return _head(rng, 200, [("Transfer-Encoding", "chunked"), *connection]) + _chunked(rng, body)
    if framing == "empty-status":
        # 204 and 304 have no body whatever their headers say.
        return _head(rng, rng.choice([204, 304]), [("Content-Length", str(len(body))), *connection])
    version = "1.0" if framing == "to-close-1.0" else "1.1"
    return _head(rng, 200, connection, version) + body


def _malformed(rng: random.Random) -> bytes:
    body = _body(rng) or b"{}"
    kind = rng.choice(
        [
            "bad-chunk-size",
            "long-head",
            "bare-lf",
            "bare-lf",
            "length-mismatch",
            "two-lengths",
            "truncated",
            "bad-length",
        ]
    )
    if kind == "bad-chunk-size":
        # Each with as many bytes as a lenient reading of it would take (int(text, 16), or its digits).
        bad = rng.choice([b"0x10", b"+5", b" 5", b"1_0", b"zz", b"-1", b"", b"5 5", b"\xff", b"\t5", b"5\r"])
        return _head(rng, 200, [("Transfer-Encoding", "chunked")]) + _chunked(rng, body, bad)
    if kind == "long-head":
        size = rng.choice([MAX_HEAD_BYTES - 100, MAX_HEAD_BYTES + 10, 2 * MAX_HEAD_BYTES])
        return _head(rng, 200, [("X-Long", "x" * size), ("Content-Length", str(len(body)))]) + body
    if kind == "bare-lf":
        data = _interim(rng) + _final(rng, keep=False)
        ends = [index for index in range(len(data) - 1) if data[index : index + 2] == b"\r\n"]
        # Mostly in the final head, where a line ended by LF alone may hide the framing header after it.
        in_head = [index for index in ends if index < _final_head_end(data)] or ends
        cut = rng.choice(in_head if rng.random() < 0.7 else ends)
        return data[:cut] + data[cut + 1 :] + rng.choice([b"", b"junk after the reply"])
    if kind == "length-mismatch":
        said = len(body) + rng.choice([-1, 1, 100]) if len(body) > 1 else len(body) + 1
        return _head(rng, 200, [("Content-Length", str(said))]) + body
    if kind == "two-lengths":
        second = str(len(body) + rng.choice([0, 1]))
        return _head(rng, 200, [("Content-Length", str(len(body))), ("Content-Length", second)]) + body
    if kind == "bad-length":
        text = rng.choice([f"+{len(body)}", f"{len(body)}x", f"0x{len(body):x}", f"{len(body)} {len(body)}", ""])
        return _head(rng, 200, [("Content-Length", text)]) + body
    data = _interim(rng) + _final(rng, keep=False)
    return data[: rng.randrange(0, len(data))]  # closed mid-head or mid-body


def replies_for(seed: int) -> list[Reply]:
    rng = random.Random(seed)
    datas = [_interim(rng) + _final(rng, keep=True) for _ in range(rng.choice([0, 0, 1, 2]))]
    datas.append(_malformed(rng) if rng.random() < 0.45 else _interim(rng) + _final(rng, keep=False))
    return [Reply(data, index == len(datas) - 1, _final_head_end(data)) for index, data in enumerate(datas)]


def _final_head_end(data: bytes) -> int:
    """The end of the head after any 1xx heads (CRLF-framed as the generator writes them)."""
    position = 0
    while True:
        end = data.find(b"\r\n\r\n", position)
        if end < 0:
            return -1
        if data[position + 9 : position + 10] != b"1":
            return end + 4
        position = end + 4


def h11_outcomes(replies: list[Reply]) -> list[Outcome]:
    """What h11 makes of the replies as the client of one connection, request by request."""
    connection = h11.Connection(h11.CLIENT, max_incomplete_event_size=16 * MAX_HEAD_BYTES)
    outcomes: list[Outcome] = []
    for reply in replies:
        connection.send(h11.Request(method="POST", target="/verify", headers=[("Host", "x"), ("Content-Length", "2")]))
        connection.send(h11.Data(data=b"{}"))
        connection.send(h11.EndOfMessage())
        connection.receive_data(reply.data)
        if reply.last:
            connection.receive_data(b"")
        status = 0
        body = bytearray()
        try:
            while True:
                event = connection.next_event()
                if event is h11.NEED_DATA:
                    raise AssertionError("a kept-alive reply the generator made incomplete")
                if isinstance(event, h11.Response):
                    status = event.status_code
                elif isinstance(event, h11.Data):
                    body += event.data
                elif isinstance(event, h11.EndOfMessage):
                    break
        except h11.RemoteProtocolError as error:
            outcomes.append(f"refused: {error}")
            break
        outcomes.append((status, bytes(body)))
        if not reply.last:
            connection.start_next_cycle()
    return outcomes


def probe_outcomes(replies: list[Reply], seed: int) -> tuple[list[Outcome], int]:
    """What the probe's client makes of the replies served in random splits; and how many connections."""
    rng = random.Random(seed + 1_000_003)
    served = iter(replies)
    connections = 0

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = int(head.lower().split(b"content-length: ", 1)[1].split(b"\r\n", 1)[0])
                await reader.readexactly(length)
                reply = next(served)
                position = 0
                while position < len(reply.data):
                    step = rng.choice([1, 2, 7, 100, 4096, len(reply.data)])
                    writer.write(reply.data[position : position + step])
                    position += step
                    await writer.drain()
                    if rng.random() < 0.2:
                        await asyncio.sleep(rng.choice([0, 0.0005, 0.002]))
                if reply.last:
                    return
        except (asyncio.IncompleteReadError, ConnectionError):
            return
        finally:
            writer.close()

    async def run() -> list[Outcome]:
        listening = await asyncio.start_server(handle, "127.0.0.1", 0)
        port = listening.sockets[0].getsockname()[1]
        outcomes: list[Outcome] = []
        async with asyncio.timeout(EXCHANGE_SECONDS), PlainHttpTransport(1) as transport:
            for _ in replies:
                try:
                    url = f"http://127.0.0.1:{port}/verify"
                    async with transport.post(url, b"{}", {"content-type": "application/json"}) as answer:
                        body = b"".join([part async for part in answer.chunks()])
                        outcomes.append((answer.status, body))
                except TransportError as error:
                    outcomes.append(f"{type(error).__name__}: {error}")
                    break
        listening.close()
        return outcomes

    return asyncio.run(run()), connections


def _bare_lf_in_head(reply: Reply) -> bool:
    """A head (or a 1xx head before it) with a line ended by LF alone."""
    end = reply.head_end if reply.head_end >= 0 else len(reply.data)
    head = reply.data[:end]
    return head.count(b"\n") != head.count(b"\r\n")


def _beyond_head_cap(reply: Reply) -> bool:
    """The client's own bound: a head longer than MAX_HEAD_BYTES is refused (h11 was given a larger one)."""
    end = reply.head_end if reply.head_end >= 0 else len(reply.data)
    return end - 4 > MAX_HEAD_BYTES or (reply.head_end < 0 and len(reply.data) > MAX_HEAD_BYTES)


@pytest.mark.parametrize("seed", range(SEEDS))
def test_the_client_reads_each_reply_as_h11_does(seed: int) -> None:
    replies = replies_for(seed)
    expected = h11_outcomes(replies)
    got, connections = probe_outcomes(replies, seed)
    assert len(got) == len(expected), (seed, got, expected, replies)
    for index, (mine, theirs) in enumerate(zip(got, expected, strict=True)):
        if isinstance(theirs, str):
            assert isinstance(mine, str), (seed, index, mine, theirs, replies[index].data[:300])
        elif isinstance(mine, str) and _beyond_head_cap(replies[index]):
            pass  # a documented bound of the client's own, not a framing difference
        elif isinstance(mine, str) and _bare_lf_in_head(replies[index]):
            # RFC 9112 2.2: a recipient MAY take a bare LF for a line's end; h11 does, the client refuses it
            # (a refusal, never another framing: the check below still holds for every body it yields).
            pass
        else:
            assert mine == theirs, (seed, index, mine, theirs, replies[index].data[:300])
    # Every kept-alive reply was read to its end, so the one connection carried them all.
    if all(isinstance(outcome, tuple) for outcome in got):
        assert connections == 1, (seed, connections)
