"""Real uvicorn servers for tests: a subprocess on 127.0.0.1 with a free port, ready before use, stopped after."""

from __future__ import annotations

import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import httpx


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def uvicorn_server(
    app: str, app_dir: Path, python: str = sys.executable, ready_path: str = "/openapi.json", extra: Sequence[str] = ()
) -> Iterator[str]:
    """``uvicorn app`` (``module:attribute`` in ``app_dir``) on 127.0.0.1; yields its base URL once
    ``ready_path`` answers (any status), and stops it at the end (terminate, then kill)."""
    port = free_port()
    command = [python, "-m", "uvicorn", "--app-dir", str(app_dir), app, "--host", "127.0.0.1", "--port", str(port)]
    log = tempfile.TemporaryFile()  # noqa: SIM115 (closed in the finally below) a file, not a pipe: a full pipe would block the server's access log
    process = subprocess.Popen([*command, *extra], stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:  # a generous read timeout: a big app's first /openapi.json takes seconds on a loaded machine
                httpx.get(f"{url}{ready_path}", timeout=httpx.Timeout(15, connect=1))
                break
            except httpx.TransportError:
                if process.poll() is not None or time.monotonic() > deadline:
                    process.kill()
                    process.wait(timeout=10)
                    log.seek(0)
                    output = log.read().decode(errors="replace")
                    raise RuntimeError(f"{app} did not start:\n{output[-3000:]}") from None
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        log.close()
