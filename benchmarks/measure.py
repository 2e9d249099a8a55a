"""Whole-process runs measured the same way everywhere: wall time, exit code, CPU time and peak RSS.

Commands are started by a small launcher process, not by the benchmark itself. A child's peak RSS as the
kernel reports it (``ru_maxrss``) includes the peak of the process it was spawned from, whose memory it
shared until ``exec``: spawned from the benchmark, which holds a corpus in memory, every child would
report the benchmark's size. The launcher is a bare interpreter, so each figure is the child's own (with
the processes it started and reaped, for ``--jobs N``).

Children run with Python's bytecode cache on, written under the benchmark's work directory
(``PYTHONPYCACHEPREFIX``), as an installed package has its modules compiled: an environment that sets
``PYTHONDONTWRITEBYTECODE`` would otherwise have every start compile the project's modules from source.
"""

from __future__ import annotations

import functools
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

LAUNCHER = r"""
import json, os, subprocess, sys, time
for request in sys.stdin:
    command, stdout, environment = json.loads(request)
    with open(stdout or os.devnull, "wb") as out:
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.DEVNULL, env=environment)
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

    def run(self, command: list[str], stdout: Path | None, environment: dict[str, str]) -> ProcessRun:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps([command, str(stdout) if stdout else None, environment]) + "\n")
        self.process.stdin.flush()
        seconds, code, cpu, peak = json.loads(self.process.stdout.readline())
        return ProcessRun(seconds, code, cpu, peak)


_launcher: _Launcher | None = None
DEFAULT_WORKDIR = Path(tempfile.gettempdir()) / "verify-contract-bench"
_bytecode_directory = DEFAULT_WORKDIR / "pycache"


def use_workdir(workdir: Path) -> None:
    """Keep the children's bytecode cache under ``workdir``."""
    global _bytecode_directory
    _bytecode_directory = workdir / "pycache"


def child_environment(bytecode_cache: bool = True) -> dict[str, str]:
    """Run with the bytecode cache, or with every module of this project compiled on every start (and
    the rest, the standard library included, still read from the cache)."""
    environment = dict(os.environ)
    if bytecode_cache:
        environment.pop("PYTHONDONTWRITEBYTECODE", None)
        environment["PYTHONPYCACHEPREFIX"] = str(_bytecode_directory)
    else:
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
        environment["PYTHONPYCACHEPREFIX"] = str(_cache_without_the_project())
    return environment


@functools.cache
def _cache_without_the_project() -> Path:
    """A copy of the bytecode cache without this project's modules. Python looks for bytecode under the
    prefix only, so the project's modules are compiled on every start whatever ``__pycache__`` folders an
    editable install has beside them; everything else is read from the copy as from the cache."""
    import shutil

    import verify_contract

    copy = _bytecode_directory.with_name("pycache-without-project")
    project = Path(verify_contract.__file__).resolve().parent
    shutil.rmtree(copy, ignore_errors=True)
    if _bytecode_directory.is_dir():
        shutil.copytree(_bytecode_directory, copy)
    shutil.rmtree(copy / project.relative_to(project.anchor), ignore_errors=True)
    copy.mkdir(parents=True, exist_ok=True)
    return copy


def run_process(command: list[str], stdout: Path | None = None, bytecode_cache: bool = True) -> ProcessRun:
    """Run ``command`` to completion, its stdout into ``stdout`` (or discarded), its stderr discarded."""
    global _launcher
    if _launcher is None or _launcher.process.poll() is not None:
        _launcher = _Launcher()
    return _launcher.run(command, stdout, child_environment(bytecode_cache))


def median_run(runs: list[ProcessRun]) -> ProcessRun:
    """The run of median wall time (the upper median for an even count), with its own exit code and RSS."""
    ordered = sorted(runs, key=lambda run: run.seconds)
    return ordered[len(ordered) // 2]


def median(values: list[float]) -> float:
    return statistics.median(values)


def replace_atomically(path: Path, write: Callable[[Path], object]) -> None:
    """Write ``path`` through ``write`` on a file of this process's own, then rename it into place: runs
    sharing the work directory never read a half-written corpus, and an interrupted one leaves none."""
    partial = path.with_name(f"{path.name}.{os.getpid()}.part")
    write(partial)
    partial.replace(path)


def verify_contract_command() -> list[str]:
    """The ``verify-contract`` console script users run, beside this interpreter (``-m`` without one)."""
    script = Path(sys.executable).with_name("verify-contract")
    return [str(script)] if script.exists() else [sys.executable, "-m", "verify_contract"]
