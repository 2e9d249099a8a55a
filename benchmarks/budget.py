"""The failure budget's cost (SPEC 11), as users meet it.

1. Whole process, default flags: ``verify-contract check FILE`` against the same with a budget
   (``--max-masked 0.2``), and with a group (``--group-by``, which makes check read every line's group), on
   the benchmark corpora (small and large lines, 5% classic defects), interleaved runs, median; the ratio is
   budget time / plain time (targets: at most 1.10 for the budget without groups, 1.25 with them). Then the
   cost of SPEC 11.1's merge: the corpus with a rollout identity in every row and a failures file (2% of the
   identities, in order) beside it, checked with the budget merging the two against the same without the
   failures file (``--no-failures-file``): the merge reads every main line's identity.
2. In process: ``FailureBudget.observe`` per document against ``orjson.loads`` of the same line (the cheapest
   thing a trainer loop already does per rollout).
3. With ``--instructions N`` (needs valgrind): the instructions both whole processes execute on the first N
   lines of the small corpus, under callgrind with a fixed hash seed: the same numbers on every run, for a
   machine too noisy to time (the check's own share is the count less that of a one-line input).

    python benchmarks/budget.py [--scale 1.0] [--reps 7] [--instructions 100000]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen_corpus
from measure import child_environment, use_workdir

from verify_contract.budget import FailureBudget

SMALL_LINES, LARGE_LINES = 1_000_000, 20_000  # bench.py's corpora at scale 1
GROUP_PATHS = {"small": ("env", "judge.verdict"), "large": ("agent_ref.name",)}
"""--group-by paths every line of the corpus has: a top-level and a nested one (bench.py's, the same)."""


def corpus(workdir: Path, size: str, lines: int) -> Path:
    path = workdir / f"budget-{size}-{lines}.jsonl"
    if not path.exists():
        rows, _ = gen_corpus.generate(lines, size, 1234, 0.05, "classic")
        path.write_text("".join(row + "\n" for row in rows), encoding="utf-8")
    return path


def identified_run(workdir: Path, source: Path) -> Path:
    """The corpus as a run: each row that is an object gains an identity (task = line number), and a failures
    file beside it holds a failed attempt for every 50th identity, in order."""
    path = workdir / f"{source.stem}-run.jsonl"
    if not path.exists():
        failures = []
        with source.open("rb") as rows, path.open("wb") as out:
            for task, line in enumerate(rows):
                if line.startswith(b"{") and len(line) > 3:
                    line = b'{"_ng_task_index": %d, "_ng_rollout_index": 0, ' % task + line[1:]
                out.write(line)
                if task % 50 == 0:
                    failures.append(
                        {"_ng_task_index": task, "_ng_rollout_index": 0, "_ng_failure_class": "agent_run_error"}
                    )
        failures_path = workdir / f"{source.stem}-run_failures.jsonl"
        failures_path.write_text("".join(json.dumps(row) + "\n" for row in failures), encoding="utf-8")
    return path


def whole_process(path: Path, flags: list[str]) -> float:
    command = [sys.executable, "-m", "verify_contract", "check", str(path), "--no-progress", *flags]
    start = time.perf_counter()
    # with the bytecode cache (as an installed package has its modules compiled), as bench.py runs its children
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=child_environment())
    return time.perf_counter() - start


def instructions(path: Path, flags: list[str], workdir: Path) -> int:
    """Instructions the whole process executes (callgrind's total), with a fixed hash seed."""
    out = workdir / "callgrind.out"
    command = [
        "valgrind",
        "--tool=callgrind",
        f"--callgrind-out-file={out}",
        sys.executable,
        "-m",
        "verify_contract",
        "check",
        str(path),
        "--no-progress",
        *flags,
    ]
    environment = {**child_environment(), "PYTHONHASHSEED": "0"}
    done = subprocess.run(command, capture_output=True, text=True, env=environment, check=False)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise SystemExit(f"callgrind gave no count: {done.stderr[-300:]}")
    return int(found.group(1))


