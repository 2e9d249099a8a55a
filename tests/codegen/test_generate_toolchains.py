"""`verify-contract generate` for TypeScript, Go and Rust: each language's own toolchain builds the
generated code, and a small program of that language runs every conformance vector through it.

One downstream project per language holds every version and profile (plus the constants target), so
each toolchain runs once: tsc (strict, exactOptionalPropertyTypes, noUncheckedIndexedAccess), gofmt +
go vet + go run, rustfmt + cargo build. The generated decoders are strict in all three languages, so
invalid vectors must be refused. The Go and Rust decoders take the JSON text and enforce the contract's
text rules they can see (a member name repeated at any depth, nesting deeper than the contract allows), so
the raw-text vectors of those rules run through them too, and through TypeScript's ``parse<Root>(text)``.
Big numbers (tests/big_numbers.py: 2^53 + 1, 2^64, 30 and 400 digits, doubles JavaScript would pad with
zeros) must come back exactly or be refused: every target refuses the 400-digit integer, and Rust built
without serde_json's ``arbitrary_precision`` refuses integers beyond 64 bits (it cannot hold them), while
Rust beside the project's own crate (which turns the feature on) keeps them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from languages import REQUIRE_ALL

from verify_contract.cli import main as cli
from verify_contract.codegen import Request, render
from verify_contract.contract._model import contract_model
from verify_contract.contract._versions import CONTRACT_VERSIONS
from verify_contract.reference._jsonio import json_equal

from big_numbers import BIG_NUMBERS, same_numbers
from build_dirs import cargo_lock, keep
from conftest import VECTORS
from drill_model import NEXT, documents, next_version_data

ROOT = Path(__file__).resolve().parents[2]
# Every shipped version and profile, and the synthetic next version (rendered from its in-memory model).
COMBOS = [(v, p) for v in [*CONTRACT_VERSIONS, NEXT] for p in ("core", "gym")]
DRILL = next_version_data()
TSC = ROOT / "bindings" / "typescript" / "node_modules" / ".bin" / "tsc"
# The Rust project reuses the repository binding's pinned crates (its Cargo.lock) and the shared target directory.
RUST_LOCK = ROOT / "bindings" / "rust" / "Cargo.lock"


def module(version: str, profile: str) -> str:
    return f"v{version.replace('.', '_')}_{profile}"


def root_type(profile: str) -> str:
    return "GymVerifyResponse" if profile == "gym" else "VerifyResponse"


def cases() -> list[dict[str, Any]]:
    """Every vector with a document, then the synthetic next version's documents (tests/drill_model.py)."""
    found = [
        {
            "id": v.id,
            "combo": f"{v.contract_version}/{v.profile}",
            "instance": v.instance,
            "valid": v.valid,
            "round_trip": v.round_trip,
            "effective_mask": v.effective_mask,
        }
        for v in VECTORS
        if v.has_instance
    ]
    for profile in ("core", "gym"):
        for case, document, valid in documents(profile):
            found.append(
                {
                    "id": f"drill-{profile}-{case}",
                    "combo": f"{NEXT}/{profile}",
                    "instance": document,
                    "valid": valid,
                    "round_trip": valid,
                    "effective_mask": bool(document.get("mask_sample", False)) if valid else None,
                }
            )
    return found


# The JSON text rules the Go and Rust decoders enforce themselves (json.Decoder's token stream, a serde
# visitor): a raw-text vector whose only defects are among them must be refused, and one with none decoded.
TEXT_RULES = frozenset({"json-duplicate-key", "json-too-deep"})
LATEST_CORE = f"{CONTRACT_VERSIONS[-1]}/core"
# Texts the corpus does not spell out: repeats behind an escape and deep inside an unknown member (next to
# its twin without the repeat, which must decode, so the refusal is the repeat's doing), and a document
# followed by something that is not JSON.
TEXT_EXTRAS = {
    "repeat-escaped-name": ('{"reward": 0.5, "rew\\u0061rd": 0.5}', False),
    "repeat-in-unknown-member": ('{"reward": 0.5, "extra": {"a": [{"b": 1, "b": 1}]}}', False),
    "repeat-in-unknown-member-twin": ('{"reward": 0.5, "extra": {"a": [{"b": 1, "c": 1}]}}', True),
    "trailing-garbage": ('{"reward": 0.5} x', False),
}


