"""The pytest plugin's ``probe_verify_app`` fixture: the probe against an ASGI app in process."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from verify_contract.conformance import ConformanceError

ROOT = Path(__file__).resolve().parents[1]


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