def instruction_rows(workdir: Path, lines: int, variants: dict[str, list[str]]) -> None:
    if shutil.which("valgrind") is None:
        raise SystemExit("--instructions needs valgrind (apt-get install valgrind)")
    source = corpus(workdir, "small", SMALL_LINES)
    sample, one = workdir / f"budget-sample-{lines}.jsonl", workdir / "budget-one.jsonl"
    with source.open("rb") as stream:
        sample.write_bytes(b"".join(line for _, line in zip(range(lines), stream, strict=False)))
    one.write_bytes(sample.read_bytes().split(b"\n", 1)[0] + b"\n")
    for flags in variants.values():  # the bytecode cache written first: no run counts the compiling of a module
        whole_process(sample, flags)
    print(f"\n| variant | instructions, {lines:,} lines | less a one-line run | ratio to plain |")
    print("|---|---:|---:|---:|")
    totals = {name: instructions(sample, flags, workdir) for name, flags in variants.items()}
    counts = {name: totals[name] - instructions(one, flags, workdir) for name, flags in variants.items()}
    for name in variants:
        print(f"| {name} | {totals[name]:,} | {counts[name]:,} | {counts[name] / counts['plain']:.3f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument(
        "--workdir", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "verify-contract-bench"
    )
    parser.add_argument("--json", type=Path, help="also write the rows to this file")
    parser.add_argument("--instructions", type=int, metavar="LINES", help="count instructions instead (valgrind)")
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    use_workdir(args.workdir)
    rows = []

    def variants_of(size: str) -> dict[str, list[str]]:
        groups = [flag for path in GROUP_PATHS[size] for flag in ("--group-by", path)]
        return {
            "plain": [],
            "budget": ["--max-masked", "0.2"],
            f"budget + --group-by {','.join(GROUP_PATHS[size])}": ["--max-masked", "0.2", *groups],
            "budget + --group-by failure_kind": ["--max-masked", "0.2", "--group-by", "failure_kind"],
        }

    if args.instructions:
        instruction_rows(args.workdir, args.instructions, variants_of("small"))
        return
    print("| corpus | variant | median s | ratio to plain |")
    print("|---|---|---:|---:|")
    for size, lines in (("small", SMALL_LINES), ("large", LARGE_LINES)):
        path = corpus(args.workdir, size, max(50, round(lines * args.scale)))
        variants = variants_of(size)
        times: dict[str, list[float]] = {name: [] for name in variants}
        for flags in variants.values():
            whole_process(path, flags)  # warm the page cache and the bytecode
        for _ in range(args.reps):  # interleaved: drift hits every variant alike
            for name, flags in variants.items():
                times[name].append(whole_process(path, flags))
        plain = statistics.median(times["plain"])
        for name in variants:
            median = statistics.median(times[name])
            rows.append({"corpus": f"{size} lines", "variant": name, "seconds": median, "ratio": median / plain})
            print(
                f"| {size} lines ({path.stat().st_size / 1e6:.0f} MB) | {name} | {median:.3f} | {median / plain:.2f} |"
            )
        run = identified_run(args.workdir, path)
        merged_flags, alone_flags = ["--max-masked", "0.2"], ["--max-masked", "0.2", "--no-failures-file"]
        merged, alone = [], []
        whole_process(run, merged_flags)
        for _ in range(args.reps):
            alone.append(whole_process(run, alone_flags))
            merged.append(whole_process(run, merged_flags))
        median, baseline = statistics.median(merged), statistics.median(alone)
        name = "budget + failures file merged by identity"
        rows.append({"corpus": f"{size} lines", "variant": name, "seconds": median, "ratio": median / baseline})
        print(
            f"| {size} lines, identified | {name} (ratio to --no-failures-file) "
            f"| {median:.3f} | {median / baseline:.2f} |"
        )
    # observe() against orjson.loads, per document of the small corpus
    path = corpus(args.workdir, "small", max(50, round(SMALL_LINES * args.scale)))
    lines, documents = [], []
    for line in path.read_bytes().splitlines()[:200_000]:
        try:
            documents.append(orjson.loads(line))
        except orjson.JSONDecodeError:
            continue  # the corpus's defective lines: a trainer would not get this far with them
        lines.append(line)
    loads, observe = [], []
    for _ in range(args.reps):
        start = time.perf_counter()
        for line in lines:
            orjson.loads(line)
        loads.append((time.perf_counter() - start) / len(lines))
        budget = FailureBudget(max_masked=0.2, warn_masked=0.1, group_by=["failure_kind"])
        start = time.perf_counter()
        for document in documents:
            budget.observe(document)
        observe.append((time.perf_counter() - start) / len(documents))
    per_loads, per_observe = statistics.median(loads) * 1e6, statistics.median(observe) * 1e6
    rows.append(
        {
            "corpus": "small lines",
            "variant": "observe per document (us)",
            "seconds": per_observe / 1e6,
            "ratio": per_observe / per_loads,
        }
    )
    print(
        f"\nobserve(): {per_observe:.2f} us a document; orjson.loads of the same line: {per_loads:.2f} us "
        f"(ratio {per_observe / per_loads:.2f})"
    )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
