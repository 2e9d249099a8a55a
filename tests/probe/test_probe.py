"""verify-contract probe against real uvicorn servers: the example server passes, every defect planted in
tests/broken_resource_server.py is found by its check id, the JUnit report parses, bad usage exits 2 and a
server that is not there exits 4."""

from __future__ import annotations

import gzip
import json
import shlex
import shutil
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from verify_contract.cli import main
from verify_contract.cli._exit_codes import EXIT_INVALID, EXIT_OK, EXIT_REFUSED, EXIT_UNREACHABLE, EXIT_USAGE
from verify_contract.probe import CHECK_IDS, DEFAULT_CHECKS
from verify_contract.probe._checks import MAX_REPLY_BYTES, MESSAGE_CAP

from live_servers import free_port, uvicorn_server
from markdown_blocks import blocks

ROOT = Path(__file__).resolve().parents[2]
TESTS = Path(__file__).resolve().parents[1]


def _message(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}


def arithmetic_request(answer: str) -> dict[str, Any]:
    return {
        "responses_create_params": {"input": [{"role": "user", "content": "What is 2 + 2?"}]},
        "response": {"id": "resp_1", "output": [_message(answer)]},
        "expected_answer": "4",
    }


def planted(defect: str) -> dict[str, Any]:
    return {"responses_create_params": {"input": []}, "response": {"output": []}, "defect": defect}


def write_cases(path: Path, cases: dict[str, dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps({"id": name, "request": request}) + "\n" for name, request in cases.items()))
    return path


def run_probe(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, str, str]:
    code = main(["probe", *arguments])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture(scope="module")
def example_server() -> Iterator[str]:
    with uvicorn_server("gym_resource_server:app", ROOT / "examples") as url:
        yield url


@pytest.fixture(scope="module")
def broken_server() -> Iterator[str]:
    with uvicorn_server("broken_resource_server:app", TESTS) as url:
        yield url


