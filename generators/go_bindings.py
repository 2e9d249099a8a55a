"""Go bindings: one package per contract version (types, codecs, failure-kind constants, embedded schema).

Rendered from templates (generators/templates/go/) over the resolved model's view of each profile
(verify_contract.codegen: the walker every target shares); the two profiles of a version share one
package, so their object types are merged by name. Not a third-party generator: go-jsonschema
(github.com/atombender/go-jsonschema v0.24.1, the maintained fork) drops unknown members on encode,
loses nulls, reads ``reward`` as float64 and emits code that does not compile for our schema
(bindings/go/GENERATION.md). Types carry what Go's type system can say; every other constraint is
checked by the bundled JSON Schema validation the runtime runs before decoding. Output goes
through gofmt.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

from generators import paths
from generators.binding_facts import merged_types, runtime_facts
from generators.bundle import dump_json
from generators.registry import FailureKindInfo
from generators.render import render
from verify_contract.codegen.header import GeneratedHeader

GO_ROOT = paths.ROOT / "bindings" / "go"
SCHEMA_FILE = "verify_response.schema.json"
SOURCE_FILE = "contract_gen.go"


def _gofmt(source: str, name: str) -> str:
    gofmt = shutil.which("gofmt")
    if gofmt is None:
        go = shutil.which("go")
        if go is None:
            raise RuntimeError("gofmt not found: the Go bindings need a Go toolchain on PATH")
        goroot = subprocess.run([go, "env", "GOROOT"], check=True, capture_output=True, text=True).stdout.strip()
        gofmt = str(Path(goroot) / "bin" / "gofmt")
    result = subprocess.run([gofmt], input=source, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"gofmt rejected generated {name}:\n{result.stderr}\n{source}")
    return result.stdout


def artifacts(
    bundles: dict[str, dict[str, Any]], registry: list[FailureKindInfo], models: dict[str, dict[str, Any]]
) -> dict[Path, str]:
    """Generated Go files (and each version's embedded schema), keyed by absolute path."""
    del registry  # the registered kinds of each version come from its resolved model
    versions = sorted(bundles, key=paths.version_key)
    out: dict[Path, str] = {}
    listed = []
    for version in versions:
        model = models[version]
        package = paths.module_name(version)
        structs, unions, roots = merged_types(model)
        definitions = {name: profile["definition"] for name, profile in model["profiles"].items()}
        context = {
            "version": version,
            "package": package,
            "description": bundles[version].get("description", ""),
            "header": GeneratedHeader("bindings/go", version, "all", model["source_hash"]).line(),
            "profiles": definitions,
            "structs": structs,
            "unions": unions,
            # A checked pattern (not an open enum's: its decoder has its own) compiles a regexp.
            "checks_use_regexp": any(
                "pattern" in member["checks"] or (member["item"] and "pattern" in member["item"]["checks"])
                for struct in structs
                for member in struct["members"]
                if not member["open_enum"]
            ),
        }
        directory = GO_ROOT / package
        out[directory / SCHEMA_FILE] = dump_json(bundles[version])
        source = render("go/contract_gen.go.j2", context)
        out[directory / SOURCE_FILE] = _gofmt(source, f"{version}/{SOURCE_FILE}")
        listed.append({"version": version, "package": package, "roots": roots, "definitions": definitions})
    facts = runtime_facts(models)
    root = render("go/versions_gen.go.j2", {"versions": listed, **facts})
    out[GO_ROOT / "versions_gen.go"] = _gofmt(root, "versions_gen.go")
    limits = render("go/limits_gen.go.j2", facts)
    out[GO_ROOT / "jsonwire" / "limits_gen.go"] = _gofmt(limits, "jsonwire/limits_gen.go")
    return out
