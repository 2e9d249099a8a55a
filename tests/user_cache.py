"""Where the tests' heavy environments are kept between runs, per user as pip keeps its wheels: the Gym
oracle's venvs, the trainers' venv, axe-core for the browser tests. Every clone, worktree and CI run of a
machine shares them, so each is built once."""

from __future__ import annotations

import os
from pathlib import Path


def user_cache(name: str, override: str | None = None) -> Path:
    """``$XDG_CACHE_HOME/verify-contract/NAME`` (``~/.cache/...`` by default), or the folder the environment
    variable ``override`` names when it is set."""
    if override and os.environ.get(override):
        return Path(os.environ[override])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "verify-contract" / name
