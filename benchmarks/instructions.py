#!/usr/bin/env python3
"""Instructions executed (valgrind's callgrind) by whole processes: `verify-contract check` against the orjson
loop, and the start-up commands. A count does not depend on what else runs on the machine, so on a busy
shared machine it is the steady figure beside bench.py's wall-time ratios (it does not see cache misses,
I/O waits or a second core: a ratio of counts is not a ratio of times).

    python benchmarks/instructions.py [--scale 0.1] [--workdir DIR]

Corpora are bench.py's (same generator, seed and names), at --scale of bench.py's sizes (valgrind runs a
process about 50 times slower). Needs valgrind on PATH.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

import bench
import startup
from measure import DEFAULT_WORKDIR, child_environment, use_workdir

HERE = Path(__file__).resolve().parent
_COLLECTED = re.compile(r"Collected : (\d+)")


def instructions(command: list[str]) -> int:
    """Instructions executed by ``command`` (its own process; bytecode cache on, as bench.py runs it)."""
    valgrind = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command]
    result = subprocess.run(valgrind, capture_output=True, text=True, env=child_environment(), check=False)
    found = _COLLECTED.findall(result.stderr)
    if not found:
        raise RuntimeError(f"no callgrind summary for {command}: {result.stderr[-500:]}")
    return int(found[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=0.1)
    parser.add_argument("--workdir", type=Path, default=DEFAULT_WORKDIR)
    args = parser.parse_args()
    if not shutil.which("valgrind"):
        sys.exit("valgrind is not installed")
    args.workdir.mkdir(parents=True, exist_ok=True)
    use_workdir(args.workdir)
    print(f"instructions (callgrind), whole process; corpora at scale {args.scale:g}")
    print(f"| {'corpus':36} | {'orjson loop':>14} | {'check':>14} | {'ratio':>6} |")
    print(f"|{'-' * 38}|{'-' * 15}:|{'-' * 15}:|{'-' * 7}:|")
    for corpus in bench.corpora(args.scale):
        path, _ = bench.ensure_corpus(corpus, args.workdir)
        # Not counted: a first run compiles every module the corpus needs into the bytecode cache.
        subprocess.run(bench.check_command(path, corpus.profile), capture_output=True, env=child_environment())
        base = instructions([sys.executable, str(HERE / "loops.py"), "orjson", str(path)])
        check = instructions(bench.check_command(path, corpus.profile))
        print(f"| {corpus.name:36} | {base:>14,} | {check:>14,} | {base / check:>6.2f} |")
    print("\nstart-up (one clean line):")
    for name, (command, _) in startup.commands(startup.clean_line_file(args.workdir)).items():
        if name != startup.UNCOMPILED_ROW:
            instructions(command)  # fills the bytecode cache
            print(f"| {name:50} | {instructions(command):>14,} |")


if __name__ == "__main__":
    main()
