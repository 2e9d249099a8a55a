"""examples/storm.py (the README's storm of failed rollouts) as a module, for the tests of several folders."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _storm_module() -> Any:
    spec = importlib.util.spec_from_file_location("storm", ROOT / "examples" / "storm.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


STORM = _storm_module()
