"""``check --follow`` and ``check`` at the edges of I/O, each attack at its size with its numbers asserted: stops by
SIGINT, SIGTERM and SIGHUP (summary, retry list, final metrics; a breach keeps exit 3), logrotate's ``create``
(the writer still appends to the renamed file) and ``copytruncate`` (the file grows back past the offset read
to within one poll), a 402 MB backlog in bounded memory, a device and a FIFO refused in one line."""

from __future__ import annotations

import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_budget_follow import DEADLINE, MASKED, USABLE, Follower

INVALID = "{}\n"  # a line that breaks the contract: its finding, printed as it is read, tells the test so
STOPS = [("SIGINT", 130), ("SIGTERM", 143), ("SIGHUP", 129)]


def _read_up_to(follower: Follower, path: Path, line: int) -> None:
    """Wait until the follower has read ``path`` up to its ``line`` (an ``INVALID`` line's finding)."""
    follower.wait_for(f"{path}:{line}: error")


def _summary(follower: Follower, signum: int, code: int) -> str:
    follower.process.send_signal(signum)
    assert follower.process.wait(timeout=DEADLINE) == code
    rest = follower.rest()
    return "\n".join(rest)


def _metric(text: str, sample: str) -> int:
    """The value of one sample (``name{labels}``) of a Prometheus text exposition."""
    found = re.search(rf"^{re.escape(sample)} (\d+(?:\.\d+)?)$", text, re.MULTILINE)
    assert found, (sample, text)
    return int(float(found.group(1)))


@pytest.mark.parametrize(("name", "code"), STOPS)
def test_a_stop_signal_prints_the_summary_and_writes_the_retry_list_and_final_metrics(
    tmp_path: Path, name: str, code: int
) -> None:
    path, retry, metrics = tmp_path / "rollouts.jsonl", tmp_path / "retry.jsonl", tmp_path / "run.prom"
    path.write_text(USABLE * 9 + INVALID)
    follower = Follower(str(path), "--window", "4", "--retry-list", str(retry), "--metrics-file", str(metrics))
    try:
        _read_up_to(follower, path, 10)
        with path.open("a") as stream:  # read after the last metrics window: only the final write has them
            stream.write(MASKED + USABLE + INVALID)
        _read_up_to(follower, path, 13)
        summary = _summary(follower, getattr(signal, name), code)
        assert "13 lines in 1 input " in summary and "1 masked" in summary
        # to run again: the invalid lines (failed) and the masked one
        assert [json.loads(row)["line"] for row in retry.read_text().splitlines()] == [10, 11, 13]
        assert _metric(metrics.read_text(), 'verify_contract_check_lines_total{verdict="invalid"}') == 2
    finally:
        follower.stop()


@pytest.mark.parametrize(("name", "code"), STOPS)
def test_a_breach_outranks_a_stop(tmp_path: Path, name: str, code: int) -> None:
    path = tmp_path / "rollouts.jsonl"
    path.write_text(USABLE * 2 + MASKED * 4 + INVALID)
    follower = Follower(str(path), "--max-masked", "0.2", "--window", "4")
    try:
        _read_up_to(follower, path, 7)
        follower.wait_for("breach [budget-masked-rate]")  # printed after the chunk's findings
        assert "BREACH" in _summary(follower, getattr(signal, name), 3)  # not the stop's own code
    finally:
        follower.stop()


def _check_on_a_pipe(*arguments: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "verify_contract", "check", "-", *arguments],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def _feed_until_progress(process: subprocess.Popen[bytes], line: str) -> None:
    """Write a megabyte of ``line`` at a time until the progress line shows on stderr (it waits for the run's
    first second): then at least one chunk was counted, and the process waits on the pipe for more."""
    assert process.stdin is not None and process.stderr is not None
    seen = b""
    end = time.monotonic() + DEADLINE
    while b"lines/s" not in seen and time.monotonic() < end:
        process.stdin.write((line * ((1 << 20) // len(line) + 1)).encode())
        process.stdin.flush()
        ready, _, _ = select.select([process.stderr], [], [], 0.3)
        if ready:
            seen += os.read(process.stderr.fileno(), 4096)
    assert b"lines/s" in seen


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize(("name", "code"), STOPS[1:])
def test_a_long_check_stops_on_sigterm_and_sighup_as_on_sigint(name: str, code: int, jobs: str) -> None:
    process = _check_on_a_pipe("--progress", "--jobs", jobs)
    try:
        _feed_until_progress(process, USABLE)
        process.send_signal(getattr(signal, name))
        # --jobs 2: the workers hold stderr too, so this returns once they are gone as well
        _, err = process.communicate(timeout=DEADLINE)
        assert process.returncode == code
        assert err.decode().splitlines()[-1].endswith(f"verify-contract: interrupted ({name})")
        assert b"Traceback" not in err
    finally:
        process.kill()
        process.wait()


def test_a_long_check_stopped_after_a_breach_exits_3() -> None:
    process = _check_on_a_pipe("--progress", "--max-masked", "0.2")
    try:
        _feed_until_progress(process, MASKED)
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=DEADLINE)
        assert process.returncode == 3
        assert "interrupted (SIGTERM) after the failure budget was breached" in err.decode()
    finally:
        process.kill()
        process.wait()


def test_logrotate_create_loses_no_line_the_writer_appends_to_the_renamed_file(tmp_path: Path) -> None:
    path = tmp_path / "rollouts.jsonl"
    path.write_text(USABLE * 500 + INVALID)
    follower = Follower(str(path), "--window", "64")
    try:
        _read_up_to(follower, path, 501)
        old = tmp_path / "rollouts.jsonl.1"
        path.rename(old)  # logrotate's create: renamed, a new empty file under the name
        path.write_text("")
        with old.open("a") as stream:  # the writer has not reopened the name: 50 lines over half a second
            for _ in range(50):
                stream.write(USABLE)
                stream.flush()
                time.sleep(0.01)
        with path.open("a") as stream:  # then it reopens: the rest go to the new file
            stream.write(USABLE * 518 + INVALID)
        follower.wait_for("following the new one", errors=True)
        _read_up_to(follower, path, 519)
        summary = _summary(follower, signal.SIGINT, 130)
        assert "1,070 lines in 1 input " in summary  # 501 + 50 + 519: none of the 50 lost
    finally:
        follower.stop()


def test_copytruncate_grown_back_past_the_offset_within_a_poll_loses_nothing(tmp_path: Path) -> None:
    path = tmp_path / "rollouts.jsonl"
    path.write_text(USABLE * 199 + INVALID)
    follower = Follower(str(path), "--window", "64")
    try:
        _read_up_to(follower, path, 200)
        follower.process.send_signal(signal.SIGSTOP)  # between two of its looks, deterministically:
        with path.open("a") as stream:
            stream.write(MASKED * 20)  # written after its last read,
        shutil.copy(path, tmp_path / "rollouts.jsonl.1")  # copied away,
        with path.open("r+") as stream:  # truncated, and written again past the old offset
            stream.truncate(0)
            stream.write(USABLE * 300 + INVALID)
        assert path.stat().st_size > 200 * len(USABLE)
        follower.process.send_signal(signal.SIGCONT)
        _read_up_to(follower, path, 301)
        _, copied = follower.wait_for("before the truncation", errors=True)
        assert copied.endswith(
            f"{path}: 20 lines written before the truncation were read from its copy rollouts.jsonl.1"
        )
        follower.wait_for("truncated from", errors=True)
        summary = _summary(follower, signal.SIGINT, 130)
        assert "521 lines in 1 input " in summary and "20 masked" in summary  # 200 + 20 from the copy + 301
        assert not any("could not be read" in line for line in _errors(follower))
    finally:
        follower.stop()


def _errors(follower: Follower) -> list[str]:
    found = []
    while not follower.errors.empty():
        found.append(follower.errors.get()[1])
    return found


def test_an_unfinished_line_left_behind_is_counted_and_reported(tmp_path: Path) -> None:
    path = tmp_path / "rollouts.jsonl"
    path.write_text(USABLE * 3 + INVALID)
    follower = Follower(str(path), "--window", "4")
    try:
        _read_up_to(follower, path, 4)
        with path.open("a") as stream:
            stream.write(USABLE[:10])  # the writer died mid-line
        time.sleep(0.3)
        summary = _summary(follower, signal.SIGTERM, 143)
        assert "4 lines in 1 input " in summary and "1 input error" in summary
        assert f"verify-contract check: {path}: 1 lines could not be read (see the notices above)" in _errors(follower)
    finally:
        follower.stop()


def _high_water_kb(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    found = re.search(r"^VmHWM:\s+(\d+) kB$", status, re.MULTILINE)
    assert found
    return int(found.group(1))


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the peak RSS from /proc")
def test_a_402_mb_backlog_is_read_in_bounded_memory(tmp_path: Path) -> None:
    line = (json.dumps({"reward": 1.0, "note": "x" * 990}) + "\n").encode()
    path = tmp_path / "rollouts.jsonl"
    count = (402 << 20) // len(line)
    with path.open("wb") as stream:
        block = line * 4096
        for _ in range(count // 4096):
            stream.write(block)
        stream.write(line * (count % 4096) + INVALID.encode())
    small = tmp_path / "small.jsonl"
    small.write_bytes(line + INVALID.encode())
    baseline = Follower(str(small), "--window", "64")
    follower = Follower(str(path), "--window", "64")
    try:
        _read_up_to(baseline, small, 2)
        _read_up_to(follower, path, count + 1)
        base, peak = _high_water_kb(baseline.process.pid), _high_water_kb(follower.process.pid)
        # Bounded by a read chunk (1 MiB) and what checking one holds, not by the file (402 MB, 802 MB RSS once).
        print(f"peak RSS: {base} kB following a 2-line file, {peak} kB following {path.stat().st_size:,} bytes")
        assert peak - base < 48 << 10, (base, peak)
        summary = _summary(follower, signal.SIGINT, 130)
        assert f"{count + 1:,} lines in 1 input " in summary
    finally:
        baseline.stop()
        follower.stop()
        path.unlink()


def _follow_run(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "verify_contract", "check", "--follow", *arguments],
        capture_output=True,
        text=True,
        timeout=DEADLINE,
    )


def test_a_device_is_refused_in_one_line() -> None:
    run = _follow_run(os.devnull.replace("null", "zero"))  # /dev/zero: read forever, past 1 GB in 1 s once
    assert run.returncode == 2
    assert run.stderr.splitlines() == [
        "verify-contract check: /dev/zero: not a regular file (a device, FIFO or socket); "
        "--follow reads a regular file as it grows"
    ]
    assert run.stdout == ""


def test_a_fifo_is_refused_in_one_line_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "rollouts.jsonl"
    os.mkfifo(fifo)
    run = _follow_run(str(fifo))
    assert run.returncode == 2
    assert run.stderr.splitlines() == [
        f"verify-contract check: {fifo}: not a regular file (a device, FIFO or socket); "
        "--follow reads a regular file as it grows"
    ]


def test_the_metrics_file_failing_mid_follow_is_told_once_and_the_follow_goes_on(tmp_path: Path) -> None:
    path, folder = tmp_path / "rollouts.jsonl", tmp_path / "metrics"
    folder.mkdir()
    path.write_text(USABLE * 3 + INVALID)
    follower = Follower(str(path), "--window", "2", "--metrics-file", str(folder / "run.prom"))
    try:
        _read_up_to(follower, path, 4)
        shutil.rmtree(folder)
        with path.open("a") as stream:
            stream.write(USABLE * 5 + INVALID)
        _read_up_to(follower, path, 10)
        with path.open("a") as stream:
            stream.write(USABLE * 5 + INVALID)
        _read_up_to(follower, path, 16)
        summary = _summary(follower, signal.SIGTERM, 143)
        assert "16 lines in 1 input " in summary
        errors = _errors(follower)
        told = [line for line in errors if "still following" in line]
        assert told == [
            f"verify-contract check: --metrics-file {folder / 'run.prom'}: No such file or directory; still following"
        ]
        assert f"verify-contract check: {folder / 'run.prom'}: No such file or directory" in errors
        assert not [name for name in os.listdir(tmp_path) if ".tmp-" in name]
    finally:
        follower.stop()


def test_the_help_states_the_stop_precedence(capsys: pytest.CaptureFixture[str]) -> None:
    from verify_contract.cli import main

    with pytest.raises(SystemExit):
        main(["check", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "130, 143 or 129 stopped by ^C, SIGTERM or SIGHUP" in text
    assert "A breach outranks a stop: stopped after a breach, the exit code is 3." in text
