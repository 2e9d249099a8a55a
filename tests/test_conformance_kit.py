"""The conformance kit: assert_conforms, producer and consumer checks, the CLI and the pytest plugin."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from verify_contract.conformance import ConformanceError, assert_conforms, check_consumer, check_producer
from verify_contract.models import GymVerifyResponse

from fixtures import producers, readers

TESTS = Path(__file__).parent
GYM_DOC = {"responses_create_params": {"input": []}, "response": {"output": []}, "reward": 1, "extra": {"k": 1}}


def test_assert_conforms_accepts_documents_text_and_models() -> None:
    assert_conforms(GYM_DOC)
    assert_conforms(json.dumps(GYM_DOC))
    assert_conforms(GymVerifyResponse.model_validate(GYM_DOC))
    assert_conforms({"reward": 0.5}, profile="core")


@pytest.mark.parametrize(
    ("document", "rule"),
    [
        ({"reward": "1"}, "reward-type"),
        ('{"reward": 1, "reward": 2}', "json-duplicate-key"),
        (b'{"reward": NaN}', "json-non-finite"),
        ({"reward": 1, "mask_sample": "false"}, "mask-sample-type"),
        (
            producers.GymLikeVerifyResponse(responses_create_params={}, response={}, reward=1),
            "response-output-required",
        ),
    ],
)
def test_assert_conforms_raises_with_the_findings(document: object, rule: str) -> None:
    with pytest.raises(ConformanceError) as caught:
        assert_conforms(document, profile="gym" if not isinstance(document, dict) else "core")
    assert rule in {f.rule for f in caught.value.findings}
    assert rule in str(caught.value)


def test_warnings_can_fail() -> None:
    legacy = {"reward": 0, "instance_config": {"mask_sample": True}}
    assert_conforms(legacy, profile="core")
    with pytest.raises(ConformanceError, match="legacy-mask-only"):
        assert_conforms(legacy, profile="core", warnings_as_errors=True)


def test_gym_like_producer_is_caught() -> None:
    report = check_producer(producers.GymLikeVerifyResponse, profile="gym")
    kinds = report.kinds()
    assert not report.ok and report.checked >= 15
    # lax pydantic: reward "0.5" / true pass; and unknown keys vanish on a round trip
    assert kinds["accepts-invalid"] >= 1 and kinds["drops-keys"] >= 5
    dropped = " ".join(i.detail for i in report.issues if i.kind == "drops-keys")
    assert "/mask_sample" in dropped and "/instance_config" in dropped
    accepted = {i.vector for i in report.issues if i.kind == "accepts-invalid"}
    assert any("reward" in v for v in accepted)


def test_the_generated_model_conforms_as_a_producer() -> None:
    report = check_producer(GymVerifyResponse, profile="gym")
    assert report.ok, report.format_text()
    assert report.checked >= 15


def test_nemo_rl_reader_is_caught() -> None:
    report = check_consumer(readers.nemo_rl_mask)
    wrong = [i for i in report.issues if i.kind == "wrong-mask"]
    assert wrong, report.format_text()
    # a top-level-only mask is never seen
    assert any("'mask_sample': True" in i.detail and "'instance_config'" not in i.detail for i in wrong)
    assert report.kinds()["accepts-invalid"] >= 1


def test_bool_coercing_reader_is_caught() -> None:
    report = check_consumer(readers.bool_coercing_mask)
    accepted = [i for i in report.issues if i.kind == "accepts-invalid"]
    assert any("'false'" in i.detail and "returned True" in i.detail for i in accepted), report.format_text()
    assert "wrong-mask" not in report.kinds()  # on valid documents it happens to be right


def test_verl_reader_is_caught() -> None:
    report = check_consumer(readers.verl_reader, reads="both")
    wrong = [i for i in report.issues if i.kind == "wrong-mask"]
    assert wrong and all("expected true" in i.detail for i in wrong)
    assert "wrong-reward" not in report.kinds()
    skipping = check_consumer(readers.verl_reader, reads="both", invalid="skip")
    assert set(skipping.kinds()) == {"wrong-mask"}


@pytest.mark.parametrize(("read", "reads"), [(readers.conforming_mask, "mask"), (readers.conforming_both, "both")])
def test_conforming_readers_pass(read: object, reads: str) -> None:
    report = check_consumer(read, reads)  # type: ignore[arg-type]
    assert report.ok, report.format_text()
    assert report.checked > 50 and report.skipped > 0


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "verify_contract", "conformance", *args],
        cwd=TESTS,
        capture_output=True,
        text=True,
        check=False,
    )


def test_cli_reports_and_exit_codes() -> None:
    bad = _cli("--consumer", "fixtures.readers:nemo_rl_mask")
    assert bad.returncode == 1 and "does NOT conform" in bad.stdout and "wrong-mask" in bad.stdout
    good = _cli("--consumer", "fixtures.readers:conforming_both", "--reads", "both", "--format", "json")
    assert good.returncode == 0 and json.loads(good.stdout)["conforms"] is True
    producer = _cli("--producer", "fixtures.producers:GymLikeVerifyResponse", "--profile", "gym", "--format", "json")
    assert producer.returncode == 1 and json.loads(producer.stdout)["issues_by_kind"]["drops-keys"] >= 5
    assert _cli("--producer", "verify_contract.models:GymVerifyResponse", "--profile", "gym").returncode == 0
    missing = _cli("--consumer", "no_such_module:read")
    assert missing.returncode == 2 and "cannot import no_such_module" in missing.stderr
    assert _cli("--producer", "fixtures.readers:nemo_rl_mask").returncode == 2


def test_pytest_plugin_is_registered() -> None:
    assert any(e.value == "verify_contract.conformance.pytest_plugin" for e in entry_points(group="pytest11"))


def test_pytest_plugin_in_a_downstream_repo(tmp_path: Path) -> None:
    (tmp_path / "downstream_readers.py").write_text((TESTS / "fixtures" / "readers.py").read_text())
    (tmp_path / "test_downstream.py").write_text(
        textwrap.dedent(
            """
            import pytest
            import downstream_readers as r

            def test_document(assert_conforms):
                assert_conforms({"responses_create_params": {}, "response": {"output": []}, "reward": 1})

            @pytest.mark.verify_contract(profile="core")
            def test_marker_sets_the_profile(assert_conforms):
                assert_conforms({"reward": 1})

            def test_good_reader(assert_consumer_conforms):
                assert_consumer_conforms(r.conforming_both, reads="both")

            def test_nemo_rl_reader(assert_consumer_conforms):
                assert_consumer_conforms(r.nemo_rl_mask)

            def test_each_vector(contract_vector):
                assert contract_vector.id
            """
        )
    )
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    out = result.stdout
    assert result.returncode == 1, out
    assert "1 failed" in out and "test_nemo_rl_reader" in out and "wrong-mask" in out
    passed = int(out.split(" passed")[0].split()[-1])
    assert passed >= 4 + 100  # one test per vector
