"""Differential fuzzer: seeded mutations of the vectors, judged by every implementation, compared.

    python tests/fuzz/differential.py --seed 1 --count 100000

Each document (one line of JSON text, one contract version and profile) goes through the reference
(``parse_json`` + ``validate``), ``check`` (compiled pre-check, ``--reference-only``, ``--jobs 2``, JSONL and,
for a sample, ``.json`` files), the pydantic models (``from_json``) and TypedDicts (round trip of valid
documents), the Python targets of ``verify-contract generate`` (their readers from JSON text: TypedDict reader,
dataclasses, pydantic, each version and profile, refusing with its own error type, never another exception),
the TypeScript, Go and Rust conformance runners, and the TypeScript, Go and Rust code `verify-contract
generate` writes (built as the toolchain tests build it: verdict, mask and exact round trip of every document
whose defects are the text rules those decoders enforce; Rust beside the project's crate). The grammar holds
big integers, padded doubles, deep unknown members and non-ASCII member names. Compared: verdict, error rule
ids, effective mask, and that a valid document's round trip keeps every value (SPEC 3.1's one rule,
``json_equal``: ``1.0`` may come back as ``1`` and ``-0.0`` as ``0``, an integer keeps its exact value at any
size, any other number its binary64). Exit 1 and print each disagreement (with the document) if any; every
disagreement ever found is kept as a vector.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from verify_contract import MaskTypeError, effective_mask, model_class, parse_json, typeddict_adapter, validate
from verify_contract.check import CheckOptions, check_paths
from verify_contract.check._inputs import document_hint
from verify_contract.contract._versions import CONTRACT_VERSIONS, PROFILES
from verify_contract.findings import Severity
from verify_contract.reference._jsonio import JSON_WHITESPACE, first_defect, json_equal

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "vectors"
RUNNERS: dict[str, list[str]] = {
    "typescript": ["node", str(ROOT / "bindings/typescript/dist/conformance.js")],
    "go": [str(ROOT / "bindings/go/bin/conformance")],
    "rust": [str(ROOT / "bindings/rust/bin/conformance")],
}
COMBOS = [(v, p) for v in CONTRACT_VERSIONS for p in PROFILES]
# The `verify-contract generate` targets run in process, each version and profile (their refusal types).
GENERATED_PYTHON = ("python-typeddict", "python-dataclass", "python-pydantic")
JSON_FILE_SAMPLE = 300  # documents also checked as one .json file each

# Values and spellings that have split implementations before.
NUMBERS = [
    "0",
    "-0",
    "1",
    "1.0",
    "0.5",
    "-3",
    "1e2",
    "1E-2",
    "1e400",
    "-1e400",
    "1e-400",
    "9007199254740993",
    "18446744073709551616",
    "123456789012345678901234567890",
    "1" + "0" * 308,
    "1" + "0" * 309,
    "1" + "0" * 399,
    "2e308",
    "1.7976931348623157e308",
    "1.7976931348623159e308",
    "01",
    "1.",
    ".5",
    "+1",
    "-",
    "1e",
    "0x10",
    "NaN",
    "-NaN",
    "Infinity",
    "-Infinity",
    "infinity",
    "nan",
]
STRINGS = [
    '""',
    '"x"',
    '"judge_failed"',
    '"usersim:scorer_inconclusive"',
    '"Judge Failed"',
    '"a-b"',
    '"a:b:c"',
    '"judge_failed\\n"',
    '"\\ud800"',
    '"\\udc00"',
    '"\\ud800\\udc00"',
    '"\\ud800\\ud800\\udc00"',
    '"\\ud800é"',
    '"é"',
    '"\\u0000"',
    '"\\x"',
    '"\t"',
    '"\\/"',
    '"none"',
    '"\\u00e9"',
]
SCALARS = ["true", "false", "null", "{}", "[]", '{"mask_sample": true}', '{"mask_sample": "true"}', '{"output": []}']
TOKENS = ["{", "}", "[", "]", ",", ":", '"', "\\", " ", "\t", "\r", "\x0b", "\x0c", "\x00", "é", "\ufeff"]
MEMBERS = [
    "reward",
    "mask_sample",
    "failure_kind",
    "failure_reason",
    "instance_config",
    "response",
    "responses_create_params",
    "x",
    "reward\\u0000",
    "rew\\u0061rd",
    "é",
    "ключ",
    "\\u00e9x",
    "x_big",
]


def _seeds() -> list[str]:
    texts: list[str] = []
    for path in sorted(VECTORS.glob("*.json")):
        if path.name == "vectors.schema.json":
            continue
        for test in json.loads(path.read_text(encoding="utf-8"))["tests"]:
            texts.append(test["instance_json"] if "instance_json" in test else json.dumps(test["instance"]))
    return [t.replace("\n", " ") for t in texts if len(t) < 20000]


# Values every parser accepts, so that round trips (big integers, exponents, escapes) are well covered.
VALID_VALUES = [
    "0",
    "-0",
    "1",
    "0.5",
    "-3",
    "1e2",
    "1E-2",
    "1e-400",
    "9007199254740993",
    "-9007199254740993",
    "18446744073709551616",
    "123456789012345678901234567890",
    "1234567890123451e2",
    "1" + "0" * 308,
    "1.7976931348623157e308",
    "0.1",
    "5e-324",
    '"x"',
    '"\\ud83d\\ude00"',
    '"\\u00e9\\n"',
    "true",
    "null",
    "[]",
    '{"a": [1, 2.5, "b"]}',
    '[9007199254740993, {"k": 18446744073709551616}]',
    "1.7037181445619378e+20",
    "-314480692138891865775.89669797",
    '{"a": {"b": {"c": [{"d": 123456789012345678901234567890, "é": [-18446744073709551616]}]}}}',
]


def _value(rng: random.Random) -> str:
    if rng.random() < 0.4:
        return rng.choice(VALID_VALUES)
    pool = rng.choice([NUMBERS, STRINGS, SCALARS])
    value = rng.choice(pool)
    if rng.random() < 0.05:
        depth = rng.choice([98, 99, 100, 101, 102, 200])
        value = "[" * depth + value + "]" * rng.choice([depth, depth, 0])
    return value


def _mutate(text: str, rng: random.Random) -> str:
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        kind = rng.random()
        if kind < 0.35 and text.startswith("{"):  # add or replace a member (duplicates included)
            member = f'"{rng.choice(MEMBERS)}": {_value(rng)}'
            if rng.random() < 0.5:
                text = "{" + member + ("," if text[1:].lstrip()[:1] not in ("}", "") else "") + text[1:]
            else:
                cut = text.rfind("}")
                text = text[:cut] + ("," if cut > 1 else "") + member + text[cut:] if cut > 0 else text + member
        elif kind < 0.6:  # replace a number or string token with another spelling
            spots = [i for i, c in enumerate(text) if c in '-0123456789"tfn[{']
            if spots:
                start = rng.choice(spots)
                end = start + 1
                while end < len(text) and text[end] not in ",}]":
                    end += 1
                text = text[:start] + _value(rng) + text[end:]
        elif kind < 0.8:  # byte-level: insert, delete or replace one token
            at = rng.randrange(len(text) + 1)
            op = rng.random()
            if op < 0.4:
                text = text[:at] + rng.choice(TOKENS) + text[at:]
            elif op < 0.7:
                text = text[:at] + text[at + 1 :]
            else:
                text = text[:at] + rng.choice(TOKENS) + text[at + 1 :]
        elif kind < 0.9:  # cut the line short
            text = text[: rng.randrange(len(text) + 1)]
        else:  # wrap the document or a value in arrays
            text = '{"reward": 0, "deep": ' + "[" * rng.choice([98, 99, 100, 101, 980]) + "1"
    return text.replace("\n", " ")


@dataclass
class Verdict:
    valid: bool
    rules: list[str]
    mask: bool | None = None
    document: Any = None


def reference(text: str, version: str, profile: str) -> Verdict:
    parsed = parse_json(text.encode("utf-8"))
    if parsed.finding is not None:
        return Verdict(False, [parsed.finding.rule])
    result = validate(parsed.document, version, profile)  # type: ignore[arg-type]
    if not result.valid:
        return Verdict(False, sorted(f.rule for f in result.errors))
    try:
        mask: bool | None = effective_mask(parsed.document)
    except MaskTypeError:
        mask = None
    return Verdict(True, [], mask, parsed.document)


@dataclass
class Run:
    documents: list[tuple[str, str, str]]  # text, version, profile
    expected: list[Verdict]
    problems: list[str] = field(default_factory=list)

    def disagree(self, implementation: str, index: int, what: str) -> None:
        text, version, profile = self.documents[index]
        self.problems.append(f"{implementation} #{index} {version}/{profile} {what}: {text[:300]!r}")


Listings = dict[tuple[str, str], list[list[tuple[int | None, Any]]]]


def _check_lines(
    run: Run, name: str, make_options: Callable[[str, str], CheckOptions], directory: Path, listings: Listings
) -> None:
    """check over JSONL files, one per (version, profile): per line, its error rules."""
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for index, (_, version, profile) in enumerate(run.documents):
        groups[(version, profile)].append(index)
    for (version, profile), indices in groups.items():
        path = directory / f"{name}-{version}-{profile}.jsonl"
        path.write_bytes(b"".join(run.documents[i][0].encode("utf-8") + b"\n" for i in indices))
        report = check_paths([path], options=make_options(version, profile))
        listings[(version, profile)].append([(f.line, f.finding) for f in report.findings])
        rules: dict[int, list[str]] = defaultdict(list)
        for located in report.findings:
            if located.finding.severity is Severity.ERROR:
                rules[located.line or 0].append(located.finding.rule)
        # A JSONL line of JSON whitespace only is blank, not a document (SPEC 2.1).
        blank = [i for i in indices if not run.documents[i][0].strip(JSON_WHITESPACE)]
        if report.lines != len(indices) or report.blank != len(blank):
            run.problems.append(f"check {name} {version}/{profile}: {report.lines} lines, {report.blank} blank")
        for line, index in enumerate(indices, start=1):
            expected = run.expected[index]
            if sorted(rules.get(line, [])) != ([] if index in blank else expected.rules):
                run.disagree(f"check {name}", index, f"rules {sorted(rules.get(line, []))} != {expected.rules}")


def _reference_paths_agree(run: Run) -> None:
    """parse_json's cheap paths and first_defect's scan name the same defect (syntax messages may word it
    differently: Python's json module words its own)."""
    for index, (text, _, _) in enumerate(run.documents):
        found = parse_json(text.encode("utf-8")).finding
        scanned = first_defect(text)
        if found is None or scanned is None:
            if found is not scanned:
                run.disagree("first_defect", index, f"{scanned} but parse_json {found}")
        elif (found.rule, found.message if found.rule != "json-syntax" else "") != (
            scanned.rule,
            scanned.message if scanned.rule != "json-syntax" else "",
        ):
            run.disagree("first_defect", index, f"{scanned} but parse_json {found}")


def _check_json_files(run: Run, directory: Path, rng: random.Random) -> None:
    sample = rng.sample(range(len(run.documents)), min(JSON_FILE_SAMPLE, len(run.documents)))
    for index in sample:
        text, version, profile = run.documents[index]
        path = directory / f"doc-{index}.json"
        path.write_bytes(text.encode("utf-8"))
        if document_hint(path.name, text.encode("utf-8")) is not None:
            continue  # a JSON array or JSON Lines in a .json file is refused as input (tests/check/test_check_cli.py)
        report = check_paths([path], options=CheckOptions(version, profile, max_findings=100))  # type: ignore[arg-type]
        rules = sorted(f.finding.rule for f in report.findings if f.finding.severity is Severity.ERROR)
        if rules != run.expected[index].rules or report.blank:
            run.disagree("check .json", index, f"rules {rules} != {run.expected[index].rules}")


def _python_models(run: Run) -> None:
    """Every text through the pydantic model's ``from_json`` (the reference's verdict), and valid documents
    round-trip through it and through the TypedDict of their profile."""
    for index, expected in enumerate(run.expected):
        text, version, profile = run.documents[index]
        try:
            dumped = model_class(version, profile).from_json(text.encode("utf-8")).to_document()  # type: ignore[arg-type]
        except ValueError as error:
            if expected.valid:
                run.disagree("pydantic", index, f"refuses a valid document: {str(error)[:200]}")
            continue
        if not expected.valid:
            run.disagree("pydantic", index, f"accepts an invalid document ({expected.rules})")
            continue
        if not json_equal(expected.document, dumped):
            run.disagree("pydantic", index, f"round trip changed a value: {json.dumps(dumped)[:200]}")
        adapter = typeddict_adapter(version, profile)  # type: ignore[arg-type]
        try:
            back = adapter.dump_python(adapter.validate_json(text), mode="json")
        except ValueError as error:
            run.disagree("typeddict", index, f"refuses a valid document: {str(error)[:200]}")
        else:
            if not json_equal(expected.document, back):
                run.disagree("typeddict", index, f"round trip changed a value: {json.dumps(back)[:200]}")


def _generated_modules(directory: Path) -> dict[tuple[str, str, str], Any]:
    """(target, version, profile) -> the module ``verify-contract generate`` writes, imported."""
    import importlib.util

    from verify_contract.codegen import Request, render

    modules: dict[tuple[str, str, str], Any] = {}
    for target in GENERATED_PYTHON:
        for version, profile in COMBOS:
            name = f"fuzz_{target.replace('-', '_')}_{version.replace('.', '_')}_{profile}"
            (text,) = render(Request(target, version, profile, {"name": name})).values()
            path = directory / f"{name}.py"
            path.write_text(text, encoding="utf-8")
            spec = importlib.util.spec_from_file_location(name, path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module  # dataclasses and pydantic resolve annotations through it
            spec.loader.exec_module(module)
            modules[(target, version, profile)] = module
    return modules


def _generated_codec(module: Any, target: str) -> tuple[Callable[[Any], Any], Callable[[Any], Any], type]:
    """(the reader from JSON text, encode, the error it refuses with) of one generated module."""
    root = "GymVerifyResponse" if hasattr(module, "GymVerifyResponse") else "VerifyResponse"
    if target == "python-typeddict":
        read = getattr(module, "parse_gym_verify_response" if root.startswith("Gym") else "parse_verify_response")
        return read, lambda value: value, module.ContractError
    cls = getattr(module, root)
    if target == "python-dataclass":
        return cls.from_json, lambda value: value.to_dict(), module.ContractError
    import pydantic

    return cls.from_json, lambda value: value.to_document(), pydantic.ValidationError


def _generated_python(run: Run, directory: Path) -> None:
    """Every text through the reader from JSON text of each generated Python target of its version and
    profile: accepted exactly when the reference finds it valid (SPEC 2.1's text rules included), refused with
    the target's own error type (never another exception), and a valid document's round trip keeps every
    value (SPEC 3.1)."""
    modules = _generated_modules(directory)
    for index, expected in enumerate(run.expected):
        text, version, profile = run.documents[index]
        for target in GENERATED_PYTHON:
            decode, encode, refusal = _generated_codec(modules[(target, version, profile)], target)
            try:
                decoded = decode(text.encode("utf-8"))
            except refusal:
                if expected.valid:
                    run.disagree(target, index, "refuses a valid document")
                continue
            except Exception as error:  # a crash, not a refusal: always a disagreement
                run.disagree(target, index, f"raised {type(error).__name__}: {str(error)[:120]}")
                continue
            if not expected.valid:
                run.disagree(target, index, f"accepts an invalid document ({expected.rules})")
            elif not json_equal(expected.document, encode(decoded)):
                run.disagree(target, index, "round trip changed a value")


def compare_runners(run: Run, languages: list[str]) -> None:
    """Every document through each language's conformance runner, as one vector file."""
    with tempfile.TemporaryDirectory() as temporary:
        _runners(run, Path(temporary), languages)


def _runners(run: Run, directory: Path, languages: list[str]) -> None:
    vectors = directory / "vectors"
    vectors.mkdir()
    tests = [
        {
            "id": f"fuzz-{i}",
            "description": "fuzz",
            "contract_version": version,
            "profile": profile,
            "instance_json": text,
            "valid": expected.valid,
            "findings": expected.rules,
            "effective_mask": expected.mask if expected.valid else None,
            "round_trip": expected.valid,
        }
        for i, ((text, version, profile), expected) in enumerate(zip(run.documents, run.expected, strict=True))
    ]
    (vectors / "fuzz.json").write_text(json.dumps({"tests": tests}, ensure_ascii=False), encoding="utf-8")
    for language in languages:
        command = RUNNERS[language]
        done = subprocess.run([*command, str(vectors)], capture_output=True, text=True, timeout=1800, check=False)
        if done.returncode != 0:
            run.problems.append(f"{language} runner failed: {done.stderr[-500:]}")
            continue
        # JSON Lines end at "\n" only: str.splitlines would also cut at a raw U+2028 inside a JSON string.
        lines = [json.loads(line) for line in done.stdout.split("\n") if line.strip()]
        if len(lines) != len(tests):
            run.problems.append(f"{language}: {len(lines)} lines for {len(tests)} documents")
            continue
        for index, line in enumerate(lines):
            expected = run.expected[index]
            if line["valid"] is not expected.valid or line["rules"] != expected.rules:
                run.disagree(language, index, f"valid={line['valid']} rules={line['rules']} != {expected.rules}")
            elif expected.valid and line["effective_mask"] is not expected.mask:
                run.disagree(language, index, f"mask {line['effective_mask']} != {expected.mask}")
            elif expected.valid and not json_equal(expected.document, line["encoded"]):
                run.disagree(language, index, f"round trip changed a value: {json.dumps(line['encoded'])[:200]}")


# The JSON text rules the generated Go, Rust and TypeScript decoders enforce
# (tests/codegen/test_generate_toolchains.py): a document the reference refuses for another text rule (UTF-8,
# surrogates, ...) is the parser's, not theirs.
GENERATED_TEXT_RULES = frozenset({"json-duplicate-key", "json-too-deep"})
GENERATED_TOOLS = {"go": "go", "rust": "cargo", "typescript": "node"}


def _generated_downstream(language: str, directory: Path) -> list[str]:
    """Build the downstream project of tests/codegen/test_generate_toolchains.py for ``language``; its command line.
    Rust is built beside the project's crate (serde_json's arbitrary_precision on: integers of any size)."""
    for entry in (ROOT, ROOT / "tests"):  # run as a script: the generators and the toolchain tests' helpers
        if str(entry) not in sys.path:
            sys.path.insert(0, str(entry))
    import test_generate_toolchains as toolchains

    directory.mkdir(parents=True)
    if language == "go":
        return toolchains.go_downstream(directory)
    if language == "rust":
        return toolchains.rust_downstream(directory, beside_the_crate=True)
    return toolchains.typescript_downstream(directory)


def _generated_runners(run: Run, directory: Path, languages: list[str]) -> None:
    """Each document whose defects, if any, are text rules the generated decoders enforce, through the
    `verify-contract generate` code of its version and profile in each language: the verdict, the effective
    mask (refused when the reference has none) and an exact round trip."""
    chosen = [
        index
        for index, expected in enumerate(run.expected)
        if expected.valid
        or parse_json(run.documents[index][0].encode("utf-8")).finding is None
        or set(expected.rules) <= GENERATED_TEXT_RULES
    ]
    cases = [{"id": str(i), "combo": f"{run.documents[i][1]}/{run.documents[i][2]}", "text": run.documents[i][0]}
             for i in chosen]  # fmt: skip
    (directory / "generated-cases.json").write_text(json.dumps(cases, ensure_ascii=False), encoding="utf-8")
    for language in languages:
        try:
            command = _generated_downstream(language, directory / f"generated-{language}")
        except AssertionError as error:
            run.problems.append(f"generated {language}: the downstream project does not build: {str(error)[-500:]}")
            continue
        done = subprocess.run(
            [*command, str(directory / "generated-cases.json")], capture_output=True, text=True, timeout=1800
        )
        if done.returncode != 0:
            run.problems.append(f"generated {language} failed: {done.stderr[-500:]}")
            continue
        lines = {line["id"]: line for line in map(json.loads, filter(str.strip, done.stdout.split("\n")))}
        for index in chosen:
            expected, line = run.expected[index], lines.get(str(index))
            name = f"generated {language}"
            if line is None or line["ok"] is not expected.valid:
                run.disagree(name, index, f"{'no result' if line is None else line['ok']} != valid {expected.valid}")
            elif expected.valid and line["mask_refused"] is not (expected.mask is None):
                run.disagree(name, index, f"mask refused={line['mask_refused']} but the reference's is {expected.mask}")
            elif expected.valid and expected.mask is not None and line["mask"] is not expected.mask:
                run.disagree(name, index, f"mask {line['mask']} != {expected.mask}")
            elif expected.valid and not json_equal(expected.document, json.loads(line["encoded"])):
                run.disagree(name, index, f"round trip changed a value: {line['encoded'][:200]}")


def generate(seed: int, count: int) -> list[tuple[str, str, str]]:
    rng = random.Random(seed)
    seeds = _seeds()
    documents = []
    for _ in range(count):
        text = rng.choice(seeds)
        if rng.random() < 0.8:
            text = _mutate(text, rng)
        version, profile = rng.choice(COMBOS)
        documents.append((text, version, profile))
    return documents


def generated_languages() -> list[str]:
    """The languages whose toolchain is installed, for the generated runners."""
    tsc = ROOT / "bindings" / "typescript" / "node_modules" / ".bin" / "tsc"
    found = [name for name, tool in GENERATED_TOOLS.items() if shutil.which(tool) is not None]
    return [name for name in found if name != "typescript" or tsc.exists()]


def fuzz(seed: int, count: int, languages: list[str], generated: list[str] | None = None) -> Run:
    documents = generate(seed, count)
    run = Run(documents, [reference(*document) for document in documents])
    rng = random.Random(seed + 1)
    with tempfile.TemporaryDirectory() as temporary:
        directory = Path(temporary)
        big = 10**9
        listings: Listings = defaultdict(list)
        _check_lines(run, "default", lambda v, p: CheckOptions(v, p, max_findings=big), directory, listings)  # type: ignore[arg-type]
        _check_lines(
            run, "reference-only", lambda v, p: CheckOptions(v, p, max_findings=big, fast=False), directory, listings
        )  # type: ignore[arg-type]
        _check_lines(run, "jobs-2", lambda v, p: CheckOptions(v, p, max_findings=big, jobs=2), directory, listings)  # type: ignore[arg-type]
        for (version, profile), (default, *others) in listings.items():  # every message too, not only rules
            if any(other != default for other in others):
                run.problems.append(f"check {version}/{profile}: the modes list different findings")
        _reference_paths_agree(run)
        _check_json_files(run, directory, rng)
        _python_models(run)
        _generated_python(run, directory)
        _runners(run, directory, languages)
        if generated:
            _generated_runners(run, directory, generated)
    return run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=20000)
    parser.add_argument("--languages", default=",".join(RUNNERS), help="comma-separated; empty for none")
    parser.add_argument(
        "--generated",
        default=",".join(generated_languages()),
        help="languages whose `verify-contract generate` code runs too (default: those with a toolchain)",
    )
    args = parser.parse_args(argv)
    languages = [name for name in args.languages.split(",") if name]
    run = fuzz(args.seed, args.count, languages, [name for name in args.generated.split(",") if name])
    valid = sum(v.valid for v in run.expected)
    print(f"seed {args.seed}: {len(run.documents)} documents ({valid} valid), {len(run.problems)} disagreements")
    for problem in run.problems[:50]:
        print(problem)
    return 1 if run.problems else 0


if __name__ == "__main__":
    sys.exit(main())
