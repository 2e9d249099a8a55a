"""Isolated virtual environments holding the real NeMo Gym releases, cached per user (as pip caches wheels):
``$XDG_CACHE_HOME/verify-contract/gym-oracle/`` (``~/.cache/...`` by default; ``VERIFY_CONTRACT_GYM_CACHE``
names another folder). One venv per release and fingerprint (interpreter, release, pinned requirements), so
clones, worktrees and CI runs of one machine build each once, and a clone with other pins gets its own.

Every nemo-gym release from 0.5.0 on declares `Requires-Python >=3.13.14`, a patch level above the
CPython 3.13 the tier finds (pyenv's 3.13.0 where it was written), and pip on Python 3.11 sees only
nemo-gym 0.2.0-0.4.0.
The wheel is pure Python (`py3-none-any`), so it is installed with `--ignore-requires-python --no-deps`:
the code that runs is the published wheel's, unchanged, on CPython 3.13. Its declared dependency set is
huge (mlflow, datasets, pyarrow, anthropic, mcp, ...); the oracle installs only the closure that importing
`nemo_gym.base_resources_server` needs (ray, wandb, hydra, fastapi, openai, ... : its module-level imports,
and `global_config` reads ray's installed version), pinned exactly in requirements/nemo-gym-<release>.txt
and installed with `--no-deps` so the environment is the same on every machine.
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
CACHE_ENV = "VERIFY_CONTRACT_GYM_CACHE"
CACHE = user_cache("gym-oracle", CACHE_ENV)
REQUIREMENTS = Path(__file__).resolve().parent / "requirements"
PYTHON_ENV = "VERIFY_CONTRACT_GYM_PYTHON"

# Each release and the contract version that describes what it emits (README "Versions").
RELEASES: dict[str, str] = {"0.5.1": "1.0.0", "0.6.0": "1.1.0", "0.7.0": "1.2.0"}


class OracleSetupError(RuntimeError):
    """A Gym environment could not be built; the message says which step and why."""


def _is_python_313(candidate: str) -> bool:
    try:
        done = subprocess.run(
            [candidate, "-c", "import sys; print(sys.version_info[:2] == (3, 13))"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0 and done.stdout.strip() == "True"


def _pyenv_pythons() -> list[str]:
    pyenv = shutil.which("pyenv")
    if pyenv is None:
        return []
    root = subprocess.run([pyenv, "root"], capture_output=True, text=True).stdout.strip()
    if not root:
        return []
    return [str(path) for path in sorted(Path(root).glob("versions/3.13*/bin/python3.13"), reverse=True)]


def find_python_313() -> str | None:
    """$VERIFY_CONTRACT_GYM_PYTHON, else `python3.13` on PATH, else a pyenv-installed 3.13 (looked up now)."""
    override = os.environ.get(PYTHON_ENV)
    candidates = [override] if override else []
    on_path = shutil.which("python3.13")
    candidates += ([on_path] if on_path else []) + _pyenv_pythons()
    return next((candidate for candidate in candidates if _is_python_313(candidate)), None)


def _run(step: str, command: list[str]) -> None:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-15:]
        raise OracleSetupError(f"{step} failed (exit {done.returncode}):\n" + "\n".join(tail))


def requirements_file(release: str) -> Path:
    return REQUIREMENTS / f"nemo-gym-{release}.txt"


def _fingerprint(release: str, python: str) -> str:
    version = subprocess.run([python, "-c", "import sys; print(sys.version)"], capture_output=True, text=True)
    digest = hashlib.sha256()
    for part in (release, version.stdout, requirements_file(release).read_text(encoding="utf-8")):
        digest.update(part.encode("utf-8"))
    return digest.hexdigest()


def gym_python(release: str, python: str) -> Path:
    """The interpreter of the cached environment for one release, building it first if it is missing or stale.

    Under a lock: the oracle's test files, on parallel test workers, build each environment once.
    """
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / f"nemo-gym-{release}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _built(release, python)


def _built(release: str, python: str) -> Path:
    fingerprint = _fingerprint(release, python)
    home = CACHE / f"nemo-gym-{release}-{fingerprint[:16]}"
    interpreter = home / "bin" / "python"
    stamp = home / "oracle-fingerprint"
    if stamp.is_file() and stamp.read_text(encoding="utf-8") == fingerprint and interpreter.exists():
        return interpreter
    shutil.rmtree(home, ignore_errors=True)
    _run("creating the venv", [python, "-m", "venv", str(home)])
    pip = [str(interpreter), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    _run(f"installing nemo-gym=={release}", [*pip, "--no-deps", "--ignore-requires-python", f"nemo-gym=={release}"])
    _run("installing the pinned import closure", [*pip, "--no-deps", "-r", str(requirements_file(release))])
    _run("importing BaseVerifyResponse", [str(interpreter), "-c", "import nemo_gym.base_resources_server"])
    stamp.write_text(fingerprint, encoding="utf-8")
    return interpreter


if __name__ == "__main__":  # `python tests/gym_oracle/environments.py` builds (or reuses) all three
    found = find_python_313()
    if found is None:
        sys.exit(f"no CPython 3.13 found: install one (pyenv install 3.13) or set {PYTHON_ENV}")
    for name in RELEASES:
        print(name, gym_python(name, found))
