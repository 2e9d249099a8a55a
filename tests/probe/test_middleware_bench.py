"""benchmarks/middleware.py runs end to end at a tiny size and reports every column (no timing asserted)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_middleware_benchmark_runs(tmp_path: Path) -> None:
    out = tmp_path / "middleware.json"
    command = [sys.executable, str(ROOT / "benchmarks" / "middleware.py"), "--requests", "20", "--block", "10"]
    run = subprocess.run([*command, "--json", str(out)], capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    results = json.loads(out.read_text(encoding="utf-8"))
    assert results["requests_each"] == 20 and results["request_bytes"] > 1000
    assert set(results["median_ms"]) == {"bare", "control", "observe", "enforce"}
    assert all(value > 0 for value in results["median_ms"].values())
    assert set(results["overhead"]) == {"control", "observe", "enforce"} and results["judge_us"] > 0
    assert set(results["in_process_us"]) == {"bare", "observe", "enforce"}
    assert set(results["added_share_of_server_median"]) == {"observe", "enforce"}
    assert "target: observe adds at most 5% to the median (in process, against the server's):" in run.stdout
