"""``check`` over ``s3://`` against a compiled S3 server (gofakes3, built from tests/go_s3 through the Go module
proxy): the server the throughput benchmark measures against, so its figures say something about the reader and
not about the server. The report is the local report of the same bytes, field by field, by the library and by
the command line, for objects that span several ranged reads; moto's server stays for the fault tests
(tests/check/test_check_remote.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from verify_contract.check import CheckOptions, check_paths, check_sources
from verify_contract.check._inputs import resolve
from verify_contract.check._remote import open_url, opened_ahead

from object_store import (
    BUCKET,
    REPLACEMENT_BLEND,
    REPLACEMENT_VALID,
    S3,
    assert_same_report,
    check_an_object_replaced_mid_read,
    corpus_lines,
    go_s3_server,
    renamed,
    write_corpus,
)

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


def served(s3: S3) -> Counter[str]:
    """The requests the server has answered so far, by kind (``GET object``, ``HEAD object``, ``list``, ...),
    whatever client sent them."""
    import urllib.request

    with urllib.request.urlopen(f"{s3.endpoint}/-/requests", timeout=30) as reply:
        return Counter(json.loads(reply.read()))


VALID, BLEND = REPLACEMENT_VALID, REPLACEMENT_BLEND


def test_the_version_check_rides_on_each_get(s3: S3) -> None:
    """A listed object read in blocks costs one GET a block and nothing else, counted by the server: each
    reply's ETag is compared with the listed one, no HEAD asks for it again; and a small object opened ahead
    costs one GET."""
    block = 64 << 10
    data = VALID * (5 * block // len(VALID))
    url = s3.put("versioned/big.jsonl", data)
    s3.put("versioned/small.jsonl", VALID * 3)
    sources, errors = resolve([f"s3://{BUCKET}/versioned/"], urls=True, storage_options=s3.options)
    assert not errors and [s.name for s in sources] == [url, f"s3://{BUCKET}/versioned/small.jsonl"]
    before = served(s3)  # the puts' and the listing's own requests
    with open_url(url, sources[0].options_json, block_bytes=block, version=sources[0].version) as stream:
        assert stream.read() == data
    after = served(s3)
    assert after - before == {"GET object": -(-len(data) // block)}
    (ahead,) = opened_ahead(sources[1:])
    with ahead.open_raw() as stream:
        assert stream.read() == VALID * 3
    assert served(s3) - after == {"GET object": 1}


def test_an_object_replaced_mid_read_stops_the_run_on_a_server_that_ignores_if_match(
    s3: S3, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """gofakes3 serves a replacement to a GET that names the old ETag in If-Match; the reply's own ETag tells
    the read apart: exit 2, one line naming the URL, the first version's lines only (no invalid line)."""
    check_an_object_replaced_mid_read(s3, monkeypatch, capsys)


def test_a_small_object_replaced_after_listing_is_not_read(s3: S3) -> None:
    """Opened ahead and fetched whole in one GET: the reply names another version than the listing did."""
    url = s3.put("small/replaced.jsonl", VALID * 3)
    sources, errors = resolve([f"s3://{BUCKET}/small/"], urls=True, storage_options=s3.options)
    assert not errors and [source.name for source in sources] == [url]
    s3.put("small/replaced.jsonl", BLEND * 3)
    report = check_sources(sources, CheckOptions())  # objects in storage opened ahead, as a run opens them
    assert report.lines == 0 and len(report.input_errors) == 1
    assert report.input_errors[0].startswith(f"{url}: the object changed while it was read (ETag ")