def text_cases() -> list[dict[str, Any]]:
    """The JSON-text vectors (vectors/json-text.json) whose defects, if any, are all in TEXT_RULES, then
    TEXT_EXTRAS. (Big-integer vectors are raw text too, but about values, not text rules.)"""
    found = [
        {
            "id": v.id,
            "combo": f"{v.contract_version}/{v.profile}",
            "text": v.text,
            "instance": json.loads(v.text) if v.valid else None,
            "valid": v.valid,
            "round_trip": v.round_trip,
            "effective_mask": v.effective_mask,
        }
        for v in VECTORS
        if not v.has_instance and Path(v.file).name == "json-text.json" and set(v.findings) <= TEXT_RULES
    ]
    assert {"text-duplicate-key", "text-duplicate-nested-key", "text-depth-101"} <= {c["id"] for c in found}
    for case_id, (text, valid) in TEXT_EXTRAS.items():
        found.append(
            {
                "id": case_id,
                "combo": LATEST_CORE,
                "text": text,
                "instance": json.loads(text) if valid else None,
                "valid": valid,
                "round_trip": valid,
                "effective_mask": False if valid else None,
            }
        )
    return found


def big_cases(refuse_beyond_64_bits: bool = False) -> list[dict[str, Any]]:
    """The big-number documents (latest version, core profile), each to come back exactly or be refused."""
    return [
        {
            "id": case_id,
            "combo": LATEST_CORE,
            "text": text,
            "instance": json.loads(text),
            "valid": not refused and not (beyond_64_bits and refuse_beyond_64_bits),
            "round_trip": True,
            "exact": True,
            "effective_mask": False,
        }
        for case_id, (text, beyond_64_bits, refused) in BIG_NUMBERS.items()
    ]


def emit(target: str, out: str, version: str, profile: str, **params: str) -> None:
    """Generate like a downstream project would: the CLI for shipped versions, the same renderer over the
    in-memory model for the synthetic next version."""
    if version != NEXT:
        args = [target, "--out", str(out), "--contract-version", version, "--profile", profile]
        for key, value in params.items():
            args += [f"--{key}", value]
        assert cli(["generate", *args]) == 0
        return
    bundles, _, models = DRILL
    request = Request(target, version, profile, params, model=models[NEXT], schema=bundles[NEXT])
    for name, text in render(request).items():
        path = Path(out) / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def need(tool: str | Path, language: str) -> None:
    if shutil.which(str(tool)) is None and not Path(tool).exists():
        if REQUIRE_ALL:
            pytest.fail(f"{language}: {tool} is missing (make test installs every toolchain)")
        pytest.skip(f"{language}: {tool} is not installed")


def run(command: list[str], cwd: Path, **env: str) -> str:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, env={**os.environ, **env}, timeout=900)
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def write_cases(path: Path, chosen: list[dict[str, Any]]) -> None:
    payload = [{"id": c["id"], "combo": c["combo"], "text": c.get("text") or json.dumps(c["instance"])} for c in chosen]
    path.write_text(json.dumps(payload), encoding="utf-8")


def judge(language: str, output: str, chosen: list[dict[str, Any]]) -> None:
    """Each output line: {"id", "ok", "encoded", "mask", "mask_refused"}; compared with the expectations."""
    lines = {line["id"]: line for line in (json.loads(text) for text in output.splitlines() if text.strip())}
    problems = []
    for case in chosen:
        line = lines.get(case["id"])
        if line is None:
            problems.append(f"{case['id']}: no result")
            continue
        if line["ok"] is not case["valid"]:
            problems.append(f"{case['id']}: {'accepted' if line['ok'] else 'refused'}, valid={case['valid']}")
            continue
        if not case["valid"]:
            continue
        if case.get("exact") and not same_numbers(line["encoded"], case["text"]):
            problems.append(f"{case['id']}: numbers changed in the round trip: {line['encoded'][:300]}")
        elif case["round_trip"] and not json_equal(json.loads(line["encoded"]), case["instance"]):
            problems.append(f"{case['id']}: round trip gave {line['encoded']}")
        expected = case["effective_mask"]
        if expected is None and not line["mask_refused"]:
            problems.append(f"{case['id']}: mask {line['mask']} instead of refusing an undefined mask")
        if expected is not None and (line["mask_refused"] or line["mask"] is not expected):
            problems.append(f"{case['id']}: mask {line['mask']} (refused={line['mask_refused']}), expected {expected}")
    assert problems == [], f"{language}: {problems}"


