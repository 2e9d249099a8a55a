"""A flag that needs a package extra is refused before any input is read (one line naming the extra, exit 2),
as an installation without that extra sees it: the extra's modules are hidden from a fresh interpreter by a
meta path finder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from verify_contract.cli import _extras as extras

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = str(ROOT / "examples" / "results.jsonl")

# Run in the child: the modules named in VERIFY_CONTRACT_TEST_HIDDEN (and their submodules) are not installed.
HIDING_RUN = """
import os, sys
hidden = os.environ["VERIFY_CONTRACT_TEST_HIDDEN"].split(",")

class Hide:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if any(name == top or name.startswith(top + ".") for top in hidden):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, Hide)
from verify_contract.cli import main
sys.exit(main(sys.argv[1:]))
"""


def run_without(hidden: list[str], arguments: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "VERIFY_CONTRACT_TEST_HIDDEN": ",".join(hidden)}
    return subprocess.run(
        [sys.executable, "-c", HIDING_RUN, *arguments],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize(
    ("hidden", "flags", "said", "extra"),
    [
        (["prometheus_client"], ["--metrics-file", "run.prom"], "--metrics-file needs prometheus_client", "metrics"),
        (["matplotlib"], ["--plot", "run.png"], "--plot needs matplotlib", "plot"),
        (["ray"], ["--engine", "ray"], "--engine ray needs ray", "ray"),
    ],
    ids=["metrics", "plot", "ray"],
)
def test_a_missing_extra_is_refused_before_the_check(
    hidden: list[str], flags: list[str], said: str, extra: str, tmp_path: Path
) -> None:
    done = run_without(hidden, ["check", EXAMPLE, *flags], tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""  # no report: nothing was checked
    assert done.stderr == f"verify-contract check: {said}: pip install 'verify-contract[{extra}]'\n"
    assert list(tmp_path.iterdir()) == []  # no file written


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_no_input_is_opened_before_the_refusal(tmp_path: Path) -> None:
    """The input is a named pipe nobody writes: opening it would wait for ever (the run's timeout)."""
    pipe = tmp_path / "rollouts.jsonl"
    os.mkfifo(pipe)
    done = run_without(["matplotlib"], ["check", str(pipe), "--max-masked", "0.2", "--plot", "p.png"], tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "verify-contract check: --plot needs matplotlib: pip install 'verify-contract[plot]'\n"


def test_every_missing_extra_is_named_in_one_line(tmp_path: Path) -> None:
    done = run_without(
        ["prometheus_client", "matplotlib"], ["check", EXAMPLE, "--plot", "a.png", "--metrics-file", "a.prom"], tmp_path
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        "verify-contract check: --metrics-file needs prometheus_client; --plot needs matplotlib: "
        "pip install 'verify-contract[metrics,plot]'\n"
    )


@pytest.mark.parametrize(
    ("url", "hidden", "said"),
    [
        ("s3://bucket/runs/", ["s3fs"], "reading s3:// URLs needs s3fs: pip install 'verify-contract[s3]'"),
        ("gs://bucket/runs/", ["gcsfs"], "reading gs:// URLs needs gcsfs: pip install 'verify-contract[gcs]'"),
        ("memory://runs/a.jsonl", ["fsspec"], "reading memory:// URLs needs fsspec: pip install 'verify-contract[s3]'"),
    ],
)
def test_an_url_input_needs_its_filesystem_first(url: str, hidden: list[str], said: str, tmp_path: Path) -> None:
    # The local input comes first: without the check up front it would be read and reported before the URL.
    done = run_without(hidden, ["check", EXAMPLE, url], tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", f"verify-contract check: {said}\n")


def test_follow_is_refused_before_it_follows(tmp_path: Path) -> None:
    """--follow would wait for lines for ever; the refusal comes first."""
    growing = tmp_path / "rollouts.jsonl"
    growing.write_text(json.dumps({"reward": 1.0}) + "\n", encoding="utf-8")
    done = run_without(["matplotlib"], ["check", "--follow", str(growing), "--plot", "p.png"], tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "verify-contract check: --plot needs matplotlib: pip install 'verify-contract[plot]'\n"


def test_the_probe_needs_its_client_before_reading_cases(tmp_path: Path) -> None:
    done = run_without(["aiohttp"], ["probe", "http://127.0.0.1:9", "--cases", "no-such-cases.jsonl"], tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert "pip install 'verify-contract[probe]'" in done.stderr and "no-such-cases" not in done.stderr


def test_a_file_named_like_an_url_is_a_file(tmp_path: Path) -> None:
    """An existing path is read as a file, as check reads it, so it asks for no filesystem extra."""
    local = tmp_path / "s3:" / "bucket"
    local.mkdir(parents=True)
    (local / "a.jsonl").write_text(json.dumps({"reward": 1.0}) + "\n", encoding="utf-8")
    done = run_without(["fsspec", "s3fs"], ["check", "s3://bucket/a.jsonl"], tmp_path)
    assert done.returncode == 0, done.stderr


def test_nothing_is_missing_where_the_extras_are_installed() -> None:
    pytest.importorskip("matplotlib")
    pytest.importorskip("prometheus_client")
    assert extras.missing([extras.PLOT, extras.METRICS]) is None
