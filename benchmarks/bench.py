#!/usr/bin/env python3
"""`verify-contract check` as users run it, against a bare parse of the same file, every row in one run.

    pip install -e ".[bench]"                 # the peers: jsonschema-rs, sourcemeta-jsonschema, check-jsonschema
    python benchmarks/bench.py                # full size (~1.5 GB of corpora, generated once), a few minutes
    python benchmarks/bench.py --scale 0.1    # a quick run on corpora a tenth of the size

Corpora (benchmarks/gen_corpus.py, seeded, generated into --workdir, never into the repository):

- small: 300,000 lines of ~700 B (core profile); large: 20,000 Gym-like lines of ~16 KB with non-ASCII
  UTF-8 text (gym profile). Both with 5% invalid lines of eight repeating kinds, 1% legacy-mask warnings.
- distinct defects, both shapes, 5% and 20% of the lines defective, every defect different.

Rows, each a ratio against a baseline measured in the same run (2.00 = twice the baseline's lines/s):

- whole process (what users run): `verify-contract check --format json FILE` with default flags (and the
  corpus's profile), against `python benchmarks/loops.py orjson FILE`, a Python loop of `orjson.loads`
  over the same file; `--jobs 2` against `--jobs 1`; the peers: jsonschema-rs (the same loop, then
  validation), sourcemeta-jsonschema and check-jsonschema.
- in process (start-up excluded): `check_paths` on the file against the same orjson loop in this process;
  the pre-check alone on the file's chunks held in memory; jsonschema-rs and jsonschema (Python).
- start-up of `verify-contract check` on a one-line clean file (median of --startup-reps), beside
  `python -c pass` and `python -c "import orjson"`, and the phases of that run.
- memory: peak RSS of `verify-contract check` on a 1 GB file (times --scale).
- with --scale-out: object storage and the Ray engine (benchmarks/scale.py).

Timed rows are medians of --reps interleaved repetitions (peers that take seconds: one run). Every check
row's line and invalid-line counts are compared with the corpus labels. Then the issue's targets are
printed, each marked met or not met. The machine is shared: read the ratios, and the load average.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import gen_corpus
import loops
import memory
import startup
from measure import (
    DEFAULT_WORKDIR,
    ProcessRun,
    median,
    median_run,
    replace_atomically,
    run_process,
    use_workdir,
    verify_contract_command,
)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the generators package (the schema bundler) is not installed

import verify_contract.check as check  # noqa: E402
from generators.bundle import bundle  # noqa: E402
from verify_contract.check import CheckOptions  # noqa: E402
from verify_contract.check import _fastpath as fastpath  # noqa: E402
from verify_contract.contract import resolve_contract  # noqa: E402
from verify_contract.contract._schemas import FAILURE_KINDS_FILE, schema_document  # noqa: E402
from verify_contract.contract._versions import DEFAULT_PROFILE, LATEST_VERSION  # noqa: E402

CHUNK = 1 << 20
SMALL_LINES = 300_000
LARGE_LINES = 20_000
MEMORY_GIGABYTES = 1.0
HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Corpus:
    name: str
    size: str  # gen_corpus shape: "small" or "large"
    profile: str
    defects: str  # "classic" or "distinct"
    invalid: float
    lines: int
    peers: bool  # the peer validators and --jobs 2 run on the two main corpora only

    def path(self, workdir: Path) -> Path:
        name = f"{self.size}-{self.defects}-{self.invalid:g}-{self.lines}-{gen_corpus.fingerprint()}.jsonl"
        return workdir / name


@dataclass
class Row:
    corpus: str
    mode: str  # "process" or "in process"
    name: str
    seconds: float  # median wall time over `lines` lines
    cpu_seconds: float  # median CPU time (user + system; of every process, for --jobs 2)
    lines: int
    megabytes: float
    baseline: str
    ratio: float  # lines/s relative to the baseline row's
    cpu_ratio: float  # the same on CPU time: less sensitive to other jobs on a shared machine
    rejected: int | None = None  # lines the pipeline reported invalid
    counts_ok: bool | None = None  # check rows: lines and invalid lines equal the corpus labels
    peak_rss_mb: float | None = None
    note: str = ""


@dataclass
class Target:
    name: str
    measured: float
    goal: str
    met: bool
    cpu_ratio: float | None = None  # the row's ratio on CPU time, for context (the goal is on wall time)


@dataclass
class Results:
    machine: dict[str, Any]
    rows: list[Row] = field(default_factory=list)
    startup: list[dict[str, Any]] = field(default_factory=list)
    phases: list[dict[str, Any]] = field(default_factory=list)
    memory: dict[str, Any] = field(default_factory=dict)
    targets: list[Target] = field(default_factory=list)


def corpora(scale: float) -> list[Corpus]:
    small, large = max(20, round(SMALL_LINES * scale)), max(20, round(LARGE_LINES * scale))
    out = [
        Corpus("small lines", "small", "core", "classic", 0.05, small, True),
        Corpus("large lines", "large", "gym", "classic", 0.05, large, True),
    ]
    for size, lines, profile in (("small", small, "core"), ("large", large, "gym")):
        for share in (0.05, 0.20):
            name = f"{size} lines, distinct defects {share:.0%}"
            out.append(Corpus(name, size, profile, "distinct", share, lines, False))
    return out


def ensure_corpus(corpus: Corpus, workdir: Path) -> tuple[Path, int]:
    """The corpus file (generated if absent) and its number of invalid lines, from its labels."""
    path = corpus.path(workdir)
    labels_path = Path(str(path) + ".labels")
    if not (path.exists() and labels_path.exists()):
        lines, labels = gen_corpus.generate(corpus.lines, corpus.size, 1234, corpus.invalid, corpus.defects)
        text = "".join(label + "\n" for label in labels)
        replace_atomically(labels_path, lambda partial: partial.write_text(text, encoding="utf-8"))
        text = "".join(line + "\n" for line in lines)
        replace_atomically(path, lambda partial: partial.write_text(text, encoding="utf-8"))
    return path, gen_corpus.invalid_lines(labels_path.read_text(encoding="utf-8").split())


def peer_schema(profile: str, directory: Path) -> Path:
    """The contract as one self-contained schema file for the peer validators."""
    document = bundle(schema_document(LATEST_VERSION), schema_document(LATEST_VERSION, FAILURE_KINDS_FILE))
    document["$ref"] = "#/$defs/" + ("GymVerifyResponse" if profile == "gym" else "VerifyResponse")
    path = directory / f"contract-{profile}.schema.json"
    path.write_text(json.dumps(document))
    return path


def chunks_of(data: bytes) -> list[bytes]:
    out = []
    start = 0
    while start < len(data):
        cut = data.rfind(b"\n", start, start + CHUNK)
        stop = len(data) if cut < 0 else cut + 1
        out.append(data[start:stop])
        start = stop
    return out


def timed(function: Callable[[], Any]) -> tuple[float, float, Any]:
    """Wall time, CPU time of this process, and what ``function`` returned."""
    gc.collect()
    start, cpu = time.perf_counter(), time.process_time()
    result = function()
    return time.perf_counter() - start, time.process_time() - cpu, result


def check_command(path: Path, profile: str, *extra: str) -> list[str]:
    profile_flag = [] if profile == DEFAULT_PROFILE else ["--profile", profile]
    return [*verify_contract_command(), "check", "--format", "json", *profile_flag, *extra, str(path)]


def installed(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


class CorpusBench:
    """Every row of one corpus: interleaved repetitions of the timed rows, then the peers once."""

    def __init__(self, corpus: Corpus, path: Path, invalid: int, reps: int, scratch: Path, sample: int) -> None:
        self.corpus = corpus
        self.path = path
        self.invalid = invalid
        self.reps = reps
        self.scratch = scratch  # this run's own files: reports, the peers' inputs
        self.sample = sample
        self.data = path.read_bytes()  # also warms the page cache for the first timed run
        self.megabytes = len(self.data) / 1e6
        self.rows: list[Row] = []

    def counts_ok(self, lines: int, invalid: int) -> bool:
        return lines == self.corpus.lines and invalid == self.invalid

    def row(self, mode: str, name: str, seconds: float, cpu: float, baseline: Row | None, **more: Any) -> Row:
        lines = more.pop("lines", self.corpus.lines)
        megabytes = more.pop("megabytes", self.megabytes * lines / self.corpus.lines)
        ratio = 1.0 if baseline is None else (baseline.seconds / baseline.lines) / (seconds / lines)
        cpu_ratio = 1.0 if baseline is None else (baseline.cpu_seconds / baseline.lines) / (max(cpu, 1e-9) / lines)
        against = baseline.name if baseline else ""
        row = Row(self.corpus.name, mode, name, seconds, cpu, lines, megabytes, against, ratio, cpu_ratio)
        for key, value in more.items():
            setattr(row, key, value)
        self.rows.append(row)
        return row

    def run(self) -> list[Row]:
        self.whole_process()
        self.in_process()
        return self.rows

    def whole_process(self) -> None:
        corpus, path = self.corpus, self.path
        report = self.scratch / "report.json"
        commands: dict[str, tuple[list[str], Path | None]] = {
            "orjson.loads loop (python benchmarks/loops.py orjson)": (
                [sys.executable, str(HERE / "loops.py"), "orjson", str(path)],
                self.scratch / "orjson-loop.out",
            ),
            "verify-contract check --format json (1 core)": (check_command(path, corpus.profile), report),
        }
        if corpus.peers:  # the failure budget's cost (SPEC 11): the same check, bounding the masked rate
            commands["verify-contract check --format json --max-masked 0.2 (failure budget)"] = (
                check_command(path, corpus.profile, "--max-masked", "0.2"),
                self.scratch / "report-budget.json",
            )
            # per group (SPEC 11.2): the small lines' environment and nested judge verdict, the large lines' agent
            groups = GROUP_PATHS[corpus.size]
            flags = [flag for path_ in groups for flag in ("--group-by", path_)]
            commands[
                f"verify-contract check --format json --max-masked 0.2 --group-by {','.join(groups)} (failure budget)"
            ] = (
                check_command(path, corpus.profile, "--max-masked", "0.2", *flags),
                self.scratch / "report-budget-groups.json",
            )
        if corpus.peers and corpus.size == "large":
            commands["verify-contract check --format json --jobs 2"] = (
                check_command(path, corpus.profile, "--jobs", "2"),
                self.scratch / "report-jobs2.json",
            )
        schema = peer_schema(corpus.profile, self.scratch)
        if corpus.peers and installed("jsonschema-rs"):
            loop = [sys.executable, str(HERE / "loops.py"), "jsonschema-rs", str(schema), str(path)]
            commands["jsonschema-rs loop (orjson.loads, then is_valid/iter_errors)"] = (loop, self.scratch / "rs.out")
        runs: dict[str, list[ProcessRun]] = {name: [] for name in commands}
        for _ in range(self.reps):  # interleaved, so that noise hits every row alike
            for name, (command, stdout) in commands.items():
                runs[name].append(run_process(command, stdout))
        names = list(commands)
        baseline_run = median_run(runs[names[0]])
        cpu = {name: median([run.cpu_seconds for run in runs[name]]) for name in names}
        baseline = self.row("process", names[0], baseline_run.seconds, cpu[names[0]], None)
        baseline.peak_rss_mb = baseline_run.peak_rss_mb
        baseline.rejected = int((self.scratch / "orjson-loop.out").read_text())
        single: Row | None = None
        for name in names[1:]:
            run = median_run(runs[name])
            stdout = commands[name][1]
            assert stdout is not None
            if name.startswith("verify-contract"):
                parsed = json.loads(stdout.read_text(encoding="utf-8"))
                rejected = int(parsed["invalid"])
                counts_ok = self.counts_ok(int(parsed["lines"]), rejected)
                against = single if "--jobs 2" in name or "failure budget" in name else baseline
                row = self.row("process", name, run.seconds, cpu[name], against, rejected=rejected, counts_ok=counts_ok)
                single = single or row
            else:
                row = self.row("process", name, run.seconds, cpu[name], baseline, rejected=int(stdout.read_text()))
            row.peak_rss_mb = run.peak_rss_mb
            row.note = f"exit {run.exit_code}"
        if corpus.peers:
            self.sourcemeta(schema, baseline)
            self.check_jsonschema(schema, baseline)

    def sourcemeta(self, schema: Path, baseline: Row) -> None:
        # Its console script is called `jsonschema`, as is python-jsonschema's old CLI: ask for the package.
        executable = shutil.which("jsonschema", path=str(Path(sys.executable).parent))
        if not executable or not installed("sourcemeta-jsonschema"):
            return
        # It stops at the first line that is not JSON (NaN, a cut line): give it the lines that parse.
        parseable = [line for line in self.data.splitlines(keepends=True) if not loops.parse_loop([line])]
        target = self.scratch / "sourcemeta-input.jsonl"
        target.write_bytes(b"".join(parseable))
        run = run_process([executable, "validate", str(schema), str(target), "--fast"])
        name = "sourcemeta-jsonschema validate --fast (the lines that parse)"
        megabytes = target.stat().st_size / 1e6
        lines = len(parseable)
        if run.exit_code not in (0, 1):  # 0 all valid, 1 some invalid; anything else did not validate
            print(f"{name}: exit {run.exit_code}, left out", file=sys.stderr)
            return
        row = self.row("process", name, run.seconds, run.cpu_seconds, baseline, lines=lines, megabytes=megabytes)
        row.peak_rss_mb, row.note = run.peak_rss_mb, f"exit {run.exit_code}, one run"

    def check_jsonschema(self, schema: Path, baseline: Row) -> None:
        executable = shutil.which("check-jsonschema", path=str(Path(sys.executable).parent))
        if not executable:
            return
        files = self.scratch / f"check-jsonschema-{self.corpus.size}"
        shutil.rmtree(files, ignore_errors=True)
        files.mkdir()
        names = []
        lines = self.data.splitlines(keepends=True)[: min(2000, self.corpus.lines)]
        for index, line in enumerate(lines):  # one document per file: it does not read JSONL
            target = files / f"{index}.json"
            target.write_bytes(line)
            names.append(str(target))
        run = run_process([executable, "--schemafile", str(schema), *names])
        name = f"check-jsonschema ({len(names):,} lines as files)"
        megabytes = sum(len(line) for line in lines) / 1e6
        row = self.row("process", name, run.seconds, run.cpu_seconds, baseline, lines=len(names), megabytes=megabytes)
        row.peak_rss_mb, row.note = run.peak_rss_mb, f"exit {run.exit_code}, one run"

    def in_process(self) -> None:
        corpus, path = self.corpus, self.path
        options = CheckOptions(LATEST_VERSION, corpus.profile)  # type: ignore[arg-type]
        chunks = chunks_of(self.data)

        def check_file() -> tuple[int, int]:
            check.clear_caches()  # a cold pass, as in a new process: no memo from an earlier repetition
            report = check.check_paths([str(path)], options=options)
            return report.lines, report.invalid

        def pre_check() -> None:
            for chunk in chunks:
                fastpath.scan(chunk, resolve_contract(LATEST_VERSION, corpus.profile))  # type: ignore[arg-type]

        functions: dict[str, Callable[[], Any]] = {
            "orjson.loads loop (loops.orjson_loop, reading the file)": lambda: loops.orjson_loop(str(path)),
            "check_paths (reading the file, 1 core)": check_file,
            "pre-check alone (fastpath.scan on the file's chunks in memory)": pre_check,
        }
        schema = self.scratch / f"contract-{corpus.profile}.schema.json"
        if corpus.peers and installed("jsonschema-rs"):
            functions["jsonschema-rs (orjson.loads, then is_valid/iter_errors)"] = lambda: loops.jsonschema_rs_loop(
                str(schema), str(path)
            )
        check_file()  # imports and lazily built validators, not the memo (cleared on each run)
        times: dict[str, list[float]] = {name: [] for name in functions}
        cpu_times: dict[str, list[float]] = {name: [] for name in functions}
        results: dict[str, Any] = {}
        for _ in range(self.reps):  # interleaved, so that noise hits every row alike
            for name, function in functions.items():
                seconds, cpu, results[name] = timed(function)
                times[name].append(seconds)
                cpu_times[name].append(cpu)
        names = list(functions)
        first = names[0]
        baseline = self.row("in process", first, median(times[first]), median(cpu_times[first]), None)
        baseline.rejected = results[first]
        for name in names[1:]:
            row = self.row("in process", name, median(times[name]), median(cpu_times[name]), baseline)
            if name.startswith("check_paths"):
                lines, row.rejected = results[name]
                row.counts_ok = self.counts_ok(lines, row.rejected)
            elif name.startswith("jsonschema-rs"):
                row.rejected = results[name]
        if corpus.peers:
            self.jsonschema_sample(schema, baseline)

    def jsonschema_sample(self, schema_path: Path, baseline: Row) -> None:
        from jsonschema.validators import validator_for

        schema = json.loads(schema_path.read_text())
        validator = validator_for(schema)(schema)
        lines = self.data.splitlines(keepends=True)[: min(self.sample, self.corpus.lines)]

        def validate_lines() -> int:
            return loops.parse_loop(lines, lambda document: not any(True for _ in validator.iter_errors(document)))

        seconds, cpu, rejected = timed(validate_lines)
        name = f"jsonschema (Python), first {len(lines):,} lines"
        megabytes = sum(len(line) for line in lines) / 1e6
        row = self.row("in process", name, seconds, cpu, baseline, lines=len(lines), megabytes=megabytes)
        row.rejected, row.note = rejected, "one run"


def machine() -> dict[str, Any]:
    model = ""
    with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
        for line in cpuinfo:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    packages = ("verify-contract", "orjson", "jsonschema", "jsonschema-rs", "sourcemeta-jsonschema", "check-jsonschema")
    return {
        "cpu": model or platform.processor(),
        "cores": os.cpu_count(),
        "cores_usable": len(os.sched_getaffinity(0)),
        "load_average_start": os.getloadavg(),
        "python": platform.python_version(),
        "packages": {name: installed(name) or "not installed" for name in packages},
        "commit": commit.stdout.strip() or "unknown",
        "compiled_pre_check": fastpath.available(),
    }


def print_rows(rows: list[Row]) -> None:
    header = ("pipeline", "lines/s", "MB/s", "ratio", "CPU ratio", "rejected", "peak RSS MB")
    print("| {:80} | {:>10} | {:>6} | {:>6} | {:>9} | {:>9} | {:>11} |".format(*header))
    print(f"|{'-' * 82}|{'-' * 11}:|{'-' * 7}:|{'-' * 7}:|{'-' * 10}:|{'-' * 10}:|{'-' * 12}:|")
    for row in rows:
        rejected = "" if row.rejected is None else f"{row.rejected:,}"
        if row.counts_ok is False:
            rejected += " (WRONG)"
        rss = "" if row.peak_rss_mb is None else f"{row.peak_rss_mb:,.0f}"
        name = row.name + (f" [{row.note}]" if row.note else "")
        print(
            f"| {name:80} | {row.lines / row.seconds:>10,.0f} | {row.megabytes / row.seconds:>6,.0f} "
            f"| {row.ratio:>6.2f} | {row.cpu_ratio:>9.2f} | {rejected:>9} | {rss:>11} |"
        )


GROUP_PATHS = {"small": ("env", "judge.verdict"), "large": ("agent_ref.name",)}
"""The budget-by-group rows' --group-by paths: members every line of the corpus has (gen_corpus.py)."""