# -- Go ------------------------------------------------------------------------------------------------

GO_MAIN = """package main

import (
	"encoding/json"
	"fmt"
	"os"

	"example.com/downstream/kinds"
{imports}
)

type result struct {{
	ID          string `json:"id"`
	OK          bool   `json:"ok"`
	Encoded     string `json:"encoded"`
	Mask        bool   `json:"mask"`
	MaskRefused bool   `json:"mask_refused"`
}}

type decoder func([]byte) (result, error)

var decoders = map[string]decoder{{
{entries}
}}

func main() {{
	_ = kinds.Registered
	raw, err := os.ReadFile(os.Args[1])
	if err != nil {{
		panic(err)
	}}
	var cases []struct{{ ID, Combo, Text string }}
	if err := json.Unmarshal(raw, &cases); err != nil {{
		panic(err)
	}}
	for _, c := range cases {{
		r, err := decoders[c.Combo]([]byte(c.Text))
		r.ID, r.OK = c.ID, err == nil
		line, _ := json.Marshal(r)
		fmt.Println(string(line))
	}}
}}
"""
GO_ENTRY = """	"{combo}": func(data []byte) (result, error) {{
		doc, err := {package}.Decode{root}(data)
		if err != nil {{
			return result{{}}, err
		}}
		encoded, err := json.Marshal(doc)
		if err != nil {{
			return result{{}}, err
		}}
		mask, maskErr := doc.EffectiveMask()
		return result{{Encoded: string(encoded), Mask: mask, MaskRefused: maskErr != nil}}, nil
	}},"""


def go_downstream(directory: Path) -> list[str]:
    """A Go module holding every version and profile's generated package, built; its command line."""
    for version, profile in COMBOS:
        name = module(version, profile)
        emit("go", str(directory / name), version, profile, package=name)
    assert cli(["generate", "constants", "--lang", "go", "--out", str(directory / "kinds"), "--package", "kinds"]) == 0
    (directory / "go.mod").write_text("module example.com/downstream\n\ngo 1.22\n")
    imports = "\n".join(f'\t"example.com/downstream/{module(v, p)}"' for v, p in COMBOS)
    entries = "\n".join(GO_ENTRY.format(combo=f"{v}/{p}", package=module(v, p), root=root_type(p)) for v, p in COMBOS)
    (directory / "main.go").write_text(GO_MAIN.format(imports=imports, entries=entries))
    assert run(["gofmt", "-l", "."], directory).strip() == "", "generated Go is not gofmt-clean"
    run(["go", "vet", "./..."], directory, GOFLAGS="-mod=mod")
    run(["go", "build", "-o", "downstream", "."], directory, GOFLAGS="-mod=mod")
    return [str(directory / "downstream")]


def test_go_downstream_builds_and_runs_every_vector(tmp_path: Path) -> None:
    need("go", "go")
    command = go_downstream(tmp_path)
    chosen = cases() + text_cases() + big_cases()
    write_cases(tmp_path / "cases.json", chosen)
    judge("go", run([*command, "cases.json"], tmp_path), chosen)


def test_go_types_and_constants_share_a_package(tmp_path: Path) -> None:
    """`generate go` and `generate constants --lang go` into one directory and package compile together."""
    need("go", "go")
    for args in (["go"], ["constants", "--lang", "go"]):
        assert cli(["generate", *args, "--out", str(tmp_path / "contract"), "--package", "contract"]) == 0
    (tmp_path / "go.mod").write_text("module example.com/shared\n\ngo 1.22\n")
    main = 'package main\n\nimport (\n\t"fmt"\n\n\t"example.com/shared/contract"\n)\n\n'
    main += "func main() {\n\tfmt.Println(contract.ContractVersion, contract.RegistryVersion, "
    main += "len(contract.Registered))\n}\n"
    (tmp_path / "main.go").write_text(main)
    run(["go", "vet", "./..."], tmp_path, GOFLAGS="-mod=mod")
    kinds = len((contract_model(CONTRACT_VERSIONS[-1]).failure_kinds or {})["registered"])
    assert run(["go", "run", "."], tmp_path, GOFLAGS="-mod=mod").split() == [CONTRACT_VERSIONS[-1]] * 2 + [str(kinds)]