@pytest.fixture
def through_s3fs(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """The requests sent through s3fs's client, by operation (``get_object``, ``head_object``, ...)."""
    import s3fs

    sent: Counter[str] = Counter()
    original = s3fs.S3FileSystem._call_s3

    async def counted(fs: Any, method: str, *args: Any, **kwargs: Any) -> Any:
        sent[method] += 1
        return await original(fs, method, *args, **kwargs)

    monkeypatch.setattr(s3fs.S3FileSystem, "_call_s3", counted)
    return sent


def test_gets_are_plain_http_and_what_they_cannot_read_goes_through_s3fs(s3: S3, through_s3fs: Counter[str]) -> None:
    """An object's GETs skip s3fs's client (none reaches its ``get_object``), each a plain HTTP request to the
    object's presigned URL; a reply that is not the bytes asked for (an object deleted after it was listed: 404)
    is asked again through s3fs's client, whose error the run reports as it always did."""
    data = VALID * (3 * (64 << 10) // len(VALID))
    url = s3.put("plain/big.jsonl", data)
    s3.put("plain/gone.jsonl", VALID)
    sources, errors = resolve([f"s3://{BUCKET}/plain/"], urls=True, storage_options=s3.options)
    assert not errors and len(sources) == 2
    through_s3fs.clear()
    with open_url(url, sources[0].options_json, block_bytes=64 << 10, version=sources[0].version) as stream:
        assert stream.read() == data
    assert through_s3fs["get_object"] == 0
    s3.fs.rm(f"{BUCKET}/plain/gone.jsonl")
    report = check_sources(sources[1:], CheckOptions())
    assert through_s3fs["get_object"] >= 1
    assert report.input_errors == [f"s3://{BUCKET}/plain/gone.jsonl: no such object (or bucket)"]


def test_a_connection_the_server_closed_while_idle_is_replaced(s3: S3, through_s3fs: Counter[str]) -> None:
    """Keep-alive connections are reused; one whose socket was closed while it waited in the pool costs no
    error and no request: the GET goes out once more on a new connection."""
    import socket

    from verify_contract.check import _s3_http
    from verify_contract.check._remote import filesystem, get_object

    s3.put("idle/object.jsonl", VALID * 5)
    fs, path = filesystem(f"s3://{BUCKET}/idle/object.jsonl", json.dumps(s3.options, sort_keys=True))
    assert get_object(fs, path)[0] == [VALID * 5]
    idle = [c for held in _s3_http._POOL._idle.values() for c in held]
    assert idle, "the connection went back to the pool"
    for connection in idle:
        assert connection.sock is not None
        connection.sock.shutdown(socket.SHUT_RDWR)
    before = served(s3)
    pieces, etag = get_object(fs, path, 0, len(VALID))
    assert [bytes(piece) for piece in pieces] == [VALID] and etag.startswith("ETag ")
    assert served(s3) - before == {"GET object": 1} and through_s3fs["get_object"] == 0


def test_a_proxy_in_the_environment_leaves_the_gets_to_s3fs(s3: S3, monkeypatch: pytest.MonkeyPatch) -> None:
    """The plain path sends no request a proxy should have carried: with a proxy for the endpoint's scheme in
    the environment, S3 is read through s3fs's client (which honours it); one the endpoint bypasses changes
    nothing."""
    from verify_contract.check._remote import filesystem
    from verify_contract.check._s3_http import plain_http_ok

    fs, _ = filesystem(f"s3://{BUCKET}/any.jsonl", json.dumps(s3.options, sort_keys=True))
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    assert plain_http_ok(fs)
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    assert not plain_http_ok(fs)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    assert plain_http_ok(fs)


@pytest.mark.parametrize("chunk_bytes", [1_000, 10_000, 1 << 20])
def test_an_objects_lines_are_cut_in_its_fetched_pieces_without_a_copy(
    s3: S3, monkeypatch: pytest.MonkeyPatch, chunk_bytes: int
) -> None:
    """``line_views`` of an object behind a URL cuts the reader's fetched blocks at newlines (views, no read into
    a buffer): every byte once, in order, in chunks of whole lines of about ``chunk_bytes``, a line longer than
    a block or a chunk whole, the last line without its newline too; only the buffered reader's first read
    goes through ``readinto``."""
    from verify_contract.check import _remote
    from verify_contract.check._inputs import line_views

    block = 64 << 10
    monkeypatch.setattr(_remote, "READ_BLOCK_BYTES", block)
    lines = [b'{"reward": %d, "pad": "%s"}' % (index, b"x" * (index * 37 % 900)) for index in range(700)]
    lines[300] = b'{"reward": 1, "pad": "' + b"y" * (3 * block) + b'"}'  # longer than a block
    data = b"\n".join(lines)  # no newline at the end
    url = s3.put("pieces/object.jsonl", data)
    reads = 0
    original = _remote._Reader.readinto

    def counted(reader: Any, buffer: Any) -> int:
        nonlocal reads
        reads += 1
        return original(reader, buffer)

    monkeypatch.setattr(_remote._Reader, "readinto", counted)
    options = json.dumps(s3.options, sort_keys=True)
    (source,), _ = resolve([url], urls=True, storage_options=s3.options)
    assert source.options_json == options
    chunks = [bytes(view) for view in line_views(source, chunk_bytes)]
    assert b"".join(chunks) == data
    assert all(chunk.endswith(b"\n") for chunk in chunks[:-1]) and not chunks[-1].endswith(b"\n")
    assert all(len(chunk) <= chunk_bytes or chunk.count(b"\n") <= 1 for chunk in chunks)
    assert reads == 1 and len(chunks) > len(data) // max(chunk_bytes, block)
