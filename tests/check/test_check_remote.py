"""``check`` over fsspec URLs: moto's S3 server on 127.0.0.1 as the object store. The report of ``check
s3://...`` is the local report of the same bytes, field by field; every failure of the store (no endpoint, no
credentials, no key, a gzip member corrupt in the middle) is one line naming the URL, exit 2, and a report of
what was read."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from verify_contract.check import CheckOptions, check_paths
from verify_contract.check._inputs import is_url
from verify_contract.contract import cap

from object_store import BUCKET, S3, assert_same_report, closed_port, renamed, s3_server, write_corpus

pytest.importorskip("s3fs", reason="the [s3] extra (the test extra installs it)")


@pytest.fixture(scope="module")
def s3() -> Iterator[S3]:
    with s3_server() as store:
        yield store


@pytest.fixture(scope="module")
def corpus(s3: S3, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """The corpus as local files and as objects under s3://rollouts/run/: local name -> URL."""
    folder = tmp_path_factory.mktemp("corpus")
    urls = {}
    for name, data in write_corpus(folder).items():
        urls[name] = s3.put(f"run/{name}", data)
    return folder, urls


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "verify_contract", "check", "--format", "json", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def local_report(folder: Path, names: list[str], options: CheckOptions | None = None) -> dict[str, Any]:
    return check_paths([str(folder / name) for name in names], options=options).as_dict()


def test_urls_are_told_from_paths() -> None:
    assert is_url("s3://bucket/key") and is_url("gs://b/k") and is_url("memory://x") and is_url("file:///tmp/x")
    assert (
        not is_url("/tmp/s3:/x")
        and not is_url("run/a.jsonl")
        and not is_url("-")
        and not is_url("://x")
        and not is_url("C://data")
    )


def test_s3_report_is_the_local_report(s3: S3, corpus: tuple[Path, dict[str, str]]) -> None:
    folder, urls = corpus
    names = sorted(urls)
    expected = local_report(folder, names)
    got = check_paths([urls[name] for name in names], storage_options=s3.options).as_dict()
    assert_same_report(renamed(got, {urls[n]: str(folder / n) for n in names}), expected)
    assert expected["invalid"] and expected["findings"] and expected["failure_kinds"]["unregistered"]


def test_s3_with_jobs_and_an_object_gone_after_listing(s3: S3, corpus: tuple[Path, dict[str, str]]) -> None:
    folder, urls = corpus
    names = sorted(urls)
    expected = local_report(folder, names)
    got = check_paths([urls[n] for n in names], options=CheckOptions(jobs=2), storage_options=s3.options)
    assert_same_report(renamed(got.as_dict(), {urls[n]: str(folder / n) for n in names}), expected)
    # Listed, then deleted before it is read: one error that names it once, the rest counted.
    from verify_contract.check import check_sources
    from verify_contract.check._inputs import resolve

    url = s3.put("later/gone.jsonl.gz", (folder / "b.jsonl.gz").read_bytes())
    found, errors = resolve([url, urls["e.jsonl"]], urls=True, storage_options=s3.options)
    s3.fs.rm(url.removeprefix("s3://"))
    report = check_sources(found, CheckOptions())
    assert not errors and report.input_errors == [f"{url}: no such object (or bucket)"]
    assert report.files == 2 and report.lines == local_report(folder, ["e.jsonl"])["lines"]


def test_cli_prefix_and_glob(s3: S3, corpus: tuple[Path, dict[str, str]]) -> None:
    folder, urls = corpus
    options = json.dumps(s3.options)
    by_prefix = cli(f"s3://{BUCKET}/run", "--storage-options", options)
    assert by_prefix.returncode == 1, by_prefix.stderr  # the corpus breaks the contract: exit 1
    names = sorted(urls)  # a prefix reads every .json/.jsonl object, gzip ones included, sorted
    expected = local_report(folder, names)
    got = json.loads(by_prefix.stdout)
    assert (got.pop("precheck"), got.pop("hints")) == ("compiled", [])
    for item in expected["findings"]:  # the library's report in full, the command's capped
        item["message"] = cap(item["message"])
    assert_same_report(renamed(got, {urls[n]: str(folder / n) for n in names}), expected)
    by_glob = cli(f"s3://{BUCKET}/run/*.jsonl*", "--storage-options", options)
    assert json.loads(by_glob.stdout)["files"] == 4  # a, b (.gz), d (gzip by magic), e: not c.json


def test_gzip_is_told_by_its_magic_bytes(s3: S3, corpus: tuple[Path, dict[str, str]]) -> None:
    folder, urls = corpus
    got = check_paths([urls["d.jsonl"]], storage_options=s3.options)
    assert got.lines == check_paths([str(folder / "d.jsonl")]).lines > 100
    assert not got.input_errors


def test_memory_and_file_urls(corpus: tuple[Path, dict[str, str]]) -> None:
    import fsspec

    folder, _ = corpus
    memory = fsspec.filesystem("memory")
    memory.pipe("/corpus/b.jsonl.gz", (folder / "b.jsonl.gz").read_bytes())
    try:
        expected = local_report(folder, ["b.jsonl.gz"])
        got = check_paths(["memory:///corpus/*.gz"]).as_dict()
        assert_same_report(renamed(got, {"memory:///corpus/b.jsonl.gz": str(folder / "b.jsonl.gz")}), expected)
    finally:
        memory.rm("/corpus", recursive=True)
    url = (folder / "e.jsonl").as_uri()
    assert_same_report(
        renamed(check_paths([url]).as_dict(), {url: str(folder / "e.jsonl")}), local_report(folder, ["e.jsonl"])
    )


