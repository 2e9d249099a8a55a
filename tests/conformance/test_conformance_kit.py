"""The conformance kit: assert_conforms, producer and consumer checks, the CLI and the pytest plugin."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from collections.abc import Callable
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from verify_contract import effective_mask
from verify_contract.conformance import (
    CONSUMER_OBLIGATIONS,
    OBLIGATIONS,
    ConformanceError,
    assert_conforms,
    check_consumer,
    check_producer,
)
from verify_contract.conformance.consumer import MASK_RULES, REWARD_RULES, profile_echo, with_echo
from verify_contract.contract._model import contract_model
from verify_contract.contract._versions import CONTRACT_VERSIONS, LATEST_VERSION, PROFILES, Profile
from verify_contract.findings import RULES
from verify_contract.models import GymVerifyResponse, VerifyResponse
from verify_contract.reference._validation import validate

from conftest import VECTORS
from fixtures import producers, readers

TESTS = Path(__file__).parents[1]
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


def test_a_legacy_only_mask_fails_by_default() -> None:
    """SPEC 4.1.5 is a MUST: a producer that writes only the legacy mask does not conform (the document is valid)."""
    legacy = {"reward": 0, "instance_config": {"mask_sample": True}}
    with pytest.raises(ConformanceError, match=r"producer-legacy-mirror \[legacy-mask-only\]"):
        assert_conforms(legacy)
    with pytest.raises(ConformanceError, match="legacy-mask-divergent"):
        assert_conforms({"reward": 0, "mask_sample": False, "instance_config": {"mask_sample": True}})
    assert_conforms({"reward": 0, "mask_sample": True, "instance_config": {"mask_sample": True}})


def test_should_level_kinds_fail_only_as_errors() -> None:
    unregistered = {"reward": 0, "mask_sample": True, "failure_kind": "browser_crashed"}
    assert_conforms(unregistered)
    with pytest.raises(ConformanceError, match=r"producer-registered-kinds \[failure-kind-unregistered\]"):
        assert_conforms(unregistered, warnings_as_errors=True)


def test_a_null_for_a_non_nullable_field_is_its_own_obligation() -> None:
    with pytest.raises(ConformanceError, match=r"producer-no-null \[mask-sample-type\]"):
        assert_conforms({"reward": 0, "mask_sample": None})


def test_lax_producer_is_caught_by_obligation() -> None:
    report = check_producer(producers.GymLikeVerifyResponse, profile="gym")
    assert not report.ok and report.checked >= 15
    # lax pydantic: reward "0.5" / true pass; and unknown keys vanish on a round trip
    assert set(report.broken()) == {"producer-valid", "producer-round-trip"}
    dropped = " ".join(i.message for i in report.issues if i.rule == "producer-round-trip")
    assert "/mask_sample" in dropped and "/instance_config" in dropped
    accepted = {i.file for i in report.issues if i.rule == "producer-valid"}
    assert any("reward" in v for v in accepted)


@pytest.mark.parametrize(("model", "profile"), [(VerifyResponse, None), (GymVerifyResponse, "gym")])
def test_the_generated_models_conform_as_producers(model: type[BaseModel], profile: str | None) -> None:
    report = check_producer(model) if profile is None else check_producer(model, profile)  # type: ignore[arg-type]
    assert report.ok and not report.issues, report.format_text()
    assert report.checked >= 15


def test_a_gym_model_is_not_a_core_producer() -> None:
    """It rejects core documents without the request echo: it cannot re-emit them."""
    report = check_producer(GymVerifyResponse, "core")
    assert set(report.broken()) == {"producer-round-trip"}, report.format_text()


def test_a_model_writing_null_for_an_absent_mask_breaks_no_null() -> None:
    report = check_producer(producers.NullWritingVerifyResponse)
    assert "producer-no-null" in report.broken(), report.format_text()
    assert all("mask_sample" in i.message for i in report.issues if i.rule == "producer-no-null")


# Readers the project recommends: the library, SPEC 7.1's reader, SPEC 7.1's rule without the library.
@pytest.mark.parametrize(
    ("read", "profile"),
    [
        (effective_mask, "core"),
        (effective_mask, "gym"),
        (readers.spec_reader, "gym"),
        (readers.standard_library_mask, "core"),
        (readers.standard_library_mask, "gym"),
        (readers.conforming_mask, "core"),
    ],
)
def test_recommended_readers_conform(read: Callable[[Any], Any], profile: Profile) -> None:
    report = check_consumer(read, profile=profile)
    assert report.ok and not report.issues, report.format_text()
    assert report.checked >= 90 and report.skipped > 0


def test_conforming_reward_readers_pass() -> None:
    report = check_consumer(readers.conforming_both, "both")
    assert report.ok, report.format_text()


def test_nemo_rl_reader_breaks_exactly_what_it_breaks() -> None:
    report = check_consumer(readers.nemo_rl_mask)
    assert set(report.broken()) == {"consumer-effective-mask", "consumer-refuse-mask"}, report.format_text()
    wrong = [i for i in report.issues if i.rule == "consumer-effective-mask"]
    # a top-level-only mask is never seen
    assert wrong and all("mask False, expected true" in i.message for i in wrong)
    refused = [i for i in report.issues if i.rule == "consumer-refuse-mask"]
    assert any("'false'" in i.message for i in refused)


def test_bool_coercing_reader_breaks_only_the_refusal() -> None:
    report = check_consumer(readers.bool_coercing_mask)
    assert set(report.broken()) == {"consumer-refuse-mask"}, report.format_text()
    assert any("'false'" in i.message and "returned True" in i.message for i in report.issues)


def test_verl_reader_is_caught() -> None:
    report = check_consumer(readers.verl_reader, reads="both")
    assert set(report.broken()) == {"consumer-effective-mask", "consumer-refuse-mask", "consumer-refuse-reward"}
    wrong = [i for i in report.issues if i.rule == "consumer-effective-mask"]
    assert wrong and all("expected true" in i.message for i in wrong)
    reward = [i for i in report.issues if i.rule == "consumer-refuse-reward"]
    assert any("'0.5'" in i.message for i in reward), report.format_text()
    skipping = check_consumer(readers.verl_reader, reads="both", invalid="skip")
    assert set(skipping.broken()) == {"consumer-effective-mask"}


def test_the_profile_is_honoured_for_consumers() -> None:
    """SPEC 7.1's reader validates at gym: right for a gym trainer, wrong for one reading core records."""
    assert check_consumer(readers.spec_reader, profile="gym").ok
    at_core = check_consumer(readers.spec_reader, profile="core")
    assert not at_core.ok and "consumer-effective-mask" in at_core.broken()
    assert at_core.profile == "core"


