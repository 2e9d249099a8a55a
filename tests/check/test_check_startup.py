"""What ``verify-contract check`` imports: a clean run loads neither the reference validator nor the other
commands' dependencies (start-up is most of what a pre-commit hook or a CI step pays). Checked on
``sys.modules`` in a fresh interpreter, so a regression is caught without timing anything; the time itself is
measured by benchmarks/startup.py."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from verify_contract.contract._versions import LATEST_VERSION

# Loaded on first use only: the reference validator (jsonschema, referencing, regress) and its modules, the
# composition shortcut and orjson (first line the pre-check does not settle), pydantic and the differ (other
# commands), multiprocessing (--jobs 2), importlib.metadata (--version), importlib.resources and shutil;
# dataclasses (with inspect, ast and dis), pathlib (with urllib.parse, ipaddress and fnmatch) and typing, which
# check's own modules do without (typing is imported for type checkers only).
NOT_ON_A_CLEAN_RUN = (
    "dataclasses",
    "inspect",
    "pathlib",
    "typing",
    "jsonschema",
    "referencing",
    "regress",
    "pydantic",
    "yaml",
    "orjson",
    "multiprocessing",
    "importlib.metadata",
    "importlib.resources",
    "shutil",
    "verify_contract.reference._validation",
    "verify_contract.contract._schemas",
    "verify_contract.reference._jsonio",
    "verify_contract.check._reference",
    "verify_contract.check._compose",
    "verify_contract.check._text_events",
    "verify_contract.diff",
    "verify_contract.cli._diff",
    "verify_contract.conformance",
    "verify_contract.cli._conformance",
    "verify_contract.cli._upgrade",
    "verify_contract.cli._generate",
    "verify_contract.codegen",
    # the documentation site: only for `verify-contract docs`
    "verify_contract.cli._docs",
    "verify_contract.docsite",
    "markdown_it",
    "jinja2",
    # object storage and the Ray engine: only for URL inputs and --engine ray
    "fsspec",
    "ray",
    "pyarrow",
    "verify_contract.check._remote",
    "verify_contract.ray",
    "verify_contract.check._ray",
    # --follow: only when asked for
    "verify_contract.cli._follow",
    "verify_contract.check._follow",
    "verify_contract.check._tail",
    # the probe and its network client: only for `verify-contract probe`
    "verify_contract.probe",
    "aiohttp",
    "httpx",
    # metrics and plots: other flags' dependencies
    "matplotlib",
    "prometheus_client",
    # the failure budget: only with a budget flag (or a failures file among the inputs)
    "verify_contract.budget",
    "verify_contract.check._budget",
    "verify_contract.check._budget_metrics",
    "verify_contract.check._budget_plot",
    "verify_contract.check._budget_report",
)

RUN_CHECK = """
import contextlib, io, json, sys
from verify_contract.cli import main
with contextlib.redirect_stdout(io.StringIO()) as out:
    code = main(sys.argv[1:])