# A document whose members are in no sorted order at any depth, with an integer beyond 64 bits, an explicit
# null, HTML-significant characters and undeclared members before, between and after the declared ones.
GO_ORDER_DOCUMENT = (
    '{"zeta":{"b":[1,{"y":1,"x":2}],"a":"<&>"},"reward":123456789012345678901234567890,'
    '"instance_config":{"z":1,"mask_sample":false,"a":2},"failure_reason":null,"mask_sample":false,"alpha":1}'
)
GO_ORDER_MAIN = """package main

import (
\t"fmt"
\t"os"

\t"example.com/order/contract"
)

func main() {
\tdata, err := os.ReadFile(os.Args[1])
\tif err != nil {
\t\tpanic(err)
\t}
\tdoc, err := contract.DecodeVerifyResponse(data)
\tif err != nil {
\t\tpanic(err)
\t}
\tencoded, err := doc.MarshalJSON()
\tif err != nil {
\t\tpanic(err)
\t}
\tvar built contract.VerifyResponse
\tbuilt.Reward = "1"
\tbuilt.Extra = map[string]json.RawMessage{"b": json.RawMessage("2"), "a": json.RawMessage("1")}
\tbuilt.MaskSample = contract.Some(true)
\tfresh, err := built.MarshalJSON()
\tif err != nil {
\t\tpanic(err)
\t}
\tfmt.Printf("%s\\n%s\\n", encoded, fresh)
}
"""


def test_go_round_trip_keeps_member_order(tmp_path: Path) -> None:
    """Generated Go writes a decoded document back byte for byte: members in document order at every depth
    (declared and undeclared alike), the big integer's digits, the null; a document built in code comes out
    in declaration order, undeclared members last by name."""
    need("go", "go")
    emit("go", str(tmp_path / "contract"), CONTRACT_VERSIONS[-1], "core", package="contract")
    (tmp_path / "go.mod").write_text("module example.com/order\n\ngo 1.22\n")
    (tmp_path / "main.go").write_text(GO_ORDER_MAIN.replace('"fmt"', '"encoding/json"\n\t"fmt"'))
    (tmp_path / "doc.json").write_text(GO_ORDER_DOCUMENT)
    encoded, fresh = run(["go", "run", ".", "doc.json"], tmp_path, GOFLAGS="-mod=mod").splitlines()
    assert encoded == GO_ORDER_DOCUMENT
    assert fresh == '{"reward":1,"mask_sample":true,"a":1,"b":2}'


# -- Rust ----------------------------------------------------------------------------------------------

RUST_CARGO = """[package]
name = "downstream"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
serde = { version = "=1.0.229", features = ["derive"] }
serde_json = { version = "=1.0.154", features = ["preserve_order", "float_roundtrip"] }
fancy-regex = { version = "=0.20.2", default-features = false, features = ["std", "unicode"] }
"""
RUST_ARM = """        "{combo}" => match {module}::decode(text) {{
            Ok(doc) => {{
                let mask = doc.effective_mask();
                let refused = mask.is_err();
                let encoded = {module}::encode(&doc);
                json!({{"ok": true, "encoded": encoded, "mask": mask.unwrap_or(false), "mask_refused": refused}})
            }}
            Err(_) => json!({{"ok": false}}),
        }},"""
RUST_MAIN = """#![allow(dead_code, deprecated)]
{mods}
mod failure_kinds;

use serde_json::{{json, Value}};

fn main() {{
    let _ = failure_kinds::REGISTERED;
    let raw = std::fs::read_to_string(std::env::args().nth(1).expect("cases file")).expect("readable");
    let cases: Vec<Value> = serde_json::from_str(&raw).expect("cases parse");
    for case in cases {{
        let text = case["text"].as_str().expect("text");
        let mut line = match case["combo"].as_str().expect("combo") {{
{arms}
            other => panic!("unknown combination {{other}}"),
        }};
        line["id"] = case["id"].clone();
        println!("{{line}}");
    }}
}}
"""