def test_the_version_is_honoured_and_earlier_documents_apply() -> None:
    old = check_consumer(effective_mask, version="1.0.0")
    latest = check_consumer(effective_mask)
    assert old.ok and old.checked < latest.checked and old.version == "1.0.0"
    report = check_consumer(readers.latest_only, profile="core")
    earlier = {i.file for i in report.issues if i.rule == "consumer-earlier-versions"}
    assert "v1-0-reward-only" in earlier and all(v.startswith("v1-") for v in earlier), report.format_text()


def test_refusing_valid_documents_names_the_obligation() -> None:
    report = check_consumer(readers.refuses_unknown_keys)
    assert set(report.broken()) == {"consumer-unknown-keys"}, report.format_text()
    report = check_consumer(readers.refuses_unregistered_kinds)
    assert set(report.broken()) == {"consumer-unregistered-kinds"}, report.format_text()


def test_text_readers_must_refuse_what_breaks_section_2_1() -> None:
    lax = check_consumer(readers.lax_text_mask, takes="text")
    assert set(lax.broken()) == {"consumer-refuse-json"}, lax.format_text()
    assert any("json-duplicate-key" in i.message for i in lax.issues)
    strict = check_consumer(readers.strict_text_mask, takes="text")
    assert strict.ok, strict.format_text()
    assert strict.checked > check_consumer(effective_mask).checked  # the raw JSON-text vectors apply


def test_report_lists_every_obligation() -> None:
    report = check_consumer(readers.bool_coercing_mask)
    rows = {row["id"]: row["status"] for row in report.obligations()}
    assert rows == {o.id: rows[o.id] for o in CONSUMER_OBLIGATIONS}
    assert rows["consumer-refuse-mask"] == "broken" and rows["consumer-effective-mask"] == "kept"
    assert rows["consumer-kind-metrics"] == "not checked"
    text = report.format_text()
    assert "MUST consumer-refuse-mask (SPEC 4.2.2)" in text and "not checkable here: consumer-kind-metrics" in text


