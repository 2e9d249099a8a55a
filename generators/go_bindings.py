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
from generators.bundle import dump_json
from generators.registry import FailureKindInfo
from generators.render import render_binding

GO_ROOT = paths.ROOT / "bindings" / "go"
SCHEMA_FILE = "verify_response.schema.json"


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
    """Generated Go files (and each version's embedded schema), keyed by absolute path: each template
    folder rendered as ``verify-contract generate bindings/go --templates ... --profile all`` renders it."""
    del registry  # the registered kinds of each version come from its resolved model
    versions = sorted(bundles, key=paths.version_key)
    out: dict[Path, str] = {}
    for version in versions:
        package = paths.module_name(version)
        directory = GO_ROOT / package
        out[directory / SCHEMA_FILE] = dump_json(bundles[version])
        for name, source in render_binding("go/version", version, models, bundles, package=package).items():
            out[directory / name] = _gofmt(source, f"{package}/{name}")
    for folder, directory in (("go/root", GO_ROOT), ("go/jsonwire", GO_ROOT / "jsonwire")):
        for name, source in render_binding(folder, versions[-1], models, bundles).items():
            out[directory / name] = _gofmt(source, f"{directory.name}/{name}")
    return out