def find(rows: list[Row], corpus: str, mode: str, prefix: str) -> Row | None:
    return next((r for r in rows if r.corpus == corpus and r.mode == mode and r.name.startswith(prefix)), None)


def targets(results: Results) -> list[Target]:
    out: list[Target] = []

    def add(name: str, row: Row | None, goal: float) -> None:
        if row is not None:
            out.append(Target(name, row.ratio, f">= {goal:g}x", row.ratio >= goal, row.cpu_ratio))

    process, in_process = "verify-contract check --format json (1 core)", "check_paths"
    for corpus in ("small lines", "large lines"):
        add(f"{corpus}: check, whole process, vs orjson.loads loop", find(results.rows, corpus, "process", process), 2)
    for corpus in dict.fromkeys(r.corpus for r in results.rows if "distinct" in r.corpus):
        add(f"{corpus}: check in process vs orjson.loads", find(results.rows, corpus, "in process", in_process), 1)
        add(f"{corpus}: check, whole process, vs orjson.loads loop", find(results.rows, corpus, "process", process), 1)
    jobs = find(results.rows, "large lines", "process", "verify-contract check --format json --jobs 2")
    add("large lines: --jobs 2 vs --jobs 1, whole process", jobs, 1.7)
    for corpus in ("small lines", "large lines"):
        budget = find(results.rows, corpus, "process", "verify-contract check --format json --max-masked 0.2 (")
        add(f"{corpus}: check with a failure budget vs without (speed), whole process", budget, 1 / 1.1)
        grouped = find(
            results.rows, corpus, "process", "verify-contract check --format json --max-masked 0.2 --group-by"
        )
        add(f"{corpus}: check with a failure budget by group vs without (speed), whole process", grouped, 1 / 1.25)
    check_start = next((s for s in results.startup if s["name"] == startup.CHECK_ROW), None)
    if check_start:
        ms = check_start["median_ms"]
        out.append(Target("start-up: verify-contract check, one clean line (ms)", ms, "<= 50 ms", ms <= 50))
    if results.memory:
        mb = results.memory["peak_rss_mb"]
        name = f"memory: peak RSS on a {results.memory['gigabytes']:.2f} GB file (MB)"
        out.append(Target(name, mb, "< 100 MB", mb < 100))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=1.0, help="corpus sizes and the memory file, times this")
    parser.add_argument("--reps", type=int, default=5, help="repetitions of each timed row (median)")
    parser.add_argument("--startup-reps", type=int, default=10)
    parser.add_argument("--jsonschema-sample", type=int, default=20_000, help="lines for jsonschema (Python)")
    parser.add_argument("--workdir", type=Path, default=DEFAULT_WORKDIR)
    parser.add_argument("--json", type=Path, help="also write every row and target to this file")
    parser.add_argument(
        "--scale-out",
        action="store_true",
        help="then the object-storage and Ray rows (benchmarks/scale.py, on 1 GB times --scale; needs .[test])",
    )
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    use_workdir(args.workdir)
    results = Results(machine())
    info = results.machine
    print("verify-contract check benchmark")
    print(
        f"machine: {info['cpu']}, {info['cores']} cores ({info['cores_usable']} usable); load average at start "
        f"{info['load_average_start'][0]:.2f} (1 min); python {info['python']}; commit {info['commit']}; "
        f"compiled pre-check: {'yes' if info['compiled_pre_check'] else 'NO'}"
    )
    print("packages: " + ", ".join(f"{name} {version}" for name, version in info["packages"].items()))
    scratch = Path(tempfile.mkdtemp(prefix="run-", dir=args.workdir))
    try:
        measure_all(args, results, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    report(results, args.json)
    if args.scale_out:
        megabytes = max(8, round(1024 * args.scale))
        scale = [sys.executable, str(Path(__file__).with_name("scale.py")), "--megabytes", str(megabytes)]
        subprocess.run([*scale, "--workdir", str(args.workdir), "--reps", str(min(args.reps, 3))], check=True)


def measure_all(args: argparse.Namespace, results: Results, scratch: Path) -> None:
    for corpus in corpora(args.scale):
        path, invalid = ensure_corpus(corpus, args.workdir)
        bench = CorpusBench(corpus, path, invalid, args.reps, scratch, args.jsonschema_sample)
        rows = bench.run()
        results.rows.extend(rows)
        print(
            f"\n### {corpus.name}: {corpus.lines:,} lines, {bench.megabytes:,.0f} MB, "
            f"{bench.megabytes * 1e6 / corpus.lines:,.0f} B/line, {invalid:,} invalid, profile {corpus.profile}"
        )
        print_rows(rows)
        del bench

    clean = startup.clean_line_file(args.workdir)
    results.startup = [asdict(row) for row in startup.startup_rows(clean, args.startup_reps)]
    results.phases = [asdict(phase) for phase in startup.phases(clean)]
    print(f"\n### start-up: median of {args.startup_reps} interleaved runs")
    for entry in results.startup:
        print(f"| {entry['name']:96} | {entry['median_ms']:7.1f} ms | exit {entry['exit_code']} |")
    print("\nphases of that check run in one interpreter (median of 5; heavy packages loaded after each):")
    for entry in results.phases:
        print(f"| {entry['name']:55} | {entry['median_ms']:7.1f} ms | {' '.join(entry['loaded'])} |")

    gigabytes = MEMORY_GIGABYTES * args.scale
    result = memory.measure(gigabytes, args.workdir)
    results.memory = asdict(result)
    print(
        f"\n### memory: verify-contract check on a {result.gigabytes:.2f} GB file: exit {result.exit_code}, "
        f"{result.seconds:.1f} s ({result.gigabytes * 1e3 / result.seconds:,.0f} MB/s), "
        f"peak RSS {result.peak_rss_mb:,.0f} MB"
    )


def report(results: Results, json_path: Path | None) -> None:
    results.targets = targets(results)
    results.machine["load_average_end"] = os.getloadavg()
    print("\n### targets")
    print(f"| {'target':80} | {'measured':>9} | {'goal':>9} | {'':7} | {'CPU ratio':>9} |")
    print(f"|{'-' * 82}|{'-' * 10}:|{'-' * 10}:|{'-' * 9}|{'-' * 10}:|")
    for target in results.targets:
        verdict = "met" if target.met else "NOT MET"
        cpu = "" if target.cpu_ratio is None else f"{target.cpu_ratio:.2f}"
        print(f"| {target.name:80} | {target.measured:>9.2f} | {target.goal:>9} | {verdict:7} | {cpu:>9} |")
    wrong = [row for row in results.rows if row.counts_ok is False]
    if wrong:
        print("\nWRONG COUNTS (check disagrees with the corpus labels): " + "; ".join(r.corpus for r in wrong))
    load = ", ".join(f"{x:.2f}" for x in results.machine["load_average_end"])
    print(f"\nload average (1, 5, 15 min) at the end: {load}")
    if json_path:
        json_path.write_text(json.dumps(asdict(results), indent=2) + "\n", encoding="utf-8")
    if wrong:
        sys.exit(1)


if __name__ == "__main__":
    main()
