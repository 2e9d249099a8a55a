"""Objects read as files are: a run's failures file found and read through the URL layer of its main file
(prefix, object URL, glob), an object read at one version (replaced mid-read: one line naming the URL, exit 2,
no blend of two versions), and a key with ``?``, ``*`` or ``[`` taken literally when an object of that exact
name exists. Against moto's S3 server on 127.0.0.1."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from storm_example import STORM

from verify_contract.check import CheckOptions, check_paths, check_sources
from verify_contract.check import _remote as remote
from verify_contract.check._inputs import resolve

from object_store import BUCKET, REPLACEMENT_VALID, S3, check_an_object_replaced_mid_read, s3_server

pytest.importorskip("s3fs", reason="the [s3] extra (the test extra installs it)")


@pytest.fixture(scope="module")
def s3() -> Iterator[S3]:
    with s3_server() as store:
        yield store


@pytest.fixture(scope="module")
def storm_run(s3: S3, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The storm example's run (1,226 rows and a failures file of 36) on disk and under s3://rollouts/run/."""
    folder = tmp_path_factory.mktemp("storm")
    main_file, failures = STORM.write(folder)
    for path in (Path(main_file), Path(failures)):
        s3.put(f"run/{path.name}", path.read_bytes())
    return Path(main_file)


def cli(*arguments: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "verify_contract", "check", "--format", "json", *arguments]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def _budget_counts(report: dict[str, Any]) -> tuple[int, int, list[int]]:
    budget = report["budget"]
    failed = [counts["rows"] for counts in budget["failures_files"].values()]
    return report["lines"], budget["rollouts"], failed


@pytest.mark.parametrize("form", ["prefix", "object", "glob"])
def test_the_failures_file_of_a_run_in_object_storage_is_read_as_on_disk(s3: S3, storm_run: Path, form: str) -> None:
    _, failures, _ = STORM.rows()
    assert len(failures) == 36
    local = cli(str(storm_run), "--max-masked", "0.2")
    url = {
        "prefix": f"s3://{BUCKET}/run/",
        "object": f"s3://{BUCKET}/run/{storm_run.name}",
        "glob": f"s3://{BUCKET}/run/*.jsonl",
    }[form]
    remote_run = cli(url, "--max-masked", "0.2", "--storage-options", json.dumps(s3.options))
    assert remote_run.returncode == local.returncode == 3, remote_run.stderr  # the breach, not exit 2
    assert remote_run.stderr == ""
    got, expected = json.loads(remote_run.stdout), json.loads(local.stdout)
    assert _budget_counts(got) == _budget_counts(expected) == (1226, 1226 + 36, [36])
    assert list(got["budget"]["failures_files"]) == [f"s3://{BUCKET}/run/rollouts_failures.jsonl"]
    assert got["budget"]["verdict"] == expected["budget"]["verdict"] == "breach"


def test_an_unreadable_failures_file_is_one_line_naming_its_url(s3: S3, storm_run: Path) -> None:
    s3.put("broken/rollouts.jsonl", storm_run.read_bytes())
    s3.put("broken/rollouts_failures.jsonl", b"\x1f\x8b not gzip at all")
    run = cli(f"s3://{BUCKET}/broken/rollouts.jsonl", "--storage-options", json.dumps(s3.options))
    assert run.returncode == 2
    (line,) = run.stderr.splitlines()
    assert line.startswith(f"verify-contract check: s3://{BUCKET}/broken/rollouts_failures.jsonl: cannot read the")


def _lines_of(size: int, line: bytes) -> bytes:
    return line * (size // len(line))


VALID = REPLACEMENT_VALID


def test_an_object_replaced_mid_read_is_one_line_and_exit_2_never_a_blend(
    s3: S3, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert len(check_an_object_replaced_mid_read(s3, monkeypatch, capsys)) >= 2


def test_an_object_replaced_after_listing_is_not_read_at_all(s3: S3) -> None:
    url = s3.put("listed/rollouts.jsonl", _lines_of(1 << 20, VALID))
    sources, errors = resolve([url], urls=True, storage_options=s3.options)
    assert not errors and isinstance(sources[0], remote.RemoteSource) and sources[0].version.startswith("ETag ")
    s3.put("listed/rollouts.jsonl", _lines_of(1 << 20, VALID.replace(b"1.0", b"0.5")))
    report = check_sources(sources, CheckOptions())
    assert report.lines == 0 and len(report.input_errors) == 1  # not a line of either version
    # Told at the open when the store answers afresh, else after the first block (a listing's cached info).
    assert report.input_errors[0].startswith(
        (f"{url}: the object changed since it was listed (ETag ", f"{url}: the object changed while it was read (ETag ")
    )


@pytest.fixture(scope="module")
def odd_keys(s3: S3) -> dict[str, int]:
    """Keys that look like patterns, each holding a known number of lines."""
    keys = {"odd/a?b.jsonl": 1, "odd/a1b.jsonl": 2, "odd/a2b.jsonl": 3, "odd/a[1].jsonl": 4, "odd/a1.jsonl": 5}
    for key, count in keys.items():
        s3.put(key, VALID * count)
    return keys


@pytest.mark.parametrize(
    ("key", "glob", "files", "lines"),
    [
        ("odd/a?b.jsonl", True, 1, 1),  # the object of that exact name, not a?b's three matches
        ("odd/a[1].jsonl", True, 1, 4),  # not "odd/a1.jsonl", which the pattern would match
        ("odd/a*b.jsonl", True, 3, 6),  # no object of that name: a pattern (a?b, a1b, a2b)
        ("odd/a?b.jsonl", False, 1, 1),
    ],
)
def test_a_key_is_literal_when_its_object_exists(
    s3: S3, odd_keys: dict[str, int], key: str, glob: bool, files: int, lines: int
) -> None:
    report = check_paths([f"s3://{BUCKET}/{key}"], storage_options=s3.options, glob=glob)
    assert (report.files, report.lines, report.input_errors) == (files, lines, [])


def test_no_glob_takes_every_name_literally(s3: S3, odd_keys: dict[str, int], tmp_path: Path) -> None:
    run = cli(f"s3://{BUCKET}/odd/a*b.jsonl", "--no-glob", "--storage-options", json.dumps(s3.options))
    assert run.returncode == 2
    assert run.stderr.splitlines() == [
        f"verify-contract check: s3://{BUCKET}/odd/a*b.jsonl: no such object (or bucket)"
    ]
    (tmp_path / "x1.jsonl").write_bytes(VALID)
    local = cli(str(tmp_path / "x?.jsonl"), "--no-glob")
    assert local.returncode == 2 and "x?.jsonl: no such file or directory" in local.stderr
    assert json.loads(cli(str(tmp_path / "x?.jsonl")).stdout)["lines"] == 1  # without it, a pattern
