"""verify_contract.trainers: the one reader every adapter uses, and the adapters that need no ML framework.

The adapters over verl and torch are tested against the real packages in tests/trainers/ (marker
``trainers``); this file runs in the quick loop.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from verify_contract import effective_mask, validate
from verify_contract.conformance import check_consumer
from verify_contract.generated.failure_kinds import PROTOCOL_VIOLATION
from verify_contract.trainers import REASON_CAP, RefusedResult, read_outcome, read_pair, step_metrics
from verify_contract.trainers.trl import contract_reward
from verify_contract.vectors import load_vectors

ROOT = Path(__file__).resolve().parents[2]
PAYLOADS = ROOT / "vectors"


def test_a_valid_response_reads_as_it_is() -> None:
    outcome = read_outcome({"reward": 1, "failure_kind": "judge_failed", "failure_reason": "503"})
    assert (outcome.reward, outcome.mask, outcome.masked, outcome.verdict) == (1.0, False, False, "valid")
    assert (outcome.failure_kind, outcome.failure_reason) == ("judge_failed", "503")


@pytest.mark.parametrize(
    ("result", "mask"),
    [
        ({"full_result": {"reward": 0.0, "mask_sample": True}}, True),  # top-level only: NeMo-RL misses it
        ({"full_result": {"reward": 1.0, "instance_config": {"mask_sample": True}}}, True),  # legacy only
        ({"full_result": {"reward": 1.0, "instance_config": None}}, False),
        ({"reward": 0.0, "mask_sample": False}, False),  # a bare verify response
    ],
)
def test_the_mask_is_the_effective_mask_of_the_wrapped_response(result: dict[str, Any], mask: bool) -> None:
    outcome = read_outcome(result)
    assert outcome.mask is mask and outcome.masked is mask and not outcome.refused


@pytest.mark.parametrize(
    "document",
    [
        {"reward": 1.0, "mask_sample": "false"},  # never coerced: not false, and not true either
        {"reward": 1.0, "instance_config": {"mask_sample": 0}},
        {"reward": "1"},
        {"reward": True},
        {"reward": 1.0, "mask_sample": None},
        {"reward": 1.0, "failure_kind": "Not A Kind"},
        [1, 2],
    ],
)
def test_a_document_that_breaks_the_contract_is_masked_as_a_protocol_violation(document: Any) -> None:
    outcome = read_outcome(document)
    assert outcome.refused and outcome.masked and outcome.verdict == "invalid"
    assert outcome.mask is False  # the producer's mask is not guessed
    assert outcome.failure_kind == PROTOCOL_VIOLATION
    assert outcome.errors and outcome.failure_reason == outcome.errors[0].message[:REASON_CAP]
    with pytest.raises(RefusedResult, match=outcome.errors[0].rule):
        outcome.as_pair()


def test_an_absent_reward_is_refused_but_says_nothing_of_the_mask() -> None:
    outcome = read_outcome({"full_result": {}})
    assert outcome.refused and outcome.only_reward_missing and outcome.reward is None and outcome.mask is False
    assert not read_outcome({"reward": "x"}).only_reward_missing


def test_warnings_keep_the_sample_and_its_verdict_says_so() -> None:
    outcome = read_outcome({"reward": 0.5, "instance_config": {"mask_sample": True}})  # legacy-mask-only
    assert outcome.verdict == "warning" and outcome.mask and not outcome.refused
    assert [f.rule for f in outcome.findings] == ["legacy-mask-only"]


def test_the_reason_is_capped() -> None:
    outcome = read_outcome({"reward": 0.0, "failure_reason": "x" * 5000})
    assert outcome.failure_reason is not None and len(outcome.failure_reason) == REASON_CAP + 3


def test_every_vector_reads_as_the_reference_says() -> None:
    """Each vector with a document: refused exactly when the reference finds an error; otherwise the mask is
    the library's effective mask and the reward the document's."""
    checked = 0
    for vector in load_vectors():
        if not vector.has_instance:
            continue
        outcome = read_outcome(vector.instance)
        errors = validate(vector.instance).errors
        assert outcome.refused is bool(errors), vector.id
        if not errors:
            assert outcome.mask is effective_mask(vector.instance), vector.id
            assert outcome.reward == vector.instance["reward"], vector.id
        checked += 1
    assert checked > 100


def test_the_reader_passes_the_consumer_kit() -> None:
    report = check_consumer(read_pair, "both")
    assert report.ok, report.format_text()
    assert report.checked > 100


def test_the_kit_catches_a_reader_that_coerces() -> None:
    """The kit run above can fail: a reader that masks instead of refusing breaks consumer-refuse-mask."""

    def lenient(document: Any) -> tuple[bool, float | None]:
        outcome = read_outcome(document)
        return outcome.masked, outcome.reward

    report = check_consumer(lenient, "both")
    assert not report.ok and "consumer-refuse-mask" in report.format_text()


def test_the_cli_runs_the_kit_on_the_reader() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "verify_contract",
            "conformance",
            "--consumer",
            "verify_contract.trainers:read_pair",
            "--reads",
            "both",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr


# -- TRL: the wrapper is pure Python; tests/trainers/ runs it inside the real GRPOTrainer's reward step ------


def test_the_trl_reward_is_none_for_what_is_not_policy_evidence() -> None:
    documents = [
        {"reward": 1.0},
        {"reward": 0.0, "mask_sample": True, "failure_kind": "session_lost"},
        {"reward": 1.0, "mask_sample": "false"},
        {"full_result": {"reward": 0.25}},
    ]

    def verify(prompts: list[str], completions: list[str], **kwargs: Any) -> list[Any]:
        assert len(prompts) == len(completions) == len(documents)
        return documents

    reward = contract_reward(verify)
    assert reward.__name__ == "verify"
    assert reward(prompts=["p"] * 4, completions=["c"] * 4) == [1.0, None, None, 0.25]
    assert reward.left_out == 2 and reward.kinds == {"session_lost": 1, PROTOCOL_VIOLATION: 1}


def test_step_metrics_are_low_cardinality() -> None:
    outcomes = [
        read_outcome(document)
        for document in (
            {"reward": 1.0},
            {"reward": 0.0, "mask_sample": True, "failure_kind": "session_lost"},
            {"reward": 0.0, "mask_sample": True, "failure_kind": "made_up_kind_42"},
            {"reward": 0.0, "mask_sample": True, "failure_kind": "usersim:scorer_inconclusive"},
            {"reward": 0.0, "mask_sample": True, "failure_reason": "a free text, never a label"},
            {"reward": "1"},
        )
    ]
    assert step_metrics(outcomes) == {
        "contract/masked_rate": 5 / 6,
        "contract/masked": 5,
        "contract/refused": 1,
        "contract/kind/session_lost": 1,
        "contract/kind/unregistered": 1,
        "contract/kind/usersim:scorer_inconclusive": 1,
        "contract/kind/(none)": 1,
        f"contract/kind/{PROTOCOL_VIOLATION}": 1,
    }


def test_the_trl_reader_passes_the_consumer_kit() -> None:
    def read(document: Any) -> bool:
        """The mask TRL acts on: None is left out. Left out without a producer's mask is a refusal."""
        value = contract_reward(lambda **_: [document])(prompts=["p"], completions=["c"])[0]
        outcome = read_outcome(document)
        if value is None and not outcome.mask:
            raise RefusedResult(outcome)
        return value is None

    # A masked sample carries no reward into TRL (None): the kit judges the mask.
    report = check_consumer(read, "mask")
    assert report.ok, report.format_text()