def one_error(result: subprocess.CompletedProcess[str], url: str) -> str:
    """The run's single stderr line, which names the URL; no traceback."""
    assert result.returncode == 2, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and url in lines[0] and "Traceback" not in result.stderr, result.stderr
    return lines[0]


def test_missing_key_and_bucket(s3: S3) -> None:
    options = json.dumps(s3.options)
    for url in (f"s3://{BUCKET}/run/none.jsonl", "s3://no-such-bucket/a.jsonl", f"s3://{BUCKET}/none/*.jsonl"):
        result = cli(url, "--storage-options", options)
        line = one_error(result, url)
        assert "no such object" in line or "no object matches" in line
        assert json.loads(result.stdout)["files"] == 0


def test_unreachable_endpoint(s3: S3) -> None:
    url = f"s3://{BUCKET}/run/a.jsonl"
    # One attempt, so the test takes a second, not botocore's retries with backoff.
    config = {"retries": {"max_attempts": 1}, "connect_timeout": 2}
    options = {**s3.options, "endpoint_url": f"http://127.0.0.1:{closed_port()}", "config_kwargs": config}
    line = one_error(cli(url, "--storage-options", json.dumps(options)), url)
    assert "connect" in line.lower() and "127.0.0.1" in line


def test_missing_credentials(s3: S3) -> None:
    url = f"s3://{BUCKET}/run/a.jsonl"
    line = one_error(cli(url, "--storage-options", json.dumps({"endpoint_url": s3.endpoint})), url)
    assert "no credentials" in line
    assert "testing" not in line  # no secret is ever echoed


def test_corrupt_gzip_member_mid_archive(s3: S3, tmp_path: Path) -> None:
    # Two gzip members; the second is damaged in its middle. What was read before the damage (whole chunks of
    # the first member: 3 MB, several chunks) is checked and counted, the damage is one input error naming
    # the URL, and the report is the local one of the same bytes.
    row = {"reward": 0.5, "metrics": {"note": "x" * 480}}
    lines = [json.dumps({**row, "reward": i / 10_000}).encode() for i in range(8_000)]
    first = gzip.compress(b"\n".join(lines[:6_000]) + b"\n")
    second = bytearray(gzip.compress(b"\n".join(lines[6_000:]) + b"\n"))
    second[len(second) // 2 : len(second) // 2 + 8] = b"\xff" * 8
    data = first + bytes(second)
    url = s3.put("broken/rollouts.jsonl.gz", data)
    local = tmp_path / "rollouts.jsonl.gz"
    local.write_bytes(data)
    result = cli(url, "--storage-options", json.dumps(s3.options))
    one_error(result, url)
    got = json.loads(result.stdout)
    expected = check_paths([str(local)]).as_dict()
    assert 0 < expected["lines"] < 8_000 and expected["input_errors"]
    assert_same_report(
        renamed(got, {url: str(local)}) | {"precheck": "compiled", "hints": []},
        expected | {"precheck": "compiled", "hints": []},
    )


def test_bad_storage_options_are_a_usage_error(s3: S3) -> None:
    for text, words in (("{not json", "not JSON"), ("[1]", "JSON object")):
        result = cli(f"s3://{BUCKET}/run/a.jsonl", "--storage-options", text)
        assert result.returncode == 2 and words in result.stderr and "Traceback" not in result.stderr


def test_unknown_protocol_names_the_url() -> None:
    result = cli("nosuchproto://bucket/a.jsonl")
    one_error(result, "nosuchproto://bucket/a.jsonl")


def test_a_missing_filesystem_names_its_extra() -> None:
    import importlib.util

    if importlib.util.find_spec("gcsfs") is not None:
        pytest.skip("gcsfs is installed: the hint is for those without it (and no test reaches Google)")
    # Refused before any input is read (cli/_extras.py): the line names the protocol, not each URL of it.
    line = one_error(cli("gs://bucket/rollouts.jsonl", "gs://bucket/more.jsonl"), "reading gs:// URLs needs gcsfs")
    assert "pip install 'verify-contract[gcs]'" in line


def test_an_object_replaced_while_read_is_an_error_not_a_splice(s3: S3) -> None:
    from verify_contract.check._remote import open_url

    url = s3.put("changing/rows.jsonl", b'{"reward": 1}\n' * 8_000)  # 112 kB, read 1 kB a request
    stream = open_url(url, json.dumps(s3.options), block_bytes=1024)
    try:
        assert stream.read(1024) == b'{"reward": 1}\n' * 73 + b'{"'
        s3.put("changing/rows.jsonl", b'{"reward": 0}\n' * 100)
        # Shorter now: a block past its end is refused by the server, a block across it comes short.
        with pytest.raises(OSError, match=r"changed while it was read|range is not satisfiable"):
            stream.read()
    finally:
        stream.close()
