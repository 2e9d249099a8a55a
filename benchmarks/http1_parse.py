"""What parsing a typical verify reply costs: the probe's own HTTP/1.1 client (``probe/_http1.py``) against h11
as the parser, in the same run, rounds interleaved.

    python benchmarks/http1_parse.py                 # about 5 s; --replies 1000 --rounds 9

Each reply is what uvicorn sends a verify request (Content-Length, a ~200-byte JSON body), already received:
only the parsing is timed. The own client's path is its ``_head`` and ``_Answer.chunks`` over a connection's
buffer on one event loop; h11's is ``receive_data`` and ``next_event`` until ``EndOfMessage`` on one kept-alive
``h11.Connection`` (its sending of the request, which the state machine needs, timed apart). Needs h11 (the test
extra installs it with uvicorn).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import time

import h11

from verify_contract.probe._http1 import _Answer, _Connection, _head

BODY = json.dumps({"reward": 0.75, "verdict": "pass", "details": {"checked": 12, "note": "x" * 120}}).encode()
REPLY = (
    b"HTTP/1.1 200 OK\r\ndate: Wed, 02 Dec 2026 17:00:00 GMT\r\nserver: uvicorn\r\n"
    b"content-length: " + str(len(BODY)).encode() + b"\r\ncontent-type: application/json\r\n\r\n" + BODY
)


async def own_round(replies: int) -> float:
    connection = _Connection()
    elapsed = 0.0
    for _ in range(replies):
        connection.buffer += REPLY  # as data_received leaves it
        start = time.perf_counter()
        status, headers, keep_alive = await _head(connection)
        answer = _Answer(connection, status, headers, keep_alive)
        body = b"".join([part async for part in answer.chunks()])
        elapsed += time.perf_counter() - start
        assert status == 200 and body == BODY and answer.reusable
    return elapsed


def h11_round(replies: int) -> tuple[float, float]:
    connection = h11.Connection(h11.CLIENT)
    request = h11.Request(method="POST", target="/verify", headers=[("Host", "x"), ("Content-Length", "2")])
    receiving = sending = 0.0
    for _ in range(replies):
        start = time.perf_counter()
        connection.send(request)
        connection.send(h11.Data(data=b"{}"))
        connection.send(h11.EndOfMessage())
        sent = time.perf_counter()
        connection.receive_data(REPLY)
        status, body = 0, bytearray()
        while True:
            event = connection.next_event()
            if isinstance(event, h11.Response):
                status = event.status_code
            elif isinstance(event, h11.Data):
                body += event.data
            elif isinstance(event, h11.EndOfMessage):
                break
        connection.start_next_cycle()
        receiving += time.perf_counter() - sent
        sending += sent - start
        assert status == 200 and body == BODY
    return receiving, sending


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--replies", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=9)
    options = parser.parse_args()
    loop = asyncio.new_event_loop()
    own: list[float] = []
    theirs: list[float] = []
    sends: list[float] = []
    for _ in range(options.rounds):  # interleaved, so load drifts hit both alike
        own.append(loop.run_until_complete(own_round(options.replies)))
        receiving, sending = h11_round(options.replies)
        theirs.append(receiving)
        sends.append(sending)
    loop.close()
    per = 1e6 / options.replies
    own_us, h11_us, send_us = (statistics.median(values) * per for values in (own, theirs, sends))
    ratios = sorted(t / o for o, t in zip(own, theirs, strict=True))
    load = os.getloadavg()[0]
    print(
        f"load average {load:.2f}; {options.replies:,} replies of {len(REPLY)} bytes, {options.rounds} rounds' medians"
    )
    print(f"own client (_head + chunks): {own_us:6.1f} us a reply")
    print(f"h11 receive_data/next_event: {h11_us:6.1f} us a reply  (+{send_us:.1f} us sending the request)")
    print(f"h11 / own: {statistics.median(ratios):.2f}x (rounds {ratios[0]:.2f}-{ratios[-1]:.2f}x)")


if __name__ == "__main__":
    main()
