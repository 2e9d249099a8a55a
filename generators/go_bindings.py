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
from generators.registry import FailureKind
from verify_contract.codegen.header import GeneratedHeader
from verify_contract.codegen.renderer import render_template
from verify_contract.codegen.view import MASK_ROLES, build_view

GO_ROOT = paths.ROOT / "bindings" / "go"
TEMPLATES = Path(__file__).resolve().parent / "templates" / "go"
SCHEMA_FILE = "verify_response.schema.json"
SOURCE_FILE = "contract_gen.go"


def unlisted_kind(kind: str) -> dict[str, Any]:
    """A registered value the registry has no entry for (only possible in a hand-made model)."""
    return {"id": kind, "brief": "", "stability": "stable", "added_in": "", "deprecated": None}


def merged_types(model: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, str]]:
    """(structs, open enums, profile -> root type) of every profile of a version, each type once,
    in declaration order (profile by profile: the root, then each object where first met)."""
    structs: dict[str, dict[str, Any]] = {}
    unions: dict[str, dict[str, Any]] = {}
    roots: dict[str, str] = {}
    registered = {kind["id"]: kind for kind in (model["failure_kinds"] or {}).get("registered", [])}
    for profile in model["profiles"]:
        view = build_view(model, profile, named_objects=True)
        roots[profile] = view["root"]
        for obj in reversed(view["objects"]):
            structs.setdefault(obj["name"], {**obj, "profile": profile if obj["name"] == view["root"] else None})
            for member in obj["members"]:
                enum = member["open_enum"]
                if enum is not None and enum["name"] not in unions:
                    unions[enum["name"]] = {
                        "name": enum["name"],
                        "description": member["description"],
                        "registered": [registered.get(i, unlisted_kind(i)) for i in enum["registered"]],
                        "pattern": member["checks"].get("pattern"),
                    }
    return list(structs.values()), list(unions.values()), roots


def runtime_facts(models: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """What every binding's hand-written runtime reads instead of naming the contract's shape: the newest
    version's profiles (name -> ``$defs`` root, with its description), the default profile, the I-JSON
    nesting limit, the rule of a violation no other rule names, and where the effective mask is read.
    The mask locations are those of the newest version that declares each mask role, in role order
    (SPEC 4.2: every 1.x document is read at all of them), taken from the same view
    ``verify-contract generate`` renders its mask readers from."""
    versions = sorted(models, key=paths.version_key)
    latest = models[versions[-1]]
    roles: dict[str, str] = {}
    for version in versions:
        roles.update({k: v for k, v in models[version]["roles"].items() if k in MASK_ROLES})
    view = build_view(latest, latest["default_profile"], roles)
    fallback = [rule["id"] for rule in latest["rules"] if rule.get("scope") == "fallback"]
    if len(fallback) != 1:
        raise ValueError(f"contract {latest['version']}: expected one rule with scope fallback, found {fallback}")
    profiles = [
        {
            "name": name,
            "definition": facts["definition"],
            "description": latest["definitions"][facts["definition"]].get("description") or "",
        }
        for name, facts in latest["profiles"].items()
    ]
    return {
        "profiles": profiles,
        "default_profile": latest["default_profile"],
        "max_depth": latest["limits"]["max_depth"],
        "fallback_rule": fallback[0],
        "mask_paths": [view[role]["path"] for role in MASK_ROLES if view[role] is not None],
    }


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
    bundles: dict[str, dict[str, Any]], registry: list[FailureKind], models: dict[str, dict[str, Any]]
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
        source = render_template(TEMPLATES, "contract_gen.go.j2", context)
        out[directory / SOURCE_FILE] = _gofmt(source, f"{version}/{SOURCE_FILE}")
        listed.append({"version": version, "package": package, "roots": roots, "definitions": definitions})
    root = render_template(TEMPLATES, "versions_gen.go.j2", {"versions": listed, **runtime_facts(models)})
    out[GO_ROOT / "versions_gen.go"] = _gofmt(root, "versions_gen.go")
    limits = render_template(TEMPLATES, "limits_gen.go.j2", runtime_facts(models))
    out[GO_ROOT / "jsonwire" / "limits_gen.go"] = _gofmt(limits, "jsonwire/limits_gen.go")
    return out
