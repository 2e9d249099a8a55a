"""The examples of README's "Generate bindings for your framework" and of docs/generate.md, run as
written: the shell lines through the CLI, the Python blocks against what those lines generated."""

from __future__ import annotations

import importlib
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from verify_contract.cli import main as cli

ROOT = Path(__file__).resolve().parents[2]


def example(document: str, name: str) -> str:
    text = (ROOT / document).read_text(encoding="utf-8")
    found = re.search(rf"<!-- example: {re.escape(name)} -->\n```[a-z]*\n(.*?)```\n", text, re.DOTALL)
    assert found is not None, f"{document} has no example {name!r}"
    return found.group(1)


def run_shell(block: str) -> None:
    for line in block.splitlines():
        words = shlex.split(line)
        assert words[:1] == ["verify-contract"], line
        assert cli(words[1:]) == 0, line
    importlib.invalidate_caches()  # src/ did not exist when it went on sys.path


@pytest.fixture
def downstream(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty project directory as the working directory, its src/ importable."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path / "src"))
    before = set(sys.modules)
    yield tmp_path
    for name in set(sys.modules) - before:
        if name in ("gym_result", "verify_models"):
            del sys.modules[name]


def test_trainer_example(downstream: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_shell(example("README.md", "trainer-generate"))
    exec(compile(example("README.md", "trainer"), "README-trainer", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    assert printed[-2:] == [
        "/mask_sample: 'false' is not of JSON type boolean",
        "not JSON the contract accepts: member name 'reward' repeated",
    ]


def test_environment_example_serves_conforming_documents(downstream: Path) -> None:
    from fastapi.testclient import TestClient

    from verify_contract.conformance import assert_conforms

    run_shell(example("README.md", "environment-generate"))
    namespace: dict[str, Any] = {}
    exec(compile(example("README.md", "environment"), "README-environment", "exec"), namespace)
    reply = TestClient(namespace["app"]).post("/verify")
    assert reply.status_code == 200
    document = reply.json()
    assert_conforms(document, "gym")
    assert "failure_reason" not in document  # absent, not null
    assert document["responses_create_params"] == {"input": "2+2?"}  # unknown keys survive
    assert document["mask_sample"] is True


def test_custom_template_example(downstream: Path) -> None:
    template = ROOT / "docs" / "examples" / "nemo-rl-templates" / "{name}.py.j2"
    assert example("docs/generate.md", "custom-template") == template.read_text(encoding="utf-8")
    command = re.search(
        r"```bash\n(verify-contract generate nemo-rl [^\n]*)\n```", (ROOT / "docs/generate.md").read_text()
    )
    assert command is not None
    words = shlex.split(command.group(1).replace("docs/examples", str(ROOT / "docs" / "examples")))
    assert cli(words[1:]) == 0
    out = downstream / "nemo_rl" / "environments" / "verify_response_dicts.py"
    text = out.read_text(encoding="utf-8")
    assert "class GymVerifyResponseDict(TypedDict):" in text
    assert "    failure_kind: NotRequired[str | None]" in text
    assert "MASK_KEYS: list[list[str]] = [['mask_sample'], ['instance_config', 'mask_sample'], ]" in text
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout
