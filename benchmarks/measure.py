"""Whole-process runs measured the same way everywhere: wall time, exit code, CPU time and peak RSS.

Commands are started by a small launcher process, not by the benchmark itself. A child's peak RSS as the
kernel reports it (``ru_maxrss``) includes the peak of the process it was spawned from, whose memory it
shared until ``exec``: spawned from the benchmark, which holds a corpus in memory, every child would
report the benchmark's size. The launcher is a bare interpreter, so each figure is the child's own (with
the processes it started and reaped, for ``--jobs N``).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

LAUNCHER = r"""
import json, os, subprocess, sys, time
for request in sys.stdin:
    command, stdout = json.loads(request)
    with open(stdout or os.devnull, "wb") as out:
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
    process.returncode = code = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    print(json.dumps([seconds, code, cpu, usage.ru_maxrss / 1024]), flush=True)
"""


@dataclass(frozen=True)
class ProcessRun:
    seconds: float
    exit_code: int
    cpu_seconds: float
    peak_rss_mb: float


class _Launcher:
    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", LAUNCHER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )

    def run(self, command: list[str], stdout: Path | None) -> ProcessRun:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps([command, str(stdout) if stdout else None]) + "\n")
        self.process.stdin.flush()
        seconds, code, cpu, peak = json.loads(self.process.stdout.readline())
        return ProcessRun(seconds, code, cpu, peak)


_launcher: _Launcher | None = None


def run_process(command: list[str], stdout: Path | None = None) -> ProcessRun:
    """Run ``command`` to completion, its stdout into ``stdout`` (or discarded), its stderr discarded."""
    global _launcher
    if _launcher is None or _launcher.process.poll() is not None:
        _launcher = _Launcher()
    return _launcher.run(command, stdout)


def median_run(runs: list[ProcessRun]) -> ProcessRun:
    """The run of median wall time (the upper median for an even count), with its own exit code and RSS."""
    ordered = sorted(runs, key=lambda run: run.seconds)
    return ordered[len(ordered) // 2]


def median(values: list[float]) -> float:
    return statistics.median(values)


def verify_contract_command() -> list[str]:
    """The ``verify-contract`` console script users run, beside this interpreter (``-m`` without one)."""
    script = Path(sys.executable).with_name("verify-contract")
    return [str(script)] if script.exists() else [sys.executable, "-m", "verify_contract"]
