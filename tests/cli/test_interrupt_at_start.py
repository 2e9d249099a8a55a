"""^C while the command is still importing its modules ends as a ^C during the run does: one line, exit 130.

On a loaded machine the imports take a second or more; CI saw a ^C sent 0.5 s after start land in the middle
of them and print a traceback. Here the import of the command line's main module is held (a meta path finder
in a ``sitecustomize`` that announces it in a file and waits), so the interrupt lands there every time.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

DEADLINE = 60.0

HOLD = textwrap.dedent(
    """
    import os, sys, time

    class Hold:
        def find_spec(self, name, path=None, target=None):
            if name == os.environ["HOLD_MODULE"]:
                open(os.environ["HOLD_MARKER"], "w").close()
                time.sleep(30)  # the test interrupts well before
            return None

    sys.meta_path.insert(0, Hold())
    """
)


@pytest.mark.parametrize(
    "entry", [["-m", "verify_contract"], ["-c", "import sys; from verify_contract.cli import main; sys.exit(main())"]]
)
@pytest.mark.parametrize("module", ["verify_contract.cli._main", "verify_contract.cli._check"])
def test_a_stop_while_importing_is_one_line_and_130(tmp_path: Path, entry: list[str], module: str) -> None:
    (tmp_path / "sitecustomize.py").write_text(HOLD)
    marker = tmp_path / "held"
    data = tmp_path / "one.jsonl"
    data.write_text('{"reward": 1.0}\n')
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]),
        "HOLD_MODULE": module,
        "HOLD_MARKER": str(marker),
    }
    process = subprocess.Popen(
        [sys.executable, *entry, "check", str(data)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + DEADLINE
    while not marker.exists():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the held import was never reached"
        time.sleep(0.02)
    os.killpg(process.pid, signal.SIGINT)
    _, err = process.communicate(timeout=DEADLINE)
    assert err.decode() == "verify-contract: interrupted\n"
    assert process.returncode == 130
