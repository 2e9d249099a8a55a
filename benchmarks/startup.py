#!/usr/bin/env python3
"""Start-up of `verify-contract check` on a one-line clean file, beside a bare interpreter, and where it goes.

    python benchmarks/startup.py [--reps 10]

1. The median wall time of each command over ``--reps`` interleaved runs.
2. The phases of one check run in a fresh interpreter (median of 5): each command module the CLI imports,
   then the run itself, and which heavy packages are loaded after each phase.
3. What importing the check command pulls in (``python -X importtime``, median of 5): under each
   verify_contract module, the other packages it imports first, with their cumulative import time.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import gen_corpus
from measure import (
    DEFAULT_WORKDIR,
    child_environment,
    replace_atomically,
    run_process,
    use_workdir,
    verify_contract_command,
)

HEAVY_PACKAGES = ("pydantic", "jsonschema", "referencing", "yaml", "multiprocessing", "regress", "orjson")

# Run in a fresh interpreter: the time of each step of `verify-contract check FILE`, in the order the CLI
# takes them (verify_contract.cli imports the module of the command that runs, then runs it).
PHASES_SCRIPT = """
import sys, time
start = time.perf_counter()
marks = []
def mark(name):
    marks.append((name, time.perf_counter(), sorted(p for p in HEAVY if p in sys.modules)))
HEAVY = {heavy!r}
import verify_contract; mark("import verify_contract")
import verify_contract.cli; mark("import verify_contract.cli (argparse)")
import verify_contract.cli._check; mark("import verify_contract.cli._check")
import contextlib, io
with contextlib.redirect_stdout(io.StringIO()):
    code = verify_contract.cli.main(["check", {path!r}])
mark("check the one-line file (exit %d)" % code)
import json
rows, last = [], start
for name, when, loaded in marks:
    rows.append([name, (when - last) * 1e3, loaded]); last = when
print(json.dumps(rows))
"""


@dataclass(frozen=True)
class StartupRow:
    name: str
    median_ms: float
    exit_code: int


@dataclass(frozen=True)
class Phase:
    name: str
    median_ms: float
    loaded: list[str]


@dataclass
class Imported:
    name: str
    self_us: int
    cumulative_us: int
    children: list[Imported] = field(default_factory=list)


def clean_line_file(workdir: Path) -> Path:
    """One Gym-like line that draws no finding (the default profile is gym)."""
    path = workdir / "startup-one-clean-line.jsonl"
    if not path.exists():
        line = gen_corpus.dumps(gen_corpus.large(random.Random(1), 0)) + "\n"
        replace_atomically(path, lambda partial: partial.write_text(line, encoding="utf-8"))
    return path


CHECK_ROW = "verify-contract check ONE_CLEAN_LINE.jsonl"
UNCOMPILED_ROW = CHECK_ROW + ", the project's modules compiled on every start (no bytecode cache for them)"


def commands(path: Path) -> dict[str, tuple[list[str], bool]]:
    """Each row's command, and whether it runs with the bytecode cache (as an installed package does)."""
    python = sys.executable
    check = [*verify_contract_command(), "check", str(path)]
    return {
        "python -c pass": ([python, "-c", "pass"], True),
        'python -c "import orjson"': ([python, "-c", "import orjson"], True),
        CHECK_ROW: (check, True),
        UNCOMPILED_ROW: (check, False),
    }


def startup_rows(path: Path, reps: int) -> list[StartupRow]:
    rows = commands(path)
    for command, cached in rows.values():
        run_process(command, bytecode_cache=cached)  # not timed: fills the bytecode cache
    timed: dict[str, list[float]] = {name: [] for name in rows}
    codes: dict[str, int] = {}
    for _ in range(reps):  # interleaved, so that noise hits every row alike
        for name, (command, cached) in rows.items():
            run = run_process(command, bytecode_cache=cached)
            timed[name].append(run.seconds * 1e3)
            codes[name] = max(codes.get(name, 0), run.exit_code)
    return [StartupRow(name, statistics.median(times), codes[name]) for name, times in timed.items()]


def phases(path: Path, reps: int = 5) -> list[Phase]:
    script = PHASES_SCRIPT.format(heavy=HEAVY_PACKAGES, path=str(path))
    runs = [
        json.loads(
            subprocess.run(
                [sys.executable, "-c", script], capture_output=True, check=True, env=child_environment()
            ).stdout
        )
        for _ in range(reps)
    ]
    return [
        Phase(name, statistics.median(run[index][1] for run in runs), loaded)
        for index, (name, _, loaded) in enumerate(runs[-1])
    ]


def parse_importtime(stderr: str) -> list[Imported]:
    """The import tree from ``-X importtime`` output (children are printed before their parent).

    Modules imported through ``importlib.import_module`` are not printed, and what they import shows up
    at the top level: the tree is exact only for plain import statements."""
    pending: dict[int, list[Imported]] = {}
    for line in stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, cumulative_us, label = line[len("import time:") :].split("|")
        depth = (len(label) - len(label.lstrip(" ")) - 1) // 2
        node = Imported(label.strip(), int(self_us), int(cumulative_us), pending.pop(depth + 1, []))
        pending.setdefault(depth, []).append(node)
    return pending.get(0, [])


def import_costs(module: str) -> dict[tuple[str, str], int]:
    """(verify_contract module, package it imports first) -> cumulative microseconds, from one run.

    A verify_contract module appears with "(itself)": its own import, nested ones included. Packages are
    named by their top-level name (pydantic, not pydantic.main)."""
    command = [sys.executable, "-X", "importtime", "-c", f"import {module}"]
    stderr = subprocess.run(command, capture_output=True, text=True, check=True, env=child_environment()).stderr
    costs: dict[tuple[str, str], int] = {}

    def walk(nodes: list[Imported], owner: str) -> None:
        for node in nodes:
            if node.name.startswith("verify_contract"):
                costs[(node.name, "(itself)")] = node.cumulative_us
                walk(node.children, node.name)
            elif owner:
                key = (owner, node.name.split(".")[0])
                costs[key] = costs.get(key, 0) + node.cumulative_us

    walk(parse_importtime(stderr), "")
    return costs


def import_chain(module: str = "verify_contract.cli._check", reps: int = 5) -> list[tuple[str, str, float]]:
    """(importing module, imported package, median cumulative ms), heaviest first."""
    runs = [import_costs(module) for _ in range(reps)]
    keys = {key for run in runs for key in run}
    rows = [(owner, name, statistics.median(run.get((owner, name), 0) for run in runs) / 1e3) for owner, name in keys]
    return sorted(rows, key=lambda row: -row[2])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--workdir", type=Path, default=DEFAULT_WORKDIR)
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    use_workdir(args.workdir)
    path = clean_line_file(args.workdir)
    print(f"start-up, median of {args.reps} interleaved runs:")
    for row in startup_rows(path, args.reps):
        print(f"  {row.name:50} {row.median_ms:8.1f} ms  (exit {row.exit_code})")
    print("\nphases of `verify-contract check` in one interpreter (ms, median of 5; heavy packages loaded after it):")
    for phase in phases(path):
        print(f"  {phase.name:55} {phase.median_ms:7.1f}  {' '.join(phase.loaded)}")
    print("\n`import verify_contract.cli._check` (cumulative ms, median of 5; a module's row includes its imports):")
    for owner, name, ms in import_chain():
        if ms >= 0.5:
            print(f"  {owner:42} {name:28} {ms:7.1f}")


if __name__ == "__main__":
    main()