def test_the_example_server_passes_every_check(
    example_server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = {
        "right": arithmetic_request("4"),
        "wrong": arithmetic_request("5"),
        "judge-down": arithmetic_request("judge down"),
    }
    path = write_cases(tmp_path / "cases.jsonl", cases)
    code, out, err = run_probe(
        capsys, example_server, "--cases", str(path), "--checks", "all", "--max-latency", "30", "--format", "json"
    )
    report = json.loads(out)
    assert code == EXIT_OK, (out, err)
    assert report["ok"] and report["findings"] == []
    assert report["profile"] == "gym"
    assert report["checks"] == list(CHECK_IDS)
    stats = report["statistics"]
    assert stats["cases"] == 3 and stats["requests"] == 6 and stats["replies"] == 6  # determinism: twice each
    assert stats["failure_kinds"] == {"(none)": 2, "judge_failed": 1}
    assert stats["masked"] == 1
    latency = stats["latency_ms"]
    assert 0 < latency["p50"] <= latency["p90"] <= latency["p99"]


def test_replay_samples_rollout_rows_with_a_seed(
    example_server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [{**arithmetic_request(str(n)), "reward": 0.0, "mask_sample": False, "_ng_task_index": n} for n in range(20)]
    rollouts = tmp_path / "rollouts.jsonl"
    rollouts.write_text("".join(json.dumps(row) + "\n" for row in rows))
    drawn = []
    for _ in range(2):
        code, out, _err = run_probe(
            capsys, example_server, "--replay", str(rollouts), "--n", "5", "--seed", "7", "--format", "junit"
        )
        assert code == EXIT_OK, out
        names = {case.get("name") for case in ElementTree.fromstring(out).iter("testcase")}
        assert len(names) == 5 and names <= {f"rollouts.jsonl:{n}" for n in range(1, 21)}
        drawn.append(names)
    assert drawn[0] == drawn[1]  # the seed fixes the draw
    code, out, _err = run_probe(capsys, example_server, "--replay", str(rollouts), "--format", "json")
    assert code == EXIT_OK and json.loads(out)["statistics"]["replies"] == 20
    packed = tmp_path / "rollouts.jsonl.gz"
    packed.write_bytes(gzip.compress(rollouts.read_bytes()))
    code, out, _err = run_probe(capsys, example_server, "--replay", str(packed), "--n", "50", "--format", "json")
    assert code == EXIT_OK and json.loads(out)["statistics"]["replies"] == 20  # --n beyond the file: every row


# Each planted defect -> the (check, rule, folded checks) of its reply's findings, exactly: one finding per
# defect. A probe-contract finding keeps the contract's rule id, and a probe check that found the same value
# at fault is folded into it (listed under also_found_by); every other finding's rule is its check id.
PLANTED: dict[str, set[tuple[str, str, tuple[str, ...]]]] = {
    "fine": set(),
    "status": {("probe-http-status", "probe-http-status", ())},
    "crash": {("probe-http-status", "probe-http-status", ())},  # and the repeated request is answered too
    "content-type": {("probe-content-type", "probe-content-type", ())},
    "contract": {("probe-contract", "reward-type", ("probe-reward-finite",))},
    "kind": {("probe-contract", "failure-kind-format", ("probe-failure-kind",))},
    "unregistered-kind": {("probe-contract", "failure-kind-unregistered", ("probe-failure-kind",))},
    "mask": {("probe-contract", "legacy-mask-divergent", ("probe-mask-agree",))},
    "nan": {("probe-contract", "json-non-finite", ("probe-reward-finite",))},
    "null": {("probe-contract", "reward-type", ("probe-reward-finite",))},
    "random": {("probe-determinism", "probe-determinism", ())},
    "slow": {("probe-latency", "probe-latency", ())},
    "stream-broken": {("probe-contract", "reward-type", ("probe-reward-finite",))},
}
WARNING_ONLY = {"unregistered-kind"}
WARNINGS = {("unregistered-kind", "probe-contract")}
"""The (case, check) pairs whose findings are warnings (failure-kind-unregistered). A divergent legacy mask
is an error in the probe: the probe holds a producer to SPEC 4.1.5's MUST (the rule warns a reader)."""


@pytest.fixture(scope="module")
def broken_report(broken_server: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    path = write_cases(tmp_path_factory.mktemp("broken") / "cases.jsonl", {name: planted(name) for name in PLANTED})
    common = [broken_server, "--cases", str(path), "--checks", "all", "--max-latency", "1"]
    outputs = {}
    for output_format in ("json", "junit", "text"):
        code = main(
            ["probe", *common, "--format", output_format, "--output", str(path.with_suffix(f".{output_format}"))]
        )
        assert code == EXIT_INVALID
        outputs[output_format] = path.with_suffix(f".{output_format}").read_text(encoding="utf-8")
    return outputs


def test_every_planted_defect_is_found_by_its_check_id(broken_report: dict[str, str]) -> None:
    report = json.loads(broken_report["json"])
    found: dict[str, set[tuple[str, str]]] = {name: set() for name in PLANTED}
    for item in report["findings"]:
        found[item["case"]].add((item["check"], item["rule"], tuple(item.get("context", {}).get("also_found_by", ()))))
    assert found == PLANTED
    severities = {item["case"]: item["severity"] for item in report["findings"]}
    assert severities["mask"] == "error" and severities["unregistered-kind"] == "warning"
    assert not report["ok"]
    stats = report["statistics"]
    assert stats["breaking_cases"] == len(PLANTED) - 1 - len(WARNING_ONLY)
    assert stats["by_check"]["probe-determinism"] == 1 and stats["by_check"]["probe-latency"] == 1
    assert stats["failure_kinds"]["Judge Failed"] == 1 and stats["failure_kinds"]["judge_melted"] == 1
    assert all(len(item["message"]) <= MESSAGE_CAP + 40 for item in report["findings"])
    # none lost to a dropped connection: a resend (before any byte of a reply) is counted as a request
    assert stats["replies"] == stats["requests"] - stats["resent"] == 2 * len(PLANTED)
    assert stats["unanswered"] == 0


def test_the_junit_report_parses_with_one_testcase_per_case_and_check(broken_report: dict[str, str]) -> None:
    root = ElementTree.fromstring(broken_report["junit"])
    testcases = list(root.iter("testcase"))
    assert len(testcases) == len(PLANTED) * len(CHECK_IDS)
    assert {(case.get("name"), case.get("classname")) for case in testcases} == {
        (name, check) for name in PLANTED for check in CHECK_IDS
    }
    failed = {(case.get("name"), case.get("classname")) for case in testcases if case.find("failure") is not None}
    expected = {(name, check) for name, found in PLANTED.items() for check, _, _ in found} - WARNINGS
    assert failed == expected
    suite = root.find("testsuite")
    assert (
        suite is not None and suite.get("failures") == str(len(expected)) and suite.get("tests") == str(len(testcases))
    )
    warned = {(case.get("name"), case.get("classname")) for case in testcases if case.find("system-out") is not None}
    assert warned == WARNINGS


def test_the_text_report_ends_with_statistics(broken_report: dict[str, str]) -> None:
    lines = broken_report["text"].splitlines()
    assert 'contract: error [reward-type] /reward: "0.5" is not of type "number"' in lines
    tail = "\n".join(lines[-6:])
    assert "BREAKS THE CONTRACT" in tail and "latency ms: p50 " in tail
    assert "by check: probe-content-type 1, probe-contract 7, probe-determinism 1," in tail
    assert "failure kinds: (none) 9, Judge Failed 1, judge_melted 1; masked 3" in tail


def test_warnings_break_only_when_asked(broken_server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_cases(tmp_path / "cases.jsonl", {"unregistered-kind": planted("unregistered-kind")})
    assert run_probe(capsys, broken_server, "--cases", str(path))[0] == EXIT_OK
    assert run_probe(capsys, broken_server, "--cases", str(path), "--warnings-as-errors")[0] == EXIT_INVALID


def test_checks_are_selected_and_excluded(
    broken_server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_cases(tmp_path / "cases.jsonl", {"mask": planted("mask"), "random": planted("random")})
    code, out, _ = run_probe(
        capsys, broken_server, "--cases", str(path), "--checks", "probe-mask-agree", "--format", "json"
    )
    report = json.loads(out)
    assert code == EXIT_INVALID and report["checks"] == ["probe-mask-agree"]
    assert [(f["case"], f["rule"]) for f in report["findings"]] == [("mask", "probe-mask-agree")]
    code, out, _ = run_probe(
        capsys,
        broken_server,
        "--cases",
        str(path),
        "--exclude-checks",
        "probe-mask-agree,probe-contract",
        "--format",
        "json",
    )
    assert code == EXIT_OK and json.loads(out)["findings"] == []  # determinism is opt-in: random passes
    assert json.loads(out)["checks"] == [c for c in DEFAULT_CHECKS if c not in ("probe-mask-agree", "probe-contract")]


def test_max_requests_bounds_the_traffic(
    broken_server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_cases(tmp_path / "cases.jsonl", {f"fine-{n}": planted("fine") for n in range(5)})
    code, out, _ = run_probe(capsys, broken_server, "--cases", str(path), "--max-requests", "3", "--format", "json")
    stats = json.loads(out)["statistics"]
    assert code == EXIT_OK and (stats["requests"], stats["left_out"]) == (3, 2)
    code, out, _ = run_probe(
        capsys,
        broken_server,
        "--cases",
        str(path),
        "--max-requests",
        "3",
        "--checks",
        "all",
        "--max-latency",
        "9",
        "--format",
        "json",
    )
    stats = json.loads(out)["statistics"]
    assert (stats["requests"], stats["left_out"]) == (2, 4)  # determinism sends each case twice


def test_a_server_that_is_not_there_exits_3(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_cases(tmp_path / "cases.jsonl", {f"fine-{n}": planted("fine") for n in range(50)})
    code, out, err = run_probe(capsys, f"http://127.0.0.1:{free_port()}", "--cases", str(path), "--concurrency", "1")
    assert code == EXIT_UNREACHABLE == 4
    assert "could not be reached" in err and "Traceback" not in err
    assert "1 case, 1 request to" in out and "49 left out" in out  # it stops after the first refused connection


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        (["ftp://127.0.0.1/verify"], "expected an http:// or https:// URL"),
        (["http://127.0.0.1:9", "--checks", "probe-nothing"], "unknown check 'probe-nothing'"),
        (["http://127.0.0.1:9", "--checks", "probe-latency"], "probe-latency needs --max-latency"),
        (["http://127.0.0.1:9", "--exclude-checks", "all"], "no check left to run"),
    ],
)
def test_usage_errors_exit_2_in_one_line(
    arguments: list[str], says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_cases(tmp_path / "cases.jsonl", {"fine": planted("fine")})
    code, _, err = run_probe(capsys, *arguments, "--cases", str(path))
    assert code == EXIT_USAGE and says in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ('{"id": "a", "request": {}}\n[1]\n', "cases.jsonl:2: expected a JSON object, got list"),
        ('{"id": "a", "reqest": {}}\n', "cases.jsonl:1: unknown key 'reqest'"),
        ('{"id": "a", "request": [1]}\n', "cases.jsonl:1: 'request' must be the JSON object"),
        ("{nope\n", "cases.jsonl:1: not JSON"),
        ("\n\n", "no request in it"),
    ],
)
def test_bad_cases_files_exit_2_naming_the_line(
    content: str, says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text(content)
    code, _, err = run_probe(capsys, "http://127.0.0.1:9", "--cases", str(path))
    assert code == EXIT_USAGE and says in err and "Traceback" not in err


def test_a_rollout_row_without_its_request_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rollouts = tmp_path / "rollouts.jsonl"
    rollouts.write_text(json.dumps({"reward": 1.0, "response": {"output": []}}) + "\n")
    code, _, err = run_probe(capsys, "http://127.0.0.1:9", "--replay", str(rollouts))
    assert code == EXIT_USAGE and "rollouts.jsonl:1: a rollout row needs responses_create_params" in err


def test_spec_lists_every_check_with_its_summary() -> None:
    """SPEC 4.4's table of checks is the one the probe runs (ids, order and what each looks at)."""
    from verify_contract.probe import CHECKS

    spec = (ROOT / "SPEC.md").read_text(encoding="utf-8")
    section = spec[spec.index('<a id="live-checks"></a>') :]
    table = section[section.index("| check | severity | looks at |") :].split("\n\n", 1)[0].splitlines()[2:]
    rows = [[cell.strip() for cell in row.strip("|").split("|")] for row in table]
    assert [(row[0].strip("`"), row[2]) for row in rows] == [(check.id, check.summary) for check in CHECKS]
    help_text = main_help(["probe", "--help"])
    assert all(check.id in help_text for check in CHECKS) and "4 the server could not be reached" in help_text
    assert "5 the server refused requests" in help_text
    # the caps, stated where a user looks (and in README's probe section)
    assert f"({MAX_REPLY_BYTES:,} by default)" in help_text and "--timeout for each whole request" in help_text
    assert "only when its connection dropped before any byte of the reply" in help_text and "[REDACTED]" in help_text
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "| a reply body, after gzip or deflate is undone | 16 MiB | `--max-reply-bytes` |" in readme
    assert MAX_REPLY_BYTES == 16 * 1024 * 1024


def main_help(arguments: list[str]) -> str:
    import contextlib
    import io

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer), pytest.raises(SystemExit):
        main(arguments)
    return " ".join(buffer.getvalue().split())


def test_the_readme_probe_commands_work_as_written(
    example_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """README's probe quick-start, run from a copy of the repository's examples against the example server
    (only the port differs): the shipped rollouts and cases are accepted, every check that can run passes,
    and the skipped one is named with its reason."""
    [block] = [b for b in blocks("README.md", "sh") if "verify-contract probe" in b.code]
    lines = block.code.splitlines()
    assert lines[0] == "uvicorn --app-dir examples gym_resource_server:app --host 127.0.0.1 --port 8000 &"
    commands = [shlex.split(line.replace("http://127.0.0.1:8000", example_server)) for line in lines[1:]]
    assert len(commands) == 2 and all(command[:2] == ["verify-contract", "probe"] for command in commands)
    shutil.copytree(ROOT / "examples", tmp_path / "examples", ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.chdir(tmp_path)
    replay, cases = commands
    code, out, err = run_probe(capsys, *replay[2:])
    assert code == EXIT_OK, (out, err)
    assert "5 cases, 5 requests" in out and "0 cases break the contract, 0 refused by the server: ok" in out
    code, out, err = run_probe(capsys, *cases[2:])
    assert code == EXIT_OK and out == "", (out, err)
    root = ElementTree.fromstring((tmp_path / "probe.xml").read_text(encoding="utf-8"))
    suite = root.find("testsuite")
    assert suite is not None and (suite.get("failures"), suite.get("errors"), suite.get("skipped")) == ("0", "0", "1")
    ran = {case.get("classname") for case in root.iter("testcase") if case.find("skipped") is None}
    assert ran == set(CHECK_IDS) - {"probe-latency"}  # every check that can run without --max-latency
    [skipped] = root.iter("skipped")
    assert skipped.get("message") == "needs a bound: --max-latency SECONDS"


def test_checks_all_says_what_it_skipped(
    example_server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_cases(tmp_path / "cases.jsonl", {"right": arithmetic_request("4")})
    code, out, _ = run_probe(capsys, example_server, "--cases", str(path), "--checks", "all", "--format", "json")
    report = json.loads(out)
    assert code == EXIT_OK and report["checks"] == [c for c in CHECK_IDS if c != "probe-latency"]
    assert report["skipped_checks"] == {"probe-latency": "needs a bound: --max-latency SECONDS"}
    code, out, _ = run_probe(capsys, example_server, "--cases", str(path), "--checks", "all")
    assert code == EXIT_OK and "skipped: probe-latency (needs a bound: --max-latency SECONDS)" in out


def test_a_request_the_server_refuses_is_the_inputs_problem(
    example_server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The example server answers 422 to a request without its task key: probe-request-refused, exit 5,
    never "breaks the contract"; a contract break in the same run outranks it (exit 1)."""
    incomplete = {key: value for key, value in arithmetic_request("4").items() if key != "expected_answer"}
    path = write_cases(tmp_path / "cases.jsonl", {"right": arithmetic_request("4"), "no-answer": incomplete})
    code, out, err = run_probe(capsys, example_server, "--cases", str(path), "--format", "json")
    report = json.loads(out)
    assert code == EXIT_REFUSED == 5, err
    assert report["ok"] and report["refused_cases"] == 1 and report["statistics"]["breaking_cases"] == 0
    [finding] = report["findings"]
    assert (finding["case"], finding["check"], finding["rule"]) == (
        "no-answer",
        "probe-request-refused",
        "probe-request-refused",
    )
    assert "status 422" in finding["message"] and "the input's problem" in finding["message"]
    assert "refused 1 of the requests" in err and len(err.strip().splitlines()) == 1
    code, out, _ = run_probe(capsys, example_server, "--cases", str(path))
    assert "1 refused by the server: REQUESTS REFUSED" in out
    code, out, _ = run_probe(capsys, example_server, "--cases", str(path), "--format", "junit")
    errors = [
        case.get("name") for case in ElementTree.fromstring(out).iter("testcase") if case.find("error") is not None
    ]
    assert errors == ["no-answer"]
    # without its check, a refusal is what any status but 200 is: probe-http-status, a break
    code, out, _ = run_probe(
        capsys, example_server, "--cases", str(path), "--exclude-checks", "probe-request-refused", "--format", "json"
    )
    assert code == EXIT_INVALID and [f["check"] for f in json.loads(out)["findings"]] == ["probe-http-status"]


def test_identical_findings_are_grouped_with_their_count_and_first_cases(
    broken_server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = {f"null-{n}": planted("null") for n in range(7)} | {"kind": planted("kind")}
    path = write_cases(tmp_path / "cases.jsonl", cases)
    code, out, _ = run_probe(capsys, broken_server, "--cases", str(path), "--format", "json")
    report = json.loads(out)
    assert code == EXIT_INVALID and len(report["findings"]) == 8
    groups = [(g["rule"], g["count"], g["cases"]) for g in report["groups"]]
    assert groups == [
        ("reward-type", 7, [f"null-{n}" for n in range(5)]),
        ("failure-kind-format", 1, ["kind"]),
    ]
    code, out, _ = run_probe(capsys, broken_server, "--cases", str(path))
    lines = out.splitlines()
    assert lines[0] == (
        "7 cases (null-0, null-1, null-2, null-3, null-4 and 2 more): error [reward-type] /reward: null is not of "
        'type "number"'
    )
    assert lines[1].startswith("kind: error [failure-kind-format] /failure_kind:")
    assert "8 cases, 8 requests" in lines[2]


@pytest.mark.parametrize(
    ("option", "value"), [("--timeout", "nan"), ("--timeout", "inf"), ("--max-reply-bytes", str(2**64)), ("--n", "0")]
)
def test_number_options_are_range_checked(
    option: str, value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_cases(tmp_path / "cases.jsonl", {"fine": planted("fine")})
    with pytest.raises(SystemExit) as stop:
        main(["probe", "http://127.0.0.1:9", "--cases", str(path), option, value])
    err = capsys.readouterr().err
    assert stop.value.code == EXIT_USAGE and f"argument {option}: {value!r} must be greater than 0" in err
    assert "Traceback" not in err
