"""``check --follow``: a real ``verify-contract`` process follows a file that another process writes."""

from __future__ import annotations

import gzip
import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

USABLE = json.dumps({"reward": 1.0}) + "\n"
MASKED = json.dumps({"reward": 0.0, "mask_sample": True, "failure_kind": "session_lost"}) + "\n"
DEADLINE = 20.0  # seconds any one wait may take before the test gives up (bounded loops)


class Follower:
    """``verify-contract check --follow`` in its own process, its output lines read as they come."""

    def __init__(self, *arguments: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "verify_contract", "check", "--follow", *arguments],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
            # SIGINT at its default even when the test runs under a shell that ignores it (a CI step in the
            # background): the ^C test sends it.
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        self.lines: queue.Queue[tuple[float, str]] = queue.Queue()
        self.seen: list[str] = []  # every stdout line taken from the queue so far
        self.errors: queue.Queue[tuple[float, str]] = queue.Queue()
        for stream, sink in ((self.process.stdout, self.lines), (self.process.stderr, self.errors)):
            threading.Thread(target=self._pump, args=(stream, sink), daemon=True).start()

    @staticmethod
    def _pump(stream: object, sink: queue.Queue[tuple[float, str]]) -> None:
        for line in stream:  # type: ignore[attr-defined]
            sink.put((time.monotonic(), line.rstrip("\n")))

    def wait_for(self, text: str, errors: bool = False) -> tuple[float, str]:
        sink = self.errors if errors else self.lines
        end = time.monotonic() + DEADLINE
        while time.monotonic() < end:
            try:
                at, line = sink.get(timeout=0.05)
            except queue.Empty:
                continue
            if not errors:
                self.seen.append(line)
            if text in line:
                return at, line
        raise AssertionError(f"no line with {text!r} within {DEADLINE} s")

    def rest(self) -> list[str]:
        self.process.wait(timeout=DEADLINE)
        time.sleep(0.1)
        found = []
        while not self.lines.empty():
            found.append(self.lines.get()[1])
        self.seen.extend(found)
        return found

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=DEADLINE)


def read_to_end(pid: int, path: Path) -> None:
    """Wait until the process's descriptor of ``path`` stands at its end: every line read (a stop is taken at
    the next poll, after the lines read are counted)."""
    size = path.stat().st_size
    end = time.monotonic() + DEADLINE
    while time.monotonic() < end:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            try:
                if Path(fd).resolve() == path.resolve():
                    position = re.search(r"^pos:\s+(\d+)$", (Path(f"/proc/{pid}/fdinfo") / fd.name).read_text(), re.M)
                    if position and int(position.group(1)) >= size:
                        return
            except OSError:
                continue
        time.sleep(0.05)
    raise AssertionError(f"{path} not read to its end within {DEADLINE} s")


def _ready(follower: Follower, path: Path) -> None:
    """Until the follower has started and read the file as it is (it reports nothing for usable lines): its
    read offset, where /proc tells it; else a second's grace (under load a second could be too little: a file
    truncated before the first read would never look truncated)."""
    if Path("/proc/self/fdinfo").is_dir():
        read_to_end(follower.process.pid, path)
    else:
        time.sleep(1.0)


def _writer(path: Path, lines: list[str], pause: float) -> subprocess.Popen[str]:
    """Another process appends ``lines``, ``pause`` seconds apart, and prints when it wrote each."""
    code = (
        "import sys, time\n"
        f"lines = {lines!r}\n"
        f"with open({str(path)!r}, 'a') as f:\n"
        "    for i, line in enumerate(lines):\n"
        "        f.write(line); f.flush(); os_time = time.monotonic()\n"
        "        print(i, os_time, flush=True)\n"
        f"        time.sleep({pause})\n"
    )
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)


def test_a_breach_is_reported_within_a_second_of_its_line_being_written(tmp_path: Path) -> None:
    path = tmp_path / "rollouts.jsonl"
    path.write_text("")
    follower = Follower(str(path), "--max-masked", "0.2", "--window", "10", "--fail-fast")
    try:
        _ready(follower, path)
        lines = [USABLE] * 8 + [MASKED] * 3  # the window of 10 passes 20% at the 3rd masked line (line 11)
        writer = _writer(path, lines, 0.05)
        out, _ = writer.communicate(timeout=DEADLINE)
        written = {int(i): float(at) for i, at in (row.split() for row in out.splitlines())}
        seen_at, line = follower.wait_for("breach [budget-masked-rate]")
        assert line.startswith(f"{path}:11: breach")
        # time.monotonic is one clock for every process of the machine
        assert seen_at - written[10] < 1.0, (seen_at - written[10], line)
        assert follower.process.wait(timeout=DEADLINE) == 3
        assert any("BREACH" in line for line in follower.rest())
    finally:
        follower.stop()


def test_a_partial_last_line_waits_for_its_newline(tmp_path: Path) -> None:
    path = tmp_path / "rollouts.jsonl"
    path.write_text(USABLE)
    follower = Follower(str(path), "--max-masked", "0.9", "--window", "2", "--format", "json")
    try:
        _ready(follower, path)
        with path.open("a") as stream:
            stream.write(MASKED[:20])
            stream.flush()
            time.sleep(0.5)  # five polls see half a line
            stream.write(MASKED[20:])
        time.sleep(0.5)
        follower.process.send_signal(signal.SIGINT)
        assert follower.process.wait(timeout=DEADLINE) == 130
        report = json.loads(follower.rest()[-1])
        assert (report["lines"], report["valid"], report["invalid"], report["masked"]) == (2, 2, 0, 1)
        assert report["budget"]["rollouts"] == 2
    finally:
        follower.stop()


