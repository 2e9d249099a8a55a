"""``python -m generators [--check]``: regenerate every generated artifact, or fail on drift."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from generators import paths
from generators.bundle import bundle, dump_json, uses_registry
from generators.model import resolved_models
from generators.registry import FailureKindInfo, failure_kinds_schema, load_registry
from generators.registry_outputs import budget_rules_table, markdown_table, replace_generated_block, rules_table

Artifacts = dict[Path, str]
Bundles = dict[str, dict[str, Any]]
Models = dict[str, dict[str, Any]]
# Generators beyond the Python bindings: each module has ``artifacts(bundles, kinds, models) -> Artifacts``
# (``models``: each version's resolved model, computed in this run, so a new version needs no install).
# A module that fails to import is an error, never a silently skipped generator.
EXTRA_GENERATOR_MODULES = (
    "typescript_bindings",
    "go_bindings",
    "rust_bindings",
    "schema_rules",
    "diff_rules_reference",
)
# Directories holding nothing but generated files: anything there that is not generated is stale.
GENERATED_ONLY_GLOBS = (
    "bindings/python/verify_contract/generated",
    "bindings/typescript/src/generated",
    "bindings/go/v[0-9]*_[0-9]*_[0-9]*",
    "bindings/rust/src/generated",
)


def _extra_generators() -> list[Callable[[Bundles, list[FailureKindInfo], Models], Artifacts]]:
    return [importlib.import_module(f"generators.{name}").artifacts for name in EXTRA_GENERATOR_MODULES]


def build_artifacts() -> Artifacts:
    """Every generated file and its content, computed in memory."""
    from generators.python_bindings import latest_modules, package_init, python_modules
    from generators.wording import wording_table

    versions = paths.contract_versions()
    kinds = load_registry(paths.REGISTRY_FILE, versions)
    artifacts: Artifacts = {}
    bundles: Bundles = {}
    files: dict[str, list[dict[str, Any]]] = {}  # each version's schema files, the contract file first
    for version in versions:
        version_dir = paths.VERSIONS_DIR / version
        source = json.loads((version_dir / paths.VERIFY_RESPONSE_FILE).read_text(encoding="utf-8"))
        package_schemas = paths.PYTHON_GENERATED / "schemas" / version
        registered = None
        if uses_registry(source):
            registered = failure_kinds_schema(kinds, version)
            artifacts[version_dir / paths.FAILURE_KINDS_FILE] = dump_json(registered)
            artifacts[package_schemas / paths.FAILURE_KINDS_FILE] = dump_json(registered)
        artifacts[package_schemas / paths.VERIFY_RESPONSE_FILE] = dump_json(source)
        bundles[version] = bundle(source, registered)
        files[version] = [source] if registered is None else [source, registered]

    models = resolved_models(bundles, kinds)
    for version, model in models.items():
        artifacts[paths.MODEL_DIR / f"{version}.json"] = dump_json(model)
        artifacts[paths.WORDING_DIR / f"{version}.json"] = dump_json(wording_table(model, files[version]))
        for name, text in python_modules(version, models, bundles).items():
            artifacts[paths.PYTHON_GENERATED / paths.module_name(version) / name] = text
    for name, text in latest_modules(models, bundles).items():
        artifacts[paths.PYTHON_GENERATED / "latest" / name] = text
    for name, text in package_init(models, bundles).items():
        artifacts[paths.PYTHON_GENERATED / name] = text
    spec = paths.SPEC_FILE.read_text(encoding="utf-8")
    spec = replace_generated_block(spec, "registry", markdown_table(kinds))
    spec = replace_generated_block(spec, "rules", rules_table())
    latest = models[max(models, key=paths.version_key)]
    artifacts[paths.SPEC_FILE] = replace_generated_block(spec, "budget-rules", budget_rules_table(latest))

    for generate in _extra_generators():
        artifacts.update(generate(bundles, kinds, models))
    return artifacts


def _generated_paths_on_disk() -> set[Path]:
    """Files under generated-only directories, to catch stale leftovers (e.g. of a removed version)."""
    found: set[Path] = set()
    for pattern in GENERATED_ONLY_GLOBS:
        for directory in paths.ROOT.glob(pattern):
            found |= {p for p in directory.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    return found


def _released_rewrites(artifacts: Artifacts) -> list[str]:
    """Released files (hashed in schema/lock.json) the artifacts would change: a registry edit such as an
    in-place rename reaches a released version's enum file, which no regeneration may rewrite."""
    import hashlib

    from verify_contract.diff.lock import LOCK_FILE, read_lock

    if not (paths.ROOT / LOCK_FILE).is_file():
        return []
    problems = []
    for version, files in read_lock(paths.ROOT)["versions"].items():
        for name, locked in files.items():
            path = paths.VERSIONS_DIR / version / name
            text = artifacts.get(path)
            if text is not None and "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest() != locked:
                problems.append(str(path.relative_to(paths.ROOT)))
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m generators", description=__doc__)
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if any artifact is stale")
    args = parser.parse_args(argv)
    artifacts = build_artifacts()
    released = _released_rewrites(artifacts)
    if released:
        for name in released:
            print(f"refusing to rewrite released file {name} (locked in schema/lock.json)", file=sys.stderr)
        print(
            "a released contract version never changes: undo the source edit that changes it (a registry kind "
            "renamed or removed in place: deprecate it instead, with renamed_to, and register the new id in the "
            "next version); nothing was written",
            file=sys.stderr,
        )
        return 1
    stale = sorted(
        str(path.relative_to(paths.ROOT))
        for path, text in artifacts.items()
        if not path.is_file() or path.read_text(encoding="utf-8") != text
    )
    leftovers = sorted(str(p.relative_to(paths.ROOT)) for p in _generated_paths_on_disk() - set(artifacts))
    if args.check:
        for name in stale:
            print(f"stale: {name}", file=sys.stderr)
        for name in leftovers:
            print(f"not generated (remove it): {name}", file=sys.stderr)
        if stale or leftovers:
            print("generated artifacts drifted: run `python -m generators`", file=sys.stderr)
            return 1
        print(f"{len(artifacts)} generated artifacts up to date")
        return 0
    for path, text in artifacts.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
    for name in leftovers:
        (paths.ROOT / name).unlink()
    print(f"wrote {len(stale)} of {len(artifacts)} generated artifacts; removed {len(leftovers)} stale files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