def test_the_incident_storm_has_the_incidents_shape(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, str(ROOT / "examples" / "storm.py"), "--incident", str(tmp_path)],
        check=True,
        capture_output=True,
        timeout=60,
    )
    rows = [json.loads(line) for line in (tmp_path / "rollouts.jsonl").read_text().splitlines()]
    masked = [row for row in rows if read_outcome(row).masked]
    assert (len(rows), len(masked)) == (1280, 1172)
    assert {row["_ng_environment_server"] for row in rows} == {"browser_env"}
    assert (tmp_path / "rollouts_failures.jsonl").read_text() == ""


def test_the_reader_and_the_trl_wrapper_import_no_framework() -> None:
    """The core reader and the TRL wrapper stay light: torch, verl and trl come only with their adapters."""
    code = (
        "import sys, verify_contract.trainers, verify_contract.trainers.trl\n"
        "print([m for m in ('torch', 'verl', 'trl', 'numpy') if m in sys.modules])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize(("module", "extra"), [("verl", "verl"), ("nemo_rl", "nemo-rl")])
def test_an_adapter_without_its_framework_names_the_extra(module: str, extra: str) -> None:
    """This environment has neither verl nor torch: importing the adapter says which extra to install."""
    code = f"import verify_contract.trainers.{module}"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert f"pip install 'verify-contract[{extra}]'" in done.stderr.strip().splitlines()[-1]