def rust_downstream(directory: Path, beside_the_crate: bool = False) -> list[str]:
    """A crate holding every version and profile's generated module, built; its command line. Beside the
    project's crate, serde_json's arbitrary_precision is on (Cargo unifies features)."""
    src = directory / "src"
    for version, profile in COMBOS:
        emit("rust", str(src), version, profile, name=module(version, profile))
    assert cli(["generate", "constants", "--lang", "rust", "--out", str(src)]) == 0
    name = "beside" if beside_the_crate else "downstream"
    cargo = RUST_CARGO.replace('name = "downstream"', f'name = "{name}"')
    if beside_the_crate:
        cargo += f'verify-contract = {{ path = "{(ROOT / "bindings" / "rust").as_posix()}" }}\n'
    (directory / "Cargo.toml").write_text(cargo)
    shutil.copy(RUST_LOCK, directory / "Cargo.lock")
    mods = "\n".join(f"mod {module(v, p)};" for v, p in COMBOS)
    arms = "\n".join(RUST_ARM.format(combo=f"{v}/{p}", module=module(v, p)) for v, p in COMBOS)
    main_rs = RUST_MAIN.format(mods=mods, arms=arms)
    if beside_the_crate:  # the project's crate is used, not only linked
        main_rs = main_rs.replace("fn main() {", 'fn main() {\n    let _ = verify_contract::parse_json(b"{}");', 1)
    (src / "main.rs").write_text(main_rs)
    generated = [str(p) for p in src.glob("*.rs") if p.name != "main.rs"]
    run(["rustfmt", "--check", "--edition", "2021", *generated], directory)
    with cargo_lock() as target:
        run(["cargo", "build", "--quiet"], directory, CARGO_TARGET_DIR=str(target))
        return [str(keep(target / "debug" / name, directory))]


def test_rust_downstream_builds_and_runs_every_vector(tmp_path: Path) -> None:
    need("cargo", "rust")
    command = rust_downstream(tmp_path)
    chosen = cases() + text_cases() + big_cases(refuse_beyond_64_bits=True)
    write_cases(tmp_path / "cases.json", chosen)
    judge("rust", run([*command, "cases.json"], tmp_path), chosen)


# -- TypeScript ----------------------------------------------------------------------------------------

TS_CONFIG: dict[str, Any] = {
    "compilerOptions": {
        "target": "ES2022",
        "module": "NodeNext",
        "moduleResolution": "NodeNext",
        "lib": ["ES2022"],
        "strict": True,
        "noUncheckedIndexedAccess": True,
        "exactOptionalPropertyTypes": True,
        "noImplicitOverride": True,
        "noUnusedLocals": True,
        "outDir": "dist",
        "rootDir": "src",
        "types": ["node"],
    },
    "include": ["src"],
}
TS_MAIN = """import {{ readFileSync }} from "node:fs";
import {{ REGISTERED }} from "./failure_kinds.js";
{imports}

type Result = {{ ok: boolean; encoded?: string; mask?: boolean; mask_refused?: boolean }};
const decoders: Record<string, (text: string) => Result> = {{
{entries}
}};

type Mask = (value: unknown) => boolean;
function run<T>(parse: (text: string) => T, encode: (document: T) => string, mask: Mask, text: string): Result {{
  let decoded: T;
  try {{
    decoded = parse(text);
  }} catch {{
    return {{ ok: false }};
  }}
  try {{
    return {{ ok: true, encoded: encode(decoded), mask: mask(decoded), mask_refused: false }};
  }} catch {{
    return {{ ok: true, encoded: encode(decoded), mask: false, mask_refused: true }};
  }}
}}

void REGISTERED;
type Case = {{ id: string; combo: string; text: string }};
const cases = JSON.parse(readFileSync(process.argv[2] ?? "", "utf8")) as Case[];
for (const c of cases) {{
  const decode = decoders[c.combo];
  if (decode === undefined) throw new Error(c.combo);
  console.log(JSON.stringify({{ id: c.id, ...decode(c.text) }}));
}}
"""