# Classes that a dataclass decorator built in the package's modules (each costs an exec at import).
made = sorted(
    f"{name}.{cls.__name__}"
    for name, module in list(sys.modules.items())
    if name.startswith("verify_contract")
    for cls in vars(module).values()
    if isinstance(cls, type) and cls.__module__ == name and "__dataclass_fields__" in vars(cls)
)
print(json.dumps({"code": code, "report": out.getvalue(), "modules": sorted(sys.modules), "dataclasses": made}))
"""


def run_check(*args: str) -> dict[str, Any]:
    """``verify-contract check ARGS`` in a new interpreter: exit code, report, modules loaded, dataclasses built."""
    command = [sys.executable, "-c", textwrap.dedent(RUN_CHECK), "check", "--format", "json", *args]
    result: dict[str, Any] = json.loads(subprocess.run(command, capture_output=True, check=True).stdout)
    return result


def loaded_by_check(*args: str) -> tuple[int, dict[str, object], set[str]]:
    """Exit code, JSON report and every module loaded by ``verify-contract check ARGS`` in a new interpreter."""
    result = run_check(*args)
    return result["code"], json.loads(result["report"]), set(result["modules"])


def heavy(modules: set[str]) -> list[str]:
    return sorted(name for name in NOT_ON_A_CLEAN_RUN if name in modules)


@pytest.mark.parametrize(
    ("profile", "line"),
    [
        ("core", b'{"reward": 1.0, "mask_sample": false, "failure_kind": "agent_timeout"}\n'),
        ("gym", b'{"reward": 0.5, "response": {"output": []}, "responses_create_params": {"input": []}}\n'),
    ],
)
def test_a_clean_one_line_check_loads_nothing_heavy(tmp_path: Path, profile: str, line: bytes) -> None:
    path = tmp_path / "one.jsonl"
    path.write_bytes(line)
    code, report, modules = loaded_by_check("--profile", profile, str(path))
    assert (code, report["valid"], report["precheck"]) == (0, 1, "compiled"), report
    assert heavy(modules) == []


def test_a_clean_run_builds_no_dataclass_in_the_package(tmp_path: Path) -> None:
    """Each class a dataclass decorator builds costs an ``exec`` at import (about 0.5 ms): the classes on the
    start-up path (report, options, findings, the contract model, inputs) are written out, and so are those of
    the lines the pre-check keys (text defects, contract defects). The control: a line that needs the
    reference validator loads ``validation``, whose ``ValidationResult`` is one, and the probe sees it."""
    path = tmp_path / "one.jsonl"
    path.write_bytes(b'{"reward": 1.0}\n{"reward": 1\n{"reward": "1"}\n')
    assert run_check("--profile", "core", str(path))["dataclasses"] == []
    path.write_bytes(b'{"rew\\u0061rd": "1.0"}\n')  # an escaped member name: the reference judges it
    assert (
        "verify_contract.reference._validation.ValidationResult"
        in run_check("--profile", "core", str(path))["dataclasses"]
    )


def test_contract_defects_are_worded_without_the_reference(tmp_path: Path) -> None:
    """Wrong types, a malformed failure kind, a missing member: the composition and the generated wording
    table word them; neither jsonschema nor the reference parser nor orjson is loaded (regress is: it evaluates
    the failure-kind grammar)."""
    path = tmp_path / "some.jsonl"
    path.write_bytes(
        b'{"reward": "1.0", "mask_sample": "yes"}\n{"reward": 1, "failure_kind": "Not A Kind"}\n{"rewards": 1}\n'
        b'{"reward": 1, "instance_config": {"mask_sample": 0}, "failure_reason": 3}\n'
    )
    code, report, modules = loaded_by_check("--profile", "core", str(path))
    assert (code, report["invalid"]) == (1, 4), report
    assert "verify_contract.check._compose" in modules
    assert heavy(modules - {"verify_contract.check._compose", "regress"}) == []


def test_the_first_line_that_needs_the_reference_loads_it(tmp_path: Path) -> None:
    """The control: the same probe sees the reference arrive once a line needs it (so the tests above can
    fail). An escaped member name is one the pre-check does not follow."""
    path = tmp_path / "one.jsonl"
    path.write_bytes(b'{"rew\\u0061rd": "1.0"}\n')
    code, report, modules = loaded_by_check("--profile", "core", str(path))
    assert (code, report["invalid"]) == (1, 1)
    assert {"jsonschema", "verify_contract.reference._validation", "verify_contract.check._reference"} <= modules
    assert "pydantic" not in modules and "verify_contract.diff" not in modules


def test_a_directory_argument_still_finds_its_files(tmp_path: Path) -> None:
    """A clean run over named files does without pathlib; a directory argument imports it to walk the tree."""
    (tmp_path / "nested").mkdir()
    (tmp_path / "nested" / "one.jsonl").write_bytes(b'{"reward": 1.0}\n')
    (tmp_path / "notes.txt").write_bytes(b"not checked\n")
    code, report, modules = loaded_by_check("--profile", "core", str(tmp_path))
    assert (code, report["files"], report["valid"]) == (0, 1, 1), report
    assert "pathlib" in modules


def test_version_and_help_still_name_everything() -> None:
    version = subprocess.run([sys.executable, "-m", "verify_contract", "--version"], capture_output=True, check=True)
    assert LATEST_VERSION in version.stdout.decode()
    usage = subprocess.run([sys.executable, "-m", "verify_contract", "--help"], capture_output=True, check=True)
    for command in ("check", "diff", "conformance", "upgrade", "generate"):
        assert command in usage.stdout.decode()


def imported_by(*args: str) -> set[str]:
    """The modules ``python -X importtime -m verify_contract ARGS`` imports, from the interpreter's own import
    log (every import it executes, whatever later removes it from ``sys.modules``)."""
    command = [sys.executable, "-X", "importtime", "-m", "verify_contract", *args]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    assert done.returncode in (0, 1, 3), done.stderr[-500:]
    return {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}


def test_plain_check_imports_no_heavy_module_by_importtime(tmp_path: Path) -> None:
    """Every command is registered (probe, Ray, follow) yet a plain check imports none of their modules nor the
    budget's; the control: the same check with a budget flag imports the budget, so the probe can see it."""
    path = tmp_path / "one.jsonl"
    path.write_bytes(b'{"reward": 1.0, "mask_sample": false}\n')
    assert heavy(imported_by("check", str(path))) == []
    budgeted = imported_by("check", str(path), "--max-masked", "0.2", "--group-by", "env")
    assert {"verify_contract.budget", "verify_contract.check._budget"} <= budgeted
    assert not budgeted & {"httpx", "ray", "fsspec", "matplotlib", "prometheus_client", "jinja2"}
