#!/usr/bin/env python3
"""Peak memory of `verify-contract check` on a 1 GB JSONL file: it streams, so the peak stays flat.

    python benchmarks/memory.py [--gigabytes 1] [--jobs 1]

Writes a file of Gym-like lines (benchmarks/gen_corpus.py, 5% invalid) repeated up to the size asked for,
runs the CLI on it in a child process and prints that process's peak resident set size. `bench.py` runs
the same measurement as its memory row.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

import gen_corpus
from measure import DEFAULT_WORKDIR, replace_atomically, run_process, use_workdir, verify_contract_command

SEED_LINES = 5000  # about 78 MB, repeated


@dataclass(frozen=True)
class MemoryResult:
    gigabytes: float
    seconds: float
    exit_code: int
    peak_rss_mb: float


def big_file(gigabytes: float, workdir: Path) -> Path:
    """A JSONL file of at least ``gigabytes`` GB: one seeded block of Gym-like lines, repeated."""
    target = workdir / f"memory-{gigabytes:g}GB-{gen_corpus.fingerprint()}.jsonl"
    wanted = int(gigabytes * 1e9)
    if target.exists() and target.stat().st_size >= wanted:
        return target
    lines, _ = gen_corpus.generate(min(SEED_LINES, max(20, wanted // 16_000)), "large")
    block = "".join(line + "\n" for line in lines).encode()

    def write(partial: Path) -> None:
        with partial.open("wb") as out:
            written = 0
            while written < wanted:
                out.write(block)
                written += len(block)

    replace_atomically(target, write)
    return target


def measure(gigabytes: float, workdir: Path, jobs: int = 1) -> MemoryResult:
    path = big_file(gigabytes, workdir)
    command = [*verify_contract_command(), "check", str(path), "--format", "json", "--jobs", str(jobs)]
    run = run_process(command)
    return MemoryResult(path.stat().st_size / 1e9, run.seconds, run.exit_code, run.peak_rss_mb)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gigabytes", type=float, default=1.0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--workdir", type=Path, default=DEFAULT_WORKDIR)
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    use_workdir(args.workdir)
    result = measure(args.gigabytes, args.workdir, args.jobs)
    print(
        f"input: {result.gigabytes:.2f} GB; exit code {result.exit_code}; {result.seconds:.1f} s "
        f"({result.gigabytes * 1e3 / result.seconds:.0f} MB/s)"
    )
    print(f"peak RSS of the check process (largest single process, --jobs {args.jobs}): {result.peak_rss_mb:.0f} MB")


if __name__ == "__main__":
    main()
