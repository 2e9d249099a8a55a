"""The failure budget's window pass (``verify_contract._window``): its Python loop and the compiled one agree,
and the library's budget reaches it without importing the check pipeline."""

from __future__ import annotations

import ast
import random
import subprocess
import sys

import pytest

from verify_contract import _window as window_pass


def _arguments(chance: random.Random) -> tuple[object, ...]:
    window = chance.choice([1, 2, 3, 5, 8, 13])
    first = chance.randint(1, 40)
    carried = sorted(chance.sample(range(max(1, first - window), first), k=chance.randint(0, min(window, first) - 1)))
    span = chance.randint(1, 60)
    offsets = sorted(chance.sample(range(span), k=chance.randint(1, min(span, 20))))
    bounds = tuple(chance.choice([0.0, 0.1, 0.25, 0.5, 0.9]) for _ in range(chance.randint(0, 2)))
    active = tuple(chance.random() < 0.3 for _ in bounds)
    carried_run = chance.choice([0, 1, 4]) if carried and carried[-1] == first - 1 else 0
    return (
        carried,
        offsets,
        first,
        window,
        chance.randint(0, len(offsets)),
        bounds,
        active,
        carried_run,
        carried_run > 0 and offsets[0] == 0,
        chance.choice([0, 1, 2, 4]),
    )


@pytest.mark.parametrize("seed", range(200))
def test_the_python_pass_is_the_compiled_one(seed: int) -> None:
    if window_pass._native is None:
        pytest.skip("the compiled pre-check is not built")
    arguments = _arguments(random.Random(seed))
    assert window_pass.python_window_scan(*arguments) == window_pass._native.window_scan(*arguments)  # type: ignore[arg-type]


def test_the_library_budget_does_not_import_the_check_pipeline() -> None:
    """``FailureBudget`` feeding a run through the window pass loads no module of ``check`` but the package
    (whose ``__init__`` imports nothing) and its compiled extension."""
    script = (
        "import sys\n"
        "from verify_contract.budget import FailureBudget\n"
        "budget = FailureBudget(max_masked=0.1, window=4, min_samples=1)\n"
        "events = budget.record_run(10, [1, 2, 3], b'\\x01\\x01\\x01', ['a', 'b', None], lambda o: ('x', o))\n"
        "assert events, 'the run breaches: the window pass ran'\n"
        "print(sorted(m for m in sys.modules if m.startswith('verify_contract.check')))\n"
    )
    loaded = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert ast.literal_eval(loaded) in ([], ["verify_contract.check", "verify_contract.check._fastscan"])
