"""``check`` over ``s3://`` against a compiled S3 server (gofakes3, built from tests/go_s3 through the Go module
proxy): the server the throughput benchmark measures against, so its figures say something about the reader and
not about the server. The report is the local report of the same bytes, field by field, by the library and by
the command line, for objects that span several ranged reads; moto's server stays for the fault tests
(tests/check/test_check_remote.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from verify_contract.check import check_paths
from verify_contract.check._remote import open_url

from object_store import BUCKET, S3, assert_same_report, corpus_lines, go_s3_server, renamed, write_corpus

pytest.importorskip("s3fs", reason="the [s3] extra (the test extra installs it)")


@pytest.fixture(scope="module")
def s3() -> Iterator[S3]:
    with go_s3_server() as store:
        yield store


@pytest.fixture(scope="module")
def corpus(s3: S3, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    folder = tmp_path_factory.mktemp("corpus")
    return folder, {name: s3.put(f"run/{name}", data) for name, data in write_corpus(folder).items()}


def test_the_server_is_real_s3_with_ranges_and_etags(s3: S3) -> None:
    data = bytes(range(256)) * 4096  # 1 MiB
    url = s3.put("probe/object.bin", data)
    info = s3.fs.info(url)
    assert info["size"] == len(data) and info["ETag"].strip('"')
    assert bytes(s3.fs.cat_file(url, start=1000, end=1010)) == data[1000:1010]
    # check's own reader, in blocks far smaller than the object: many ranged GETs, joined in order.
    with open_url(url, json.dumps(s3.options, sort_keys=True), block_bytes=4096) as stream:
        assert stream.read() == data


def test_s3_report_is_the_local_report(s3: S3, corpus: tuple[Path, dict[str, str]]) -> None:
    folder, urls = corpus
    names = sorted(urls)
    expected = check_paths([str(folder / name) for name in names]).as_dict()
    got = check_paths([urls[name] for name in names], storage_options=s3.options).as_dict()
    assert_same_report(renamed(got, {urls[n]: str(folder / n) for n in names}), expected)
    assert expected["invalid"] and expected["findings"]


def test_cli_prefix_exits_as_the_local_check(s3: S3, corpus: tuple[Path, dict[str, str]]) -> None:
    folder, urls = corpus
    command = [sys.executable, "-m", "verify_contract", "check", "--format", "json"]
    remote = subprocess.run(
        [*command, f"s3://{BUCKET}/run", "--storage-options", json.dumps(s3.options)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    local = subprocess.run([*command, *sorted(str(folder / n) for n in urls)], capture_output=True, text=True)
    assert remote.returncode == local.returncode == 1, remote.stderr
    got, expected = json.loads(remote.stdout), json.loads(local.stdout)
    assert (got["files"], got["lines"], got["invalid"]) == (expected["files"], expected["lines"], expected["invalid"])


def test_many_small_objects_are_opened_ahead_and_give_the_local_report(s3: S3, tmp_path: Path) -> None:
    """300 small objects and one past WHOLE_OBJECT_BYTES under one prefix: opened several at a time (the small
    ones fetched whole, the large one read by ranges), the report is the local report of the same files."""
    from verify_contract.check._remote import WHOLE_OBJECT_BYTES

    lines = [line for line in corpus_lines(7) if line.strip()]
    files = {f"part-{index:04d}.jsonl": b"\n".join(lines[index % 50 : index % 50 + 3]) + b"\n" for index in range(300)}
    large = b"\n".join(lines) + b"\n"
    files["part-9999.jsonl"] = large * (WHOLE_OBJECT_BYTES // len(large) + 2)
    assert len(files["part-9999.jsonl"]) > WHOLE_OBJECT_BYTES
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    s3.fs.pipe({f"{BUCKET}/many/{name}": data for name, data in files.items()})
    names = sorted(files)
    expected = check_paths([str(tmp_path / name) for name in names]).as_dict()
    got = check_paths([f"s3://{BUCKET}/many/"], storage_options=s3.options).as_dict()
    assert_same_report(renamed(got, {f"s3://{BUCKET}/many/{n}": str(tmp_path / n) for n in names}), expected)
    assert expected["files"] == 301 and expected["invalid"]


def test_objects_opened_ahead_are_bounded_and_in_order(s3: S3) -> None:
    """``opened_ahead`` pulls at most ``ahead`` sources past the one it hands out, and hands them out in order."""
    from verify_contract.check._remote import RemoteSource, opened_ahead

    options = json.dumps(s3.options, sort_keys=True)
    urls = [s3.put(f"ahead/{index:03d}.jsonl", b'{"reward": 1}\n') for index in range(40)]
    pulled = 0

    def sources() -> Iterator[RemoteSource]:
        nonlocal pulled
        for url in urls:
            pulled += 1
            yield RemoteSource(url, options)

    handed = []
    for source in opened_ahead(sources(), ahead=4):
        handed.append(source.name)
        assert pulled - len(handed) <= 4
        with source.open_raw() as stream:
            assert stream.read() == b'{"reward": 1}\n'
    assert handed == urls
