"""Real components for the tests of URL inputs and the Ray engine: moto's S3 server on 127.0.0.1 (an ephemeral
port; the fault tests use it), a compiled S3 server (gofakes3, built from tests/go_s3 with the Go module proxy;
the throughput benchmark and its test use it), a corpus of every kind of line written as local files, and
reports compared field by field."""

from __future__ import annotations

import fcntl
import gzip
import os
import shutil
import socket
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from corpus_lines import kind_lines, mutated_lines

BUCKET = "rollouts"
CREDENTIALS = {"key": "testing", "secret": "testing"}
GO_S3_SOURCE = Path(__file__).resolve().parent / "go_s3"
GO_S3_BUILD = Path(__file__).resolve().parents[1] / "build" / "go-s3"
GO_S3_OPTIONS: dict[str, Any] = {
    # gofakes3 answers a ranged GET with the whole object's CRC32 header, which botocore would then check
    # against the range's bytes: validate response checksums only when the request asks for one.
    "config_kwargs": {"response_checksum_validation": "when_required"},
}


class S3:
    """A running S3 server: its endpoint, the storage options that reach it, an s3fs client, and its process id
    when it runs in a process of its own (``pid``; the benchmark reads its CPU time)."""

    def __init__(self, endpoint: str, extra_options: dict[str, Any] | None = None, pid: int | None = None) -> None:
        import s3fs

        self.endpoint = endpoint
        self.pid = pid
        self.options: dict[str, Any] = {"endpoint_url": endpoint, **CREDENTIALS, **(extra_options or {})}
        self.fs = s3fs.S3FileSystem(skip_instance_cache=True, **self.options)

    def put(self, key: str, data: bytes) -> str:
        self.fs.pipe(f"{BUCKET}/{key}", data)
        return f"s3://{BUCKET}/{key}"


@contextmanager
def _no_cloud_credentials() -> Iterator[None]:
    """An environment that holds no real credentials and never asks the cloud metadata address (only loopback
    is reached)."""
    with pytest.MonkeyPatch.context() as patch:
        for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
            patch.delenv(name, raising=False)
        patch.setenv("AWS_EC2_METADATA_DISABLED", "true")
        patch.setenv("AWS_CONFIG_FILE", os.devnull)
        patch.setenv("AWS_SHARED_CREDENTIALS_FILE", os.devnull)
        yield


@contextmanager
def s3_server() -> Iterator[S3]:
    """moto's ThreadedMotoServer, in an environment without cloud credentials."""
    from moto.server import ThreadedMotoServer

    with _no_cloud_credentials():
        server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
        server.start()
        try:
            host, port = server.get_host_and_port()
            _reset(f"http://{host}:{port}")  # moto's state is per process: a server of another module left it
            store = S3(f"http://{host}:{port}")
            store.fs.mkdir(BUCKET)
            yield store
        finally:
            server.stop()


