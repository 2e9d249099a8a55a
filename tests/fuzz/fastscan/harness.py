"""Sanitizer fuzzing of the compiled pre-check: build the libFuzzer target, seed it, run it, replay its corpus.

    python tests/fuzz/fastscan/harness.py --runs 10000000      # the long run (``make fuzz-c``)
    python tests/fuzz/fastscan/harness.py --replay-only         # the corpus through Python vs the reference

``fuzz_fastscan.c`` is a plain C harness (no Python) around ``_fastscan.c``, built with
``clang -fsanitize=fuzzer,address,undefined``. The field tables it scans with are generated here from the
resolved contract model (``fastpath.field_table`` of every version and profile) into ``fuzz_tables.h``, so
no contract field is typed in C. Seeds: every vector, the lines of ``tests/corpus_lines.py`` and documents of
the differential fuzzer (``tests/fuzz/differential.py``). After the run, every input of the grown corpus is
replayed through the Python module (``replay``): the pre-check's report must be ``--reference-only``'s,
line for line the reference's verdict and rule ids, and a memo key must decide its lines' outcome.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

TESTS = Path(__file__).resolve().parents[2]
if str(TESTS) not in sys.path:  # run as a script
    sys.path.insert(0, str(TESTS))

from fuzz.differential import generate, reference  # noqa: E402

from verify_contract.check import CheckOptions, Outcome, check_chunk, reference_outcome  # noqa: E402
from verify_contract.check import _fastpath as fastpath  # noqa: E402
from verify_contract.check._text_events import text_event_outcome  # noqa: E402
from verify_contract.contract import resolve_contract  # noqa: E402
from verify_contract.contract._model import contract_model  # noqa: E402
from verify_contract.contract._versions import CONTRACT_VERSIONS, PROFILES, Profile  # noqa: E402
from verify_contract.findings import Severity  # noqa: E402
from verify_contract.vectors import load_vectors  # noqa: E402

from corpus_lines import kind_lines  # noqa: E402

ROOT = TESTS.parent
HERE = Path(__file__).resolve().parent
SCANNER = ROOT / "bindings/python/verify_contract/check"
DEFAULT_WORKDIR = ROOT / "build/fuzz-fastscan"
CLANG = os.environ.get("CLANG", "clang")
SANITIZE = [
    "-g",
    "-O1",
    "-fno-omit-frame-pointer",
    "-fsanitize=fuzzer,address,undefined",
    "-fno-sanitize-recover=undefined",
    "-std=c99",
]
MAX_LEN = 4096
DIFFERENTIAL_SEEDS = 2000
TEXT_KEY_KINDS = (b"N", b"D", b"S", b"U", b"B", b"T")
"""The memo keys that name a line's first JSON-text defect: the finding built from one must be the reference's."""
COMBOS = [(version, profile) for version in CONTRACT_VERSIONS for profile in PROFILES]


class HarnessError(RuntimeError):
    """The harness could not be built or run (no clang, no fuzzer runtime)."""


def _c_bytes(data: bytes) -> str:
    return "{" + ",".join(str(byte) for byte in data or b"\0") + "}"


GROUP_PATHS = (("env",), ("agent_ref", "name"), ("failure_kind",), ("instance_config", "host"))
"""The failure budget's group members added to a second table of each version and profile (--group-by): a
top-level member, a nested one under a member the contract does not declare, a contract field, and one
under a contract object."""


def tables_header() -> str:
    """``fuzz_tables.h``: the field table and clean-kind list of every version and profile, and each one's
    table with group members (``plain``: the row of the same table without them, whose verdicts and memo
    keys it must give line for line; -1 for a table without group members) and the group paths' field numbers,
    so that the grouped scan reads on past repeated names on no group path as ``scan_budget`` does."""
    rows = []
    arrays = []
    for index, (version, profile) in enumerate(COMBOS):
        contract = resolve_contract(version, profile)
        table = fastpath.field_table(contract)
        if table is None:
            continue  # the pre-check declines this version: nothing to fuzz
        kinds = fastpath.clean_kinds(contract.model)
        arrays.append(f"static const uint8_t TABLE_{index}[] = {_c_bytes(table)};")
        arrays.append(f"static const uint8_t KINDS_{index}[] = {_c_bytes(kinds)};")
        plain = len(rows)
        rows.append(
            f'    {{"{version} {profile}", TABLE_{index}, {len(table)}, KINDS_{index}, {len(kinds)}, -1, NULL, 0}},'
        )
        grouped = fastpath.group_field_table(contract, GROUP_PATHS)
        if grouped is not None:
            arrays.append(f"static const uint8_t GROUPED_{index}[] = {_c_bytes(grouped[0])};")
            arrays.append(f"static const uint8_t GROUP_FIELDS_{index}[] = {_c_bytes(grouped[1])};")
            rows.append(
                f'    {{"{version} {profile} grouped", GROUPED_{index}, {len(grouped[0])}, KINDS_{index}, {len(kinds)},'
                f" {plain}, GROUP_FIELDS_{index}, {len(grouped[1])}}},"
            )
    if not rows:
        raise HarnessError("the pre-check declines every contract version: no field table to fuzz with")
    return "\n".join(
        [
            "/* Generated by tests/fuzz/fastscan/harness.py from the resolved contract model. Do not edit. */",
            *arrays,
            "static const struct {",
            "    const char *name;",
            "    const uint8_t *table;",
            "    size_t table_len;",
            "    const uint8_t *kinds;",
            "    size_t kinds_len;",
            "    int plain;",
            "    const uint8_t *group_fields; /* the group paths' field numbers (table_group_paths) */",
            "    size_t group_count;",
            "} FUZZ_TABLES[] = {",
            *rows,
            "};",
            "",
        ]
    )


def _dict_token(text: str) -> str:
    raw = text.encode()
    return '"' + "".join(chr(b) if 0x20 <= b < 0x7F and b not in b'"\\' else f"\\x{b:02x}" for b in raw) + '"'


def dictionary() -> str:
    """JSON and UTF-8 tokens (``json.dict``), plus the member names and kinds of every contract version."""
    names: set[str] = set()
    kinds: set[str] = set()
    for version in CONTRACT_VERSIONS:
        model = contract_model(version)
        for profile in PROFILES:
            names.update(f.name for f in model.fields_of(profile))
        if model.failure_kinds:
            kinds.update(k["id"] for k in model.failure_kinds["registered"][:20])
    names.update(part for path in GROUP_PATHS for part in path)
    generated = [_dict_token(f'"{name}"') for name in sorted(names)]
    generated += [_dict_token(f'"{kind}"') for kind in sorted(kinds)]
    return (HERE / "json.dict").read_text(encoding="utf-8") + "\n# from the contract model\n" + "\n".join(generated)


def build(workdir: Path) -> Path:
    """Write the generated header and dictionary into ``workdir`` and compile the target there."""
    if shutil.which(CLANG) is None:
        raise HarnessError(f"{CLANG} not found (Debian: apt-get install clang libclang-rt-14-dev)")
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "fuzz_tables.h").write_text(tables_header(), encoding="utf-8")
    (workdir / "fuzz.dict").write_text(dictionary(), encoding="utf-8")
    binary = workdir / "fuzz_fastscan"
    command = [
        CLANG,
        *SANITIZE,
        f"-I{SCANNER}",
        f"-I{workdir}",
        str(HERE / "fuzz_fastscan.c"),
        "-o",
        str(binary),
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise HarnessError(f"building the fuzz target failed ({' '.join(command)}):\n{done.stderr[-2000:]}")
    return binary


def seed_lines() -> list[bytes]:
    """Every vector, the corpus lines of the differential test, and differential-fuzzer documents."""
    lines = [vector.text.replace("\n", " ").encode() for vector in load_vectors()]
    lines += kind_lines()
    lines += [text.encode("utf-8", "surrogatepass") for text, _, _ in generate(20261201, DIFFERENTIAL_SEEDS)]
    return lines


def write_seeds(directory: Path) -> int:
    """One seed file per line (those longer than the fuzzer's input limit are cut by libFuzzer itself)."""
    if directory.exists():
        shutil.rmtree(directory)
    directory.mkdir(parents=True)
    lines = seed_lines()
    for index, line in enumerate(lines):
        (directory / f"seed-{index:05d}").write_bytes(line + b"\n")
    return len(lines)


@dataclass
class FuzzRun:
    returncode: int
    log: str
    stats: dict[str, int] = field(default_factory=dict)
    coverage: str = ""
    counters: int = 0

    @property
    def found(self) -> bool:
        return self.returncode != 0


def fuzz(
    binary: Path, workdir: Path, *, runs: int | None = None, seconds: int | None = None, max_len: int = MAX_LEN
) -> FuzzRun:
    """Run the target on ``workdir/corpus`` (grown) and ``workdir/seeds`` (read only), one worker."""
    corpus = workdir / "corpus"
    corpus.mkdir(exist_ok=True)
    artifacts = workdir / "artifacts"
    artifacts.mkdir(exist_ok=True)
    options = [
        f"-dict={workdir / 'fuzz.dict'}",
        f"-max_len={max_len}",
        f"-artifact_prefix={artifacts}/",
        "-print_final_stats=1",
    ]
    if runs is not None:
        options.append(f"-runs={runs}")
    if seconds is not None:
        options.append(f"-max_total_time={seconds}")
    log = workdir / "fuzz.log"  # written as it goes: a long run's progress can be followed there
    with log.open("wb") as stream:
        done = subprocess.run(
            [str(binary), *options, str(corpus), str(workdir / "seeds")], stdout=stream, stderr=stream, check=False
        )
    run = FuzzRun(done.returncode, log.read_text(encoding="utf-8", errors="replace"))
    for name, value in re.findall(r"^stat::(\w+):\s+(\d+)", run.log, re.MULTILINE):
        run.stats[name] = int(value)
    finals = re.findall(r"^#\d+\s+(?:DONE|pulse|NEW|REDUCE|INITED)\s+(cov: \d+ ft: \d+ corp: \S+)", run.log, re.M)
    run.coverage = finals[-1] if finals else ""
    counters = re.search(r"Loaded \d+ modules\s+\((\d+) inline 8-bit counters\)", run.log)
    run.counters = int(counters.group(1)) if counters else 0
    return run


def source_coverage(workdir: Path) -> str | None:
    """Line, region and branch coverage of ``_fastscan.c`` by the corpus and seeds (clang source-based
    coverage: a build without sanitizers replays them once); None without llvm-profdata and llvm-cov."""
    tools = [shutil.which("llvm-profdata"), shutil.which("llvm-cov")]
    if None in tools:
        return None
    binary = workdir / "fuzz_fastscan_coverage"
    flags = ["-g", "-O1", "-fsanitize=fuzzer", "-fprofile-instr-generate", "-fcoverage-mapping", "-std=c99"]
    source = [f"-I{SCANNER}", f"-I{workdir}", str(HERE / "fuzz_fastscan.c"), "-o", str(binary)]
    subprocess.run([CLANG, *flags, *source], check=True, capture_output=True)
    raw, merged = workdir / "coverage.profraw", workdir / "coverage.profdata"
    inputs = [str(workdir / d) for d in ("corpus", "seeds") if (workdir / d).is_dir()]
    subprocess.run(
        [str(binary), "-runs=0", *inputs],
        env={**os.environ, "LLVM_PROFILE_FILE": str(raw)},
        check=True,
        capture_output=True,
    )
    subprocess.run([str(tools[0]), "merge", "-sparse", str(raw), "-o", str(merged)], check=True)
    report = subprocess.run(
        [str(tools[1]), "report", str(binary), f"-instr-profile={merged}", str(SCANNER / "_fastscan.c")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    total = next(line.split()[1:] for line in report.splitlines() if line.startswith("TOTAL"))
    # columns: regions, missed, cover, functions, missed, executed, lines, missed, cover, branches, missed, cover
    lines, regions, branches = f"{total[8]} of {total[6]}", f"{total[2]} of {total[0]}", f"{total[11]} of {total[9]}"
    return f"_fastscan.c: lines {lines}, regions {regions}, branches {branches}"


def _lines(data: bytes) -> Iterable[tuple[int, int, int]]:
    """(index, start, stop) of each line as the pre-check splits a chunk (the last may lack its newline)."""
    start = 0
    index = 0
    while start < len(data):
        cut = data.find(b"\n", start)
        stop = len(data) if cut < 0 else cut + 1
        yield index, start, stop
        index, start = index + 1, stop


def _reference_rules(raw: bytes, version: str, profile: str) -> list[str]:
    """The error rules the reference (parse_json + validate, as the differential fuzzer calls it) gives."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return ["json-syntax"]  # SPEC 2.1: a text that is not UTF-8
    return reference(text, version, profile).rules


@dataclass
class Replay:
    inputs: int = 0
    lines: int = 0
    problems: list[str] = field(default_factory=list)

    def problem(self, where: str, what: str, line: bytes) -> None:
        self.problems.append(f"{where}: {what}: {line[:300]!r}")


def replay(paths: Iterable[Path]) -> Replay:
    """Each input, as a chunk of JSON Lines at every version and profile, through the pre-check and the
    reference: the same report as ``--reference-only``, the reference's verdict and rules on every line."""
    result = Replay()
    decided: dict[tuple[str, str, bytes], tuple[Outcome, bytes]] = {}
    for path in paths:
        data = path.read_bytes()
        result.inputs += 1
        for version, profile in COMBOS:
            _replay_chunk(data, path.name, version, profile, decided, result)
    return result


def _replay_chunk(
    data: bytes,
    name: str,
    version: str,
    profile: Profile,
    decided: dict[tuple[str, str, bytes], tuple[Outcome, bytes]],
    result: Replay,
) -> None:
    where = f"{name} {version}/{profile}"
    options = CheckOptions(version, profile, max_findings=10**6)
    fast = check_chunk(data, 1, name, options)
    slow = check_chunk(data, 1, name, CheckOptions(version, profile, max_findings=10**6, fast=False))
    if fast != slow:
        result.problem(where, "check's report differs from --reference-only's", data)
    errors: dict[int, list[str]] = defaultdict(list)
    for located in fast.findings:
        if located.finding.severity is Severity.ERROR:
            errors[located.line or 0].append(located.finding.rule)
    statuses, others = fastpath.scan(data, resolve_contract(version, profile))
    keys = {index: key for index, _, _, key in others}
    for index, start, stop in _lines(data):
        result.lines += 1
        line = data[start:stop]
        raw = line.rstrip(b"\r\n")
        status = statuses[index] if index < len(statuses) else -1
        blank = not raw.strip(b" \t\r")
        if status == fastpath.STATUS_BLANK or blank:
            if status != fastpath.STATUS_BLANK or not blank:
                result.problem(where, f"status {status}, blank {blank}", line)
            continue
        if sorted(errors.get(index + 1, [])) != _reference_rules(raw, version, profile):
            result.problem(where, f"rules {sorted(errors.get(index + 1, []))} are not the reference's", line)
        expected = reference_outcome(raw, resolve_contract(version, profile))
        if status in fastpath.CLEAN_STATUSES:
            if not (expected.valid and not expected.findings):
                result.problem(where, "clean, but the reference finds something", line)
            elif fastpath.clean_outcome(status) != (expected.masked, expected.legacy, expected.kind):
                result.problem(where, f"clean outcome {fastpath.clean_outcome(status)} are not the reference's", line)
        elif index not in keys:
            result.problem(where, f"status {status} but the line is not handed to the reference", line)
        elif keys[index] is not None:
            key = keys[index]
            assert key is not None
            first, first_line = decided.setdefault((version, profile, key), (expected, raw))
            if first != expected:
                result.problem(where, f"memo key {key[:40]!r} also decides {first_line[:100]!r}", line)
            event = {b"N": "json-non-finite", b"D": "json-duplicate-key"}.get(key[:1])
            if event is not None and [f.rule for f in expected.findings] != [event]:
                result.problem(where, f"text-event key {key[:40]!r}, reference {expected.findings}", line)
            built = text_event_outcome(key) if status == fastpath.STATUS_TEXT else None
            if key[:1] in TEXT_KEY_KINDS and built != expected:
                result.problem(where, f"text-event key {key[:40]!r} builds {built}, reference {expected}", line)


def corpus_files(workdir: Path) -> list[Path]:
    return sorted(p for d in ("corpus", "seeds") if (workdir / d).is_dir() for p in (workdir / d).iterdir())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, help="executions (libFuzzer -runs)")
    parser.add_argument("--seconds", type=int, help="time limit (libFuzzer -max_total_time)")
    parser.add_argument("--max-len", type=int, default=MAX_LEN, help="longest input in bytes (libFuzzer -max_len)")
    parser.add_argument("--workdir", type=Path, default=DEFAULT_WORKDIR, help="build, seeds, corpus, artifacts")
    parser.add_argument("--replay-only", action="store_true", help="replay the workdir's corpus, do not fuzz")
    args = parser.parse_args(argv)
    if not args.replay_only:
        binary = build(args.workdir)
        seeds = write_seeds(args.workdir / "seeds")
        print(f"{seeds} seeds, target {binary}", flush=True)
        run = fuzz(binary, args.workdir, runs=args.runs, seconds=args.seconds, max_len=args.max_len)
        print("\n".join(run.log.splitlines()[-14:]))
        print(
            f"executions {run.stats.get('number_of_executed_units', 0)}, "
            f"{run.stats.get('average_exec_per_sec', 0)} exec/s, {run.coverage} "
            f"(of {run.counters} inline 8-bit counters), peak RSS {run.stats.get('peak_rss_mb', 0)} MB"
        )
        if run.found:
            print(f"FINDING (exit {run.returncode}): inputs in {args.workdir / 'artifacts'}")
            return 1
        covered = source_coverage(args.workdir)
        if covered:
            print(f"source coverage of the corpus and seeds: {covered}")
    files = corpus_files(args.workdir)
    checked = replay(files)
    print(f"replay: {checked.inputs} inputs, {checked.lines} lines x {len(COMBOS)}, {len(checked.problems)} problems")
    for problem in checked.problems[:30]:
        print(problem)
    return 1 if checked.problems else 0


if __name__ == "__main__":
    sys.exit(main())
