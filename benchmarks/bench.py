#!/usr/bin/env python3
"""Throughput of `verify-contract check` against the parse floor and other validators, in one run.

    pip install -e ".[bench]"          # the peer CLIs: sourcemeta-jsonschema, check-jsonschema
    python benchmarks/bench.py         # generates its corpora in the temp directory (~1 min)

Two corpora (benchmarks/gen_corpus.py, 5% invalid lines of eight kinds): small lines (~200 B, core
profile) and large Gym-like lines (5-20 KB, gym profile). For each, on one core:

- orjson.loads: `orjson.loads(line)` on every line, lines held in memory: the parse floor, ratio 1.00.
- check (in process): `check.check_chunk` on the same bytes held in memory in 1 MiB chunks, merged
  into one report as `check_sources` does for a file: the full check (pre-check, then the reference
  validator for every line the pre-check does not settle, memoised per key).
- pre-check alone: `fastpath.scan` on those chunks (what a corpus without any bad line would cost).
- jsonschema: the reference schema validator (jsonschema + ECMA regex) on `orjson.loads(line)`.
- check CLI, sourcemeta-jsonschema, check-jsonschema: whole processes, start-up and file reading
  included; check-jsonschema reads JSON documents, not JSONL, so it gets a sample of lines as files.

Ratios are throughput relative to orjson.loads in the same run (2.00 = twice as many lines per second).
In-process figures are medians of --reps runs. The machine is shared: read the ratios.
"""

from __future__ import annotations

import argparse
import gc
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bindings" / "python"))

from generators.bundle import bundle  # noqa: E402
from verify_contract import check, fastpath  # noqa: E402
from verify_contract.check import CheckOptions, check_chunk  # noqa: E402
from verify_contract.schemas import FAILURE_KINDS_FILE, schema_document  # noqa: E402
from verify_contract.validation import schema_validator  # noqa: E402
from verify_contract.versions import LATEST_VERSION, Profile  # noqa: E402

CHUNK = 1 << 20


def chunks_of(data: bytes) -> list[bytes]:
    out = []
    start = 0
    while start < len(data):
        cut = data.rfind(b"\n", start, start + CHUNK)
        stop = len(data) if cut < 0 else cut + 1
        out.append(data[start:stop])
        start = stop
    return out


def peer_schema(profile: Profile, directory: Path) -> Path:
    """The contract as one self-contained schema file for the peer validators."""
    document = bundle(schema_document(LATEST_VERSION), schema_document(LATEST_VERSION, FAILURE_KINDS_FILE))
    document["$ref"] = "#/$defs/" + ("GymVerifyResponse" if profile == "gym" else "VerifyResponse")
    path = directory / f"contract-{profile}.schema.json"
    path.write_text(json.dumps(document))
    return path


def _parses(line: bytes) -> bool:
    try:
        orjson.loads(line)
    except orjson.JSONDecodeError:
        return False
    return True


def timed(function: Callable[[], object], reps: int) -> float:
    times = []
    for _ in range(reps):
        gc.collect()
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def wall(command: list[str]) -> tuple[float, int]:
    start = time.perf_counter()
    result = subprocess.run(command, capture_output=True, check=False)
    return time.perf_counter() - start, result.returncode