def go_s3_program() -> Path:
    """The compiled S3 server, built once per checkout (Go's module and build caches make a rebuild cheap);
    parallel test workers take a lock around the build."""
    GO_S3_BUILD.mkdir(parents=True, exist_ok=True)
    program = GO_S3_BUILD / "s3server"
    with open(GO_S3_BUILD / "build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        go = shutil.which("go")
        if go is None:
            raise RuntimeError("the compiled S3 server needs Go (https://go.dev) on PATH")
        subprocess.run([go, "build", "-o", str(program), "."], cwd=GO_S3_SOURCE, check=True, timeout=600)
    return program


@contextmanager
def go_s3_server(latency_seconds: float = 0.0) -> Iterator[S3]:
    """gofakes3's in-memory S3 in a process of its own on 127.0.0.1 (an ephemeral port it prints), with the
    bucket made; it stops when its standard input closes, so a test that dies leaves no server behind. With
    ``latency_seconds``, each request waits that long before it is served (a store's round trip)."""
    server = subprocess.Popen(
        [str(go_s3_program()), "-bucket", BUCKET, "-latency", f"{latency_seconds * 1e3:.3f}ms"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert server.stdout is not None
        address = server.stdout.readline().decode().strip()
        if not address.startswith("127.0.0.1:"):
            raise RuntimeError(f"the compiled S3 server did not start (it printed {address!r})")
        with _no_cloud_credentials():
            yield S3(f"http://{address}", GO_S3_OPTIONS, server.pid)
    finally:
        assert server.stdin is not None
        server.stdin.close()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=10)


def _reset(endpoint: str) -> None:
    import urllib.request

    with urllib.request.urlopen(urllib.request.Request(f"{endpoint}/moto-api/reset", method="POST"), timeout=30):
        pass


def closed_port() -> int:
    """A loopback port that nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def corpus_lines(seed: int) -> list[bytes]:
    """Every kind of defect and warning, seeded mutations, blank lines and a CRLF line, in a seeded order."""
    lines = [line.rstrip(b"\n") for line in kind_lines()] + mutated_lines(400, seed)
    lines = [line for line in lines if b"\n" not in line]
    lines[::37] = [b""] * len(lines[::37])
    lines[5] = lines[5] + b"\r"
    return lines


def write_corpus(folder: Path) -> dict[str, bytes]:
    """The corpus's files, name -> bytes as stored: a plain JSONL file large enough to cut into many ranges,
    a gzip file, a gzip file whose name does not say so, a .json document, and a plain file without a final
    newline."""
    plain = b"\n".join(corpus_lines(1) * 2) + b"\n"
    files = {
        "a.jsonl": plain,
        "b.jsonl.gz": gzip.compress(b"\n".join(corpus_lines(2)) + b"\n"),
        "c.json": kind_lines()[0],
        "d.jsonl": gzip.compress(b"\n".join(corpus_lines(3)) + b"\n"),  # gzip by its magic bytes only
        "e.jsonl": b"\n".join(corpus_lines(4)),
    }
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return files


def renamed(report: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    """A report's data with the inputs' names replaced (a URL by the local path it was uploaded from), so two
    runs over the same bytes compare field by field."""

    def rename(text: str) -> str:
        for old, new in names.items():
            text = text.replace(old, new)
        return text

    data = dict(report)
    data["findings"] = [{**item, "path": rename(item["path"])} for item in report["findings"]]
    data["input_errors"] = [rename(error) for error in report["input_errors"]]
    return data


def assert_same_report(got: dict[str, Any], expected: dict[str, Any]) -> None:
    """Field by field, so a difference names its field."""
    assert list(got) == list(expected)
    for field, value in expected.items():
        assert got[field] == value, field


REPLACEMENT_VALID = b'{"reward": 1.0, "mask_sample": false, "failure_kind": null}\n'
REPLACEMENT_BLEND = b'{"reward": "1", "mask_sample": false, "failure_kind": null}\n'
"""The same length as REPLACEMENT_VALID (only the version tells them apart), invalid (a string reward): a read
that blends the two versions shows as invalid lines."""


def check_an_object_replaced_mid_read(
    s3: S3, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], size: int = 40 << 20
) -> list[int]:
    """``check`` of a 40 MB object that is replaced by one of the same size right after its first block was
    read: exit 2, one line naming the URL, only the first version's lines (none invalid, none past the last
    block of it). Returns the blocks' offsets the reader asked for, for the caller's own assertions."""
    import json

    from verify_contract.check import _remote as remote  # the reader's block fetch is what gets the replacement
    from verify_contract.cli import main

    first = REPLACEMENT_VALID * (size // len(REPLACEMENT_VALID))
    second = REPLACEMENT_BLEND * (size // len(REPLACEMENT_BLEND))
    url = s3.put("replaced/rollouts.jsonl", first)
    original = remote._Reader._fetch
    fetched: list[int] = []

    def fetch_then_replace(reader: Any, start: int, end: int) -> Any:
        data = original(reader, start, end)
        fetched.append(start)
        if start == 0:  # the first block is v1; every block asked for after it finds v2
            s3.put("replaced/rollouts.jsonl", second)
        return data

    monkeypatch.setattr(remote._Reader, "_fetch", fetch_then_replace)
    code = main(["check", url, "--storage-options", json.dumps(s3.options), "--format", "json"])
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert code == 2
    (line,) = captured.err.splitlines()
    assert line.startswith(f"verify-contract check: {url}: the object changed while it was read (ETag ")
    assert report["invalid"] == 0 and 0 < report["valid"] < len(first) // len(REPLACEMENT_VALID)
    assert report["valid"] * len(REPLACEMENT_VALID) <= 2 * remote.READ_BLOCK_BYTES  # no line past v1's last block
    return fetched
