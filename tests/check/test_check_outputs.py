"""The files ``check`` writes beside its report (``--retry-list``, ``--metrics-file``, ``--plot``): a name that
cannot be written is one line and exit 2 before the run starts, ``--follow`` included (it died with a traceback
at its first window once); a write that fails removes its temporary file and names the user's path."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from verify_contract.check import CheckOptions, check_paths
from verify_contract.check._budget import BudgetRun, FactSpec
from verify_contract.cli import main
from verify_contract.contract._versions import DEFAULT_PROFILE, LATEST_VERSION

OUTPUTS = ["--retry-list", "--metrics-file", "--plot"]
USABLE = b'{"reward": 1.0}\n'


def _cannot_write_here(tmp_path: Path) -> Path:
    """A directory no file can be created in: its permission bits, or (root ignores them) a read-only sysfs."""
    if os.geteuid() != 0:
        folder = tmp_path / "locked"
        folder.mkdir(mode=0o500)
        return folder
    sysfs = Path("/sys")
    if not sysfs.is_dir():
        pytest.skip("as root, and no read-only filesystem to write into")
    return sysfs


@pytest.mark.parametrize("option", OUTPUTS)
@pytest.mark.parametrize("problem", ["missing directory", "a directory", "no permission", "empty"])
@pytest.mark.parametrize("follow", [False, True], ids=["check", "follow"])
def test_an_output_that_cannot_be_written_is_one_line_before_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, problem: str, follow: bool
) -> None:
    data = tmp_path / "rollouts.jsonl"
    data.write_bytes(USABLE * 3)
    target = {
        "missing directory": str(tmp_path / "missing" / "dir" / "x.out"),
        "a directory": str(tmp_path),
        "no permission": str(_cannot_write_here(tmp_path) / "x.out"),
        "empty": " ",
    }[problem]
    code = main(["check", str(data), option, target, *(["--follow"] if follow else [])])
    captured = capsys.readouterr()
    assert code == 2
    assert captured.out == ""  # refused before the run: no report, no follow
    (line,) = captured.err.splitlines()
    expected = {
        "missing directory": f"{option}: {target}: no such directory: {tmp_path / 'missing' / 'dir'}",
        "a directory": f"{option}: {target}: is a directory",
        "no permission": f"{option}: {target}: cannot write in {Path(target).parent}: ",
        "empty": f"{option} needs a file name",
    }[problem]
    assert line.startswith(f"verify-contract check: {expected}"), line
    assert sorted(os.listdir(tmp_path)) == sorted(["rollouts.jsonl", *(["locked"] if "locked" in target else [])])


def _budget_run(tmp_path: Path) -> BudgetRun:
    from verify_contract.budget import FailureBudget

    data = tmp_path / "rollouts.jsonl"
    data.write_bytes(USABLE * 3 + b'{"reward": 0.0, "mask_sample": true}\n')
    budget = BudgetRun(FailureBudget(track_identities=True, track_blocks=True), FactSpec((), True))
    report = check_paths([str(data)], options=CheckOptions(), budget=budget)
    assert report.budget is budget and budget.budget.rollouts == 4
    return budget


@pytest.mark.parametrize("output", ["retry list", "metrics", "plot"])
def test_a_failed_write_removes_its_temporary_file_and_names_the_users_path(tmp_path: Path, output: str) -> None:
    from verify_contract.check._budget_metrics import write_metrics
    from verify_contract.check._budget_plot import write_plot
    from verify_contract.check._budget_report import write_retry_list
    from verify_contract.check._report import Report

    budget = _budget_run(tmp_path)
    target = tmp_path / "out"
    target.mkdir()  # made a directory after the check before the run: the final rename fails
    (target / "keep").write_text("")
    report = Report(LATEST_VERSION, DEFAULT_PROFILE)
    report.budget = budget
    write = {
        "retry list": lambda: write_retry_list(budget, str(target)),
        "metrics": lambda: write_metrics(report, str(target)),
        "plot": lambda: write_plot(budget, str(target)),
    }[output]
    with pytest.raises(OSError) as failed:
        write()
    assert failed.value.filename == str(target)  # the user's path, not the temporary one
    assert sorted(os.listdir(tmp_path)) == ["out", "rollouts.jsonl"]  # no temporary file left behind


def test_probe_and_upgrade_try_their_output_before_the_work(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("httpx", reason="the probe's client (the test extra installs it)")
    missing = tmp_path / "missing" / "report.xml"
    cases = tmp_path / "cases.jsonl"
    cases.write_text('{"responses_create_params": {"input": []}}\n')
    # Port 9 (discard) on loopback: never reached, since the output is refused first.
    code = main(["probe", "http://127.0.0.1:9", "--cases", str(cases), "--format", "junit", "--output", str(missing)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.splitlines() == [f"verify-contract probe: --output: {missing}: no such directory: {missing.parent}"]
    data = tmp_path / "rollouts.jsonl"
    data.write_bytes(USABLE)
    assert main(["upgrade", str(data), "--output", str(missing)]) == 2
    assert (
        f"verify-contract upgrade: --output: {missing}: no such directory: {missing.parent}" in capsys.readouterr().err
    )