def bench(name: str, path: Path, profile: Profile, reps: int, sample: int, work: Path) -> list[tuple[str, float]]:
    data = path.read_bytes()
    lines = data.splitlines(keepends=True)
    chunks = chunks_of(data)
    options = CheckOptions(LATEST_VERSION, profile, max_findings=1000)
    validator = schema_validator(LATEST_VERSION, profile)
    subset = lines[:sample]

    def parse_all() -> None:
        for line in lines:
            try:  # noqa: SIM105  # suppress() would add its own cost to the floor
                orjson.loads(line)
            except orjson.JSONDecodeError:
                pass

    def check_all() -> None:
        check.clear_caches()  # a cold single pass: no memo carried over from an earlier repetition
        # what check_sources does for one file: chunks merged into one report, whose listing is capped
        report = check.Report(LATEST_VERSION, profile, options.max_findings)
        line = 1
        for chunk in chunks:
            tally = check_chunk(chunk, line, name, options, report.max_findings - len(report.findings))
            line += tally.lines
            report.tally.merge(tally)
        assert report.lines == len(lines)

    def scan_all() -> None:
        for chunk in chunks:
            fastpath.scan(chunk, LATEST_VERSION, profile)

    def jsonschema_subset() -> None:
        for line in subset:
            try:
                document = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            for _ in validator.iter_errors(document):
                pass

    check_all()  # imports and lazily built validators, not the per-document memo (cleared each run)
    per_line: dict[str, float] = {}
    rounds: dict[str, list[float]] = {"orjson": [], "check": [], "scan": []}
    for _ in range(reps):  # interleaved, so that noise hits every row alike
        rounds["orjson"].append(timed(parse_all, 1) / len(lines))
        rounds["check"].append(timed(check_all, 1) / len(lines))
        rounds["scan"].append(timed(scan_all, 1) / len(lines))
    per_line = {key: statistics.median(values) for key, values in rounds.items()}
    per_line["jsonschema"] = timed(jsonschema_subset, 1) / len(subset)

    cli = [sys.executable, "-m", "verify_contract", "check", str(path), "--profile", profile, "--format", "json"]
    seconds, _ = wall(cli)
    per_line["check CLI (process)"] = seconds / len(lines)
    schema = peer_schema(profile, work)
    sourcemeta = shutil.which("jsonschema", path=str(Path(sys.executable).parent))
    if sourcemeta:
        # It stops at the first line that is not JSON (NaN, a cut line): give it the lines that parse.
        parseable = [line for line in lines if _parses(line)]
        target = work / f"{name}-parseable.jsonl"
        target.write_bytes(b"".join(parseable))
        seconds, code = wall([sourcemeta, "validate", str(schema), str(target), "--fast"])
        per_line[f"sourcemeta-jsonschema (process, {len(parseable):,} parseable lines, exit {code})"] = seconds / len(
            parseable
        )
    checker = shutil.which("check-jsonschema", path=str(Path(sys.executable).parent))
    if checker:
        files = work / f"{name}-files"
        files.mkdir(exist_ok=True)
        names = []
        for index, line in enumerate(subset[:2000]):  # one document per file: it does not read JSONL
            target = files / f"{index}.json"
            target.write_bytes(line)
            names.append(str(target))
        seconds, _ = wall([checker, "--schemafile", str(schema), *names])
        per_line["check-jsonschema (process)"] = seconds / len(names)

    size = len(data) / len(lines)
    print(f"\n{name}: {len(lines):,} lines, {len(data) / 1e6:,.0f} MB, {size:,.0f} B/line, profile {profile}")
    print(f"| {'pipeline':60} | {'lines/s':>11} | {'MB/s':>7} | {'x orjson.loads':>14} |")
    print(f"|{'-' * 62}|{'-' * 12}:|{'-' * 8}:|{'-' * 15}:|")
    labels = {
        "orjson": "orjson.loads (parse floor)",
        "check": "check (in process, 1 core)",
        "scan": "pre-check alone",
        "jsonschema": f"jsonschema (first {len(subset):,} lines)",
    }
    rows = []
    for key, seconds in per_line.items():
        ratio = per_line["orjson"] / seconds
        rows.append((key, ratio))
        print(f"| {labels.get(key, key):60} | {1 / seconds:>11,.0f} | {size / seconds / 1e6:>7,.0f} | {ratio:>14.2f} |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--small-lines", type=int, default=200_000)
    parser.add_argument("--large-lines", type=int, default=20_000)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--jsonschema-sample", type=int, default=20_000)
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "verify-contract-bench")
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    generator = Path(__file__).with_name("gen_corpus.py")
    print(f"verify-contract check benchmark; python {sys.version.split()[0]}, orjson {orjson.__version__}")
    print(f"compiled pre-check: {'yes' if fastpath.available() else 'NO (reference path only)'}")
    for name, size, count, profile in (
        ("small", "small", args.small_lines, "core"),
        ("large", "large", args.large_lines, "gym"),
    ):
        path = args.workdir / f"{name}-{count}.jsonl"
        if not path.exists():
            out = ["--out", str(path)]
            subprocess.run([sys.executable, str(generator), "--lines", str(count), "--size", size, *out], check=True)
        bench(name, path, profile, args.reps, args.jsonschema_sample, args.workdir)  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
