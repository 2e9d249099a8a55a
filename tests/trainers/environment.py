"""The real trainers' environment, cached per user like the Gym oracle's (tests/gym_oracle/environments.py):
``$XDG_CACHE_HOME/verify-contract/trainers/`` (``~/.cache/...`` by default; ``VERIFY_CONTRACT_TRAINERS_CACHE``
names another folder), one venv per fingerprint (interpreter, pinned requirements), built once per machine.

It holds verl 0.9.1, TRL and torch from PyPI, pinned exactly in ``requirements.txt`` and installed with
``--no-deps``. verl 0.9.1 supports CPython 3.10 to 3.12. torch from PyPI is the CUDA build with its
``nvidia-*`` libraries: about 3.4 GB downloaded, a 6.3 GB venv, several minutes cold (README, "Training with
the contract"); it runs on CPU. The tests run inside it by subprocess, with the project's sources on
``PYTHONPATH`` (the environment has the core dependencies, not the project).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

if not __package__:  # run as a script (README: `python tests/trainers/environment.py`): the tests' helpers
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from user_cache import user_cache

REPO = Path(__file__).resolve().parents[2]
CACHE_ENV = "VERIFY_CONTRACT_TRAINERS_CACHE"
CACHE = user_cache("trainers", CACHE_ENV)
REQUIREMENTS = Path(__file__).resolve().parent / "requirements.txt"
PYTHON_ENV = "VERIFY_CONTRACT_TRAINERS_PYTHON"
SUPPORTED = ((3, 10), (3, 11), (3, 12))  # verl 0.9.1's Requires-Python


class TrainerSetupError(RuntimeError):
    """The trainers' environment could not be built; the message says which step and why."""


def _version_of(candidate: str) -> tuple[int, int] | None:
    try:
        done = subprocess.run(
            [candidate, "-c", "import sys; print(*sys.version_info[:2])"], capture_output=True, text=True, timeout=60
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    major, minor = done.stdout.split()
    return int(major), int(minor)


def find_python() -> str | None:
    """$VERIFY_CONTRACT_TRAINERS_PYTHON, else this interpreter, else python3.12 / python3.11 / python3.10 on PATH:
    the first that verl supports."""
    override = os.environ.get(PYTHON_ENV)
    if override:
        return override if _version_of(override) in SUPPORTED else None
    if sys.version_info[:2] in SUPPORTED:
        return sys.executable
    for name in ("python3.12", "python3.11", "python3.10"):
        found = shutil.which(name)
        if found and _version_of(found) in SUPPORTED:
            return found
    return None


def _run(step: str, command: list[str]) -> None:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-15:]
        raise TrainerSetupError(f"{step} failed (exit {done.returncode}):\n" + "\n".join(tail))


def _fingerprint(python: str) -> str:
    version = subprocess.run([python, "-c", "import sys; print(sys.version)"], capture_output=True, text=True)
    digest = hashlib.sha256()
    for part in (version.stdout, REQUIREMENTS.read_text(encoding="utf-8")):
        digest.update(part.encode("utf-8"))
    return digest.hexdigest()


def trainer_python(python: str) -> Path:
    """The interpreter of the cached environment, building it first if it is missing or stale (under a lock:
    parallel test workers build it once)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / "trainers.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _built(python)


def _built(python: str) -> Path:
    fingerprint = _fingerprint(python)
    home = CACHE / f"verl-0.9.1-{fingerprint[:16]}"
    interpreter = home / "bin" / "python"
    stamp = home / "trainers-fingerprint"
    if stamp.is_file() and stamp.read_text(encoding="utf-8") == fingerprint and interpreter.exists():
        return interpreter
    shutil.rmtree(home, ignore_errors=True)
    _run("creating the venv", [python, "-m", "venv", str(home)])
    pip = [str(interpreter), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    _run("installing the pinned trainers (verl, TRL, torch)", [*pip, "--no-deps", "-r", str(REQUIREMENTS)])
    _run("importing verl's agent loop", [str(interpreter), "-c", "import verl.experimental.agent_loop, trl"])
    stamp.write_text(fingerprint, encoding="utf-8")
    return interpreter


def environment_variables() -> dict[str, str]:
    """The inner run's environment: the project's sources first on the path, CPU only, no telemetry."""
    path = [str(REPO / "bindings" / "python")]
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(path),
        "CUDA_VISIBLE_DEVICES": "",
        "WANDB_MODE": "disabled",
        "RAY_USAGE_STATS_ENABLED": "0",
        "TOKENIZERS_PARALLELISM": "false",
    }


if __name__ == "__main__":  # `python tests/trainers/environment.py` builds (or reuses) the environment
    found = find_python()
    if found is None:
        sys.exit(f"no CPython 3.10-3.12 found (verl 0.9.1 needs one): install one or set {PYTHON_ENV}")
    print(trainer_python(found))
