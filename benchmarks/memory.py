#!/usr/bin/env python3
"""Peak memory of `verify-contract check` on a 1 GB JSONL file: it streams, so the peak stays flat.

    python benchmarks/memory.py [--gigabytes 1] [--jobs 1]

Writes a file of Gym-like lines (benchmarks/gen_corpus.py, 5% invalid) repeated up to the size asked for,
runs the CLI on it in a child process and prints the child's peak resident set size (ru_maxrss).
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gigabytes", type=float, default=1.0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "verify-contract-bench")
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    seed = args.workdir / "memory-seed.jsonl"
    if not seed.exists():
        generator = Path(__file__).with_name("gen_corpus.py")
        command = [sys.executable, str(generator), "--lines", "5000", "--size", "large", "--out", str(seed)]
        subprocess.run(command, check=True)
    block = seed.read_bytes()
    target = args.workdir / f"memory-{args.gigabytes:g}GB.jsonl"
    wanted = int(args.gigabytes * 1e9)
    if not target.exists() or target.stat().st_size < wanted:
        with target.open("wb") as out:
            written = 0
            while written < wanted:
                out.write(block)
                written += len(block)
    size = target.stat().st_size
    start = time.perf_counter()
    command = [sys.executable, "-m", "verify_contract", "check", str(target), "--profile", "gym"]
    result = subprocess.run(
        [*command, "--format", "json", "--max-findings", "100", "--jobs", str(args.jobs)],
        capture_output=True,
        check=False,
    )
    seconds = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # KiB on Linux
    print(
        f"input: {size / 1e9:.2f} GB; exit code {result.returncode}; {seconds:.1f} s ({size / seconds / 1e6:.0f} MB/s)"
    )
    print(f"peak RSS of the check process (largest single process, --jobs {args.jobs}): {peak_mb:.0f} MB")


if __name__ == "__main__":
    main()
