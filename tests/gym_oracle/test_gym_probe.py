"""verify-contract probe against a resource server built on the real nemo-gym 0.7.0 package
(tests/gym_oracle/gym_probe_server.py: a SimpleResourcesServer subclass, Gym's own FastAPI app, run under
uvicorn in the oracle's CPython 3.13 environment). What Gym's HTTP stack writes for each planted value is
found by the probe as SPEC 4.3 lists it for 0.7.0 (the "through Gym's own server" row)."""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from verify_contract.cli import main
from verify_contract.cli._exit_codes import EXIT_INVALID

from .environments import PYTHON_ENV, REPO, find_python_313, gym_python

sys.path.insert(0, str(REPO / "tests"))
from live_servers import uvicorn_server

pytestmark = pytest.mark.skipif(
    os.environ.get("VERIFY_CONTRACT_GYM_ORACLE") != "1",
    reason="the Gym oracle tier installs nemo-gym from PyPI: run it with `make gym-oracle`",
)
HERE = Path(__file__).resolve().parent

# Planted reply values -> the (check, rule) pairs the probe must report for Gym 0.7.0's reply, exactly.
PLANTED: dict[str, tuple[dict[str, Any], set[tuple[str, str]]]] = {
    "plain": ({}, set()),
    # valid: Gym writes the integer as the nearest float (SPEC 4.3, "changes values ... and stays valid")
    "integer-reward": ({"reward": 9007199254740993}, set()),
    # judge_failsafe's reply: mask true, judge_failed, the legacy mask mirrored
    "judge-error": ({"judge_error": True}, set()),
    # SPEC 4.3 row 1: the FastAPI reply serialises the model with pydantic: a non-finite reward becomes null
    "nan": ({"reward": "nan"}, {("probe-contract", "reward-type"), ("probe-reward-finite", "probe-reward-finite")}),
    "inf": ({"reward": "inf"}, {("probe-contract", "reward-type"), ("probe-reward-finite", "probe-reward-finite")}),
    # SPEC 4.3 row 2: an integer beyond binary64 inside response, written by all three ways
    "big-integer": ({"big_integer_in_response": True}, {("probe-contract", "json-non-finite")}),
    # SPEC 4.3 row 4: a kind outside the grammar only logs a warning in Gym
    "empty-kind": (
        {"reward": 0.0, "mask_sample": True, "failure_kind": ""},
        {("probe-contract", "failure-kind-format"), ("probe-failure-kind", "probe-failure-kind")},
    ),
    "spaced-kind": (
        {"reward": 0.0, "mask_sample": True, "failure_kind": "Judge Failed"},
        {("probe-contract", "failure-kind-format"), ("probe-failure-kind", "probe-failure-kind")},
    ),
    # SPEC 4.3 row 3: FastAPI refuses to serialise a lone surrogate: Gym answers 500, no document
    "lone-surrogate": (
        {"reward": 0.0, "mask_sample": True, "failure_kind": "judge_failed", "failure_reason": "\ud800"},
        {("probe-http-status", "probe-http-status")},
    ),
}


def spec_http_table() -> tuple[set[str], set[str]]:
    """The probe checks and the contract rules of SPEC 4.3's table of a real SimpleResourcesServer's replies."""
    spec = (REPO / "SPEC.md").read_text(encoding="utf-8")
    start = spec.index("| planted in a real `SimpleResourcesServer`'s reply (NeMo Gym 0.7.0)")
    rows = spec[start:].split("\n\n", 1)[0].splitlines()[2:]
    checks: set[str] = set()
    rules: set[str] = set()
    for row in rows:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        checks.update(re.findall(r"`(probe-[a-z-]+)`", cells[2]))
        rules.update(re.findall(r"`([a-z][a-z0-9-]*)`", cells[3]))
    return checks, rules


@pytest.fixture(scope="module")
def gym_server() -> Iterator[str]:
    python = find_python_313()
    if python is None:
        pytest.fail(f"no CPython 3.13 found: install one (pyenv install 3.13) or set {PYTHON_ENV}")
    with uvicorn_server("gym_probe_server:app", HERE, python=str(gym_python("0.7.0", python))) as url:
        yield url


def _request_echo() -> dict[str, Any]:
    """A real Gym row's request (examples/results.jsonl: the nested OpenAI shapes Gym's models require)."""
    row = json.loads((REPO / "examples" / "results.jsonl").read_text(encoding="utf-8").splitlines()[0])
    return {key: row[key] for key in ("responses_create_params", "response")}


def test_the_probe_reports_gym_070_deviations_as_spec_4_3_lists_them(
    gym_server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    echo = _request_echo()
    cases = tmp_path / "cases.jsonl"
    cases.write_text(
        "".join(json.dumps({"id": n, "request": {**echo, "plant": p}}) + "\n" for n, (p, _) in PLANTED.items())
    )
    code = main(
        ["probe", gym_server, "--cases", str(cases), "--checks", "all", "--max-latency", "60", "--format", "json"]
    )
    report = json.loads(capsys.readouterr().out)
    assert code == EXIT_INVALID
    found: dict[str, set[tuple[str, str]]] = {name: set() for name in PLANTED}
    checks: set[str] = set()
    for item in report["findings"]:
        # a probe check that found the value the contract check did is folded into that finding (one per defect)
        folded = item.get("context", {}).get("also_found_by", [])
        found[item["case"]] |= {(item["check"], item["rule"]), *((check, check) for check in folded)}
        checks |= {item["check"], *folded}
    assert found == {name: expected for name, (_, expected) in PLANTED.items()}
    contract_rules = {item["rule"] for item in report["findings"] if item["check"] == "probe-contract"}
    assert (checks, contract_rules) == spec_http_table()
    # and they are rules SPEC 4.3's first table lists for 0.7.0 (json-syntax never reaches the wire: a 500)
    assert contract_rules <= {"reward-type", "json-non-finite", "failure-kind-format", "json-syntax"}
    stats = report["statistics"]
    # determinism: Gym answers each twice alike (a resend, before any byte of a reply, is counted as a request)
    assert stats["replies"] == stats["requests"] - stats["resent"] == 2 * len(PLANTED)
    assert stats["failure_kinds"]["judge_failed"] == 1 and stats["failure_kinds"]["(empty)"] == 1
