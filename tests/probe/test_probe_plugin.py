"""The pytest plugin's ``probe_verify_app`` fixture: the probe against an ASGI app in process."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from verify_contract.conformance import ConformanceError

ROOT = Path(__file__).resolve().parents[2]


def _module(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module  # FastAPI resolves the annotations of its routes in the module
    spec.loader.exec_module(module)
    return module


def _arithmetic(answer: str) -> dict[str, Any]:
    output = [{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": answer}]}]
    return {"responses_create_params": {"input": []}, "response": {"output": output}, "expected_answer": "4"}


def test_the_example_app_passes_in_process(probe_verify_app: Any) -> None:
    app = _module(ROOT / "examples" / "gym_resource_server.py").app
    report = probe_verify_app(
        app, [_arithmetic("4"), _arithmetic("judge down")], checks=("probe-contract", "probe-determinism")
    )
    stats = report.statistics()
    assert report.ok and report.profile == "gym" and stats["replies"] == 4
    assert stats["failure_kinds"] == {"(none)": 1, "judge_failed": 1}


def test_a_breaking_reply_fails_with_the_probe_report(probe_verify_app: Any) -> None:
    app = _module(ROOT / "tests" / "broken_resource_server.py").app
    planted = {"responses_create_params": {}, "response": {"output": []}}
    with pytest.raises(ConformanceError) as failure:
        probe_verify_app(app, [{**planted, "defect": "fine"}, {**planted, "defect": "mask"}])
    text = str(failure.value)
    assert "request 1: error [legacy-mask-divergent]" in text and "request 0" not in text


@pytest.mark.verify_contract(profile="core")
def test_the_marker_names_the_profile(probe_verify_app: Any) -> None:
    app = _module(ROOT / "tests" / "broken_resource_server.py").app
    report = probe_verify_app(app, [{"defect": "fine"}])  # no request echo: a core reply
    assert report.profile == "core" and report.findings == []


FAILING_TESTS = """
from fastapi import FastAPI
from pydantic import BaseModel

app = FastAPI()


@app.post("/verify")
def verify(body: dict) -> dict:
    return {**body, "reward": None}


def test_probe(probe_verify_app):
    probe_verify_app(app, [{"responses_create_params": {"input": []}, "response": {"output": []}}] * 3)


def test_conforms(assert_conforms):
    assert_conforms({"reward": "x"})


def test_producer(assert_producer_conforms):
    assert_producer_conforms(dict)


class Task(BaseModel):
    expected_answer: str


strict = FastAPI()


@strict.post("/verify")
def verify_task(body: Task) -> dict:
    return {"reward": 1.0}


def test_refused(probe_verify_app):
    probe_verify_app(strict, [{"responses_create_params": {}, "response": {"output": []}}])
"""


def test_a_failure_shows_the_report_not_the_plugins_code(tmp_path: Path) -> None:
    """A downstream test that fails through a fixture: pytest shows the test's line and the report; no
    frame of the plugin (its source, its locals) is in the traceback."""
    (tmp_path / "test_downstream.py").write_text(textwrap.dedent(FAILING_TESTS))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "test_downstream.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    out = done.stdout
    assert "4 failed" in out, out
    assert '3 cases (request 0, request 1, request 2): error [reward-type] /reward: null is not of type "number"' in out
    assert "producer-valid [reward-type]" in out
    assert "error [probe-request-refused] the server refused the request with status 422" in out
    assert "pytest_plugin.py" not in out and "producer.py" not in out, out
    assert "def run(" not in out and "format_report(" not in out and "__tracebackhide__" not in out
