"""examples/: a Gym-style resource server, run as a real uvicorn process and judged by the conformance kit,
and a trainer-side reader that keeps every consumer obligation."""

from __future__ import annotations

import importlib.util
import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

from verify_contract.conformance import assert_conforms, check_consumer

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _module(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


reader = _module("trainer_reader")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    port = _free_port()
    command = [sys.executable, "-m", "uvicorn", "--app-dir", str(EXAMPLES), "gym_resource_server:app"]
    process = subprocess.Popen(
        [*command, "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(f"{url}/openapi.json", timeout=1).raise_for_status()
                break
            except httpx.TransportError:
                if process.poll() is not None or time.monotonic() > deadline:
                    output = process.stdout.read().decode() if process.stdout else ""
                    raise RuntimeError(f"the example server did not start:\n{output}") from None
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


def _request(answer: str) -> dict[str, Any]:
    return {
        "responses_create_params": {"input": [{"role": "user", "content": "What is 2 + 2?"}]},
        "response": {
            "id": "resp_1",
            "output": [{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": answer}]}],
        },
        "expected_answer": "4",
        "_ng_task_index": 7,
    }


@pytest.mark.parametrize(
    ("answer", "reward", "masked", "kind"),
    [("4", 1.0, False, None), ("5", 0.0, False, None), ("judge down", 0.0, True, "judge_failed")],
)
def test_the_resource_server_replies_follow_the_contract(
    server: str, answer: str, reward: float, masked: bool, kind: str | None
) -> None:
    reply = httpx.post(f"{server}/verify", json=_request(answer), timeout=10)
    assert reply.status_code == 200
    assert_conforms(reply.content, profile="gym")  # the bytes on the wire, parsed strictly
    document = json.loads(reply.content)
    assert document["expected_answer"] == "4" and document["_ng_task_index"] == 7  # unknown keys kept
    sample = reader.read_sample(document)
    assert (sample.reward, sample.masked, sample.failure_kind) == (reward, masked, kind)
    if masked:
        assert document["failure_reason"].startswith("judge returned 503")
    else:
        assert "failure_kind" not in document and "failure_reason" not in document  # absent, not null


def test_a_bad_request_is_not_a_verify_response(server: str) -> None:
    reply = httpx.post(f"{server}/verify", json={"response": {}}, timeout=10)
    assert reply.status_code == 422


@pytest.mark.parametrize("profile", ["core", "gym"])
def test_the_trainer_reader_conforms(profile: str) -> None:
    report = check_consumer(reader.read_mask, profile=profile)  # type: ignore[arg-type]
    assert report.ok and not report.issues, report.format_text()


def test_the_trainer_reader_summarizes_the_examples() -> None:
    lines = (EXAMPLES / "results.jsonl").read_bytes().splitlines()
    summary = reader.summarize([*lines, b'{"reward": 1, "mask_sample": "false"}', b'{"reward": NaN}'])
    assert summary["samples"] == len(lines) and summary["refused"] == 2
    assert summary["masked"] == 8 and summary["failure_kinds"] == {"agent_timeout": 1, "judge_failed": 1}


def test_the_examples_run_from_the_command_line() -> None:
    result = subprocess.run(
        [sys.executable, str(EXAMPLES / "trainer_reader.py"), str(EXAMPLES / "results.jsonl")],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "'masked': 8" in result.stdout
    conformance = subprocess.run(
        [sys.executable, "-m", "verify_contract", "conformance", "--consumer", "trainer_reader:read_mask"],
        cwd=EXAMPLES,
        capture_output=True,
        text=True,
        check=False,
    )
    assert conformance.returncode == 0 and "conforms" in conformance.stdout, conformance.stdout


def test_the_grpo_loop_stops_at_the_storms_first_breach(tmp_path: Path) -> None:
    """examples/grpo_budget.py on examples/storm.py's run: trains the quiet steps, stops in the storm's."""
    subprocess.run([sys.executable, str(EXAMPLES / "storm.py"), str(tmp_path)], check=True, capture_output=True)
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "grpo_budget.py"), str(tmp_path / "rollouts.jsonl")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 3, done.stderr
    lines = done.stdout.splitlines()
    assert [line.split(":")[0] for line in lines if "trained on" in line] == [f"step {i}" for i in range(5)]
    assert "step 5: breach: all rollouts:" in done.stdout and "session_lost" in done.stdout
    assert "step 5: stopping the run" in done.stdout
