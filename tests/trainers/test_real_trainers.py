"""The trainer adapters against the real trainers: verl 0.9.1, TRL and torch from PyPI, on CPU.

The checks (tests/trainers/inside/*_checks.py) run in one pytest process inside the cached environment
(tests/trainers/environment.py: built once per machine, several minutes and 6.3 GB cold), with the project's
sources on the path. Marker ``trainers``: not in ``make check``, in ``make test``.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from . import environment

INSIDE = Path(__file__).resolve().parent / "inside"
CHECKS = ("verl_checks.py", "nemo_rl_checks.py", "trl_checks.py", "storm_checks.py")


@pytest.fixture(scope="module")
def trainer_python() -> Path:
    python = environment.find_python()
    if python is None:
        pytest.skip(f"no CPython 3.10-3.12 for verl 0.9.1: install one or set {environment.PYTHON_ENV}")
    try:
        return environment.trainer_python(python)
    except environment.TrainerSetupError as error:
        pytest.fail(f"building the trainers' environment: {error}")


def test_the_adapters_pass_their_checks_against_the_real_trainers(trainer_python: Path) -> None:
    done = subprocess.run(
        [str(trainer_python), "-m", "pytest", "-q", "-c", "pytest.ini", "-W", "ignore", "-rs", *CHECKS],
        cwd=INSIDE,
        env=environment.environment_variables(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-6000:]
    summary = output.strip().splitlines()[-1]
    assert " passed" in summary and "failed" not in summary, summary
    # Only the NeMo-RL checkout check may skip (NeMo-RL is not on PyPI), and it says why.
    skipped = [line for line in output.splitlines() if line.startswith("SKIPPED")]
    assert all("nemo_rl is not importable" in line for line in skipped), skipped