def test_truncation_and_rotation_are_followed(tmp_path: Path) -> None:
    path = tmp_path / "rollouts.jsonl"
    path.write_text(USABLE * 3)
    follower = Follower(str(path), "--window", "4", "--format", "json")
    try:
        _ready(follower, path)
        path.write_text(USABLE)  # truncated: shorter than what was read
        follower.wait_for("truncated from", errors=True)
        with path.open("a") as stream:
            stream.write(MASKED)
        time.sleep(0.4)
        path.rename(tmp_path / "rollouts.jsonl.1")  # rotated: a new file under the name
        (tmp_path / "rollouts.jsonl.1").open("a").write(USABLE)  # the old file's last line, written late
        path.write_text(MASKED * 2)
        follower.wait_for("following the new one", errors=True)
        time.sleep(0.4)
        follower.process.send_signal(signal.SIGINT)
        assert follower.process.wait(timeout=DEADLINE) == 130
        report = json.loads(follower.rest()[-1])
        # 3 before the truncation, 2 after it, 1 late line of the old file, 2 in the new one
        assert (report["lines"], report["masked"], report["budget"]["rollouts"]) == (8, 3, 8)
    finally:
        follower.stop()


def test_the_failures_file_is_followed_too(tmp_path: Path) -> None:
    path = tmp_path / "rollouts.jsonl"
    path.write_text(USABLE * 2)
    follower = Follower(str(path), "--max-masked", "0.4", "--window", "4", "--fail-fast")
    try:
        _ready(follower, path)
        failures = tmp_path / "rollouts_failures.jsonl"
        failures.write_text(json.dumps({"_ng_failure_class": "agent_run_error"}) + "\n" + "not json\n")
        failures.open("a").write(json.dumps({"_ng_failure_class": "agent_run_error"}) + "\n")
        _, line = follower.wait_for("breach [budget-masked-rate]")
        assert "agent_run_error 2" in line
        assert follower.process.wait(timeout=DEADLINE) == 3
        follower.rest()
        assert f"{failures}:2: warning [budget-sidecar-unreadable] a failures-file line is not JSON" in "\n".join(
            follower.seen
        )
    finally:
        follower.stop()


def test_gzip_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "rollouts.jsonl"  # named like JSONL: the magic bytes decide
    path.write_bytes(gzip.compress(USABLE.encode()))
    done = subprocess.run(
        [sys.executable, "-m", "verify_contract", "check", "--follow", str(path)],
        capture_output=True,
        text=True,
        timeout=DEADLINE,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"verify-contract check: {path}: gzip-compressed; --follow reads a growing plain file (check it without)"
    ]


def test_follow_takes_one_plain_file(tmp_path: Path) -> None:
    for arguments in (["-"], [str(tmp_path)], [str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl")]):
        done = subprocess.run(
            [sys.executable, "-m", "verify_contract", "check", "--follow", *arguments],
            capture_output=True,
            text=True,
            timeout=DEADLINE,
        )
        assert done.returncode == 2 and "--follow follows one file" in done.stderr and "Traceback" not in done.stderr


def test_interrupt_prints_the_summary(tmp_path: Path) -> None:
    path = tmp_path / "rollouts.jsonl"
    path.write_text(USABLE * 3 + MASKED)
    follower = Follower(str(path), "--window", "2")
    try:
        _ready(follower, path)
        follower.process.send_signal(signal.SIGINT)
        assert follower.process.wait(timeout=DEADLINE) == 130
        rest = follower.rest()
        assert any(line.startswith("4 lines in 1 input (") for line in rest), rest
        assert any(line.startswith("failure budget (window 2") for line in rest), rest
        assert "Traceback" not in follower.process.stderr.read() if follower.process.stderr else True
    finally:
        follower.stop()
    assert os.path.exists(path)


def test_the_metrics_file_is_refreshed_while_following(tmp_path: Path) -> None:
    path = tmp_path / "rollouts.jsonl"
    metrics = tmp_path / "run.prom"
    path.write_text("")
    follower = Follower(str(path), "--window", "4", "--metrics-file", str(metrics))
    try:
        _ready(follower, path)
        path.write_text(USABLE * 3 + MASKED * 2)
        end = time.monotonic() + DEADLINE
        while not metrics.exists() and time.monotonic() < end:
            time.sleep(0.05)
        assert follower.process.poll() is None  # still following: written by the refresh, not at the end
        text = metrics.read_text()
        assert 'verify_contract_rollouts_total{state="masked"} 2.0' in text
        assert 'verify_contract_rollouts_total{state="ok"} 3.0' in text
        with path.open("a") as stream:
            stream.write(MASKED * 4)
        end = time.monotonic() + DEADLINE
        while 'state="masked"} 6.0' not in metrics.read_text() and time.monotonic() < end:
            time.sleep(0.05)
        assert 'verify_contract_rollouts_total{state="masked"} 6.0' in metrics.read_text()
        follower.process.send_signal(signal.SIGINT)
        assert follower.process.wait(timeout=DEADLINE) == 130
    finally:
        follower.stop()