def typescript_downstream(directory: Path) -> list[str]:
    """A TypeScript project holding every version and profile's generated module, compiled; its command."""
    src = directory / "src"
    for version, profile in COMBOS:
        emit("typescript", str(src), version, profile, name=module(version, profile))
    assert cli(["generate", "constants", "--lang", "typescript", "--out", str(src)]) == 0
    config = json.loads(json.dumps(TS_CONFIG))
    config["compilerOptions"]["typeRoots"] = [str(ROOT / "bindings" / "typescript" / "node_modules" / "@types")]
    (directory / "tsconfig.json").write_text(json.dumps(config))
    (directory / "package.json").write_text('{"type": "module"}\n')
    imports = "\n".join(f'import * as {module(v, p)} from "./{module(v, p)}.js";' for v, p in COMBOS)
    entries = "\n".join(
        f'  "{v}/{p}": (text) => run({module(v, p)}.parse{root_type(p)}, {module(v, p)}.encode{root_type(p)}, '
        f"{module(v, p)}.effectiveMask, text),"
        for v, p in COMBOS
    )
    (src / "main.ts").write_text(TS_MAIN.format(imports=imports, entries=entries))
    run([str(TSC), "-p", "tsconfig.json"], directory)
    return ["node", str(directory / "dist" / "main.js")]


def test_typescript_downstream_builds_and_runs_every_vector(tmp_path: Path) -> None:
    need("node", "typescript")
    need(TSC, "typescript")
    command = typescript_downstream(tmp_path)
    chosen = cases() + text_cases() + big_cases()
    write_cases(tmp_path / "cases.json", chosen)
    judge("typescript", run([*command, "cases.json"], tmp_path), chosen)


def test_rust_beside_the_project_crate_keeps_big_numbers(tmp_path: Path) -> None:
    """A crate depending on both the project's crate and generated Rust: Cargo unifies serde_json's features,
    so arbitrary_precision (the project's crate turns it on) is on for the generated code too. It decodes
    every document (no refusal because of the feature) and keeps integers of any size exactly."""
    need("cargo", "rust")
    command = rust_downstream(tmp_path, beside_the_crate=True)
    chosen = cases() + text_cases() + big_cases()
    write_cases(tmp_path / "cases.json", chosen)
    judge("rust beside the crate", run([*command, "cases.json"], tmp_path), chosen)


def test_rust_generated_code_is_clippy_clean(tmp_path: Path) -> None:
    """Clippy's default lints, warnings as errors, in an edition-2024 crate (where collapsible_if also fires
    on `if let` blocks): the generated code of every profile of the latest version and the constants pass
    them used as modules of a program that calls one function of each (no `allow` of its own: what the
    program does not call must not warn as dead code, as 28 items did)."""
    need("cargo", "rust")
    need("cargo-clippy", "rust")
    src = tmp_path / "src"
    combos = [(CONTRACT_VERSIONS[-1], profile) for profile in ("core", "gym")]
    for version, profile in combos:
        emit("rust", str(src), version, profile, name=module(version, profile))
    assert cli(["generate", "constants", "--lang", "rust", "--out", str(src)]) == 0
    cargo = RUST_CARGO.replace('name = "downstream"', 'name = "clippy_clean"').replace("2021", "2024")
    (tmp_path / "Cargo.toml").write_text(cargo)
    shutil.copy(RUST_LOCK, tmp_path / "Cargo.lock")
    mods = "\n".join(f"mod {module(v, p)};" for v, p in combos)
    calls = "\n".join(f'    println!("{{:?}}", {module(v, p)}::decode("{{}}").is_ok());' for v, p in combos)
    kinds = '    println!("{}", failure_kinds::JUDGE_FAILED);'
    (src / "main.rs").write_text(f"{mods}\nmod failure_kinds;\n\nfn main() {{\n{calls}\n{kinds}\n}}\n")
    lints = ["--", "-D", "warnings"]
    with cargo_lock() as target:
        run(["cargo", "clippy", "--quiet", *lints], tmp_path, CARGO_TARGET_DIR=str(target))
