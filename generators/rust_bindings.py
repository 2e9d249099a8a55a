"""Rust bindings: serde types per contract version, rendered from templates over the resolved model.

typify 0.8.0 was tried first and its output does not compile for these schemas, drops unknown keys,
turns integer rewards into floats and writes ``null``/absent fields wrongly (evidence in
bindings/rust/GENERATION.md), so the types are rendered by templates (generators/templates/rust/) over
the model's view of each profile (verify_contract.codegen: the walker every target shares); the two
profiles of a version share one module, their types merged by name as for Go.

Mapping (the contract's requirements on the bindings, see SPEC.md "Bindings"):
- an object with ``additionalProperties: true`` keeps unknown members in ``extra`` (``#[serde(flatten)]``);
- ``number`` and ``integer`` are ``serde_json::Number``, so ``1`` encodes back as ``1``; ``boolean`` is a
  strict ``bool``;
- an optional field is ``Option<T>`` and refuses ``null``; an optional nullable field is ``Option<Option<T>>``,
  so absent, ``null`` and a value all encode back as they came;
- a boolean field with a ``default`` gets a ``<name>_or_default()`` accessor (absent stays absent on encode);
- an open enum (registered kinds or any well-formed name) is a string newtype: the registered members are
  associated constants, and any string matching the grammar is accepted too;
- what a Rust type cannot say (a pattern, a length, a bound, typed items) is checked by the bundled schema,
  which the runtime validates before decoding; each such field's documentation names the keywords.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from generators import paths
from generators.binding_facts import merged_types, runtime_facts, unlisted_kind
from generators.bundle import dump_json
from generators.registry import FailureKindInfo
from generators.render import render
from verify_contract.codegen.header import GeneratedHeader

RUST_DIR = paths.ROOT / "bindings" / "rust"
GENERATED_DIR = RUST_DIR / "src" / "generated"


def string_definitions(model: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    """(pattern definitions, enum definitions with their kinds) among the model's ``$defs``."""
    registered = {kind["id"]: kind for kind in (model["failure_kinds"] or {}).get("registered", [])}
    patterns, enums = [], []
    for name, definition in model["definitions"].items():
        if definition["types"] != ["string"]:
            continue
        constraints = definition["constraints"]
        if "enum" in constraints:
            kinds = [registered.get(v, unlisted_kind(v)) for v in constraints["enum"]]
            enums.append((name, definition, kinds))
        elif "pattern" in constraints:
            patterns.append((name, definition))
    return patterns, enums


def _module(version: str, model: dict[str, Any], description: str) -> tuple[str, dict[str, str]]:
    structs, unions, roots = merged_types(model)
    patterns, enums = string_definitions(model)
    pattern_names = {definition["constraints"]["pattern"]: name for name, definition in patterns}
    for union in unions:
        ids = [kind["id"] for kind in union["registered"]]
        enum = next((name for name, _, kinds in enums if [kind["id"] for kind in kinds] == ids), None)
        union["enum"] = enum
        union["pattern_name"] = pattern_names[union["pattern"]] if union["pattern"] is not None else None
    uses: set[str] = set()
    for obj in structs:
        for member in obj["members"]:
            member["unchecked_by_type"] = [] if member["open_enum"] else sorted(member["constraints"])
            uses |= {"number"} if member["kind"] in ("integer", "number") and not member["object"] else set()
            uses |= {"fields"} if not member["required"] else set()
    if enums:
        uses |= {"fmt", "fromstr", "fields"}
    if patterns:
        uses |= {"lazy", "fields"}
    if unions:
        uses |= {"cow", "fmt", "fields"} | ({"fromstr"} if any(u["enum"] for u in unions) else set())
    context = {
        "version": version,
        "header": GeneratedHeader("bindings/rust", version, "all", model["source_hash"]).line(),
        "description": description,
        "uses": uses,
        "structs": structs,
        "patterns": patterns,
        "enums": enums,
        "unions": unions,
        "roots": roots,
    }
    return render("rust/version.rs.j2", context), roots


def artifacts(
    bundles: dict[str, dict[str, Any]], registry: list[FailureKindInfo], models: dict[str, dict[str, Any]]
) -> dict[Path, str]:
    """Every generated Rust file: one module and one bundled schema per version, and ``mod.rs``."""
    del registry  # the registered kinds of each version come from its resolved model
    versions = sorted(bundles, key=paths.version_key)
    out: dict[Path, str] = {}
    listed = []
    for version in versions:
        module = paths.module_name(version)
        out[GENERATED_DIR / "schemas" / f"{version}.json"] = dump_json(bundles[version])
        source, roots = _module(version, models[version], bundles[version].get("description", ""))
        out[GENERATED_DIR / f"{module}.rs"] = source
        definitions = {name: p["definition"] for name, p in models[version]["profiles"].items()}
        listed.append({"version": version, "module": module, "roots": roots, "definitions": definitions})
    context = {"versions": listed, **runtime_facts(models)}
    out[GENERATED_DIR / "mod.rs"] = render("rust/mod.rs.j2", context)
    return out
