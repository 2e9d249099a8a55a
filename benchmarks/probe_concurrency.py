#!/usr/bin/env python3
"""How close does `verify-contract probe --concurrency N` come to the ideal against a server that takes its time?

A real uvicorn server on 127.0.0.1 (tests/paced_resource_server.py) answers every verify request after a pace
(0.2 s by default); the probe sends REQUESTS of them, N at a time. The ideal is ceil(REQUESTS / N) paces. Rows,
in one run: the whole `probe` command (default flags otherwise), and the same requests from plain clients with
no judging (httpx, the probe's client; aiohttp, when installed), each with the connections the server saw.

    python benchmarks/probe_concurrency.py                  # 1,000 requests, 500 at a time, 0.2 s pace
    python benchmarks/probe_concurrency.py --requests 2000 --concurrency 200
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the tests' uvicorn helper and the paced server


def counts(url: str) -> dict[str, int]:
    import httpx

    answer: dict[str, int] = httpx.get(f"{url}/count", timeout=30).json()
    return answer


async def plain_httpx(url: str, body: bytes, requests: int, concurrency: int) -> None:
    import httpx

    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(limits=limits, timeout=120) as client:
        gate = asyncio.Semaphore(concurrency)

        async def one() -> None:
            async with gate:
                (await client.post(f"{url}/verify", content=body, headers={"content-type": "application/json"}))

        await asyncio.gather(*(one() for _ in range(requests)))


async def plain_aiohttp(url: str, body: bytes, requests: int, concurrency: int) -> None:
    import aiohttp

    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=concurrency)) as session:
        gate = asyncio.Semaphore(concurrency)

        async def one() -> None:
            async with gate, session.post(f"{url}/verify", data=body) as reply:
                await reply.read()

        await asyncio.gather(*(one() for _ in range(requests)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=500)
    parser.add_argument("--pace", type=float, default=0.2, help="the server's seconds per reply (default 0.2)")
    parser.add_argument("--json", type=Path, help="also write the rows here")
    parser.add_argument(
        "--no-compile",
        action="store_true",
        help="leave the package's bytecode as it is (by default it is compiled first, as an installed package has "
        "it: with PYTHONDONTWRITEBYTECODE set, an editable install compiles its modules again on every run)",
    )
    args = parser.parse_args()
    from live_servers import uvicorn_server

    if not args.no_compile:
        import compileall

        compileall.compile_dir(ROOT / "bindings" / "python" / "verify_contract", quiet=1)

    ideal = math.ceil(args.requests / args.concurrency) * args.pace
    request = json.loads((ROOT / "examples" / "cases.jsonl").read_text(encoding="utf-8").splitlines()[0])["request"]
    body = json.dumps(request).encode()
    print(
        f"probe --concurrency {args.concurrency}: {args.requests:,} requests to a server answering after "
        f"{args.pace} s (ideal {ideal:.2f} s); load average {os.getloadavg()[0]:.2f}; {os.cpu_count()} cores; "
        f"the package's bytecode {'as it was' if args.no_compile else 'compiled first'}"
    )
    print("| client | seconds | x ideal | connections |\n|---|---|---|---|")
    rows: list[dict[str, Any]] = []
    os.environ["PACE_SECONDS"] = str(args.pace)
    server_flags = ["--no-access-log", "--backlog", "4096", "--timeout-keep-alive", "60"]
    with tempfile.TemporaryDirectory(prefix="verify-contract-probe-") as workdir:
        cases = Path(workdir) / "cases.jsonl"
        lines = (json.dumps({"id": f"case-{i}", "request": request}) + "\n" for i in range(args.requests))
        cases.write_text("".join(lines), encoding="utf-8")
        probe = [sys.executable, "-m", "verify_contract", "probe", "--cases", str(cases)]
        probe += ["--concurrency", str(args.concurrency), "--max-requests", str(2 * args.requests), "--timeout", "120"]
        clients: list[tuple[str, Callable[[str], Awaitable[None] | None]]] = [
            ("verify-contract probe (the whole command)", lambda url: _run([*probe[:4], url, *probe[4:]])),
            ("plain httpx, no judging", lambda url: plain_httpx(url, body, args.requests, args.concurrency)),
        ]
        try:
            import aiohttp  # noqa: F401

            clients.append(
                ("plain aiohttp, no judging", lambda url: plain_aiohttp(url, body, args.requests, args.concurrency))
            )
        except ImportError:
            pass
        for name, client in clients:
            with uvicorn_server(
                "paced_resource_server:app", ROOT / "tests", ready_path="/count", extra=server_flags
            ) as url:
                began = time.perf_counter()
                pending = client(url)
                if pending is not None:
                    asyncio.run(pending)  # type: ignore[arg-type]
                seconds = time.perf_counter() - began
                seen = counts(url)
            if seen["requests"] != args.requests:
                raise SystemExit(f"{name}: the server saw {seen['requests']} requests, not {args.requests}")
            rows.append({"client": name, "seconds": seconds, "x_ideal": seconds / ideal, **seen})
            print(f"| {name} | {seconds:.2f} | {seconds / ideal:.1f}x | {seen['connections']:,} |", flush=True)
    met = "met" if rows[0]["x_ideal"] <= 3 else "NOT MET"
    print(f"target: the probe within 3x the ideal: {rows[0]['x_ideal']:.1f}x {met}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")


def _run(command: list[str]) -> None:
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise SystemExit(f"probe exited {done.returncode}: {done.stderr[-500:]}")


if __name__ == "__main__":
    main()