def test_spec_names_exactly_the_kit_obligations() -> None:
    spec = (TESTS.parent / "SPEC.md").read_text(encoding="utf-8")
    section = spec[spec.index("## 4. Obligations") : spec.index("## 5.")]
    named = set(re.findall(r"`((?:producer|consumer)-[a-z-]+)`", section))
    assert named == set(OBLIGATIONS)
    for obligation in OBLIGATIONS.values():
        assert f"`{obligation.id}`" in section


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
    assert bad.returncode == 1 and "does NOT conform" in bad.stdout and "consumer-effective-mask" in bad.stdout
    spec = _cli("--consumer", "markdown_blocks:defining", "--profile", "gym")
    assert spec.returncode == 1  # not a reader: refuses everything
    gym_reader = _cli("--consumer", "fixtures.readers:spec_reader", "--profile", "gym", "--format", "json")
    assert gym_reader.returncode == 0 and json.loads(gym_reader.stdout)["profile"] == "gym"
    assert _cli("--consumer", "fixtures.readers:spec_reader").returncode == 1  # core records refused
    old = _cli("--consumer", "fixtures.readers:nemo_rl_mask", "--contract-version", "1.1.0", "--format", "json")
    assert json.loads(old.stdout)["contract_version"] == "1.1.0"
    assert old.returncode == 0, old.stdout  # no 1.2.0 top-level mask to miss: NeMo-RL read 1.1.0 right
    good = _cli("--consumer", "fixtures.readers:conforming_both", "--reads", "both", "--format", "json")
    assert good.returncode == 0 and json.loads(good.stdout)["conforms"] is True
    producer = _cli("--producer", "fixtures.producers:GymLikeVerifyResponse", "--format", "json")
    assert producer.returncode == 1 and json.loads(producer.stdout)["broken"]["producer-round-trip"] >= 5
    assert _cli("--producer", "verify_contract.models:GymVerifyResponse", "--profile", "gym").returncode == 0
    assert _cli("--producer", "verify_contract.models:VerifyResponse").returncode == 0
    assert _cli("--producer", "verify_contract.models:GymVerifyResponse").returncode == 1  # not a core producer
    missing = _cli("--consumer", "no_such_module:read")
    assert missing.returncode == 2 and "cannot import no_such_module" in missing.stderr
    assert _cli("--producer", "fixtures.readers:nemo_rl_mask").returncode == 2


def test_pytest_plugin_is_registered() -> None:
    assert any(e.value == "verify_contract.conformance.pytest_plugin" for e in entry_points(group="pytest11"))


def test_pytest_plugin_in_a_downstream_repo(tmp_path: Path) -> None:
    (tmp_path / "downstream_readers.py").write_text((TESTS / "fixtures" / "readers.py").read_text())
    here = f"Path({str(TESTS.parent)!r})"  # the copy reads this repository's SPEC.md
    blocks = (TESTS / "markdown_blocks.py").read_text().replace("Path(__file__).resolve().parent.parent", here)
    (tmp_path / "markdown_blocks.py").write_text(blocks)
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
                assert contract_vector.profile == "core" and contract_vector.has_instance

            @pytest.mark.verify_contract(profile="gym", version="1.0.0")
            def test_each_old_gym_vector(contract_vector):
                assert contract_vector.profile == "gym" and contract_vector.contract_version == "1.0.0"

            def test_legacy_only_fails(assert_conforms):
                with pytest.raises(AssertionError, match="producer-legacy-mirror"):
                    assert_conforms({"reward": 1, "instance_config": {"mask_sample": True}})

            @pytest.mark.verify_contract(profile="gym")
            def test_marker_reaches_the_consumer_check(assert_consumer_conforms):
                assert_consumer_conforms(r.spec_reader)
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
    assert "1 failed" in out and "test_nemo_rl_reader" in out and "consumer-effective-mask" in out
    passed = int(out.split(" passed")[0].split()[-1])
    runnable = [v for v in VECTORS if v.has_instance and v.profile == "core" and v.contract_version == LATEST_VERSION]
    old_gym = [v for v in VECTORS if v.has_instance and v.profile == "gym" and v.contract_version == "1.0.0"]
    assert passed == 5 + len(runnable) + len(old_gym), out  # one test per vector the marker's settings can run
    assert 0 < len(runnable) < len(VECTORS) and old_gym


def test_the_kit_names_only_rules_of_spec_section_8() -> None:
    assert RULES.keys() >= MASK_RULES | REWARD_RULES
    assert "document-type" in RULES  # with the json-* rules, section 2.1's (consumer-refuse-json)


@pytest.mark.parametrize("version", CONTRACT_VERSIONS)
@pytest.mark.parametrize("profile", PROFILES)
def test_the_profile_echo_makes_a_default_profile_document_one_of_the_profile(version: str, profile: str) -> None:
    """The echo comes from the model: the members ``profile`` requires beyond the default one, nothing else."""
    model = contract_model(version)
    document = {model.role("reward").name: 0}  # type: ignore[union-attr]
    assert validate(document, version, model.default_profile).valid
    echo = profile_echo(version, profile)
    assert validate({**document, **echo}, version, profile).valid
    extra = set(model.profiles[profile].required) - set(model.profiles[model.default_profile].required)
    assert set(echo) == extra and (profile == model.default_profile) == (not echo)
    assert with_echo(document, version, profile) == {**echo, **document}
    echo.clear()  # each call gives a fresh copy
    assert set(profile_echo(version, profile)) == extra
