"""The cost of VerifyContractMiddleware: the example server's median /verify latency, bare and behind the
middleware, each a real uvicorn process on 127.0.0.1, measured by one keep-alive client.

    python benchmarks/middleware.py [--requests 3000] [--json results.json]

The servers are measured in interleaved blocks (bare, observe, enforce, bare, ...) so that a machine that
speeds up or slows down during the run moves every column alike. The target: the middleware (observe
mode, every reply judged) adds at most 5% to the bare server's median latency. Also printed: the median
in-process time of judging one reply, the part of that cost which is the probe's checks.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "examples"))
sys.path.insert(0, str(HERE.parent / "tests"))

TARGET = 0.05

# The apps uvicorn serves (``middleware:observed``): the example server bare and behind the middleware.
from gym_resource_server import app as bare  # noqa: E402

from verify_contract.asgi import VerifyContractMiddleware  # noqa: E402

observed = VerifyContractMiddleware(bare, mode="observe")
enforced = VerifyContractMiddleware(bare, mode="enforce")


def request_body() -> bytes:
    """A Gym-sized verify request: the first row of examples/results.jsonl without its reply fields."""
    from verify_contract.contract._versions import LATEST_VERSION
    from verify_contract.probe._checks import reply_fields

    row = json.loads((HERE.parent / "examples" / "results.jsonl").read_text(encoding="utf-8").splitlines()[0])
    request = {key: value for key, value in row.items() if key not in reply_fields(LATEST_VERSION)}
    request["expected_answer"] = "4"
    return json.dumps(request).encode("utf-8")


def judge_cost(body: bytes, reps: int) -> float:
    """Median microseconds of judging one reply of the example server in process."""
    import httpx

    from verify_contract.contract._versions import LATEST_VERSION
    from verify_contract.probe._checks import Reply, judge_reply, wire_profile

    transport = httpx.ASGITransport(app=bare)

    async def one() -> bytes:
        async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
            return (await client.post("/verify", content=body, headers={"content-type": "application/json"})).content

    import asyncio

    reply = Reply(200, "application/json", asyncio.run(one()), 0.001)
    profile = wire_profile(LATEST_VERSION)
    judge_reply(reply, version=LATEST_VERSION, profile=profile, need_values=False)  # builds the field table
    times = []
    for _ in range(reps):
        started = time.perf_counter()
        judge_reply(reply, version=LATEST_VERSION, profile=profile, need_values=False)  # as the middleware does
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1e6


def in_process(body: bytes, requests: int, block: int) -> dict[str, float]:
    """Median microseconds of one request through each app called directly (no network, no server):
    what the middleware adds is the difference, free of the noise of processes and sockets."""
    import asyncio

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/verify",
        "raw_path": b"/verify",
        "query_string": b"",
        "root_path": "",
        "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        return None

    async def run() -> dict[str, float]:
        apps = {"bare": bare, "observe": observed, "enforce": enforced}
        times: dict[str, list[float]] = {name: [] for name in apps}
        for app in apps.values():
            for _ in range(50):
                await app(dict(scope), receive, send)
        for _ in range(max(1, requests // block)):
            for name, app in apps.items():
                for _ in range(block):
                    started = time.perf_counter()
                    await app(dict(scope), receive, send)
                    times[name].append(time.perf_counter() - started)
        return {name: statistics.median(values) * 1e6 for name, values in times.items()}

    return asyncio.run(run())


def measure(requests: int, block: int) -> dict[str, Any]:
    import httpx

    from live_servers import uvicorn_server

    body = request_body()
    headers = {"content-type": "application/json"}
    # "control" is a second bare server: how far two identical servers differ is the noise of the figure.
    apps = {
        "bare": "middleware:bare",
        "control": "middleware:bare",
        "observe": "middleware:observed",
        "enforce": "middleware:enforced",
    }
    latencies: dict[str, list[float]] = {name: [] for name in apps}
    extra = ("--no-access-log", "--log-level", "warning")
    with (
        uvicorn_server(apps["bare"], HERE, extra=extra) as bare_url,
        uvicorn_server(apps["control"], HERE, extra=extra) as control_url,
        uvicorn_server(apps["observe"], HERE, extra=extra) as observe_url,
        uvicorn_server(apps["enforce"], HERE, extra=extra) as enforce_url,
    ):
        urls = {"bare": bare_url, "control": control_url, "observe": observe_url, "enforce": enforce_url}
        clients = {name: httpx.Client(base_url=url, timeout=10) for name, url in urls.items()}
        try:
            for client in clients.values():  # warm up: imports, the validator, connections
                for _ in range(50):
                    client.post("/verify", content=body, headers=headers).raise_for_status()
            for _ in range(max(1, requests // block)):
                for name, client in clients.items():
                    for _ in range(block):
                        started = time.perf_counter()
                        client.post("/verify", content=body, headers=headers).raise_for_status()
                        latencies[name].append(time.perf_counter() - started)
        finally:
            for client in clients.values():
                client.close()
    medians = {name: statistics.median(values) * 1000 for name, values in latencies.items()}
    direct = in_process(body, requests, block)
    added = {name: direct[name] - direct["bare"] for name in ("observe", "enforce")}
    return {
        "requests_each": len(latencies["bare"]),
        "request_bytes": len(body),
        "median_ms": {name: round(value, 4) for name, value in medians.items()},
        "overhead": {name: round(medians[name] / medians["bare"] - 1, 4) for name in ("control", "observe", "enforce")},
        "judge_us": round(judge_cost(body, 200), 1),
        "in_process_us": {name: round(value, 1) for name, value in direct.items()},
        "added_share_of_server_median": {
            name: round(value / 1000 / medians["bare"], 4) for name, value in added.items()
        },
        "target": TARGET,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=3000, help="timed requests to each server")
    parser.add_argument("--block", type=int, default=100, help="requests in a row to one server")
    parser.add_argument("--json", type=Path, help="also write the results to this file")
    args = parser.parse_args()
    results = measure(args.requests, min(args.block, args.requests))
    median, overhead = results["median_ms"], results["overhead"]
    print(f"example server, {results['requests_each']} requests each ({results['request_bytes']} B), median ms:")
    for name in ("bare", "control", "observe", "enforce"):
        extra = "" if name == "bare" else f"  ({overhead[name] * 100:+.1f}%)"
        print(f"  {name:8} {median[name]:.3f}{extra}")
    print(f"judging one reply in process: {results['judge_us']} us median")
    direct, share = results["in_process_us"], results["added_share_of_server_median"]
    print("one request through the app called in process, median us:")
    for name in ("bare", "observe", "enforce"):
        extra = (
            ""
            if name == "bare"
            else f"  (+{direct[name] - direct['bare']:.1f} us: {share[name] * 100:.1f}% of the server's median)"
        )
        print(f"  {name:8} {direct[name]:.1f}{extra}")
    met = "met" if share["observe"] <= TARGET else "NOT met"
    print(f"target: observe adds at most {TARGET * 100:.0f}% to the median (in process, against the server's): {met}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
